package transcript_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/transcript"
	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

type runLog struct{ ID, Log string }

// Stream reads a file of several runs run by run into a spill file: the
// same logs, byte for byte and in the same order, as Parse holds in memory
// (the events outside evaluation lines first, repeated ids told apart),
// the same ids, warnings and verdict.
func TestStreamRunsMatchesParse(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(fixtures, "openhands", name))
		assert.NilError(t, err)
		return b
	}
	eval, pairs, events := read("eval-two-instances.history.jsonl"), read("v0-eval-pairs-failed.history.jsonl"), read("v0-adjusted-success.jsonl")
	var copies bytes.Buffer
	g := transcriptgen.New(eval)
	for range 40 {
		_, err := g.WriteCopy(&copies)
		assert.NilError(t, err)
	}
	// Detection names the format most of the first records have: the
	// events come after sixty runs.
	lines := bytes.SplitAfter(copies.Bytes(), []byte("\n"))
	runs, more := bytes.Join(lines[:60], nil), bytes.Join(lines[60:70], nil)
	for name, in := range map[string][]byte{
		"two instances":                   eval,
		"pairs history":                   append(append([]byte{}, eval...), pairs...),
		"repeated ids":                    bytes.Repeat(eval, 3),
		"events outside runs, in between": join(runs, events, more, events),
		"eighty runs":                     copies.Bytes(),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "output.jsonl")
			assert.NilError(t, os.WriteFile(path, in, 0o644))
			spill := t.TempDir()
			res, w, err := transcript.Stream(path, transcript.Options{}, spill)
			assert.NilError(t, err)
			assert.Assert(t, w == nil && res.Runs != nil, "read as several runs")
			var got []runLog
			assert.NilError(t, res.Runs.Each(func(id string, log []byte) error {
				got = append(got, runLog{id, string(log)})
				return nil
			}))

			whole, err := transcript.Parse(path, transcript.Options{})
			assert.NilError(t, err)
			var want []runLog
			for _, r := range whole.Logs {
				want = append(want, runLog{r.ID, encode(t, r.Log)})
			}
			assert.Assert(t, len(want) > 1)
			assert.DeepEqual(t, got, want)
			assert.Check(t, is.Equal(res.Runs.Len(), len(want)))
			assert.Check(t, is.DeepEqual(res.IDs(), whole.IDs()))
			assert.Check(t, is.DeepEqual(res.Warnings, whole.Warnings))
			assert.Check(t, is.Equal(res.NotUnderstood == nil, whole.NotUnderstood == nil))

			// The array form: each run's whole log under its id, in order.
			var arr bytes.Buffer
			assert.NilError(t, res.Runs.WriteArray(&arr))
			assert.Check(t, is.Equal(arr.String(), arrayOf(want)))
			var parsed []map[string]json.RawMessage
			assert.NilError(t, json.Unmarshal(arr.Bytes(), &parsed))
			assert.Check(t, is.Len(parsed, len(want)))

			// --instance keeps one run, read one at a time: the same log.
			last := want[len(want)-1]
			one, err := transcript.Parse(path, transcript.Options{Instance: last.ID})
			assert.NilError(t, err)
			assert.Assert(t, is.Len(one.Logs, 1))
			assert.Check(t, is.Equal(encode(t, one.Logs[0].Log), last.Log))

			assert.NilError(t, res.Runs.Close())
			left, err := os.ReadDir(spill)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "the spill file is gone")
		})
	}
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// arrayOf is the array `readme2demo parse` has always written for several
// runs: [{"instance": ID, "command_log": LOG}, …], a run a line.
func arrayOf(runs []runLog) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range runs {
		id, _ := json.Marshal(r.ID)
		fmt.Fprintf(&b, "{\"instance\": %s, \"command_log\": %s}", id, strings.TrimRight(r.Log, "\n"))
		if i < len(runs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.String()
}

// A spill directory that cannot hold a file is an error that says what to
// do, before anything is parsed.
func TestStreamRunsSpillError(t *testing.T) {
	path := filepath.Join(fixtures, "openhands", "eval-two-instances.history.jsonl")
	_, _, err := transcript.Stream(path, transcript.Options{}, filepath.Join(t.TempDir(), "missing"))
	assert.ErrorContains(t, err, "create spill file (set TMPDIR to a writable directory)")
}
