package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// Verdict is what a transcript says about the run: the command that
// failed it, or how the transcript ends.
type Verdict struct {
	// Failure is the first command that failed the run (or the setup
	// hint's command whose block then did not run); nil when none did.
	Failure *Failure
	// NotReached counts the planned commands a failed run did not reach,
	// of Planned (-1 when the transcript does not say).
	NotReached, Planned int
	// End says how a transcript without a Failure ends; Text is the
	// error's, the nothing-to-run reason or runner 1's "FAILED: <why>".
	End  Ending
	Text string
	// AgentText is what the log scans for markers, as an agent's own
	// words: "SUCCESS" when the run passed.
	AgentText string
	// Probes counts the probes that failed (EndNoStep).
	Probes int
	// SandboxLacks names the line that needs what the sandbox does not
	// have, when that is why nothing ran (EndNothingToRun).
	SandboxLacks string
	// Uninstalled is what EndUninstalled found.
	Uninstalled Uninstalled
	// Prerequisite is the step that stopped for a prerequisite the
	// README names in its text (EndPrerequisite).
	Prerequisite *Failure
}

// Uninstalled is the project's own program that no command of the plan
// installed, and what the run found of it (EndUninstalled).
type Uninstalled struct {
	Program string
	First   string // the first README line that runs it: "README.md line 42"
	// NotFound counts the commands that did not find it; Failure is the
	// step that failed the run that way (nil when only probes did).
	NotFound int
	Failure  *Failure
}

// Ending is how a transcript without a failing command ends.
type Ending int

// The endings.
const (
	EndPassed       Ending = iota // every command passed or was allowed to fail
	EndNothingToRun               // the plan had no step
	EndError                      // the input was not a runner, or it could not start
	EndEmpty                      // the transcript is empty
	EndKilled                     // the runner never wrote its summary
	EndSaidFailed                 // runner 1's summary said FAILED for a reason the records do not show
	EndNoStep                     // no step ran, and every probe failed: nothing could be checked
	EndUninstalled                // the project's program, which nothing the plan ran installs, was not found
	EndPrerequisite               // a build stopped for a prerequisite the README names in its text
)

// Blocked reports a verdict that is neither the README's success nor its
// failure: nothing could be checked (the log's outcome is blocked), as
// every guess failed, or as what the README runs needs what the sandbox
// does not have.
func (v Verdict) Blocked() bool {
	return v.Failure == nil && (v.End == EndNoStep || v.End == EndUninstalled || v.End == EndPrerequisite || v.End == EndNothingToRun && v.SandboxLacks != "")
}

