package pipeline_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// bombRSSLimit is the peak RSS `readme2demo run` may reach, whatever the
// size of the README a command writes.
const bombRSSLimit = 96 << 20

// buildCLI builds cmd/readme2demo into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "readme2demo")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/readme2demo/readme2demo/cmd/readme2demo")
	b, err := cmd.CombinedOutput()
	assert.NilError(t, err, "go build: %s", b)
	return bin
}

// runCLI runs the binary and returns its exit code, stderr and peak RSS.
//
// The peak is measured by a fresh, small process: this test binary started
// again with peakRSSFileEnv set (see runReportingPeakRSS). A child's peak RSS
// includes the high-water mark of the memory it was forked from (the kernel
// takes the old memory's mark at exec, and Go starts children sharing the
// parent's memory), so a child of this test process would report at least
// this process's own peak: 245 MiB once the package's other tests had run
// (seen with -count=5), whatever the CLI itself used.
func runCLI(t *testing.T, bin string, args ...string) (int, string, int64) {
	t.Helper()
	self, err := os.Executable()
	assert.NilError(t, err)
	rssFile := filepath.Join(t.TempDir(), "peak-rss")
	cmd := exec.Command(self, append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), "R2D_IMAGE="+sandboxtest.Image(), peakRSSFileEnv+"="+rssFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err = cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		assert.Assert(t, ok, "run %s: %v", bin, err)
		code = ee.ExitCode()
	}
	b, err := os.ReadFile(rssFile)
	assert.NilError(t, err, "the peak RSS of %s was not reported:\n%s", bin, stderr.String())
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	assert.NilError(t, err)
	return code, stderr.String(), kib << 10
}

// peakRSSFileEnv names the file where this test binary, started by runCLI,
// writes the peak RSS (KiB) of the command it runs.
const peakRSSFileEnv = "R2D_TEST_PEAK_RSS_FILE"

// runReportingPeakRSS runs args with this process's stdio, writes the
// command's peak RSS in KiB to out, and returns its exit status.
func runReportingPeakRSS(out string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "peak RSS: no command")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, peakRSSFileEnv+"=") })
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "peak RSS:", err)
		return 2
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if werr := os.WriteFile(out, []byte(strconv.FormatInt(ru.Maxrss, 10)), 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, "peak RSS:", werr)
		return 2
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
}

// 6. A README written large by a command (here 8 MiB and 48 MiB of short
// lines, the worst case for a line diff) does not exhaust host memory:
// peak RSS of `readme2demo run` stays under one limit whatever the size,
// the run completes and says the README changed too much to diff. A
// README that is already too large in the repository is refused up front.
func TestHostileReadmeBombMemoryIsBounded(t *testing.T) {
	sandboxtest.Docker(t)
	bin := buildCLI(t)
	for _, size := range []string{"8M", "48M"} {
		t.Run("written "+size, func(t *testing.T) {
			repo := writeRepo(t, "# Bomb\n\n```bash\n"+
				"yes 'readme2demo bomb line' | head -c "+size+" > README.md\n"+
				"wc -c README.md\n"+
				"```\n")
			out := filepath.Join(t.TempDir(), "out")
			start := time.Now()
			code, stderr, rss := runCLI(t, bin, "run", "--engine", "markdown", "--network", "none", "--timeout", "3m", "--out", out, repo)
			t.Logf("exit %d after %s, peak RSS %d MiB\n%s", code, time.Since(start).Round(time.Second), rss>>20, tail(stderr, 3000))
			assert.Check(t, is.Equal(code, 0))
			assert.Check(t, rss < bombRSSLimit, "peak RSS %d MiB, limit %d MiB", rss>>20, bombRSSLimit>>20)
			diff, err := os.ReadFile(filepath.Join(out, "readme.diff"))
			assert.NilError(t, err)
			assert.Check(t, len(diff) < 4096, "readme.diff is %d bytes", len(diff))
			assert.Check(t, is.Contains(string(diff), "changed too much to diff"))
			report, err := os.ReadFile(filepath.Join(out, "report.md"))
			assert.NilError(t, err)
			assert.Check(t, is.Contains(string(report), "changed too much to diff"))
		})
	}
	t.Run("already large in the repository", func(t *testing.T) {
		repo := t.TempDir()
		// Written line by line: the test need not hold the README itself.
		f, err := os.Create(filepath.Join(repo, "README.md"))
		assert.NilError(t, err)
		w := bufio.NewWriter(f)
		line := []byte("# big readme line\n")
		for i := 0; i < (64<<20)/len(line); i++ {
			_, err = w.Write(line)
			assert.NilError(t, err)
		}
		assert.NilError(t, w.Flush())
		assert.NilError(t, f.Close())
		debug.FreeOSMemory()
		code, stderr, rss := runCLI(t, bin, "run", "--engine", "markdown", "--network", "none", "--out", filepath.Join(t.TempDir(), "out"), repo)
		t.Logf("exit %d, peak RSS %d MiB\n%s", code, rss>>20, tail(stderr, 2000))
		assert.Check(t, is.Equal(code, 2), "a configuration error")
		assert.Check(t, is.Contains(stderr, "README.md"))
		assert.Check(t, is.Contains(stderr, "larger than"))
		assert.Check(t, rss < bombRSSLimit, "peak RSS %d MiB", rss>>20)
	})
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("…%s", s[len(s)-n:])
}
