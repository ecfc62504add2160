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
