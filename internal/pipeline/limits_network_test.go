package pipeline

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// A keyless failure that the runner already put down to the network (its
// reason has the network note, not the AI advice) is named by the policy
// that refused it, once, not appended to the runner's note.
func TestKeylessNetworkFailureNamedByPolicy(t *testing.T) {
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
		OutcomeReason: "README.md line 7: `pip install icdiff` exited with 1; it could not reach the network (check that the sandbox can reach the hosts the README downloads from)",
		Commands: []commandlog.Command{{ID: "1", Command: "pip install icdiff", ExitCode: ip(1), Status: commandlog.StatusFailed,
			Source: &commandlog.Source{File: "README.md", Line: 7},
			Output: "WARNING: Retrying … Failed to establish a new connection: [Errno -3] Temporary failure in name resolution\n"}}}
	res := result(nil)
	nameLimits(l, res, signals(res, NetworkNone, time.Minute, nil), true, redact.New(nil))
	assert.Equal(t, l.Commands[0].Environment.Kind, "network-denied")
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "failed because of the sandbox, not the README (network-denied)"), l.OutcomeReason)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "--network none"), l.OutcomeReason)
	assert.Assert(t, !strings.Contains(l.OutcomeReason, "sandbox limit:"), l.OutcomeReason)
}
