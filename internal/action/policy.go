package action

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/report"
)

// The fail-on conditions.
const (
	failFailed     = "failed"      // outcome failed
	failBlocked    = "blocked"     // outcome blocked
	failAdjusted   = "adjusted"    // success only after deviations
	failNoCommands = "no-commands" // the agent ran nothing: no green check for doing nothing
	failNever      = "never"
)

const defaultFailOn = "failed,blocked,no-commands"

// failOn is the set of conditions that fail the step.
type failOn map[string]bool

func parseFailOn(s string) (failOn, error) {
	f := failOn{}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		switch part {
		case failFailed, failBlocked, failAdjusted, failNoCommands, failNever:
			f[part] = true
		default:
			return nil, &InputError{Input: "fail-on", Reason: fmt.Sprintf("%q is not one of failed, blocked, adjusted, no-commands, never", part)}
		}
	}
	if f[failNever] && len(f) > 1 {
		return nil, &InputError{Input: "fail-on", Reason: "never cannot be combined with other conditions"}
	}
	return f, nil
}

func (f failOn) String() string { return strings.Join(slices.Sorted(maps.Keys(f)), ",") }

// verdict returns the exit code for a log under the policy, and why it
// fails ("" when it passes).
//
// A keyless run with nothing to run (report.NothingToRun: its log's
// outcome_cause) is a no-commands case, not a failed README: its outcome is
// "failed" only because schema v1 has no other, so it fails the step only
// under no-commands.
func (f failOn) verdict(l *commandlog.Log) (int, string) {
	switch {
	case report.NothingToRun(l):
		if f[failNoCommands] {
			return exitcode.Failed, commandlog.NothingToRun + ": no README command fits the sandbox"
		}
		return exitcode.OK, ""
	case l.Outcome == commandlog.OutcomeBlocked && f[failBlocked]:
		return exitcode.Blocked, "the agent was blocked"
	case l.Outcome == commandlog.OutcomeFailed && f[failFailed]:
		return exitcode.Failed, "the README did not work"
	case l.Outcome == commandlog.OutcomeSuccess && l.Adjusted && f[failAdjusted]:
		return exitcode.Failed, "the README worked only after adjustments"
	case len(l.Commands) == 0 && f[failNoCommands]:
		return exitcode.Failed, "the agent ran no commands"
	}
	return exitcode.OK, ""
}
