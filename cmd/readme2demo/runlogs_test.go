package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// writeRunLogs gives every run its file, named in file order (ids that
// repeat or clean to the same name get -2, -3…; none gives "trajectory"),
// holding that run's log.
func TestWriteRunLogsNamesAndContents(t *testing.T) {
	var runs []engines.Instance
	want := map[string]string{}
	add := func(id, name string) {
		l := &commandlog.Log{SchemaVersion: 1, Engine: "openhands", Outcome: "success",
			Commands: []commandlog.Command{{ID: strconv.Itoa(len(runs)), Command: "echo " + id, Status: "ok"}}}
		runs = append(runs, engines.Instance{ID: id, Log: l})
		var b bytes.Buffer
		assert.NilError(t, commandlog.Encode(&b, l))
		want[name+".json"] = b.String()
	}
	for i := range 300 {
		add("demo__app-"+strconv.Itoa(i), "demo__app-"+strconv.Itoa(i))
	}
	add("dup", "dup")
	add("dup", "dup-2")
	add("a/b", "a_b")
	add("a b", "a_b-2")
	add("dup", "dup-3")
	add("", "trajectory")
	add("..", "trajectory-2")
	dir := filepath.Join(t.TempDir(), "runs")
	assert.NilError(t, writeRunLogs(dir, runs))
	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		assert.NilError(t, err)
		assert.Equal(t, string(b), want[e.Name()], e.Name())
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.DeepEqual(t, got, names)

	// A directory that cannot be made: an error naming the step.
	file := filepath.Join(t.TempDir(), "file")
	assert.NilError(t, os.WriteFile(file, nil, 0o644))
	assert.ErrorContains(t, writeRunLogs(filepath.Join(file, "runs"), runs), "create output directory")
	// A file that cannot be written: the error is returned.
	blocked := filepath.Join(t.TempDir(), "blocked")
	assert.NilError(t, os.MkdirAll(filepath.Join(blocked, "dup-2.json"), 0o755)) // a directory where a file goes
	assert.ErrorContains(t, writeRunLogs(blocked, runs), "write command log")
}