// Reason is the outcome reason of the verdict ("" when the run passed);
// advice is what to add to a command's failure ("" for none).
func (v Verdict) Reason(advice func(*Failure) string) string {
	if f := v.Failure; f != nil {
		r := f.String()
		if v.NotReached > 0 {
			r += "; " + notReached(v.NotReached, v.Planned)
		}
		if a := advice(f); a != "" {
			r += "; " + a
		}
		if f.Detail != "" {
			r += ":\n" + f.Detail
		}
		return r
	}
	switch v.End {
	case EndEmpty:
		return "the transcript is empty: the runner did not start"
	case EndKilled:
		return "the run ended without the runner's summary (it was killed)"
	case EndPassed:
		return ""
	case EndNothingToRun:
		if v.SandboxLacks != "" {
			return v.Text + "; the README's commands need what the sandbox does not have (" + v.SandboxLacks +
				"): it could not be checked here, which is a limit of the sandbox, not a failure of the README"
		}
	case EndUninstalled:
		u := v.Uninstalled
		what := fmt.Sprintf("%d commands did not find it", u.NotFound)
		if u.NotFound == 1 {
			what = "1 command did not find it"
		}
		if u.Failure != nil {
			what += fmt.Sprintf(", among them the step %s: %s", u.Failure.Where, quoteCommand(firstLine(u.Failure.Command)))
		}
		return fmt.Sprintf("the README's use of %[1]s was not checked: its commands run %[1]s (from %[2]s on), no command the plan runs installs it "+
			"(the README installs it in words, a table, a link or a line the plan skips), and %[3]s; if a code block installs it, add "+
			"<!-- readme2demo: run --> above that block, or try an AI engine, which reads the README's prose", u.Program, u.First, what)
	case EndPrerequisite:
		f := v.Prerequisite
		if f.Compiler != "" {
			return fmt.Sprintf("%s: %s stopped at a compile error, and the README's text asks for %s: the build was not checked here, which is not the README's failure; "+
				"run with an image that has that compiler (--image, Action input `image`), or choose it in a code block the plan runs (CC=…, CXX=…)", f.Where, quoteCommand(firstLine(f.Command)), f.Compiler)
		}
		return fmt.Sprintf("%s: %s stopped for %s, which the README names in its text as something the build needs, and no line the plan runs installs it: "+
			"the build was not checked here, which is not the README's failure; install it in a code block the plan runs (sudo apt-get install …), "+
			"or try an AI engine, which reads the README's prose", f.Where, quoteCommand(firstLine(f.Command)), f.Prerequisite)
	case EndNoStep:
		what := fmt.Sprintf("the %d commands it ran on a guess (probes) all failed", v.Probes)
		if v.Probes == 1 {
			what = "the 1 command it ran on a guess (a probe) failed"
		}
		return "no step of the README was checked: the plan found no command the README clearly means to be run, and " + what +
			"; if one of them is a step, add <!-- readme2demo: run --> above its block"
	}
	return v.Text
}

// notReached says how many planned commands the run did not reach.
func notReached(n, planned int) string {
	if n == 1 {
		return fmt.Sprintf("1 of %d planned commands was not reached", planned)
	}
	return fmt.Sprintf("%d of %d planned commands were not reached", n, planned)
}

// Kind is why a command failed the run.
type Kind string

// The kinds of failure.
const (
	KindExit         Kind = "exit"          // it exited with a non-zero code
	KindNetwork      Kind = "network"       // it exited non-zero because a host could not be reached
	KindUnfinished   Kind = "unfinished"    // it never ended: the run was killed or timed out
	KindTimeout      Kind = "timeout"       // its own timeout ended it
	KindShellExit    Kind = "shell-exit"    // it ended the shell with a failure
	KindShellEnded   Kind = "shell-ended"   // it ended the shell, as the README says it does
	KindRunaway      Kind = "runaway"       // it left too many processes running
	KindOutput       Kind = "output"        // its output differs from the README's (check-output hint)
	KindExpectedExit Kind = "expected-exit" // its exit code differs from the README's (exit hint)
	KindSetup        Kind = "setup"         // a setup hint's command failed, so its block did not run
)

// endsTheRun reports the failures after which nothing more ran, whatever
// the command was planned as (a probe too): it never finished, or it
// ended the runner's shell.
func (k Kind) endsTheRun() bool {
	return k == KindUnfinished || k == KindShellExit || k == KindShellEnded
}

// Failure is a command that failed the run, and what is known about it;
// String says it in English.
type Failure struct {
	Kind Kind
	// Where names the command: "README.md line 12", or "command 3".
	Where   string
	Command string
	// ExitCode is the command's exit code; ExpectExit the one the README
	// says it returns (KindExpectedExit).
	ExitCode   *int
	ExpectExit int
	TimeoutS   int64 // KindTimeout
	Runaway    int64 // the processes it left running (KindRunaway, KindSetup)
	// TimedOut and ShellExited say how a setup hint's command failed.
	TimedOut, ShellExited bool
	// Background: it is a background block (KindUnfinished); Hints: its
	// block takes readme2demo hints.
	Background, Hints bool
	// Missing is the program a command did not find (exit 127), nil when
	// it did not fail that way; Notes explain an exit code further (KindExit,
	// KindNetwork): a redirection that could not be opened, the host that
	// could not be reached.
	Missing *Missing
	Notes   string
	// Prerequisite is what the build lacks that the README names in its
	// text (KindExit; namedPrerequisite), "" when none.
	Prerequisite string
	// Compiler is the compiler the README's text asks for at a version the
	// image lacks, when the step stopped at a compile error (KindExit;
	// PlanRecord.CompilersTooOld), "" when none.
	Compiler string
	// Header is a C header the build could not find (KindExit): a
	// library's development files, which a README often names only in
	// words.
	Header string
	// PipeStatus are the exit statuses of the programs of its last
	// pipeline, when it had more than one (KindExit, KindNetwork).
	PipeStatus []int
	// Output is a setup hint's command's output (KindSetup).
	Output string
	// Detail goes after everything else: the output's diff (KindOutput).
	Detail string
}

