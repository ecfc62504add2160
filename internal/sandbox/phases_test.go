package sandbox

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/timing"
)

// Run measures each phase around its own daemon calls: each fake call
// advances the run's clock by its own amount, and each phase's time is
// exactly the sum of its calls'.
func TestRunTimesEachPhase(t *testing.T) {
	var mu sync.Mutex
	at := time.Unix(1_000_000, 0)
	tick := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(d)
	}
	d := happyDocker(t)
	list, create, start, copyTo, copyFrom, attach, wait, inspect, rm := d.list, d.create, d.start, d.copyTo, d.copyFrom, d.attach, d.wait, d.inspect, d.rm
	d.list = func(o container.ListOptions) ([]container.Summary, error) { tick(1 * time.Millisecond); return list(o) }
	d.create = func(c *container.Config, hc *container.HostConfig, name string) (container.CreateResponse, error) {
		tick(2 * time.Millisecond)
		return create(c, hc, name)
	}
	d.start = func(id string) error { tick(4 * time.Millisecond); return start(id) }
	d.copyTo = func(dst string, r io.Reader) error { tick(8 * time.Millisecond); return copyTo(dst, r) }
	d.attach = func(id string) (types.HijackedResponse, error) { tick(16 * time.Millisecond); return attach(id) }
	// The wait answers once the command's output has ended: after the start.
	d.wait = func(id string) (container.WaitResponse, error) { tick(32 * time.Millisecond); return wait(id) }
	d.copyFrom = func(src string) (io.ReadCloser, container.PathStat, error) {
		tick(128 * time.Millisecond)
		return copyFrom(src)
	}
	// The layer's directory (before the meter, no phase of its own) and
	// the container's state after the command.
	d.inspect = func(id string, size bool) (container.InspectResponse, error) {
		if !size {
			tick(64 * time.Millisecond)
		}
		return inspect(id, size)
	}
	d.rm = func(id string, o container.RemoveOptions) error { tick(256 * time.Millisecond); return rm(id, o) }

	s := fakeSpec()
	s.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	ms := time.Millisecond
	assert.Check(t, is.DeepEqual(res.Phases.Spans, []timing.Span{
		{Phase: timing.Sweep, Took: 1 * ms},
		{Phase: timing.Create, Took: 2 * ms},
		{Phase: timing.RunnerStart, Took: 16 * ms}, // attached (and waited for) before the start
		{Phase: timing.Start, Took: 4 * ms},
		{Phase: timing.CopyIn, Took: 8 * ms}, // the command waits for it, then for its environment
		{Phase: timing.Commands, Took: 32 * ms},
		{Phase: timing.CopyOut, Took: 128 * ms}, // the transcript and stderr, in one archive of their directory
		{Phase: timing.Signals, Took: 64 * ms},  // the fake's command wrote no signals: the container's state only
		{Phase: timing.Remove, Took: 256 * ms},
	}))
	assert.Check(t, is.Equal(res.Phases.Total, res.Elapsed))
	assert.Check(t, is.Equal(res.Elapsed, 575*ms))
}
