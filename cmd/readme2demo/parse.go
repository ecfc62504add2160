package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
)

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

Exit status: 0 parsed, 2 unknown engine or unreadable file.

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
	log, err := eng.ParseTranscript(f)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %s: %v\n", path, err)
		return exitUsage
	}
	redact.Log(log, redact.New(nil))
	if err := commandlog.Validate(log); err != nil {
		// A parser bug, not the user's: say so, but still print what we have.
		fmt.Fprintf(e.stderr, "readme2demo parse: warning: %v\n", err)
	}
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, log); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitFailed
	}
	if *out == "" {
		_, err = e.stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: write command log: %v\n", err)
		return exitFailed
	}
	return exitOK
}
