package engines

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// An AI engine is advised only where understanding the README's prose
// could help: a program that no line the plan ran installs. Not after a
// network failure (an AI engine cannot reach the host either), nor after a
// command that failed as written, nor when a later line installs the
// program (the reason says to move it).
func TestAIAdviceOnlyWhereProseMayHelp(t *testing.T) {
	t.Parallel()
	const advice = "; the markdown engine runs only what the README's code blocks say; if the README gives this prerequisite in words, try an AI engine such as --engine claude-code"
	for _, tt := range []struct{ md, reason string }{
		{"```sh\nsh -c 'echo \"Failed to establish a new connection: [Errno -2] Name or service not known\" >&2; exit 1'\n```\n",
			"README.md line 2: `sh -c 'echo \"Failed to establish a new connection: [Errno -2] Name or service not known\" >&2; exit 1'` exited with 1; " +
				"it could not reach the network (check that the sandbox can reach the hosts the README downloads from)"},
		{"```sh\nsh -c 'echo \"cc: error: no input files\" >&2; exit 2'\n```\n",
			"README.md line 2: `sh -c 'echo \"cc: error: no input files\" >&2; exit 2'` exited with 2"},
		{"# r2dtool\n\nFirst install r2d-unwritten-tool.\n\n```sh\nr2d-unwritten-tool --version\n```\n",
			"README.md line 6: `r2d-unwritten-tool --version` exited with 127 (r2d-unwritten-tool: command not found)" + advice},
		{"# r2dtool\n\nInstall it with `cargo install r2d-prose-tool`.\n\n```sh\nr2d-prose-tool --version\n```\n",
			"README.md line 6: `r2d-prose-tool --version` exited with 127 (r2d-prose-tool: command not found); " +
				"line 3 would install it, but the plan skips it (written in the README's text, not in a code block: the markdown engine runs only code blocks)" + advice},
		{"```sh\nr2d-later-tool --version\n```\n\n```sh\ngo install example.com/x/cmd/r2d-later-tool@latest\n```\n",
			"README.md line 2: `r2d-later-tool --version` exited with 127 (r2d-later-tool: command not found); " +
				"line 6 installs it (`go install example.com/x/cmd/r2d-later-tool@latest`), later in the README: move that step before line 2, or run with --order install-first; " +
				"1 of 2 planned commands was not reached"},
	} {
		l, _ := runLocal(t, MarkdownName, readmeOrder2(tt.md), nil)
		assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
		assert.Equal(t, l.OutcomeReason, tt.reason)
	}
}
