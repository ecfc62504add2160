package engines

import (
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// probes plans md and marks the commands at the given README lines as
// probes (the planner decides that; here the test does).
func probes(md string, lines ...int) runner.Plan {
	p := readmePlan(md)
	for i := range p.Steps {
		for _, l := range lines {
			if p.Steps[i].Line == l {
				p.Steps[i].Planned = commandlog.PlannedProbe
			}
		}
	}
	return p
}

// plannedSummary is cmdSummary with how each command was planned.
func plannedSummary(l *commandlog.Log) []string {
	out := cmdSummary(l)
	for i, c := range l.Commands {
		out[i] += " " + string(c.Planned)
	}
	return out
}

// A probe that fails neither stops the run nor fails it; a step still
// does both.
func TestProbesRunOnAGuess(t *testing.T) {
	t.Parallel()
	md := "```sh\necho one\nr2d-guess --help\necho three\n```\n\n```sh\nfalse\necho never\n```\n"

	l, _ := runLocal(t, MarkdownName, probes(md, 3, 8), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 echo one => 0 ok step",
		"3 r2d-guess --help => 127 failed probe",
		"4 echo three => 0 ok step",
		"8 false => 1 failed probe",
		"9 echo never => 0 ok step",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
	assert.Equal(t, l.OutcomeReason, "")

	l, _ = runLocal(t, MarkdownName, probes(md, 3), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 echo one => 0 ok step",
		"3 r2d-guess --help => 127 failed probe",
		"4 echo three => 0 ok step",
		"8 false => 1 failed step",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, l.OutcomeReason, "README.md line 8: `false` exited with 1; 1 of 5 planned commands was not reached")
}

// A run of probes only is a success when one of them passed, and blocked
// (nothing could be checked, the README is not known to be broken) when
// every one failed.
func TestOnlyProbes(t *testing.T) {
	t.Parallel()
	md := "```sh\nr2d-guess --help\nls no-such-file\n```\n"
	l, _ := runLocal(t, MarkdownName, probes(md, 2, 3), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 r2d-guess --help => 127 failed probe",
		"3 ls no-such-file => 2 failed probe",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Equal(t, l.OutcomeReason, "no step of the README was checked: the plan found no command the README clearly means to be run, "+
		"and the 2 commands it ran on a guess (probes) all failed; if one of them is a step, add <!-- readme2demo: run --> above its block")
	assert.Equal(t, len(l.Markers), 0)

	l, _ = runLocal(t, MarkdownName, probes("```sh\nr2d-guess --help\necho fine\n```\n", 2, 3), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 r2d-guess --help => 127 failed probe",
		"3 echo fine => 0 ok probe",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
}

// When the project's own program, which nothing the plan runs installs,
// is not found, the README's use of it was not checked: blocked, whether
// only probes or a step did not find it. Another program not found by a
// step is still the README's failure, and the project's program found
// (the image has it) leaves the verdict alone.
func TestUninstalledProjectIsNotChecked(t *testing.T) {
	t.Parallel()
	md := "```sh\necho setting up\nr2d-tool --help\nr2d-tool run\n```\n"
	uninstalled := func(p runner.Plan, program string) runner.Plan {
		p.Uninstalled, p.UninstalledAt = program, "README.md line 3"
		return p
	}

	l, _ := runLocal(t, MarkdownName, uninstalled(probes(md, 3, 4), "r2d-tool"), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 echo setting up => 0 ok step",
		"3 r2d-tool --help => 127 failed probe",
		"4 r2d-tool run => 127 failed probe",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Equal(t, l.OutcomeReason, "the README's use of r2d-tool was not checked: its commands run r2d-tool (from README.md line 3 on), "+
		"no command the plan runs installs it (the README installs it in words, a table, a link or a line the plan skips), and 2 commands did not find it; "+
		"if a code block installs it, add <!-- readme2demo: run --> above that block, or try an AI engine, which reads the README's prose")

	l, _ = runLocal(t, MarkdownName, uninstalled(probes(md, 4), "r2d-tool"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "and 1 command did not find it, among them the step README.md line 3: `r2d-tool --help`;"), l.OutcomeReason)

	l, _ = runLocal(t, MarkdownName, uninstalled(probes(md, 4), "r2d-other"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)

	l, _ = runLocal(t, MarkdownName, uninstalled(probes("```sh\necho fine\nbash --version\n```\n", 3), "bash"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
}

// A step that only prepares the session checks nothing: when it is the
// only step that passed and every probe failed, nothing was checked
// (blocked); when it fails, it fails the run like any step.
func TestPreparingStepsCheckNothing(t *testing.T) {
	t.Parallel()
	// The plan marks the steps; here the test does.
	prepares := func(p runner.Plan, lines ...int) runner.Plan {
		for i := range p.Steps {
			p.Steps[i].Prepares = slices.Contains(lines, p.Steps[i].Line)
		}
		return p
	}
	md := "```sh\nexport PATH=\"$HOME/bin:$PATH\"\nr2d-guess --help\nls no-such-file\n```\n"
	l, _ := runLocal(t, MarkdownName, prepares(probes(md, 3, 4), 2), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		`2 export PATH="$HOME/bin:$PATH" => 0 ok step`,
		"3 r2d-guess --help => 127 failed probe",
		"4 ls no-such-file => 2 failed probe",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "no step of the README was checked"), l.OutcomeReason)

	// The same step not marked as preparing is a step that passed.
	l, _ = runLocal(t, MarkdownName, prepares(probes(md, 3, 4)), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)

	l, _ = runLocal(t, MarkdownName, prepares(probes("```sh\ncd no-such-dir\nr2d-guess --help\n```\n", 3), 2), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)

	// Probes that only prepare check nothing either: a guessed build whose
	// mkdir and cd passed and whose cmake failed checked nothing.
	build := "```\nmkdir build\ncd build\nr2d-cmake ..\n```\n"
	l, _ = runLocal(t, MarkdownName, prepares(probes(build, 2, 3, 4), 2, 3), nil)
	assert.DeepEqual(t, plannedSummary(l), []string{
		"2 mkdir build => 0 ok probe",
		"3 cd build => 0 ok probe",
		"4 r2d-cmake .. => 127 failed probe",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "no step of the README was checked"), l.OutcomeReason)
}

// A build step that stops for a library the README names in its text is
// blocked (the README asked for it in words); one it does not name is the
// README's failure.
func TestBuildStopsForAPrerequisiteTheTextNames(t *testing.T) {
	t.Parallel()
	md := "```sh\necho 'configure: error: libunistring required to build' >&2; false\n```\n"
	withPrereqs := func(p runner.Plan, names ...string) runner.Plan {
		p.Prerequisites = names
		return p
	}
	l, _ := runLocal(t, MarkdownName, withPrereqs(readmePlan(md), "libpcre2", "libunistring"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Equal(t, l.OutcomeReason, "README.md line 2: `echo 'configure: error: libunistring required to build' >&2; false` stopped for libunistring, "+
		"which the README names in its text as something the build needs, and no line the plan runs installs it: the build was not checked here, "+
		"which is not the README's failure; install it in a code block the plan runs (sudo apt-get install …), or try an AI engine, which reads the README's prose")

	l, _ = runLocal(t, MarkdownName, withPrereqs(readmePlan(md), "zlib"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
}

// A build step that stops at a compile error, when the README's text asks
// for a newer compiler than the image's, is blocked; a failure that is no
// compile error, or with no such request, is the README's.
func TestBuildStopsForACompilerTheTextAsksFor(t *testing.T) {
	t.Parallel()
	compileError := "printf '%s\\n' \"src/btop_tools.hpp:296:67: error: expected primary-expression before '>' token\" >&2; false"
	tooOld := func(p runner.Plan, compilers ...string) runner.Plan {
		p.CompilersTooOld = compilers
		return p
	}
	l, _ := runLocal(t, MarkdownName, tooOld(readmePlan("```sh\n"+compileError+"\n```\n"), "GCC 14 or newer (the sandbox image has GCC 12)"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Equal(t, l.OutcomeReason, "README.md line 2: `"+compileError+"` stopped at a compile error, and the README's text asks for "+
		"GCC 14 or newer (the sandbox image has GCC 12): the build was not checked here, which is not the README's failure; "+
		"run with an image that has that compiler (--image, Action input `image`), or choose it in a code block the plan runs (CC=…, CXX=…)")

	l, _ = runLocal(t, MarkdownName, tooOld(readmePlan("```sh\necho 'make: *** [all] Error 1' >&2; false\n```\n"), "GCC 14 or newer (the sandbox image has GCC 12)"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)

	l, _ = runLocal(t, MarkdownName, readmePlan("```sh\n"+compileError+"\n```\n"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
}

// A step that installs a Go program with `go get` says how the Go command
// installs one now.
func TestGoGetNoLongerInstalls(t *testing.T) {
	t.Parallel()
	goGet := "printf '%s\\n' \"go: go.mod file not found in current directory or any parent directory.\" \"\t'go get' is no longer supported outside a module.\" >&2; false"
	l, _ := runLocal(t, MarkdownName, readmePlan("```sh\n"+goGet+"\n```\n"), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, l.OutcomeReason, "README.md line 2: `"+goGet+"` exited with 1 (the Go command no longer installs programs with `go get`: "+
		"the README's install would be `go install PACKAGE@latest`)")
}
