package engines_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
)

// An evaluation file of two instances 90 minutes apart: each instance has
// its own cost, turns and duration; read as one log, the duration is the
// sum of the instances' own, never the span across them.
func TestOpenHandsInstances(t *testing.T) {
	path := filepath.Join(repoRoot(t), "testdata", "fixtures", "openhands", "eval-two-instances.history.jsonl")
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	runs, err := openHands(t).(engines.InstanceParser).ParseInstances(f)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(runs, 2))
	for i, want := range []struct {
		id   string
		cost float64
	}{{"demo__app-1", 0.0123}, {"demo__app-2", 0.0456}} {
		l := runs[i].Log
		assert.Check(t, is.Equal(runs[i].ID, want.id))
		assert.Check(t, is.Equal(*l.CostUSD, want.cost))
		assert.Check(t, is.Equal(*l.DurationMS, int64(72_200)))
		assert.Check(t, len(l.Commands) > 0)
		for _, c := range l.Commands {
			assert.Check(t, !strings.Contains(c.ID, "/"), "ids are the instance's own: %s", c.ID)
		}
	}
	merged := parseFile(t, openHands(t), path)
	assert.Check(t, is.Equal(*merged.DurationMS, int64(2*72_200)), "not the 91-minute span across instances")
	assert.Check(t, is.Equal(*merged.CostUSD, 0.0123+0.0456))
}

// A transcript of one run is one instance named ""; a repeated instance id
// is told apart.
func TestOpenHandsInstancesNaming(t *testing.T) {
	ip := openHands(t).(engines.InstanceParser)
	one, err := ip.ParseInstances(strings.NewReader(`{"id":1,"source":"agent","action":"run","args":{"command":"ls"}}` + "\n"))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(one, 1))
	assert.Check(t, is.Equal(one[0].ID, ""))
	assert.Check(t, is.Len(one[0].Log.Commands, 1))

	line := `{"instance_id":"x","history":[{"id":1,"source":"agent","action":"run","args":{"command":"ls"}}]}` + "\n"
	twice, err := ip.ParseInstances(strings.NewReader(line + line + `{"history":[]}` + "\n"))
	assert.NilError(t, err)
	var ids []string
	for _, r := range twice {
		ids = append(ids, r.ID)
	}
	assert.Check(t, is.DeepEqual(ids, []string{"x", "x#2", "history-3"}))
}

// EachInstance hands the runs over one at a time, the events outside
// evaluation lines last; an error from the callback stops the parse at
// once and comes back wrapped.
func TestOpenHandsEachInstance(t *testing.T) {
	ip := openHands(t).(engines.InstanceParser)
	line := func(id string) string {
		return `{"instance_id":"` + id + `","history":[{"id":1,"source":"agent","action":"run","args":{"command":"ls"}}]}` + "\n"
	}
	event := `{"id":1,"source":"agent","action":"run","args":{"command":"pwd"}}` + "\n"
	in := line("a") + event + line("b") + line("c")
	var ids []string
	assert.NilError(t, ip.EachInstance(strings.NewReader(in), func(r engines.Instance) error {
		ids = append(ids, r.ID)
		return nil
	}))
	assert.Check(t, is.DeepEqual(ids, []string{"a", "b", "c", ""}))

	stop := errors.New("disk full")
	calls := 0
	err := ip.EachInstance(strings.NewReader(strings.Repeat(line("x"), 50)), func(engines.Instance) error {
		calls++
		return stop
	})
	assert.Check(t, errors.Is(err, stop), "%v", err)
	assert.Check(t, is.Equal(calls, 1), "the parse stops at the first error")
}
