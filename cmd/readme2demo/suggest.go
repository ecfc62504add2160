package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/repofs"
	"github.com/readme2demo/readme2demo/internal/suggest"
)

// suggestOptions are the suggest verb's flags.
type suggestOptions struct {
	out, prDiff, readme, format string
}

func newSuggestCmd(e env) *cobra.Command {
	var o suggestOptions
	cmd := &cobra.Command{
		Use:   "suggest --out DIR [flags] [REPO_DIR]",
		Short: "turn a run's README edit into the suggested changes readme2demo posts on a pull request",
		Long: `Reads a run's output directory (its command_log.json and readme.diff), the
README as the pull request's head has it (in REPO_DIR, default the current
directory) and, for a pull request, its unified diff (--pr-diff, for example
from "gh pr diff"), and prints the review readme2demo would post. Nothing is
posted and nothing is fetched.

Each change of the agent's README edit that lies inside the pull request's
diff becomes a comment with a suggestion block (GitHub's "Commit suggestion")
and the FIX text that explains it; every other change (no --pr-diff, lines the
pull request does not change, a change whose lines the head no longer has or
has twice) is a patch that "git apply" takes, with the reason. Changes are
placed by content, not only by line number: the README the run followed may
be the merge commit's.

The JSON form is stable for scripts:
  {"comments": [{"path", "line", "start_line" (several lines), "side": "RIGHT", "body"}],
   "outside_diff": [{"path", "start_line", "end_line", "patch", "kind", "reason"}],
   "markers": [{"kind": "FIX", "text"}]}

Exit status: 0 printed (also when the run made no README edit), 2 bad flags
or unreadable input.`,
		Args: atMostOneRepo,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo := "."
			if len(args) == 1 {
				repo = args[0]
			}
			return exitWith(runSuggest(o, repo, e))
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "the run's output directory, holding "+pipeline.CommandLogFile+" and "+pipeline.ReadmeDiffFile+" (required)")
	f.StringVar(&o.prDiff, "pr-diff", "", "the pull request's unified diff; without it every change is a patch")
	f.StringVar(&o.readme, "readme", pipeline.DefaultReadme, "the README, relative to REPO_DIR, as the pull request's head has it")
	f.StringVar(&o.format, "format", "json", "the output format: json (stable, for scripts) or markdown (for people)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"json", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runSuggest(o suggestOptions, repo string, e env) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "readme2demo suggest: "+format+"\n", a...)
		return exitcode.Usage
	}
	if o.out == "" {
		return fail("--out: give the run's output directory")
	}
	if o.format != "json" && o.format != "markdown" {
		return fail("--format %q: use json or markdown", o.format)
	}
	if o.readme == pipeline.DefaultReadme {
		o.readme = pipeline.DefaultReadmeIn(repo)
	}
	head, err := pipeline.ReadReadme(repo, o.readme)
	if err != nil {
		return fail("%v", err)
	}
	log, ok := openLog("suggest", filepath.Join(o.out, pipeline.CommandLogFile), e)
	if !ok {
		return exitcode.Usage
	}
	diff, err := repofs.ReadFile(o.out, pipeline.ReadmeDiffFile, pipeline.MaxReadmeBytes)
	var re *repofs.Error
	switch {
	case errors.As(err, &re) && re.Reason == "not found", errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(e.stderr, "readme2demo suggest: %s has no %s: the run made no README edit\n", o.out, pipeline.ReadmeDiffFile)
		diff = nil
	case err != nil:
		return fail("read %s: %v", pipeline.ReadmeDiffFile, err)
	case strings.HasPrefix(string(diff), "#"):
		fmt.Fprintf(e.stderr, "readme2demo suggest: %s", diff) // the pipeline's note: changed too much to diff
		diff = nil
	}
	in := suggest.Input{Readme: path.Clean(filepath.ToSlash(o.readme)), ReadmeDiff: diff, Head: head, Log: log, Redact: redact.New(nil).String}
	if o.prDiff != "" {
		b, err := os.ReadFile(o.prDiff)
		if err != nil {
			return fail("read pull request diff: %v", err)
		}
		in.PRDiff = b
		if in.PRDiff == nil {
			in.PRDiff = []byte{}
		}
	}
	rv, err := suggest.Compute(in)
	if err != nil {
		return fail("%v", err)
	}
	if o.format == "markdown" {
		_, err = fmt.Fprint(e.stdout, rv.Markdown())
	} else {
		err = rv.WriteJSON(e.stdout)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo suggest: %v\n", err)
		return exitcode.Failed
	}
	return exitcode.OK
}