func (f *Failure) String() string {
	q := quoteCommand(firstLine(f.Command))
	switch f.Kind {
	case KindUnfinished:
		why := "did not finish (the run was killed or timed out)"
		if !f.Background && f.Hints {
			why += "; if it starts a server, mark its block <!-- readme2demo: background ready=\"…\" -->"
		}
		return fmt.Sprintf("%s: %s %s", f.Where, q, why)
	case KindTimeout:
		return fmt.Sprintf("%s: %s timed out after %ds (raise it with <!-- readme2demo: timeout=… -->)", f.Where, q, f.TimeoutS)
	case KindShellExit:
		return fmt.Sprintf("%s: %s ended the shell (exit %s)", f.Where, q, exitText(f.ExitCode))
	case KindShellEnded:
		return fmt.Sprintf("%s: %s ended the shell, so the rest of the README did not run", f.Where, q)
	case KindRunaway:
		return fmt.Sprintf("%s: %s left %d processes running when it ended (a fork bomb?); they were killed", f.Where, q, f.Runaway)
	case KindOutput:
		return fmt.Sprintf("%s: %s printed other output than the README shows (check-output)", f.Where, q)
	case KindExpectedExit:
		return fmt.Sprintf("%s: %s exited with %s, but the README says it exits with %d (exit hint)", f.Where, q, exitText(f.ExitCode), f.ExpectExit)
	case KindSetup:
		what := "exited with " + exitText(f.ExitCode)
		switch {
		case f.TimedOut:
			what = "timed out"
		case f.ShellExited && f.ExitCode != nil && *f.ExitCode == 0:
			what = "ended the shell (exit 0)"
		case f.Runaway > 0:
			what = fmt.Sprintf("left %d processes running (a fork bomb?)", f.Runaway)
		}
		out := strings.TrimSpace(f.Output)
		if len(out) > 400 {
			out = "…" + out[len(out)-400:]
		}
		if out != "" {
			out = ": " + out
		}
		return fmt.Sprintf("%s: the setup hint's command %s %s, so the block did not run%s", f.Where, quoteCommand(f.Command), what, out)
	}
	missing, pipe := "", ""
	if f.Missing != nil {
		missing = f.Missing.String()
	}
	if len(f.PipeStatus) > 1 {
		pipe = fmt.Sprintf("; the exit statuses of its pipeline were %s (a pipeline fails when one of its programs does)", strings.Trim(fmt.Sprint(f.PipeStatus), "[]"))
	}
	header := ""
	if f.Header != "" {
		header = fmt.Sprintf("; the build could not find the C header %s: the development files of a library it needs are not installed, and no line the plan ran installs them", f.Header)
	}
	return fmt.Sprintf("%s: %s exited with %s%s%s%s%s", f.Where, q, exitText(f.ExitCode), missing, header, pipe, f.Notes)
}

// ProseMayHelp reports whether understanding the README's prose could
// have made the command work: it needed a program, or a library's C
// headers, that no line the plan ran installs (a prerequisite written in
// words, or in a line the plan skipped). Other failures are the README's, or the sandbox's.
func (f *Failure) ProseMayHelp() bool {
	return f.Kind == KindExit && (f.Missing != nil && (f.Missing.How == NotInstalled || f.Missing.How == InstallSkipped) || f.Header != "")
}

