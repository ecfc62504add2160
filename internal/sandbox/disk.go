package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The disk cap is measured, not enforced by the storage driver: overlay2
// enforces `--storage-opt size` only on xfs with project quotas, which
// neither GitHub's runners nor Debian's docker.io here have. So while the
// command runs, a watcher measures the run's whole writable space and kills
// the container when it passes the cap:
//
//   - the container's own layer, as the daemon measures it (ContainerInspect
//     with size: SizeRw, the apparent size of every file the run added or
//     changed). In the dev profile this is everything the run can write.
//   - the strict profile's volumes, measured by the disk meter (meter.go),
//     a process that measures them again and again on the same schedule
//     and streams each result: checking it needs no call to the daemon,
//     so a loaded daemon does not make it late. Where the daemon names the
//     container's layer directory the meter measures the layer too.
//   - files deleted while still open, which no walk sees: the meter finds
//     them among the descriptors of the container's processes
//     (deletedHeld).
//
// Between two measurements a writer gets at most the disk's write speed
// times the interval, and no single file can pass the cap (RLIMIT_FSIZE),
// nor can fallocate reserve space without writing it (seccomp_linux.go).
//
// The cost is bounded: a measurement walks the files the run wrote, so the
// interval is ten times the last measurement's duration, at least DiskPoll
// and at most MaxDiskPoll: measuring never takes more than about a tenth of
// the daemon's time, however many files the run creates (the second
// measurement comes at most 2*DiskPoll after the first). Except near the
// cap: when usage grows, the next measurement comes before the current rate
// could reach the cap (at most half that time, at least DiskPoll), so a fast
// writer is not measured late because measuring is slow.
const (
	DefaultDiskPoll = 100 * time.Millisecond
	MaxDiskPoll     = 20 * time.Second
	// diskCostFactor spaces measurements by their own cost.
	diskCostFactor = 10
	// diskFailLimit consecutive failed measurements stop the run: a cap
	// that cannot be checked is not left unchecked.
	diskFailLimit = 5
	diskTimeout   = 60 * time.Second
	// pidsPoll spaces the process-count checks, which need no fine
	// timing (a fork bomb is stopped after PidsStuck).
	pidsPoll = time.Second
	// DefaultMeterDelay is Spec.MeterDelay's default: a README of a few
	// quick commands is done before it, and an inode bomb makes a few
	// hundred thousand files in it (the default cap is 1,310,720).
	DefaultMeterDelay = time.Second
	// DefaultPidsStuck is how long the process limit may stay reached
	// before the run is stopped (Spec.PidsStuck).
	DefaultPidsStuck = time.Minute
)

// diskWatch is what the watcher found.
type diskWatch struct {
	peak       int64
	deleted    int64 // of peak, what files deleted while still open held
	inodesPeak int64 // -1: inodes were not measured
	measures   int
	unmeasured bool
	lastErr    error
	over       bool // usage passed the cap
	overInodes bool // ... the inode cap
	// layerMetered: the meter measured the container's layer (from its
	// first measurement on; the daemon did before).
	layerMetered bool
	failed       bool // diskFailLimit measurements in a row failed
	pidsHit      int
	pidsStuck    bool // the process limit stayed reached for PidsStuck
}

// measureFunc returns what the disk meter's directories hold (the strict
// profile's volumes, and the container's layer where the meter sees it)
// and the time the measuring work took; nil when there is no meter.
type measureFunc func(ctx context.Context) (DirSize, time.Duration, error)

// nextMeasureOf is nextMeasure for bytes and inodes: the sooner of the two.
func nextMeasureOf(poll time.Duration, caps DirSize, measures int, cost time.Duration, prev, cur DirSize, elapsed time.Duration) time.Duration {
	return min(nextMeasure(poll, caps.Bytes, measures, cost, prev.Taken(), cur.Taken(), elapsed),
		nextMeasure(poll, caps.Inodes, measures, cost, prev.Inodes, cur.Inodes, elapsed))
}

