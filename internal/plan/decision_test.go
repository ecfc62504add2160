package plan

import (
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
)

// No decision depends on the words of a reason: every reason is rewritten
// to a token that says nothing, and every plan of the real-README corpora
// (the labelled corpus's training half) and the synthetic READMEs stays
// the same but for its reasons. (Not parallel: it swaps the package's
// reason renderer while no other test runs.)
func TestNoDecisionReadsAReason(t *testing.T) {
	var mds []string
	for _, dir := range []string{"real", "heldout", "synthetic"} {
		mds = append(mds, corpus(t, dir)...)
	}
	train, _ := corpusHalves(t)
	for _, r := range train {
		mds = append(mds, r.readme)
	}
	assert.Assert(t, len(mds) >= 200, "corpus READMEs: %d", len(mds))
	shape := func(plan func(*testing.T, string) *Plan) []string {
		var out []string
		for _, md := range mds {
			p := plan(t, md)
			out = append(out, fmt.Sprintf("== %s order %s", md, p.Order))
			for _, e := range p.Entries {
				out = append(out, fmt.Sprintf("%d-%d %v %s %q %+v", e.Line, e.EndLine, e.Run, e.Kind, e.Command, stepShape(e.Step)))
			}
			for _, in := range p.Installs {
				out = append(out, fmt.Sprintf("install %s %d skipped=%v", in.Tool, in.Line, in.Skipped != ""))
			}
		}
		return out
	}
	want := shape(planFile)
	saved := reasonf
	t.Cleanup(func() { reasonf = saved })
	n := 0
	reasonf = func(string, ...any) string { n++; return fmt.Sprintf("R%d", n) }
	got := shape(planFresh)
	assert.Assert(t, n > 1000, "reasons rendered: %d", n)
	assert.DeepEqual(t, got, want)
}

// stepShape is a Step with its Exit pointer as a value.
func stepShape(s Step) string {
	exit := "nil"
	if s.Exit != nil {
		exit = fmt.Sprint(*s.Exit)
	}
	s.Exit = nil
	return fmt.Sprintf("%+v exit=%s", s, exit)
}
