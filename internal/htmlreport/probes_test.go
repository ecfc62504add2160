package htmlreport

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// The page shows the probes (commands run on a guess) apart from the
// steps: those that failed are listed with the hint that makes them steps,
// all are counted.
func TestProbesShownApart(t *testing.T) {
	ip := func(n int) *int { return &n }
	src := func(line int) *commandlog.Source { return &commandlog.Source{File: "README.md", Line: line} }
	l := &commandlog.Log{SchemaVersion: 1, Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "make build", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(18), Planned: commandlog.PlannedStep},
		{ID: "2", Command: "demo --version", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(25), Planned: commandlog.PlannedProbe},
		{ID: "3", Command: "demo serve --config <path>", ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(31), Planned: commandlog.PlannedProbe},
		{ID: "4", Command: "kubectl get pods", Status: commandlog.StatusUnknown, Planned: commandlog.PlannedProbe},
		{ID: "5", Command: "demo watch", ExitCode: ip(124), Status: commandlog.StatusFailed, Source: src(40), Planned: commandlog.PlannedProbe,
			Output: "watching\n" + commandlog.TimeoutNote(120)},
	}}
	page := render(t, l, Options{Readme: "README.md"})
	assert.Assert(t, strings.Contains(page, `<dd id="counts">5 run · 2 ok · 2 failed · 1 unknown · 4 probes: 1 passed, 3 failed</dd>`), page)
	start := strings.Index(page, `<section id="probes">`)
	assert.Assert(t, start >= 0, page)
	end := strings.Index(page[start:], "</section>")
	assert.Equal(t, page[start:start+end+len("</section>")], `<section id="probes">
<h2>Ran on a guess and failed</h2>
<p class="note">These commands are probes: the plan ran them without being sure that the README means them to be run, so their failure did not fail the run.</p>
<ul>
<li><code>README.md:31</code> <code>demo serve --config &lt;path&gt;</code> (exit 2): ran on a guess and failed: if this is a step, add <code>&lt;!-- readme2demo: run --&gt;</code> above its block</li>
<li><code>kubectl get pods</code> (exit code unknown): ran on a guess and failed: if this is a step, add <code>&lt;!-- readme2demo: run --&gt;</code> above its block</li>
<li><code>README.md:40</code> <code>demo watch</code> (timed out after 120s): ran on a guess and failed: if this is a step, add <code>&lt;!-- readme2demo: run --&gt;</code> above its block</li>
</ul>
</section>`)

	// Steps only: no probe section, no probe count.
	for i := range l.Commands {
		l.Commands[i].Planned = commandlog.PlannedStep
	}
	page = render(t, l, Options{Readme: "README.md"})
	assert.Assert(t, !strings.Contains(page, `<section id="probes">`))
	assert.Assert(t, strings.Contains(page, `<dd id="counts">5 run · 2 ok · 2 failed · 1 unknown</dd>`), page)
}
