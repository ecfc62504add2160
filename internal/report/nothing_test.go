package report_test

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/report"
)

// A run with nothing to run is known by its cause, a fact of the log, not
// by the English of its reason: rewording the planner's message changes
// nothing, and a failed run whose reason happens to start with the same
// words is still a failed README.
func TestNothingToRunIsKnownByItsCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		cause  commandlog.Cause
		want   bool
		title  string
	}{
		{"the planner's words", commandlog.NothingToRun + ": none of the 1 code blocks of README.md has a command to run on Linux", commandlog.CauseNothingToRun, true, "⚪ Nothing to run: no README command to test"},
		{"reworded", "no command of the README fits the sandbox", commandlog.CauseNothingToRun, true, "⚪ Nothing to run: no README command to test"},
		{"the words without the cause", commandlog.NothingToRun + ": the agent said so", "", false, "❌ The README did not work"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &commandlog.Log{Outcome: commandlog.OutcomeFailed, OutcomeReason: tc.reason, OutcomeCause: tc.cause}
			assert.Equal(t, report.NothingToRun(l), tc.want)
			assert.Equal(t, report.Verdict(l), tc.title)
		})
	}
}

// A README whose commands need what the sandbox lacks (Docker) has nothing
// to run and could not be checked: its verdict says blocked, not "nothing
// to test", while the Action still counts it as no-commands.
func TestNothingToRunBlockedBySandboxSaysBlocked(t *testing.T) {
	l := &commandlog.Log{Outcome: commandlog.OutcomeBlocked, OutcomeCause: commandlog.CauseNothingToRun,
		OutcomeReason: commandlog.NothingToRun + ": … needs Docker: the sandbox has no container engine"}
	assert.Assert(t, report.NothingToRun(l))
	assert.Equal(t, report.Verdict(l), "⛔ Blocked: the README could not be checked here")
}