// nextMeasure is the interval before the next measurement, after the
// measures-th, which took cost and found used bytes, elapsed after the
// one before it found prev (prev >= used: no growth to reckon with).
func nextMeasure(poll time.Duration, capBytes int64, measures int, cost time.Duration, prev, used int64, elapsed time.Duration) time.Duration {
	next := min(max(poll, cost*diskCostFactor), MaxDiskPoll)
	if measures <= 1 {
		// The first measurement comes before the command has written
		// much, and its cost on a loaded daemon says little about the
		// run: it does not leave a fast writer unmeasured for seconds.
		next = min(next, 2*poll)
	}
	if used > prev && elapsed > 0 {
		// A fast writer gets measured before it can reach the cap: at
		// most half the time the current rate needs to get there.
		rate := float64(used-prev) / elapsed.Seconds()
		toCap := time.Duration(float64(capBytes-used) / rate * float64(time.Second))
		next = min(next, max(poll, toCap/2))
	}
	return next
}

// watchDisk measures the run's writable space until ctx ends or a cap is
// passed; it then closes hit (once) and returns what it found. The disk
// meter, once its feed is ready with a stream, streams what its
// directories hold, and every new measurement (wake) is checked at once;
// the container's layer, unless the meter sees it, is measured by the
// daemon on the watcher's schedule, its last size added to the meter's.
func watchDisk(ctx context.Context, d Docker, id string, s Spec, feed *meterFeed, hit chan<- struct{}) diskWatch {
	w := diskWatch{peak: -1, inodesPeak: -1}
	var meter measureFunc
	var stream *volumeStream
	var wake <-chan struct{}
	ready := feed.ready
	caps := DirSize{Bytes: s.Disk, Inodes: s.Inodes}
	// check records a measurement; it reports whether a cap is passed
	// (and then closes hit). Inodes are known where the meter measured.
	check := func(u DirSize) bool {
		w.measures++
		if u.Taken() > w.peak {
			w.peak, w.deleted = u.Taken(), u.Deleted
		}
		if meter != nil {
			w.inodesPeak = max(w.inodesPeak, u.Inodes)
		}
		switch {
		case u.TooDeep > 0:
			// What a tree past the path limit holds cannot be measured:
			// a cap that cannot be checked is not left unchecked.
			w.failed, w.lastErr = true, errors.New("the run made a directory tree deeper than the system's path limit (4096 bytes of path), so what it holds cannot be measured")
		case u.Descriptors > maxDescriptors:
			// Reading them all would leave the cap unchecked for seconds.
			w.failed, w.lastErr = true, fmt.Errorf("the run held more than %d open descriptors, so what files deleted while still open hold cannot be measured", maxDescriptors)
		case u.Taken() > s.Disk:
			w.over = true
		case meter != nil && u.Inodes > s.Inodes:
			w.over, w.overInodes = true, true
		default:
			return false
		}
		close(hit)
		return true
	}
	interval := s.DiskPoll
	fails := 0
	var atLimitSince, pidsAt time.Time
	// The rate of the first measurement counts from nothing at the start:
	// an overestimate (the repository copied in counts too), on the safe
	// side.
	var prev DirSize
	prevAt := time.Now()
	layer := int64(-1) // the layer's size at the last measurement
	// The daemon's measurement runs beside the loop, so that a slow one
	// does not hold up checking the meter's.
	type layerResult struct {
		used  DirSize
		layer int64
		known bool
		cost  time.Duration
		err   error
	}
	results := make(chan layerResult, 1)
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		var r layerResult
		select {
		case <-ctx.Done():
			return w
		case <-ready:
			ready = nil
			if feed.stream != nil {
				stream = feed.stream
				meter, wake, w.layerMetered = stream.latest, stream.changed, feed.layer
			}
			continue
		case <-wake:
			// Before the daemon's first answer the layer counts as
			// empty: the check can only be late, never wrong.
			v, _, err := meter(ctx)
			if err != nil {
				continue // the next full measurement reports it
			}
			if !w.layerMetered {
				v.Bytes += max(layer, 0)
			}
			if check(v) {
				return w
			}
			continue
		case <-t.C:
			go func(meter measureFunc, layerMetered bool) {
				var r layerResult
				r.used, r.layer, r.known, r.cost, r.err = measureOnce(ctx, d, id, meter, layerMetered)
				results <- r
			}(meter, w.layerMetered)
			continue
		case r = <-results:
		}
		used, known, cost, err := r.used, r.known, r.cost, r.err
		if ctx.Err() != nil {
			return w
		}
		switch {
		case err != nil && stream != nil && stream.over() && !running(ctx, d, id):
			// The meter runs in the container's process namespace and
			// ends with its first process: the command is over, and
			// nothing is left to measure (the run learns of the end in a
			// moment).
			return w
		case err != nil:
			fails++
			w.lastErr = err
			if fails >= diskFailLimit {
				w.failed = true
				close(hit)
				return w
			}
		case !known:
			// The daemon does not report sizes (some storage drivers):
			// the cap cannot be checked; say so rather than guess.
			w.unmeasured = true
		default:
			fails = 0
			layer = r.layer
			if check(used) {
				return w
			}
		}
		next := min(max(s.DiskPoll, cost*diskCostFactor), MaxDiskPoll)
		if known && err == nil {
			now := time.Now()
			next = nextMeasureOf(s.DiskPoll, caps, w.measures, cost, prev, used, now.Sub(prevAt))
			prev, prevAt = used, now
		} else if w.measures <= 1 {
			next = min(next, 2*s.DiskPoll)
		}
		// A fork bomb keeps the process count at the limit (it dips as
		// forks give up and retry): nothing can start in the container
		// any more, the runner and the agent included, and waiting for
		// the timeout would only burn the CPUs. Full again PidsStuck after
		// first full, never below half in between: stop the run.
		level := pidsUnknown
		if time.Since(pidsAt) >= pidsPoll {
			level, pidsAt = pidsLevel(ctx, d, id, s.PidsLimit), time.Now()
		}
		switch level {
		case pidsFull:
			w.pidsHit++
			now := time.Now()
			if atLimitSince.IsZero() {
				atLimitSince = now
			} else if now.Sub(atLimitSince) >= s.PidsStuck {
				w.pidsStuck = true
				close(hit)
				return w
			}
		case pidsLow:
			atLimitSince = time.Time{}
		}
		interval = next
		t.Reset(interval)
	}
}

