package htmlreport

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// A keyless run's skipped commands are listed with why, escaped and
// redacted; a run with nothing to run says so instead of "did not work".
func TestSkippedAndNothingToRun(t *testing.T) {
	const secret = "sk-ant-api03-SKIPPEDCANARY0123456789abcdefABCDEF0123456789abcdefAA"
	l := &commandlog.Log{
		SchemaVersion: 1, Engine: "markdown", Outcome: commandlog.OutcomeFailed,
		OutcomeReason: "nothing to run: none of the 2 code blocks of README.md has a command to run on Linux (line 4: go code, not shell; line 9: other platform: Homebrew)",
		OutcomeCause:  commandlog.CauseNothingToRun,
		Skipped: []commandlog.Skipped{
			{File: "README.md", Line: 9, Command: "brew install <b>lib</b>", Reason: "other platform: Homebrew"},
			{File: "README.md", Line: 12, Command: "export KEY=" + secret, Reason: "placeholder"},
		},
	}
	page := render(t, l, Options{Readme: "README.md"})
	assert.Assert(t, strings.Contains(page, "Nothing to run: no README command to test"))
	assert.Assert(t, !strings.Contains(page, "The README did not work"))
	assert.Assert(t, strings.Contains(page, `<section id="skipped">`))
	assert.Assert(t, strings.Contains(page, "2 README commands were not run, and why:"))
	assert.Assert(t, strings.Contains(page, "<li><code>README.md:9</code> <code>brew install &lt;b&gt;lib&lt;/b&gt;</code>: other platform: Homebrew</li>"), page)
	assert.Assert(t, !strings.Contains(page, secret), "a skipped command's secret reached the page")

	l.Skipped = nil
	page = render(t, l, Options{})
	assert.Assert(t, !strings.Contains(page, `<section id="skipped">`))
}
