package timing_test

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/timing"
)

// A phase measured twice is one span with both times; Start measures with
// the clock it is given.
func TestRecordAddsAndMeasures(t *testing.T) {
	at := time.Unix(0, 0)
	now := func() time.Time { return at }
	var r timing.Record
	done := r.Start(timing.Create, now)
	at = at.Add(40 * time.Millisecond)
	done()
	r.Add(timing.CopyOut, 3*time.Millisecond)
	r.Add(timing.CopyOut, 2*time.Millisecond)
	assert.Check(t, is.DeepEqual(r.Spans, []timing.Span{
		{Phase: timing.Create, Took: 40 * time.Millisecond},
		{Phase: timing.CopyOut, Took: 5 * time.Millisecond},
	}))
	assert.Check(t, is.Equal(r.Sum(), 45*time.Millisecond))
	took, ok := r.Took(timing.CopyOut)
	assert.Check(t, ok)
	assert.Check(t, is.Equal(took, 5*time.Millisecond))
	_, ok = r.Took(timing.Meter)
	assert.Check(t, !ok, "a phase never measured")
}

// Format: one line per phase with its milliseconds and share of the
// total, the time between phases as "other", then the total.
func TestFormat(t *testing.T) {
	r := timing.Record{Total: 2 * time.Second, Spans: []timing.Span{
		{Phase: timing.Prepare, Took: 12300 * time.Microsecond},
		{Phase: timing.Create, Took: 250 * time.Millisecond},
		{Phase: timing.Commands, Took: 1500 * time.Millisecond},
		{Phase: timing.Reports, Took: 200 * time.Millisecond},
	}}
	assert.Check(t, is.Equal(r.Format(), ""+
		"prepare           12.3 ms    0.6%\n"+
		"create           250.0 ms   12.5%\n"+
		"commands        1500.0 ms   75.0%\n"+
		"reports          200.0 ms   10.0%\n"+
		"other             37.7 ms    1.9%\n"+
		"total           2000.0 ms  100.0%\n"))

	// Nothing between the phases: no "other" line; no total: no share.
	assert.Check(t, is.Equal(timing.Record{Spans: []timing.Span{{Phase: timing.Parse, Took: time.Millisecond}}, Total: time.Millisecond}.Format(), ""+
		"parse              1.0 ms  100.0%\n"+
		"total              1.0 ms  100.0%\n"))
	assert.Check(t, is.Equal(timing.Record{}.Format(), "total              0.0 ms    0.0%\n"))
}

// Every phase has a distinct name.
func TestPhasesAreDistinct(t *testing.T) {
	seen := map[timing.Phase]bool{}
	for _, p := range timing.Phases {
		assert.Check(t, !seen[p], "phase %q listed twice", p)
		assert.Check(t, p != "")
		seen[p] = true
	}
}
