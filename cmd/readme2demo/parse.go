package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// parseMemoryLimit keeps the streaming parse's heap small: its live data is
// bounded (a few MiB of parser state), so collecting sooner costs little and
// keeps the peak RSS well under 128 MiB (docs/benchmarks.md).
const parseMemoryLimit = 80 << 20

func init() {
	verbs["parse"] = verb{summary: "turn an agent transcript into command_log.json (re-parse an artifact after a parser fix)", run: runParse}
}

func runParse(_ context.Context, args []string, e env) int {
	fs := newFlagSet("parse", e)
	engine := fs.String("engine", engines.ClaudeCodeName, "the engine that wrote the transcript: "+strings.Join(engines.Names(), ", "))
	out := fs.String("o", "", "write the command log to this file instead of standard output")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: readme2demo parse [--engine E] [-o OUT] TRANSCRIPT

Parses a raw agent transcript (for example the transcript.jsonl artifact of a
run) into command_log.json, schema v1, and prints it. Parsing is tolerant:
malformed or unknown records are counted in parse_stats, not fatal. Known
secret shapes are redacted from the output.

Memory stays bounded whatever the transcript's size: commands are written to
temporary files in $TMPDIR as they complete (about the size of the log, removed
at the end), and the log is printed once the transcript is read; with -o the
file is replaced only by a complete log.

Exit status: 0 parsed, 1 the log could not be written (output or temporary
files), 2 unknown engine or unreadable transcript.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "readme2demo parse: give exactly one transcript file (see --help)")
		return exitUsage
	}
	eng, err := engines.Lookup(*engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitUsage
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: open transcript: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	// The log is streamed: commands go to a spill file as they complete, so
	// memory stays bounded whatever the transcript's size (internal/logstream).
	debug.SetMemoryLimit(parseMemoryLimit)
	red := redact.New(nil)
	w, invalid, err := logstream.Parse(eng, f, logstream.Options{Redact: func(l *commandlog.Log) { redact.Log(l, red) }})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %s: %v\n", path, err)
		var spill *logstream.SpillError
		if errors.As(err, &spill) {
			return exitFailed
		}
		return exitUsage
	}
	defer w.Close()
	if invalid != nil {
		// A parser bug, not the user's: say so, but still print what we have.
		fmt.Fprintf(e.stderr, "readme2demo parse: warning: %v\n", invalid)
	}
	if *out == "" {
		_, err = w.WriteTo(e.stdout)
	} else {
		err = w.WriteFile(*out)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitFailed
	}
	return exitOK
}
