package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/transcript"
)

// parseOptions are the parse verb's flags.
type parseOptions struct {
	engine, out, instance, session string
	force                          bool
}

func newParseCmd(e env) *cobra.Command {
	var o parseOptions
	cmd := &cobra.Command{
		Use:   "parse [flags] TRANSCRIPT",
		Short: "turn an agent transcript into command_log.json (re-parse an artifact, or read a session file an agent CLI left)",
		Long: `Parses a transcript an agent CLI wrote (for example the transcript.jsonl
artifact of a run) into command_log.json, schema v1. Known secret shapes are
redacted. TRANSCRIPT is a file, or a directory whose files are read as one
in natural order of their names (page-2 before page-10), as when OpenHands
event pages were saved one file per page.

Formats read:
  claude-code  stream-json (-p --output-format stream-json --verbose), the
               same stream saved as a JSON array (claude-code-action), the
               session files under ~/.claude/projects/
  codex        exec --json (thread events; --experimental-json 0.41-0.43; the
               legacy {"id","msg"} stream), and the session rollouts under
               ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl of every
               generation (and the TypeScript CLI's session JSON)
  gemini       stream-json and --output-format json, and the chat session
               files under ~/.gemini/tmp/<project>/chats/session-*.json(l)
  openhands    V0 and V1 events as JSONL, JSON arrays, {"events"} and
               {"trajectory"} wrappers, the CLI's --JSON Event-- output, V1
               event search pages ({"items": [...], "next_page_id"}: one page,
               pages one after another, a JSON array of pages, a directory of
               page files), evaluation/resolver output (one run per line)
  markdown, replay
               readme2demo's own runner transcripts

Auto-detection (the default, --engine auto) tells the engine and format from
the content, never the file name, and says on stderr what it found. Records
that match several engines about equally are an error naming them: pass
--engine.

A transcript the engine does not understand is refused, not turned into an
empty log: when no record was recognised, or more than half were unknown or
malformed, parse prints "TRANSCRIPT does not look like a <engine>
transcript: N of M records understood; it looks like <what>", writes no log
unless --force is given, and exits 4. Malformed or unknown records in a
transcript that is otherwise understood are counted in parse_stats.

A file holding several runs (OpenHands evaluation output, one instance per
line) gives one log per run: --instance ID keeps one; -o DIR/ (an existing
directory, or a path ending in /) writes one DIR/<ID>.json per run; otherwise
the runs go to standard output (or the -o file) as one JSON array of
{"instance": ID, "command_log": {...}}, in the file's order, and stderr names
the runs (the first ten, and how many more). Cost, turns and duration are each run's own, never spanning runs.

--session FILE merges a Gemini CLI chat session file of the same run into
the log: its exact exit codes, by tool call id (readme2demo run keeps it as
session.jsonl beside the transcript).

Memory stays bounded whatever the transcript's size: the commands of a run
are written to temporary files in $TMPDIR as they complete (about the size of
the log, removed at the end), and so is each run's log of an evaluation
file; the output is written once the transcript is read; with -o the file is
replaced only by a complete log. A run merged with --session is held in
memory.

Exit status: 0 parsed; 1 the log could not be written (output, or temporary
files: set TMPDIR); 2 bad flags, unknown engine, unreadable file, engines
that match equally, an --instance the file does not hold; 4 the transcript was not understood (the log is written only
with --force, and the status is still 4).
`,
		Args: oneArg("transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runParse(o, args[0], e))
		},
	}
	addEngineFlag(cmd, &o.engine, transcript.Auto, "the engine that wrote the transcript: auto (detect it from the content), "+strings.Join(engines.Names(), ", "))
	addOutFlag(cmd, &o.out, "", "write the command log to this file instead of standard output (for a file of several runs: a directory, or a path ending in /, gets one log per run; a file gets them as one JSON array)")
	cmd.Flags().StringVar(&o.instance, "instance", "", "the run to parse, for a file holding several (OpenHands evaluation output: the instance_id)")
	cmd.Flags().StringVar(&o.session, "session", "", "a Gemini CLI chat session `file` of the same run to merge (exact exit codes)")
	cmd.Flags().BoolVar(&o.force, "force", false, "write the command log even when the transcript was not understood (the exit status stays 4)")
	return cmd
}

// parseMemoryLimit keeps the streaming parse's heap small: its live data is
// bounded (a few MiB of parser state), so collecting sooner costs little and
// keeps the peak RSS well under 128 MiB (docs/benchmarks.md).
const parseMemoryLimit = 80 << 20

