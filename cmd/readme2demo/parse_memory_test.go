package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/longtest"
	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

// Peak RSS of `readme2demo parse` under 128 MiB on any transcript up to
// 1 GiB, the whole command_log.json written (issue 21).
//
// Each case writes a transcript to a file and runs the real CLI on it — this
// test binary re-executed as readme2demo (main, with its memory settings) —
// reading its output as it comes: every command must be in the log, and the
// log must end. The child's peak RSS comes from getrusage.
//
// It is a long test (internal/longtest: R2D_LONG_TESTS=1, which .ci/run
// sets, or CI=true); every case runs, at 1 GiB (256 MiB for single lines): millions of commands for every engine,
// huge lines, huge outputs, and each real transcript shape (a few
// minutes). R2D_MEMTEST_SCALE=0.25 shrinks every size for a quick look.

const (
	parseMemLimit = 128 << 20
	parseMainEnv  = "R2D_PARSE_MAIN" // the child: run main with these arguments
)

type parseMemCase struct {
	engine, shape string // a transcriptgen shape or synthetic shape
	fixture       string // or a transcript to repeat, from the repository's root
	size          int64
	exit          int  // the exit status expected
	runs          bool // a file of several runs: the logs come as one JSON array
}

func parseMemCases() []parseMemCase {
	var cases []parseMemCase
	for _, s := range transcriptgen.Synthetic {
		c := parseMemCase{engine: transcriptgen.SyntheticEngine(s), shape: s, size: 1 << 30}
		if strings.HasSuffix(s, "-line") {
			c.size = 256 << 20
		}
		cases = append(cases, c)
	}
	for _, name := range []string{engines.CodexName, engines.GeminiName, engines.OpenHandsName, engines.MarkdownName} {
		// a line no engine knows: refused (exit 4), in bounded memory
		cases = append(cases, parseMemCase{engine: name, shape: "foreign-line", size: 256 << 20})
	}
	for i := range cases {
		if cases[i].shape == "foreign-line" {
			cases[i].exit = 4
		}
	}
	for _, s := range transcriptgen.Shapes {
		cases = append(cases, parseMemCase{engine: s.Engine, shape: s.Name, size: 1 << 30, runs: s.Runs})
	}
	// Evaluation output of many small runs (12 KB each: about 87,000 in
	// 1 GiB), whose logs once all stayed in memory.
	cases = append(cases, parseMemCase{engine: engines.OpenHandsName, shape: "small-runs",
		fixture: "testdata/fixtures/openhands/eval-two-instances.history.jsonl", size: 1 << 30, runs: true})
	return cases
}

func TestParseBoundedMemory(t *testing.T) {
	if args := os.Getenv(parseMainEnv); args != "" {
		os.Args = append([]string{os.Args[0]}, strings.Split(args, "\x1f")...)
		main()
		return
	}
	longtest.Require(t) // generates and parses a GiB per engine and shape
	scale := 1.0
	if s := os.Getenv("R2D_MEMTEST_SCALE"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		assert.NilError(t, err, "R2D_MEMTEST_SCALE")
		scale = f
	}
	for _, c := range parseMemCases() {
		c.size = int64(float64(c.size) * scale)
		t.Run(c.engine+"/"+c.shape, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "transcript.jsonl")
			want, err := writeMemTranscript(path, c)
			assert.NilError(t, err)
			start := time.Now()
			cmd := exec.Command(os.Args[0], "-test.run=^TestParseBoundedMemory$")
			cmd.Env = append(os.Environ(), parseMainEnv+"="+strings.Join([]string{"parse", "--engine", c.engine, path}, "\x1f"),
				"TMPDIR="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			assert.NilError(t, err)
			assert.NilError(t, cmd.Start())
			got, tail, n := countCommands(out)
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				assert.NilError(t, err)
			}
			assert.Equal(t, code, c.exit, "exit status; stderr:\n%s", stderr.String())
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			assert.Assert(t, ok, "no rusage on %s", runtime.GOOS)
			peak := ru.Maxrss * 1024 // KiB on Linux
			t.Logf("%s %s, %d MiB: %d commands, %d MiB of log in %s, peak RSS %d MiB",
				c.engine, c.shape, c.size>>20, got, n>>20, time.Since(start).Round(time.Millisecond), peak>>20)
			if c.exit == 0 {
				assert.Equal(t, got, want, "commands in the log")
				end := "}\n"
				if c.runs {
					end = "]\n" // the array of the runs' logs
				}
				assert.Equal(t, tail, end, "the log ends")
			}
			assert.Assert(t, peak < parseMemLimit, "peak RSS %d MiB ≥ %d MiB", peak>>20, parseMemLimit>>20)
		})
	}
}

// writeMemTranscript writes a case's transcript and returns how many
// commands it holds.
func writeMemTranscript(path string, c parseMemCase) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var commands int64
	var fixture []byte
	if c.fixture != "" {
		fixture, err = os.ReadFile(filepath.Join("..", "..", c.fixture))
	} else if s, serr := transcriptgen.ShapeNamed(c.shape); serr == nil {
		fixture, err = s.Fixture(filepath.Join("..", ".."))
	}
	if err != nil {
		return 0, err
	}
	if fixture != nil {
		eng, err := engines.Lookup(c.engine)
		if err != nil {
			return 0, err
		}
		one, err := eng.ParseTranscript(bytes.NewReader(fixture))
		if err != nil {
			return 0, err
		}
		g := transcriptgen.New(fixture)
		if _, err := g.WriteSize(w, c.size); err != nil {
			return 0, err
		}
		commands = int64(g.Copies() * len(one.Commands))
	} else if commands, err = transcriptgen.WriteSynthetic(w, c.shape, c.size); err != nil {
		return 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return commands, f.Close()
}

// countCommands reads a command log as it is written: the commands in it
// (status lines), its last two bytes and its size.
func countCommands(r io.Reader) (commands int64, tail string, n int64) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if bytes.HasPrefix(line, []byte(`      "status": `)) {
			commands++
		}
		if len(line) > 0 {
			tail = string(line[max(0, len(line)-2):])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return commands, tail, n
		}
	}
}
