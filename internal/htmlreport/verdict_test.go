package htmlreport

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func TestVerdictPerOutcome(t *testing.T) {
	for _, tc := range []struct {
		log  commandlog.Log
		want string
	}{
		{commandlog.Log{Outcome: commandlog.OutcomeSuccess}, "The README works"},
		{commandlog.Log{Outcome: commandlog.OutcomeSuccess, Adjusted: true}, "The README works, with adjustments"},
		{commandlog.Log{Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
			{ID: "1", Status: commandlog.StatusOK, Planned: commandlog.PlannedProbe},
			{ID: "2", Status: commandlog.StatusFailed, Planned: commandlog.PlannedProbe}}}, "No step found: only guesses ran, 1 passed and 1 failed"},
		{commandlog.Log{Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
			{ID: "1", Status: commandlog.StatusOK, Planned: commandlog.PlannedProbe}}}, "The README works"},
		{commandlog.Log{Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
			{ID: "1", Status: commandlog.StatusOK, Planned: commandlog.PlannedStep},
			{ID: "2", Status: commandlog.StatusFailed, Planned: commandlog.PlannedProbe}}}, "The README works"},
		{commandlog.Log{Outcome: commandlog.OutcomeBlocked, Markers: []commandlog.Marker{{Kind: commandlog.MarkerBlocked, Text: "no key"}}}, "Blocked: the agent could not proceed"},
		{commandlog.Log{Outcome: commandlog.OutcomeBlocked}, "Blocked: the README could not be checked here"},
		{commandlog.Log{Outcome: commandlog.OutcomeFailed, Commands: []commandlog.Command{{ID: "c1"}}}, "The README did not work"},
		{commandlog.Log{Outcome: commandlog.OutcomeFailed, OutcomeReason: "nothing to run: no command", OutcomeCause: commandlog.CauseNothingToRun}, "Nothing to run: no README command to test"},
	} {
		assert.Equal(t, verdict(&tc.log), tc.want)
	}
}
