package engines

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// The runner's behaviour, run with the host's bash (runLocal): the plan's
// decisions reach the log, hints work, and the runner's own file never
// shows in an output.

func TestMarkdownRunsExactlyThePlan(t *testing.T) {
	t.Parallel()
	md := "# demo\n\n## Install\n\n```sh\nbrew install demo\ngo version >/dev/null && echo go-ok\n```\n\n" +
		"```sh\necho hi\nHello from the README\nexport TOKEN=<your-token>\n```\n"
	in := RunInput{ReadmeName: "README.md", Readme: []byte(md)}
	p := plan.Make(in.Readme, plan.Options{File: "README.md"})
	l, _ := runLocal(t, MarkdownName, markdownPlan(in), nil)
	var ran []string
	for _, e := range p.Run() {
		ran = append(ran, e.Command)
	}
	var logged []string
	for _, c := range l.Commands {
		logged = append(logged, c.Command)
	}
	assert.DeepEqual(t, logged, ran)
	assert.DeepEqual(t, logged, []string{"go version >/dev/null && echo go-ok", "echo hi"})
	assert.DeepEqual(t, l.Skipped, []commandlog.Skipped{
		{File: "README.md", Line: 6, Command: "brew install demo", Reason: "other platform: Homebrew"},
		{File: "README.md", Line: 12, Command: "Hello from the README", Reason: "output or text, not a command"},
		{File: "README.md", Line: 13, Command: "export TOKEN=<your-token>", Reason: "placeholder <your-token>: a value to fill in"},
	})
}

func TestMarkdownNothingToRunListsTheBlocks(t *testing.T) {
	t.Parallel()
	md := "# lib\n\n```go\nimport \"x\"\n```\n\n```sh\nbrew install lib\n```\n\n```\nUsage: lib [options] <file>\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, len(l.Commands), 0)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed, "schema v1 has no other outcome for it")
	assert.Equal(t, l.OutcomeCause, commandlog.CauseNothingToRun, "readers know it by its cause, not its text")
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "nothing to run: none of the 3 code blocks of README.md has a command to run on Linux"), l.OutcomeReason)
	for _, want := range []string{"line 4: go code, not shell", "line 8: other platform: Homebrew", "line 12: unlabelled block: line 12 is not a command"} {
		assert.Assert(t, strings.Contains(l.OutcomeReason, want), "%q lacks %q", l.OutcomeReason, want)
	}
	assert.DeepEqual(t, l.Skipped, []commandlog.Skipped{{File: "README.md", Line: 8, Command: "brew install lib", Reason: "other platform: Homebrew"}})
}

func TestMarkdownOutputNamesNoRunnerFile(t *testing.T) {
	t.Parallel()
	md := "```sh\necho ok\nr2d-no-such-tool --version\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	c := l.Commands[1]
	assert.Equal(t, c.Output, "bash: r2d-no-such-tool: command not found\n")
	assert.Equal(t, l.OutcomeCause, commandlog.Cause(""), "a run with commands has no nothing-to-run cause")
	assert.Equal(t, *c.ExitCode, 127)
	for _, bad := range []string{"runner", "line 2", ".sh:"} {
		assert.Assert(t, !strings.Contains(c.Output+l.OutcomeReason, bad), "%q leaks the runner (%s)", c.Output, bad)
	}
	// A syntax error in eval'd text and a failed cd read as bash prints them.
	l, _ = runLocal(t, MarkdownName, readmePlan("<!-- readme2demo: continue-on-error -->\n```sh\ncd /tmp/no/such/dir\nif then\n```\n"), nil)
	assert.Equal(t, l.Commands[0].Output, "bash: cd: /tmp/no/such/dir: No such file or directory\n")
	assert.Assert(t, strings.HasPrefix(l.Commands[1].Output, "bash: syntax error near unexpected token `then'"), l.Commands[1].Output)
}

func TestMarkdownNotFoundNamesTheLaterInstall(t *testing.T) {
	t.Parallel()
	md := "# demo\n\nUse it:\n\n```sh\nr2dtool-missing --help\n```\n\n## Install\n\n```sh\ngo install example.com/x/cmd/r2dtool-missing@latest\n```\n"
	readmeOrder := readmePlanOrder(md, plan.OrderReadme)
	l, _ := runLocal(t, MarkdownName, readmeOrder, nil)
	assert.Equal(t, l.OutcomeReason, "README.md line 6: `r2dtool-missing --help` exited with 127 (r2dtool-missing: command not found); "+
		"line 12 installs it (`go install example.com/x/cmd/r2dtool-missing@latest`), later in the README: move that step before line 6, or run with --order install-first; "+
		"1 of 2 planned commands was not reached")

	// With the install section first, it is installed before it is used
	// (here the install fails offline, which shows the order); with no
	// order given, the plan chooses that order itself, since line 6 uses
	// what only line 12 installs.
	for _, order := range []string{plan.OrderInstallFirst, ""} {
		rp := markdownPlan(RunInput{ReadmeName: "README.md", Readme: []byte(md), Order: order})
		assert.Equal(t, rp.Steps[0].Line, 12)
		assert.Equal(t, rp.Steps[1].Line, 6)
	}

	// A later install that runs is the advice, not an earlier-listed
	// alternative that the plan skips.
	md = "```sh\nr2dtool-missing --help\n```\n\n```sh\nbrew install r2dtool-missing\n```\n\n```sh\ngo install example.com/x/cmd/r2dtool-missing@latest\n```\n"
	l, _ = runLocal(t, MarkdownName, readmeOrder2(md), nil)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "(r2dtool-missing: command not found); line 10 installs it (`go install"), l.OutcomeReason)

	// A skipped installer is named with the reason it was skipped.
	md = "```sh\nr2dtool-missing --help\nbrew install r2dtool-missing\n```\n"
	l, _ = runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "(r2dtool-missing: command not found); line 3 would install it, but the plan skips it (other platform: Homebrew)"), l.OutcomeReason)
}

