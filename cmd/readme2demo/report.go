package main

import (
	"context"
	"fmt"
	"os"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/report"
)

func init() {
	verbs["report"] = verb{summary: "print the markdown report (job summary / PR comment) of a command_log.json", run: runReport}
}

func runReport(_ context.Context, args []string, e env) int {
	fs := newFlagSet("report", e)
	maxBytes := fs.Int("max-bytes", report.SummaryMaxBytes, fmt.Sprintf("cap the report's size (a PR comment needs %d or less)", report.CommentMaxBytes))
	readme := fs.String("readme", "", "the README the run followed, shown in the heading")
	diff := fs.String("diff", "", "a unified diff of the agent's README edits (readme.diff from the run) to show as a suggested fix")
	runURL := fs.String("run-url", "", "link to the workflow run that holds the artifact")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: readme2demo report [flags] COMMAND_LOG

Prints the markdown report of a command_log.json: the outcome, engine, cost,
turns and duration (unknown shown as unknown), the FIX list, every command
with its status and exit code, and the output of the failed ones. It is the
same text the Action writes to the job summary and the PR comment.

Exit status: 0 printed, 2 unreadable or invalid command log.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "readme2demo report: give exactly one command log (see --help)")
		return exitUsage
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo report: open command log: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	log, err := commandlog.Decode(f)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo report: %s: %v\n", fs.Arg(0), err)
		return exitUsage
	}
	opts := report.Options{MaxBytes: *maxBytes, Readme: *readme, RunURL: *runURL, Redact: redact.New(nil).String}
	if *diff != "" {
		b, err := os.ReadFile(*diff)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo report: read diff: %v\n", err)
			return exitUsage
		}
		opts.ReadmeDiff = string(b)
	}
	if _, err := fmt.Fprint(e.stdout, report.Render(log, opts)); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo report: write report: %v\n", err)
		return exitFailed
	}
	return exitOK
}
