package engines_test

import (
	"io"
	"runtime"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

// Memory independent of the number of commands (issue 21): streaming a
// transcript through every engine, the live heap after 45,000 commands is
// what it was after 15,000 — the parser keeps bounded state, the log goes
// to the sink. (Parsed whole, 30,000 more commands would hold 5 MiB or
// more.) The peak RSS of `readme2demo parse` on transcripts of up to 1 GiB
// is asserted by cmd/readme2demo's TestParseBoundedMemory.

// heapProbe is a sink that drops what it gets and measures the live heap
// after the first and the last of its checkpoints.
type heapProbe struct {
	commands    int
	first, last int
	at          [2]uint64
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func (h *heapProbe) Marker(*commandlog.Marker) error     { return nil }
func (h *heapProbe) FileEdit(*commandlog.FileEdit) error { return nil }
func (h *heapProbe) Command(*commandlog.Command) error {
	h.commands++
	switch h.commands {
	case h.first:
		h.at[0] = liveHeap()
	case h.last:
		h.at[1] = liveHeap()
	}
	return nil
}

func TestParseMemoryDoesNotGrowWithCommands(t *testing.T) {
	const first, last = 15_000, 45_000
	for _, shape := range transcriptgen.Synthetic {
		name := transcriptgen.SyntheticEngine(shape)
		if shape != name+"-small-commands" && shape != "claude-small-commands" {
			continue
		}
		t.Run(shape, func(t *testing.T) {
			eng, err := engines.Lookup(name)
			assert.NilError(t, err)
			// Enough transcript for last+ commands: a command takes under
			// 600 bytes in every small-commands shape.
			pr, pw := io.Pipe()
			go func() {
				_, err := transcriptgen.WriteSynthetic(pw, shape, int64(last+1000)*600)
				pw.CloseWithError(err)
			}()
			h := &heapProbe{first: first, last: last}
			_, err = engines.Stream(eng, pr, h)
			assert.NilError(t, err)
			assert.Assert(t, h.commands > last, "only %d commands", h.commands)
			grew := int64(h.at[1]) - int64(h.at[0])
			t.Logf("%s: live heap %d KiB after %d commands, %d KiB after %d", shape, h.at[0]>>10, first, h.at[1]>>10, last)
			assert.Assert(t, grew < 2<<20, "the live heap grew by %d KiB from %d to %d commands", grew>>10, first, last)
		})
	}
}
