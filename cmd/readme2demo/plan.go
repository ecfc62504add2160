package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/plan"
)

func init() {
	verbs["plan"] = verb{summary: "list the README commands the keyless markdown engine would run or skip, and why (a dry run)", run: runPlan}
}

func runPlan(_ context.Context, args []string, e env) int {
	fs := newFlagSet("plan", e)
	readmePath := fs.String("readme", pipeline.DefaultReadme, "the README to plan, relative to REPO_DIR")
	format := fs.String("format", "text", "the output format: text (for people) or json (an array of {file, line, command, run, reason, block_line, language})")
	order := fs.String("order", "", "the run order: readme (README order) or install-first (the install sections first); default: the README's order hint, else readme")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: readme2demo plan [flags] [REPO_DIR]

Reads the README of REPO_DIR (default: the current directory) and lists every
code block and every candidate command with its README line, the decision
(run or skip) and the reason in words: "other platform: Homebrew", "output or
text, not a command", "placeholder <your-token>: a value to fill in",
"clones this repository: the run starts in its checkout", a hint. Nothing is
run: this is exactly what "readme2demo run --engine markdown" would run, in
the same order. docs/engines/markdown.md documents every rule and hint.

The JSON form is an array of objects with the keys file, line, command, run,
reason, block_line and language, in run order; it is stable for scripts. A
code block with no candidate command has one entry with an empty command.

Exit status: 0 the plan runs at least one command, 1 nothing to run,
2 bad flags or no readable README.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	repo := "."
	switch fs.NArg() {
	case 0:
	case 1:
		repo = fs.Arg(0)
	default:
		fmt.Fprintln(e.stderr, "readme2demo plan: give at most one repository directory (see --help)")
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(e.stderr, "readme2demo plan: --format %q: use text or json\n", *format)
		return exitUsage
	}
	if *order != "" && !validOrder(*order) {
		fmt.Fprintf(e.stderr, "readme2demo plan: --order %q: use %s\n", *order, strings.Join(plan.Orders, " or "))
		return exitUsage
	}
	src, name, err := plan.ReadREADME(repo, *readmePath)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo plan: %v\n", err)
		return exitUsage
	}
	p := plan.Make(src, plan.Options{File: name, Repo: plan.RepoFromDir(repo, e.getenv("GITHUB_REPOSITORY")), Order: *order})
	write := plan.WriteText
	if *format == "json" {
		write = plan.WriteJSON
	}
	if err := write(e.stdout, p); err != nil {
		fmt.Fprintf(e.stderr, "readme2demo plan: write plan: %v\n", err)
		return exitFailed
	}
	if len(p.Run()) == 0 {
		return exitFailed
	}
	return exitOK
}

func validOrder(o string) bool {
	for _, v := range plan.Orders {
		if o == v {
			return true
		}
	}
	return false
}