// A build that cannot find a C header says which: a library's development
// files, which READMEs name in words ("depends on GNU Readline"), and the
// advice to read the prose with an AI engine. gcc's and clang's messages.
func TestMarkdownMissingHeaderIsNamed(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		"src/bcal.c:35:10: fatal error: readline/history.h: No such file or directory",
		"src/main.c:3:10: fatal error: 'zlib.h' file not found",
	} {
		md := "```sh\nsh -c 'echo \"" + msg + "\" >&2; exit 2'\n```\n"
		l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
		assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
		header := "readline/history.h"
		if strings.Contains(msg, "zlib") {
			header = "zlib.h"
		}
		assert.Assert(t, strings.Contains(l.OutcomeReason, "exited with 2; the build could not find the C header "+header+
			": the development files of a library it needs are not installed, and no line the plan ran installs them"), l.OutcomeReason)
		assert.Assert(t, strings.HasSuffix(l.OutcomeReason, "if the README gives this prerequisite in words, try an AI engine such as --engine claude-code"), l.OutcomeReason)
	}
}

// readmeOrder2 plans md in README order.
func readmeOrder2(md string) runner.Plan { return readmePlanOrder(md, plan.OrderReadme) }

// A program the README builds in the checkout runs by its name, after
// what is installed.
func TestMarkdownCheckoutOnPath(t *testing.T) {
	t.Parallel()
	md := "```sh\nprintf '#!/bin/sh\\necho built\\n' > r2d-built-tool && chmod +x r2d-built-tool\nr2d-built-tool\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)
	assert.Equal(t, l.Commands[1].Output, "built\n")
}

func TestMarkdownNotReachedCount(t *testing.T) {
	t.Parallel()
	md := "```sh\necho one\nfalse\necho three\necho four\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.OutcomeReason, "README.md line 3: `false` exited with 1; 2 of 4 planned commands were not reached")
}

func TestMarkdownCheckOutput(t *testing.T) {
	t.Parallel()
	md := "<!-- readme2demo: check-output -->\n```console\n$ printf 'a  \\nb\\nc\\nd\\n\\n'\na\n...\nd\n$ echo ${FOO-nope}\nfoo\n$ echo never\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{
		"3 printf 'a  \\nb\\nc\\nd\\n\\n' => 0 ok",
		"7 echo ${FOO-nope} => 0 ok",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, l.OutcomeReason, "README.md line 7: `echo ${FOO-nope}` printed other output than the README shows (check-output); 1 of 3 planned commands was not reached:\n"+
		"--- README (line 8 on; a line \"...\" matches any lines)\n+++ output\n@@ -1 +1 @@\n-foo\n+nope")

	// Without the hint, the output is not compared.
	l, _ = runLocal(t, MarkdownName, readmePlan(strings.TrimPrefix(md, "<!-- readme2demo: check-output -->\n")), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)
}

func TestMarkdownExitHint(t *testing.T) {
	t.Parallel()
	md := "<!-- readme2demo: exit=2 -->\n```sh\necho setup\nls /tmp/no-such-file\n```\n\n```sh\necho after\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"3 echo setup => 0 ok", "4 ls /tmp/no-such-file => 2 failed", "8 echo after => 0 ok"})
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)

	md = "<!-- readme2demo: exit=3 -->\n```sh\ntrue\n```\n\n```sh\necho after\n```\n"
	l, _ = runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"3 true => 0 ok"})
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "README.md line 3: `true` exited with 0, but the README says it exits with 3 (exit hint)"), l.OutcomeReason)
}

