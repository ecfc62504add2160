package engines_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/readme2demo/readme2demo/internal/longtest"

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

// probeSpread spaces the samples taken at each mark: the live heap is the
// smallest of three, so that the batches in flight between the decoder,
// the generator and the parser at one instant (a few MiB that come and go)
// do not read as growth.
const probeSpread = 500

func (h *heapProbe) Command(*commandlog.Command) error {
	h.commands++
	for i, mark := range []int{h.first, h.last} {
		if d := h.commands - mark; d >= 0 && d <= 2*probeSpread && d%probeSpread == 0 {
			if v := liveHeap(); h.at[i] == 0 || v < h.at[i] {
				h.at[i] = v
			}
		}
	}
	return nil
}

func TestParseMemoryDoesNotGrowWithCommands(t *testing.T) {
	longtest.Require(t) // parses 45k commands per engine, seconds of CPU
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
				_, err := transcriptgen.WriteSynthetic(pw, shape, int64(last+2*probeSpread+1000)*600)
				pw.CloseWithError(err)
			}()
			h := &heapProbe{first: first, last: last}
			_, err = engines.Stream(eng, pr, h)
			assert.NilError(t, err)
			assert.Assert(t, h.commands > last+2*probeSpread, "only %d commands", h.commands)
			grew := int64(h.at[1]) - int64(h.at[0])
			t.Logf("%s: live heap %d KiB after %d commands, %d KiB after %d", shape, h.at[0]>>10, first, h.at[1]>>10, last)
			// Keeping as little as 150 bytes per command would add 4 MiB.
			assert.Assert(t, grew < 4<<20, "the live heap grew by %d KiB from %d to %d commands", grew>>10, first, last)
		})
	}
}
