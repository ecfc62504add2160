package report_test

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/report"
)

// The planner's "nothing to run" reasons are the ones the report (and the
// Action's no-commands policy) recognise: both read commandlog.NothingToRun.
func TestPlannerNothingToRunIsRecognised(t *testing.T) {
	for _, readme := range []string{
		"# Title\n\nOnly prose, no code block.\n",
		"# Title\n\n```\nC:\\> dir\n```\n\n```powershell\nGet-ChildItem\n```\n",
	} {
		why := plan.Make([]byte(readme), plan.Options{}).NothingToRun()
		assert.Assert(t, why != "", "the plan of %q runs something", readme)
		l := &commandlog.Log{Outcome: commandlog.OutcomeFailed, OutcomeReason: why}
		assert.Check(t, report.NothingToRun(l), "not recognised: %q", why)
	}
	assert.Check(t, !report.NothingToRun(&commandlog.Log{Outcome: commandlog.OutcomeFailed, OutcomeReason: "the agent gave up"}))
}
