package engines

import (
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
}

var _ InstanceParser = (*openHands)(nil)

// ParseInstances gives each evaluation line its own log; the events outside
// evaluation lines, if any, are one more run with ID "". Instance ids that
// repeat (a retried instance) get "#2", "#3", ….
func (o *openHands) ParseInstances(r io.Reader) ([]Instance, error) {
	rest := newOpenHandsParser(newLogBuilder(o.Name()))
	var out []Instance
	seen := map[string]int{}
	err := readRecords(r, o.options(), rest.b, func(v *jsonv.Value) {
		if !isHistoryLine(v) {
			rest.topLevel(v)
			return
		}
		ip := newOpenHandsParser(newLogBuilder(o.Name()))
		ip.readHistory(ip.main, v)
		id := instanceID(v, len(out)+1)
		if seen[id]++; seen[id] > 1 {
			id += "#" + strconv.Itoa(seen[id])
		}
		out = append(out, Instance{ID: id, Log: ip.finish()})
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 || rest.b.log.ParseStats.Lines > rest.b.log.ParseStats.Malformed || len(rest.pages) > 0 {
		out = append([]Instance{{Log: rest.finish()}}, out...)
	}
	return out, nil
}