func TestMarkdownCwdSetupAndFileHints(t *testing.T) {
	t.Parallel()
	md := "<!-- readme2demo: file=conf/app.toml -->\n```toml\nname = \"demo\"\n```\n\n" +
		"<!-- readme2demo: cwd=conf setup=\"echo hidden > made-by-setup\" -->\n```sh\ncat app.toml\nls made-by-setup\n```\n\n" +
		"```sh\npwd\n```\n"
	l, ws := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)
	assert.Equal(t, len(l.Commands), 4, "the setup command is not shown: %v", cmdSummary(l))
	assert.Assert(t, strings.HasPrefix(l.Commands[0].Command, "mkdir -p -- conf && cat > conf/app.toml <<'README2DEMO_EOF'\nname = \"demo\"\nREADME2DEMO_EOF"), l.Commands[0].Command)
	assert.Equal(t, l.Commands[1].Output, "name = \"demo\"\n")
	assert.Equal(t, l.Commands[2].Output, "made-by-setup\n")
	assert.Equal(t, l.Commands[3].Output, ws+"\n", "the cwd hint ends with its block")
	b, err := os.ReadFile(filepath.Join(ws, "conf", "made-by-setup"))
	assert.NilError(t, err)
	assert.Equal(t, string(b), "hidden\n")

	// A setup that fails stops the run before the block and says so.
	md = "<!-- readme2demo: setup=\"echo broken >&2; exit 3\" -->\n```sh\necho never\n```\n"
	l, _ = runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, len(l.Commands), 0)
	assert.Equal(t, l.OutcomeReason, "README.md line 3: the setup hint's command `echo broken >&2; exit 3` exited with 3, so the block did not run: broken; 1 of 1 planned commands was not reached")

	// A cwd that does not exist fails the block's first command.
	l, _ = runLocal(t, MarkdownName, readmePlan("<!-- readme2demo: cwd=nope -->\n```sh\necho never\n```\n"), nil)
	assert.Equal(t, l.Commands[0].Output, "readme2demo: cwd hint: cannot enter nope\n")
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
}

func TestMarkdownCloneOfThisRepositoryIsTheCheckout(t *testing.T) {
	t.Parallel()
	var repo plan.Repo
	repo.AddSlug("demo-org/tool")
	md := "```sh\ngit clone https://github.com/demo-org/tool.git\ncd tool\nls marker\n" +
		"git clone --depth 1 https://github.com/demo-org/tool.git \"$HOME/.tool\" && ls \"$HOME/.tool/marker\"\n```\n"
	in := RunInput{ReadmeName: "README.md", Readme: []byte(md), Repo: repo}
	// The plan names the checkout by its variable, so a local run links
	// to the test's workspace.
	l, _ := runLocal(t, MarkdownName, markdownPlan(in), func(ws string) {
		assert.NilError(t, os.WriteFile(filepath.Join(ws, "marker"), nil, 0o644))
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, "%s %v", l.OutcomeReason, cmdSummary(l))
	assert.DeepEqual(t, l.Skipped, []commandlog.Skipped{
		{File: "README.md", Line: 2, Command: "git clone https://github.com/demo-org/tool.git", Reason: "clones this repository: the run starts in its checkout"},
		{File: "README.md", Line: 3, Command: "cd tool", Reason: "enters the clone of this repository: the run already starts in its checkout"},
	})
	assert.Equal(t, l.Commands[0].Command, "ls marker")
	assert.Assert(t, strings.Contains(l.Commands[1].Command, "git clone --depth 1"), "the log shows the README's command")
}

// A command that times out takes everything it started with it, orphans
// included (a fork bomb's children are re-parented away from the runner),
// and nothing outside the runner's session.
func TestMarkdownTimeoutKillsOrphans(t *testing.T) {
	longtest.Require(t) // waits for real timeouts of whole seconds
	t.Parallel()
	outsider := exec.Command("sleep", "120")
	assert.NilError(t, outsider.Start())
	defer outsider.Process.Kill()
	md := "<!-- readme2demo: timeout=2s -->\n```sh\n( sleep 300 & echo $! > orphan.pid ); sleep 300\n```\n\n```sh\necho after\n```\n"
	start := time.Now()
	l, ws := runLocalOnHost(t, MarkdownName, readmePlan(md), nil) // reads the orphan's pid
	assert.Assert(t, time.Since(start) < 60*time.Second)
	assert.DeepEqual(t, cmdSummary(l), []string{"3 ( sleep 300 & echo $! > orphan.pid ); sleep 300 => 124 failed"})
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "README.md line 3: `( sleep 300 & echo $! > orphan.pid ); sleep 300` timed out after 2s"), l.OutcomeReason)
	b, err := os.ReadFile(filepath.Join(ws, "orphan.pid"))
	assert.NilError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	assert.NilError(t, err)
	assert.Assert(t, !alive(pid), "the orphan %d survived the timeout", pid)
	assert.NilError(t, outsider.Process.Signal(syscall.Signal(0)), "a process of another session was killed")
}

// With nowhere to write the output, the command still runs and the log says
// that its output was lost; when its directory is gone, the runner finds
// another place.
func TestMarkdownOutputThatCannotBeCaptured(t *testing.T) {
	t.Parallel()
	md := "```sh\nrm -rf \"$__r2d_work\"; touch \"$__r2d_work\"\necho still-captured\n" +
		"export HOME=/proc TMPDIR=/proc\necho lost\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)
	assert.Equal(t, l.Commands[1].Output, "still-captured\n", "the runner found another place for the output")
	assert.Equal(t, l.Commands[3].Status, commandlog.StatusOK)
	assert.Assert(t, strings.HasPrefix(l.Commands[3].Output, "\n[readme2demo: the output could not be captured in full: no writable place for the output"), l.Commands[3].Output)
}

// alive reports whether a process runs (a zombie, killed but not yet
// reaped by whoever adopted it, does not).
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
