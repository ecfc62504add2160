package main

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/repofs"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// planOptions are the plan verb's flags.
type planOptions struct {
	readme, format, order string
	hints                 bool
}

func newPlanCmd(e env) *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan [flags] [REPO_DIR]",
		Short: "list the README commands the keyless markdown engine would run or skip, and why (a dry run)",
		Long: `Reads the README of REPO_DIR (default: the current directory) and lists every
code block and every candidate command with its README line, the decision
(run or skip) and the reason in words: "other platform: Homebrew", "output or
text, not a command", "placeholder <your-token>: a value to fill in",
"clones this repository: the run starts in its checkout", a hint. Nothing is
run: this is exactly what "readme2demo run --engine markdown" would run, in
the same order. docs/engines/markdown.md documents every rule and hint.

A line that runs is a step (the README clearly means it to be run: a failing
step fails the run) or a probe (run on a guess: a failing probe is reported
and never fails the run). --hints adds to each decision the hint comment
that flips it and where it goes (above the decision's code block).

The JSON form is an array of objects with the keys file, line, command, run,
reason, block_line, language, kind (what was decided, as a word: command,
output, placeholder, other-platform, …) and, on lines that run, planned
(step or probe), in run order; it is stable for scripts. With --hints each
object also has hint: {comment, effect}. A code block with no candidate
command has one entry with an empty command.

Exit status: 0 the plan runs at least one command, 1 nothing to run,
2 bad flags or no readable README.`,
		Args: atMostOneRepo,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo := "."
			if len(args) == 1 {
				repo = args[0]
			}
			return exitWith(runPlan(o, repo, e))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.readme, "readme", pipeline.DefaultReadme, "the README to plan, relative to REPO_DIR: a regular file inside the repository (not a symlink leading out of it, not a hard link), at most "+repofs.Size(pipeline.MaxReadmeBytes)+"; by default the README GitHub shows on the repository's page: in .github, then REPO_DIR itself, then docs, README.md or else readme.md, Readme.md, README.markdown, README, README.rst or README.adoc (reStructuredText and AsciiDoc READMEs are read in their own format)")
	f.StringVar(&o.format, "format", "text", "the output format: text (for people) or json (an array of {file, line, command, run, reason, block_line, language, kind, planned})")
	f.BoolVar(&o.hints, "hints", false, "print, for each decision, the hint comment that flips it (run, skip, file=PATH) and where to put it")
	f.StringVar(&o.order, "order", "", "the run order: readme (README order) or install-first (the install sections first); default: the README's order hint, else readme, or install-first when a command uses a program that only a later install section installs")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("order", cobra.FixedCompletions(plan.Orders, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runPlan(o planOptions, repo string, e env) int {
	if o.format != "text" && o.format != "json" {
		fmt.Fprintf(e.stderr, "readme2demo plan: --format %q: use text or json\n", o.format)
		return exitcode.Usage
	}
	if o.order != "" && !slices.Contains(plan.Orders, o.order) {
		fmt.Fprintf(e.stderr, "readme2demo plan: --order %q: use %s\n", o.order, strings.Join(plan.Orders, " or "))
		return exitcode.Usage
	}
	if o.readme == pipeline.DefaultReadme {
		o.readme = pipeline.DefaultReadmeIn(repo) // readme.md, Readme.md, … when there is no README.md
	}
	src, err := pipeline.ReadReadme(repo, o.readme)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo plan: %v\n", err)
		return exitcode.Usage
	}
	name := path.Clean(filepath.ToSlash(o.readme))
	p := plan.Make(src, plan.Options{File: name, Repo: plan.RepoFromDir(repo, e.getenv("GITHUB_REPOSITORY")), Order: o.order})
	// The text form quotes README lines to a terminal: control and hidden
	// characters are drawn visibly (the JSON form escapes what JSON
	// escapes; it is data, not for reading).
	write := func(w io.Writer, p *plan.Plan, o plan.WriteOptions) error {
		return plan.WriteText(termtext.NewWriter(w), p, o)
	}
	if o.format == "json" {
		write = plan.WriteJSON
	}
	if err := write(e.stdout, p, plan.WriteOptions{Hints: o.hints}); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo plan: write plan: %v\n", err)
		return exitcode.Failed
	}
	if len(p.Run()) == 0 {
		return exitcode.Failed
	}
	return exitcode.OK
}