// running reports whether the container still runs; true when the daemon
// does not say.
func running(ctx context.Context, d Docker, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, diskTimeout)
	defer cancel()
	c, _, err := d.ContainerInspectWithRaw(ctx, id, false)
	return err != nil || c.ContainerJSONBase == nil || c.State == nil || c.State.Running
}

// measureOnce returns the run's writable-space usage, the container
// layer's part of it, and what measuring cost: the daemon's walk of the
// layer (the inspect's duration; the meter walks on its own schedule).
// Where the meter sees the layer (layerMetered), the daemon is not asked:
// the meter's last measurement is the whole usage. known is false when the
// daemon reports no size for the container's layer.
func measureOnce(ctx context.Context, d Docker, id string, meter measureFunc, layerMetered bool) (used DirSize, layer int64, known bool, cost time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, diskTimeout)
	defer cancel()
	if layerMetered {
		used, cost, err = meter(ctx)
		if err != nil {
			return DirSize{}, 0, false, cost, fmt.Errorf("measure the run's files: %w", err)
		}
		return used, 0, true, cost, nil
	}
	start := time.Now()
	c, _, err := d.ContainerInspectWithRaw(ctx, id, true)
	cost = time.Since(start)
	if err != nil {
		return DirSize{}, 0, false, cost, fmt.Errorf("measure container size: %w", err)
	}
	if c.SizeRw == nil {
		return DirSize{}, 0, false, cost, nil
	}
	layer = *c.SizeRw
	if meter != nil {
		v, _, err := meter(ctx)
		if err != nil {
			return DirSize{}, 0, false, cost, fmt.Errorf("measure volumes: %w", err)
		}
		used = v
	}
	used.Bytes += layer
	return used, layer, true, cost, nil
}

// pidsLevel reads the container's process count against its limit from
// the daemon's statistics (no process in the container is needed to tell):
// pidsFull at 90% of the limit or more, pidsBusy at half of it or more,
// pidsUnknown when the daemon did not answer.
func pidsLevel(ctx context.Context, d Docker, id string, limit int64) int {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := d.ContainerStatsOneShot(ctx, id)
	if err != nil {
		return pidsUnknown
	}
	defer r.Body.Close()
	var st struct {
		PidsStats struct {
			Current uint64 `json:"current"`
			Limit   uint64 `json:"limit"`
		} `json:"pids_stats"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&st); err != nil {
		return pidsUnknown
	}
	lim := st.PidsStats.Limit
	if lim == 0 && limit > 0 {
		lim = uint64(limit)
	}
	switch {
	case lim == 0:
		return pidsUnknown
	case st.PidsStats.Current*10 >= lim*9:
		return pidsFull
	case st.PidsStats.Current*2 >= lim:
		return pidsBusy
	}
	return pidsLow
}

// Levels of pidsLevel.
const (
	pidsUnknown = iota
	pidsLow
	pidsBusy
	pidsFull
)
