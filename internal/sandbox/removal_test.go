package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/errdefs"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// shortRemoval makes the removal's timeouts short for a test.
func shortRemoval(t *testing.T) {
	t.Helper()
	oldTimeout, oldPoll := removeTimeout, removePoll
	removeTimeout, removePoll = 20*time.Millisecond, time.Millisecond
	t.Cleanup(func() { removeTimeout, removePoll = oldTimeout, oldPoll })
}

// A container the daemon takes longer than one removal call to delete (a
// layer of hundreds of thousands of files) is waited for: the run ends
// with it gone, and with what it found.
func TestRunWaitsForASlowRemoval(t *testing.T) {
	shortRemoval(t)
	d := happyDocker(t)
	var rms atomic.Int32
	var gone atomic.Bool
	d.rm = func(string, container.RemoveOptions) error {
		if rms.Add(1) == 1 {
			time.Sleep(3 * removeTimeout) // the call gives up; the daemon goes on
			return context.DeadlineExceeded
		}
		return errdefs.Conflict(errors.New("removal of container c1 is already in progress"))
	}
	looks := 0
	d.inspect = func(_ string, size bool) (container.InspectResponse, error) {
		if rms.Load() == 0 {
			return inspected(100, true, false), nil // the run's own looks
		}
		if looks++; looks < 3 {
			c := inspected(100, false, false)
			c.State.Status = "removing"
			return c, nil
		}
		gone.Store(true)
		return container.InspectResponse{}, errdefs.NotFound(errors.New("No such container: c1"))
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, res.RemoveErr)
	assert.Check(t, gone.Load(), "the run ended before the container was gone")
	assert.Check(t, is.Equal(rms.Load(), int32(1)), "no second removal while the daemon is still deleting it")
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"))
}

// When the daemon stopped deleting it (the container is there, not being
// removed), the removal is asked for again. Two ways the first call gives
// up: it ran past its deadline, or it returned its deadline's error before
// the context's timer had fired (a loaded machine runs timers late), which
// gave up all the same and is not a failure for good.
func TestRunAsksAgainWhenTheRemovalStopped(t *testing.T) {
	for name, first := range map[string]func() error{
		"past its deadline": func() error {
			time.Sleep(3 * removeTimeout)
			return context.DeadlineExceeded
		},
		"before the timer fired": func() error { return fmt.Errorf("request canceled: %w", context.DeadlineExceeded) },
	} {
		t.Run(name, func(t *testing.T) {
			shortRemoval(t)
			d := happyDocker(t)
			var rms atomic.Int32
			d.rm = func(string, container.RemoveOptions) error {
				if rms.Add(1) == 1 {
					return first()
				}
				return nil
			}
			d.inspect = func(string, bool) (container.InspectResponse, error) {
				if rms.Load() >= 2 { // the second call removed it
					return container.InspectResponse{}, errdefs.NotFound(errors.New("No such container: c1"))
				}
				return inspected(100, false, false), nil
			}
			res, err := Run(context.Background(), d, fakeSpec())
			assert.NilError(t, err)
			assert.Check(t, res.RemoveErr)
			assert.Check(t, is.Equal(rms.Load(), int32(2)))
		})
	}
}

// A removal that fails for good leaves the container to the sweep and
// says so, and the run keeps what it found.
func TestRunKeepsItsResultsWhenTheContainerStays(t *testing.T) {
	d := happyDocker(t)
	d.rm = func(string, container.RemoveOptions) error {
		return errdefs.System(errors.New("device or resource busy"))
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, is.ErrorContains(res.RemoveErr, "remove container c1: device or resource busy"))
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"))
}

// A cancelled run does not wait for a slow removal: its cleanup must end
// within the seconds a cancelled job gets.
func TestCancelledRunDoesNotWaitForTheRemoval(t *testing.T) {
	shortRemoval(t)
	d := happyDocker(t)
	var rms atomic.Int32
	d.rm = func(string, container.RemoveOptions) error {
		rms.Add(1)
		time.Sleep(3 * removeTimeout)
		return context.DeadlineExceeded
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ := Run(ctx, d, fakeSpec())
	assert.Check(t, is.Equal(rms.Load(), int32(1)))
	assert.Check(t, is.ErrorContains(res.RemoveErr, "remove container c1"))
}

// A second removal call that the daemon answers "already in progress"
// (its state not yet shown as removing) does not end the wait: the run
// ends when inspect no longer finds the container (seen in CI: the run
// returned with the container still "Removal In Progress").
func TestRunWaitsPastARemovalAlreadyInProgress(t *testing.T) {
	shortRemoval(t)
	d := happyDocker(t)
	var rms atomic.Int32
	var gone atomic.Bool
	d.rm = func(string, container.RemoveOptions) error {
		if rms.Add(1) == 1 {
			time.Sleep(3 * removeTimeout)
			return context.DeadlineExceeded
		}
		return errdefs.Conflict(errors.New("removal of container c1 is already in progress"))
	}
	looks := 0
	d.inspect = func(_ string, size bool) (container.InspectResponse, error) {
		if rms.Load() == 0 {
			return inspected(100, true, false), nil
		}
		if looks++; looks < 4 {
			return inspected(100, false, false), nil // exited, not yet shown as removing
		}
		gone.Store(true)
		return container.InspectResponse{}, errdefs.NotFound(errors.New("No such container: c1"))
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, res.RemoveErr)
	assert.Check(t, gone.Load(), "the run ended before the container was gone")
}
