package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// parseOptions are the parse verb's flags.
type parseOptions struct {
	engine, out string
}

func newParseCmd(e env) *cobra.Command {
	var o parseOptions
	cmd := &cobra.Command{
		Use:   "parse [flags] TRANSCRIPT",
		Short: "turn an agent transcript into command_log.json (re-parse an artifact after a parser fix)",
		Long: `Parses a raw agent transcript (for example the transcript.jsonl artifact of a
run) into command_log.json, schema v1, and prints it. Parsing is tolerant:
malformed or unknown records are counted in parse_stats, not fatal. Known
secret shapes are redacted from the output.

Exit status: 0 parsed, 2 unknown engine or unreadable file.`,
		Args: oneArg("transcript file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runParse(o, args[0], e))
		},
	}
	addEngineFlag(cmd, &o.engine, engines.ClaudeCodeName, "the engine that wrote the transcript: "+strings.Join(engines.Names(), ", "))
	addOutFlag(cmd, &o.out, "", "write the command log to this file instead of standard output")
	return cmd
}

func runParse(o parseOptions, path string, e env) int {
	eng, err := engines.Lookup(o.engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitcode.Usage
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: open transcript: %v\n", err)
		return exitcode.Usage
	}
	defer f.Close()
	log, err := eng.ParseTranscript(f)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %s: %v\n", path, err)
		return exitcode.Usage
	}
	redact.Log(log, redact.New(nil))
	if err := commandlog.Validate(log); err != nil {
		// A parser bug, not the user's: say so, but still print what we have.
		fmt.Fprintf(e.stderr, "readme2demo parse: warning: %v\n", err)
	}
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, log); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: %v\n", err)
		return exitcode.Failed
	}
	if o.out == "" {
		_, err = e.stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(o.out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo parse: write command log: %v\n", err)
		return exitcode.Failed
	}
	return exitcode.OK
}
