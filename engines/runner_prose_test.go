package engines

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// A program the README installs only in its text fails "not found", and
// the reason names the line of the text that installs it.
func TestNotFoundNamesProseInstall(t *testing.T) {
	t.Parallel()
	md := "# r2dtool\n\nInstall it with `cargo install r2d-prose-tool`.\n\n```sh\nr2d-prose-tool --version\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "r2d-prose-tool: command not found); line 3 would install it, but the plan skips it (written in the README's text"), l.OutcomeReason)
}

// A redirection into a directory that does not exist fails in the shell,
// before the command starts, and the reason says so.
func TestRedirectIntoMissingDirectory(t *testing.T) {
	t.Parallel()
	md := "```sh\necho hi > ~/r2d-no-such-dir/hr\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "r2d-no-such-dir/hr: the directory "), l.OutcomeReason)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "r2d-no-such-dir does not exist; the command did not start"), l.OutcomeReason)
}

// An install that already ran and passed, yet left no program of that
// name on the PATH, is not advised to be moved earlier: the reason says it
// ran.
func TestNotFoundAfterInstallThatRan(t *testing.T) {
	t.Parallel()
	md := "```sh\nmkdir -p out/bin && cp /bin/true out/bin/r2d-ghost\nr2d-ghost --version\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "(r2d-ghost: command not found); line 2 (`mkdir -p out/bin && cp /bin/true out/bin/r2d-ghost`) ran before it and passed, but did not put r2d-ghost on the PATH"), l.OutcomeReason)
	assert.Assert(t, !strings.Contains(l.OutcomeReason, "move that step"), l.OutcomeReason)
}
