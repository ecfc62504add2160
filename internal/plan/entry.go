package plan

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/shell"
)

// The plan's entries and how the runner runs them.

// Entry is one candidate of the plan: a command to run or skip, or a code
// block with no command to run. Its JSON form is stable:
//
//	{"file", "line", "command", "run", "reason", "block_line", "language", "kind", "planned"}
//
// with "planned" only on entries that run.
type Entry struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	Run     bool   `json:"run"`
	Reason  string `json:"reason"`
	// BlockLine is the README line of the block's first content line.
	BlockLine int `json:"block_line"`
	// Language is the block's language as written in lower case, "" for an
	// unlabelled or indented block.
	Language string `json:"language"`
	// Kind is what the plan decided, as a type (Kind); Run follows from it.
	Kind Kind `json:"kind"`
	// Planned says, for an entry that runs, whether the README clearly
	// means it to be run (a step: its failure fails the run) or the plan
	// runs it on a guess (a probe: its failure is reported, never the
	// verdict); "" for an entry that does not run.
	Planned Planned `json:"planned,omitempty"`

	// EndLine is the last README line of the command.
	EndLine int `json:"-"`
	// Step says how to run a run entry.
	Step Step `json:"-"`
	// cause is what later rules look back at (Decision.cause).
	cause cause
}

// Planned is how sure the plan is that a run entry is meant to be run.
type Planned string

// The two ways an entry runs.
const (
	PlannedStep  Planned = "step"
	PlannedProbe Planned = "probe"
)

// sessionCommands only prepare the shell session: they set variables,
// aliases, options or the directory, or make one.
var sessionCommands = toSet(`export alias unalias cd pushd popd set shopt unset umask source . mkdir true :`)

// setsGitConfig reports `git config` setting a value (`git config --global
// alias.cf 'forgit checkout_file'`), which prepares the session as `alias`
// does; reading one (--get, --list) is a check.
func setsGitConfig(s simple) bool {
	args := s.args()
	return s.name() == "git" && len(args) > 0 && args[0] == "config" &&
		!slices.ContainsFunc(args, func(a string) bool { return a == "-l" || strings.HasPrefix(a, "--get") || a == "--list" })
}

// Prepares reports an entry that only prepares the session: shell set-up,
// a file written, a clone linked to the checkout, or a command line of
// nothing but variables, aliases, options, directories and sourced files.
// Its passing checks nothing of the README (the runner's verdict does not
// count it as a step that was checked).
func (e Entry) Prepares() bool {
	switch e.Kind {
	case KindShellSetup, KindWriteFile, KindLinkClone:
		return true
	case KindCommand:
		if isDefinition(e.command()) {
			return true // a function (or alias, or variable) defined checks nothing
		}
		ss := simples(lex(e.command()))
		for _, s := range ss {
			if n := s.name(); n != "" && !sessionCommands[n] && !setsGitConfig(s) {
				return false
			}
		}
		return len(ss) > 0
	}
	return false
}

// setDecision records a decision on the entry.
func (e *Entry) setDecision(d Decision) {
	e.Kind, e.Reason, e.Run, e.cause = d.Kind, d.Reason, d.Kind.Runs(), d.cause
}

