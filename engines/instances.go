package engines

import (
	"fmt"
	"io"
	"strconv"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// Instance is one run of a transcript that holds several: a line of an
// evaluation output file (one benchmark instance each).
type Instance struct {
	ID  string // the run's own name (instance_id); "" for a transcript of one run
	Log *commandlog.Log
}

// InstanceParser is implemented by engines whose transcripts can hold
// several independent runs (OpenHands evaluation and resolver output).
// ParseTranscript reads such a file as one log; ParseInstances gives each
// run its own, with its own cost, turns and duration.
type InstanceParser interface {
	// ParseInstances parses each run on its own, in file order. A transcript
	// of one run gives one Instance with ID "". Pure, like ParseTranscript.
	ParseInstances(r io.Reader) ([]Instance, error)
	// EachInstance parses the same runs, handing each to fn as soon as it is
	// read, so that memory does not grow with their number: the runs of
	// evaluation lines in file order, then the run of the events outside
	// them, when there is one (which ParseInstances puts first). An error
	// from fn stops the parse and is returned, wrapped.
	EachInstance(r io.Reader, fn func(Instance) error) error
}

var _ InstanceParser = (*openHands)(nil)

// ParseInstances gives each evaluation line its own log; the events outside
// evaluation lines, if any, are one more run with ID "", first. Instance ids
// that repeat (a retried instance) get "#2", "#3", ….
func (o *openHands) ParseInstances(r io.Reader) ([]Instance, error) {
	var out []Instance
	err := o.EachInstance(r, func(in Instance) error {
		if in.ID == "" { // the events outside evaluation lines: last from EachInstance
			out = append([]Instance{in}, out...)
			return nil
		}
		out = append(out, in)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachInstance is ParseInstances run by run (see InstanceParser).
func (o *openHands) EachInstance(r io.Reader, fn func(Instance) error) error {
	rest := newOpenHandsParser(newLogBuilderTo(o.Name(), nil))
	n := 0
	seen := map[string]int{}
	err := readRecords(r, unclipped(openHandsOptions, o.noClip), rest.b, func(v *jsonv.Value) {
		if !isHistoryLine(v) {
			rest.topLevel(v)
			return
		}
		ip := newOpenHandsParser(newLogBuilderTo(o.Name(), nil))
		ip.readHistory(ip.main, v)
		n++
		id := instanceID(v, n)
		if seen[id]++; seen[id] > 1 {
			id += "#" + strconv.Itoa(seen[id])
		}
		if err := fn(Instance{ID: id, Log: ip.finish()}); err != nil {
			rest.b.err = err // stops readRecords, which returns it wrapped
		}
	})
	if err != nil {
		return err
	}
	if n == 0 || rest.b.log.ParseStats.Lines > rest.b.log.ParseStats.Malformed || len(rest.pages) > 0 {
		if err := fn(Instance{Log: rest.finish()}); err != nil {
			return fmt.Errorf("write %s command log: %w", o.Name(), err)
		}
	}
	return nil
}
