// Package timing owns the names of a run's phases and the record of how
// long each took: the pipeline and the sandbox measure the real code paths
// into one Record, and `readme2demo run --timings` prints it.
package timing

import (
	"fmt"
	"strings"
	"time"
)

// Phase is one measured stage of a run.
type Phase string

// A run's phases, in the order they happen. Host-side steps are the
// pipeline's (internal/pipeline); the container's are the sandbox's
// (internal/sandbox.Run).
const (
	// Prepare: the engine and its credentials, the README, the prompt or a
	// keyless engine's plan, the settings and the output directory, and the
	// run's set-up (its id, the redactor, the progress lines, the clock).
	Prepare Phase = "prepare"
	// Docker: the daemon's client, its ping and the image's inspect.
	Docker Phase = "docker"
	// Devcontainer: building the devcontainer image (--image devcontainer).
	Devcontainer Phase = "devcontainer"
	// Network: the egress policy's set-up (the proxy and its self-test
	// under allowlist).
	Network Phase = "network"
	// Sweep: removing what earlier runs left behind.
	Sweep Phase = "sweep"
	// Create: creating the container.
	Create Phase = "create"
	// Input: reading the image's command list and planning again with it
	// (a keyless engine's Prepare).
	Input Phase = "input"
	// Start: starting the container, whose main process is the command
	// (which waits for its environment until after the copy-in).
	Start Phase = "start"
	// CopyIn: the repository and the prompt or runner copied in.
	CopyIn Phase = "copy-in"
	// Meter: the strict profile's wait, after the copy-in, for the disk
	// meter's container (started beside the sandbox's start and copy-in)
	// and its first measurement.
	Meter Phase = "meter"
	// RunnerStart: the attach to the command (the container's main
	// process: its output, and its standard input for the environment)
	// and the wait for its end, both made before the start.
	RunnerStart Phase = "runner-start"
	// Commands: from the environment handed over to the command's end:
	// the login shell, the agent or runner, and the README's commands.
	Commands Phase = "commands"
	// Signals: reading the cgroup's counters (from what the command's
	// shell wrote as it exited) and the container's state.
	Signals Phase = "signals"
	// CopyOut: the transcript, stderr and the collected files copied out.
	CopyOut Phase = "copy-out"
	// Remove: the container's removal.
	Remove Phase = "remove"
	// Parse: the transcript into the command log, enriched (README lines,
	// limits, the sandbox record), redacted and validated.
	Parse Phase = "parse"
	// Reports: command_log.json, the transcript, report.md, the demo and
	// report.html written.
	Reports Phase = "reports"
	// Cleanup: the run's own cleanups (the proxy, the Docker client).
	Cleanup Phase = "cleanup"
)

// Phases lists every phase in run order.
var Phases = []Phase{Prepare, Docker, Devcontainer, Network, Sweep, Create, Input, RunnerStart, Start, CopyIn, Meter,
	Commands, Signals, CopyOut, Remove, Parse, Reports, Cleanup}

// Span is how long one phase took.
type Span struct {
	Phase Phase
	Took  time.Duration
}

// Record is a run's phases in the order they were first measured, and the
// run's total. The zero Record is empty and ready to use; it is not safe
// for concurrent use.
type Record struct {
	Spans []Span
	Total time.Duration
}

// Add adds d to phase p: a phase measured twice (copy-out's files) is one
// span.
func (r *Record) Add(p Phase, d time.Duration) {
	for i := range r.Spans {
		if r.Spans[i].Phase == p {
			r.Spans[i].Took += d
			return
		}
	}
	r.Spans = append(r.Spans, Span{Phase: p, Took: d})
}

// Start measures phase p from now until the returned function is called,
// with the clock now (time.Now when nil): defer r.Start(p, now)().
func (r *Record) Start(p Phase, now func() time.Time) func() {
	if now == nil {
		now = time.Now
	}
	start := now()
	return func() { r.Add(p, now().Sub(start)) }
}

// Took is how long phase p took; ok is false when it was not measured.
func (r Record) Took(p Phase) (d time.Duration, ok bool) {
	for _, s := range r.Spans {
		if s.Phase == p {
			return s.Took, true
		}
	}
	return 0, false
}

// Sum is the phases' total; what Total has beyond it is time between the
// phases.
func (r Record) Sum() time.Duration {
	var sum time.Duration
	for _, s := range r.Spans {
		sum += s.Took
	}
	return sum
}

// Format renders the record, one line per phase with its milliseconds and
// its share of the total, then the time between the phases ("other") and
// the total:
//
//	prepare           12.3 ms    0.5%
//	…
//	total           2431.0 ms  100.0%
func (r Record) Format() string {
	var b strings.Builder
	line := func(name string, d time.Duration) {
		share := 0.0
		if r.Total > 0 {
			share = 100 * float64(d) / float64(r.Total)
		}
		fmt.Fprintf(&b, "%-12s %9.1f ms %6.1f%%\n", name, float64(d)/float64(time.Millisecond), share)
	}
	for _, s := range r.Spans {
		line(string(s.Phase), s.Took)
	}
	if other := r.Total - r.Sum(); other > 0 {
		line("other", other)
	}
	line("total", r.Total)
	return b.String()
}