// Step is how the runner runs one entry.
type Step struct {
	Timeout         time.Duration // 0: the engine's default
	ContinueOnError bool
	// Work says that the command installs, builds, fetches or drives a
	// toolchain (a compiler, a test runner, a package manager): it may
	// take long for a good reason. A probe that does not is a guess, and
	// the engine gives it less time (a server or a program waiting for
	// something nobody will send would otherwise hold the run).
	Work       bool
	Background bool
	Ready      string
	// Expect is the output the README shows after the command (check-output
	// hint); nil when the output is not checked. ExpectLine is its first
	// README line.
	Expect     []string
	ExpectLine int
	// Exit is the exit code the command must return (exit hint); nil means 0.
	Exit *int
	// Cwd is the directory, relative to the repository, to enter before the
	// entry; LeaveCwd returns to the previous directory after it.
	Cwd      string
	LeaveCwd bool
	// Setup runs, unseen, before the entry; SetupLine is the hint's block.
	Setup     string
	SetupLine int
	// WriteFile, when set, is the path the entry writes its Content to
	// instead of running Command (file hint).
	WriteFile string
	Content   string
	// LinkCheckout, when set, is the directory a clone of this repository
	// would have gone to: the runner links it to the checkout instead.
	LinkCheckout string
	// Exec, when set, is what runs instead of Command: the rest of an
	// `&&` chain whose clone of this repository was left out.
	Exec string
	// CheckoutDir, when set, is the directory of the checkout ("." for
	// its top) that the entry enters instead: the cd into the clone of
	// this repository, or into one of its directories.
	CheckoutDir string
}

// Install is a README command that installs a tool, run or not: a command
// that fails with "not found" can then name the line that installs it.
type Install struct {
	Tool    string `json:"tool"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	// Skipped is the reason the plan skips the installing command, "" when
	// it runs.
	Skipped string `json:"skipped,omitempty"`
}

// Note is something about the README the user should know: a hint that
// was not understood.
type Note struct {
	Line int
	Text string
}

// command is what the runner runs for the entry.
func (e Entry) command() string {
	if e.Step.Exec != "" {
		return e.Step.Exec
	}
	return e.Command
}

// Exec is the shell text the runner evaluates for a run entry: the
// README's command, or what stands in for it (see Step). checkout is a
// shell word for the checkout's path in the sandbox (a quoted variable,
// so that what ran can run again elsewhere: commandlog.CheckoutVar), for
// Step.LinkCheckout and Step.CheckoutDir.
func (e Entry) Exec(checkout string) string {
	switch {
	case e.Step.WriteFile != "":
		return heredoc(e.Step.WriteFile, e.Step.Content)
	case e.Step.CheckoutDir == ".":
		return "cd -- " + checkout
	case e.Step.CheckoutDir != "":
		return "cd -- " + checkout + "/" + shell.Quote(e.Step.CheckoutDir)
	case e.Step.LinkCheckout != "":
		d := dirWord(e.Step.LinkCheckout)
		link := fmt.Sprintf(`mkdir -p -- "$(dirname -- %s)" && ln -sfn -- %s %s`, d, checkout, d)
		if e.Step.Exec != "" {
			link += " && " + e.Step.Exec
		}
		return link
	}
	return e.command()
}

// dirWord quotes a directory as the README wrote it for the shell:
// variables still expand, ~/ still means the home directory.
func dirWord(d string) string {
	if rest, ok := strings.CutPrefix(d, "~/"); ok {
		return `"$HOME"/` + dirWord(rest)
	}
	if strings.ContainsAny(d, "\"`\\") {
		return shell.Quote(d)
	}
	return `"` + d + `"`
}

// heredoc writes content to path with a here-document whose delimiter the
// content does not contain.
func heredoc(p, content string) string {
	delim := "README2DEMO_EOF"
	for i := 1; strings.Contains(content, delim); i++ {
		delim = fmt.Sprintf("README2DEMO_EOF_%d", i)
	}
	q := shell.Quote(p)
	mk := ""
	if d := path.Dir(p); d != "." && d != "/" {
		mk = fmt.Sprintf("mkdir -p -- %s && ", shell.Quote(d))
	}
	return fmt.Sprintf("%scat > %s <<'%s'\n%s\n%s", mk, q, delim, content, delim)
}

// firstLine is a command's first line, with " …" when there are more.
func firstLine(s string) string {
	if first, _, more := strings.Cut(s, "\n"); more {
		return first + " …"
	}
	return s
}

// firstLineOf is a command's first line, backslash continuations joined.
func firstLineOf(s string) string {
	first, _, _ := strings.Cut(strings.ReplaceAll(s, "\\\n", " "), "\n")
	return first
}
