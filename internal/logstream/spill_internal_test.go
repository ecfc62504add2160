package logstream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A spill file that cannot be written (a full temporary directory) stops
// the parse with a *SpillError — the collector writes in the background,
// so the error comes back from a later Sink call or, at the latest, from
// Finish's drain — and WriteTo refuses to write a log missing commands.
func TestSpillWriteErrorIsReported(t *testing.T) {
	w, err := New(Options{Dir: t.TempDir()})
	assert.NilError(t, err)
	defer w.Close()
	w.commands.w = bufio.NewWriterSize(fullDisk{}, 16)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "claude-code", "real-2.0.77-success.jsonl"))
	assert.NilError(t, err)
	var in bytes.Buffer
	for range 50 {
		in.Write(data)
	}
	eng, _ := engines.Lookup(engines.ClaudeCodeName)
	head, streamErr := engines.Stream(eng, &in, w)
	if streamErr == nil {
		assert.NilError(t, w.Finish(head))
	}
	var spill *SpillError
	assert.Assert(t, errors.As(w.failed(), &spill), "got %v", w.failed())
	assert.ErrorContains(t, spill, "no space left on device")
	_, err = w.WriteTo(io.Discard)
	assert.Assert(t, errors.As(err, &spill), "got %v", err)
}

// Batches written in order: whatever the number of workers, items come
// out in the order they were taken, each list in its own.
func TestWorkersKeepOrder(t *testing.T) {
	longtest.Require(t) // writes 3000 commands with 64 KiB outputs three times
	for _, workers := range []int{1, 3, 8} {
		w, err := New(Options{Dir: t.TempDir(), Workers: workers})
		assert.NilError(t, err)
		zero := 0
		var want commandlog.Log
		for i := range 3000 {
			c := commandlog.Command{ID: string(rune('a'+i%26)) + strconv.Itoa(i), Command: "echo " + strconv.Itoa(i), Status: commandlog.StatusOK, ExitCode: &zero}
			if i%7 == 0 {
				c.Output = string(bytes.Repeat([]byte{'x'}, 64<<10)) // fills batches by size too
			}
			want.Commands = append(want.Commands, c)
			assert.NilError(t, w.Command(&c))
			if i%5 == 0 {
				e := commandlog.FileEdit{Path: "f" + strconv.Itoa(i), Tool: "Edit", OK: true}
				want.FileEdits = append(want.FileEdits, e)
				assert.NilError(t, w.FileEdit(&e))
			}
		}
		want.Engine, want.Outcome = "e", commandlog.OutcomeSuccess
		assert.NilError(t, w.Finish(&commandlog.Log{Engine: "e", Outcome: commandlog.OutcomeSuccess}))
		var got, exp bytes.Buffer
		_, err = w.WriteTo(&got)
		assert.NilError(t, err)
		assert.NilError(t, commandlog.Encode(&exp, &want))
		assert.Assert(t, got.String() == exp.String(), "workers=%d: streamed log differs", workers)
		assert.NilError(t, w.Close())
	}
}