func runParse(o parseOptions, path string, e env) int {
	// A transcript of one run is streamed: commands go to temporary files as
	// they complete, so memory stays bounded whatever its size.
	debug.SetMemoryLimit(parseMemoryLimit)
	if p := e.getenv("R2D_CPUPROFILE"); p != "" { // docs/benchmarks.md
		stop, err := startCPUProfile(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
			return exitcode.Usage
		}
		defer stop()
	}
	res, w, err := transcript.Stream(path, transcript.Options{Engine: o.engine, Instance: o.instance, Session: o.session}, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		var spill *logstream.SpillError
		if errors.As(err, &spill) {
			return exitcode.Failed
		}
		return exitcode.Usage
	}
	if w != nil {
		defer w.Close()
	}
	if res.Runs != nil {
		defer res.Runs.Close()
	}
	if res.Detected != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %s: detected %s\n", path, res.Detected)
	}
	for _, w := range res.Warnings {
		// A parser bug, not the user's: say so, but still print what we have.
		fmt.Fprintf(e.stderr, "readme2demo parse: warning: %s\n", w)
	}
	code := exitcode.OK
	if res.NotUnderstood != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", res.NotUnderstood)
		code = exitcode.NotUnderstood
		switch {
		case len(res.Logs) == 0 && w == nil && res.Runs == nil:
			fmt.Fprintln(e.stderr, "readme2demo parse: no command log written: name the engine with --engine (and --force) to parse it anyway")
			return code
		case !o.force:
			fmt.Fprintln(e.stderr, "readme2demo parse: no command log written (pass --force to write it anyway)")
			return code
		}
	}
	if w != nil {
		if o.out == "" {
			_, err = w.WriteTo(e.stdout)
		} else {
			err = w.WriteFile(o.out)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
			return exitcode.Failed
		}
		return code
	}
	if res.Runs != nil {
		return writeRuns(e, path, o.out, res, code)
	}
	if err := writeLog(e, o.out, res.Logs[0].Log); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitcode.Failed
	}
	return code
}

func writeLog(e env, out string, l *commandlog.Log) error {
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, l); err != nil {
		return err
	}
	if err := writeOut(e, out, buf.Bytes()); err != nil {
		return fmt.Errorf("write command log: %w", err)
	}
	return nil
}

// writeOut writes b to standard output when out is "", else to the file out.
func writeOut(e env, out string, b []byte) error {
	if out == "" {
		_, err := e.stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// isDirTarget reports whether -o names a directory: an existing one, or a
// path ending with a slash.
func isDirTarget(out string) bool {
	if out == "" {
		return false
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return true
	}
	st, err := os.Stat(out)
	return err == nil && st.IsDir()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeRuns writes the runs of a file of several: one log for a file of
// one run; else one JSON array of {"instance", "command_log"} to standard
// output or the -o file (replaced only by a complete array), or one file
// per run, <ID>.json, into the -o directory.
func writeRuns(e env, path, out string, res *transcript.Result, code int) int {
	runs := res.Runs
	var err error
	switch {
	case runs.Len() == 1:
		if err = runs.Each(func(_ string, log []byte) error { return writeOut(e, out, log) }); err != nil {
			err = fmt.Errorf("write command log: %w", err)
		}
	case isDirTarget(out):
		if err = writeRunLogs(out, runs); err == nil {
			fmt.Fprintf(e.stderr, "readme2demo parse: wrote %d command logs (one per run) to %s\n", runs.Len(), out)
		}
	default:
		if out == "" {
			err = runs.WriteArray(e.stdout)
		} else {
			err = logstream.ReplaceFile(out, runs.WriteArray)
		}
		if err != nil {
			err = fmt.Errorf("write command logs: %w", err)
		} else {
			fmt.Fprintf(e.stderr, "readme2demo parse: %s holds %d runs (evaluation output): wrote them as one JSON array of {\"instance\", \"command_log\"}; --instance ID writes one run's command log, -o DIR/ one file per run; runs: %s\n",
				path, runs.Len(), transcript.ListIDs(res.IDs()))
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitcode.Failed
	}
	return code
}

// writeRunLogs writes one command log per run into dir, as <ID>.json (the
// events outside any run as trajectory.json; a name taken already gets
// -2, -3, …).
func writeRunLogs(dir string, runs *transcript.Runs) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	seen := map[string]bool{}
	return runs.Each(func(id string, log []byte) error {
		name := strings.Trim(unsafeName.ReplaceAllString(id, "_"), "._")
		if name == "" {
			name = "trajectory"
		}
		for base, n := name, 2; seen[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		seen[name] = true
		if err := os.WriteFile(filepath.Join(dir, name+".json"), log, 0o644); err != nil {
			return fmt.Errorf("write command log: %w", err)
		}
		return nil
	})
}

// startCPUProfile writes a CPU profile of the parse to path
// (R2D_CPUPROFILE), for `go tool pprof`.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