// verdict says why a command failed the run — it failed without being
// allowed to, or did not finish — or nil when it passed. The parser calls
// it for every command in order as the log seals them, so the first
// verdict is the run's.
//
// A command passes when it shows the facts its Start asks for (its exit
// code, 0 unless the exit hint says another; no timeout, no runaway
// processes, the README's output), or may fail (continue-on-error); the
// runner goes on after it by the same rule (Step.passing).
func (p *Parser) verdict(c *commandlog.Command, cmd *command) *Failure {
	st, end := cmd.start, cmd.end
	f := &Failure{Where: cmd.where, Command: c.Command, ExitCode: c.ExitCode, Hints: p.opt.Hints}
	want := st.ExpectExit
	if end.ExpectedExit != nil { // runner 1
		want = end.ExpectedExit
	}
	expected := want != nil && c.ExitCode != nil && *c.ExitCode == *want
	switch {
	case c.Status == commandlog.StatusUnknown:
		f.Kind, f.Background = KindUnfinished, st.Background
	case end.TimedOut && !st.AllowFailure:
		f.Kind, f.TimeoutS = KindTimeout, st.TimeoutS
	case end.ShellExited && c.Status == commandlog.StatusFailed && !expected:
		f.Kind = KindShellExit
	case end.ShellExited:
		f.Kind = KindShellEnded
	case end.Runaway > 0 && !st.AllowFailure:
		f.Kind, f.Runaway = KindRunaway, end.Runaway
	case st.AllowFailure:
		return nil
	case end.OutputMismatch:
		f.Kind, f.Detail = KindOutput, outputDiff(st, c.Output)
	case want != nil && !expected:
		f.Kind, f.ExpectExit = KindExpectedExit, *want
	case expected, c.Status != commandlog.StatusFailed:
		return nil
	default:
		net := networkNote(c.Output, c.Command, c.ExitCode, end.PipeStatus...)
		f.Kind, f.Missing, f.Notes, f.PipeStatus = KindExit, notFound(c, cmd.line, p.installs, p.ran), redirectNote(c)+goGetNote(c.Output)+net, end.PipeStatus
		f.Header = missingHeader(c.Output)
		f.Prerequisite = namedPrerequisite(c.Output, p.prereqs)
		if f.Prerequisite == "" && len(p.oldCompilers) > 0 && compileErrorRe.MatchString(c.Output) {
			f.Compiler = p.oldCompilers[0] // the README asks for a newer compiler than the image's
		}
		if net != "" {
			f.Kind = KindNetwork // an AI engine cannot reach the host either
		}
	}
	return f
}

// maxDiffLines caps the diff a check-output failure shows.
const maxDiffLines = 40

// outputDiff is the unified diff between the output the README shows and
// the output the command printed.
func outputDiff(st Start, output string) string {
	if st.Expect == nil {
		return ""
	}
	exp := normalizeOutput(*st.Expect)
	got := normalizeOutput(output)
	name := "README"
	if st.ExpectLine > 0 {
		name = fmt.Sprintf("README (line %d on; a line \"...\" matches any lines)", st.ExpectLine)
	}
	d, err := textdiff.Unified(name, "output", exp, got)
	if err != nil {
		return "the output differs from the README's; too large to show the difference: " + err.Error()
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines], fmt.Sprintf("… %d more diff lines", len(lines)-maxDiffLines))
	}
	return strings.Join(lines, "\n")
}

// normalizeOutput drops trailing white space from every line and trailing
// blank lines, as the runner's comparison does.
func normalizeOutput(s string) string {
	ls := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r\v\f")
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return strings.Join(ls, "\n") + "\n"
}

// quoteCommand quotes a command as written, for a reason: in backticks, or
// in double quotes when it holds a backtick. Nothing is escaped.
func quoteCommand(s string) string {
	if strings.Contains(s, "`") {
		return `"` + s + `"`
	}
	return "`" + s + "`"
}

func exitText(code *int) string {
	if code == nil {
		return "an unknown status"
	}
	return strconv.Itoa(*code)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
