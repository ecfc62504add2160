package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"gotest.tools/v3/assert"
)

// No decision depends on the words of a reason: every reason is rewritten
// to a token that says nothing, and every plan of the real-README corpora
// (the labelled corpus's training half) and the synthetic READMEs stays
// the same but for its reasons. (Not parallel with the package's other
// tests: it swaps the package's reason renderer while none of them runs;
// its own subtests plan side by side.)
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
	// Each pass plans the READMEs side by side, as parallel subtests of
	// one group that returns when they are all done.
	shape := func(name string, plan func(*testing.T, string) *Plan) []string {
		per := make([][]string, len(mds))
		t.Run(name, func(t *testing.T) {
			for i, md := range mds {
				t.Run(filepath.Base(md), func(t *testing.T) {
					t.Parallel()
					p := plan(t, md)
					out := []string{fmt.Sprintf("== %s order %s", md, p.Order)}
					for _, e := range p.Entries {
						out = append(out, fmt.Sprintf("%d-%d %v %s %q %+v", e.Line, e.EndLine, e.Run, e.Kind, e.Command, stepShape(e.Step)))
					}
					for _, in := range p.Installs {
						out = append(out, fmt.Sprintf("install %s %d skipped=%v", in.Tool, in.Line, in.Skipped != ""))
					}
					per[i] = out
				})
			}
		})
		return slices.Concat(per...)
	}
	want := shape("as written", planFile)
	saved := reasonf
	t.Cleanup(func() { reasonf = saved })
	var n atomic.Int64
	reasonf = func(string, ...any) string { return fmt.Sprintf("R%d", n.Add(1)) }
	got := shape("reasons rewritten", planFresh)
	assert.Assert(t, n.Load() > 1000, "reasons rendered: %d", n.Load())
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
