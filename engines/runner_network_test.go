package engines

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// A command that failed because a host could not be reached is not sent
// to an AI engine: it could not reach the host either.
func TestNetworkFailureGivesNoAIAdvice(t *testing.T) {
	t.Parallel()
	assert.Equal(t, runnerAdvice(MarkdownName, runner.KindNetwork), "")
	md := "```sh\nsh -c 'echo \"Failed to establish a new connection: [Errno -2] Name or service not known\" >&2; exit 1'\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "could not reach the network"), l.OutcomeReason)
	assert.Assert(t, !strings.Contains(l.OutcomeReason, "try an AI engine"), l.OutcomeReason)

	md = "```sh\nsh -c 'echo \"cc: error: no input files\" >&2; exit 2'\n```\n"
	l, _ = runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "try an AI engine"), l.OutcomeReason)
}
