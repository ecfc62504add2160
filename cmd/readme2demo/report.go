package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/report"
)

// reportOptions are the report verb's flags.
type reportOptions struct {
	maxBytes             int
	readme, diff, runURL string
}

func newReportCmd(e env) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [flags] COMMAND_LOG",
		Short: "print the markdown report (job summary / PR comment) of a command_log.json",
		Long: `Prints the markdown report of a command_log.json: the outcome, engine, cost,
turns and duration (unknown shown as unknown), the FIX list, every command
with its status and exit code, and the output of the failed ones. It is the
same text the Action writes to the job summary and the PR comment.

Exit status: 0 printed, 2 unreadable or invalid command log.`,
		Args: oneArg("command log"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runReport(o, args[0], e))
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.maxBytes, "max-bytes", report.SummaryMaxBytes, fmt.Sprintf("cap the report's size (a PR comment needs %d or less)", report.CommentMaxBytes))
	f.StringVar(&o.readme, "readme", "", "the README the run followed, shown in the heading")
	f.StringVar(&o.diff, "diff", "", "a unified diff of the agent's README edits ("+pipeline.ReadmeDiffFile+" from the run) to show as a suggested fix")
	f.StringVar(&o.runURL, "run-url", "", "link to the workflow run that holds the artifact")
	return cmd
}

// openLog reads the command log at path; when it cannot, it says why on stderr as the verb.
func openLog(verb, path string, e env) (*commandlog.Log, bool) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo %s: open command log: %v\n", verb, err)
		return nil, false
	}
	defer f.Close()
	log, err := commandlog.Decode(f)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo %s: %s: %v\n", verb, path, err)
		return nil, false
	}
	return log, true
}

func runReport(o reportOptions, path string, e env) int {
	log, ok := openLog("report", path, e)
	if !ok {
		return exitcode.Usage
	}
	opts := report.Options{MaxBytes: o.maxBytes, Readme: o.readme, RunURL: o.runURL, Redact: redact.New(nil).String}
	if o.diff != "" {
		b, err := os.ReadFile(o.diff)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo report: read diff: %v\n", err)
			return exitcode.Usage
		}
		opts.ReadmeDiff = string(b)
	}
	if _, err := fmt.Fprint(e.stdout, report.Render(log, opts)); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo report: write report: %v\n", err)
		return exitcode.Failed
	}
	return exitcode.OK
}
