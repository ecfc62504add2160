// Package transcriptgen builds large transcripts from small real ones, for
// benchmarks and memory tests: it repeats a fixture's records with fresh ids
// so that every copy pairs its calls with its own results, the way a long
// agent run would.
package transcriptgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// idString matches the string ids agents give calls, messages and items
// (toolu_…, call_…, msg_…, item_…, fc_…, resp_…, and UUIDs).
var idString = regexp.MustCompile(`"((?:toolu|call|msg|item|fc|resp|tool)_[A-Za-z0-9_\-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"`)

// idNumber matches numeric event ids and the fields that point at them
// (OpenHands: id, cause).
var idNumber = regexp.MustCompile(`"(id|cause)": ?(\d+)`)

// Generator writes copies of one fixture.
type Generator struct {
	lines [][]byte
	n     int // copies written so far
}

// New returns a Generator over the records (lines) of a JSONL fixture.
func New(fixture []byte) *Generator {
	g := &Generator{}
	for _, l := range bytes.Split(fixture, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			g.lines = append(g.lines, l)
		}
	}
	return g
}

// WriteCopy writes the next copy of the fixture, every id made unique, and
// returns the bytes written.
func (g *Generator) WriteCopy(w io.Writer) (int64, error) {
	i := g.n
	g.n++
	suffix := "-r" + strconv.Itoa(i)
	var total int64
	for _, line := range g.lines {
		out := idString.ReplaceAll(line, []byte(`"${1}`+suffix+`"`))
		if i > 0 {
			out = idNumber.ReplaceAllFunc(out, func(m []byte) []byte {
				sub := idNumber.FindSubmatch(m)
				v, _ := strconv.ParseInt(string(sub[2]), 10, 64)
				return []byte(fmt.Sprintf(`"%s": %d`, sub[1], v+int64(i)*1_000_000))
			})
		}
		k, err := w.Write(append(out, '\n'))
		total += int64(k)
		if err != nil {
			return total, fmt.Errorf("write transcript: %w", err)
		}
	}
	return total, nil
}

// WriteSize writes copies until at least size bytes are written.
func (g *Generator) WriteSize(w io.Writer, size int64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var total int64
	for total < size {
		n, err := g.WriteCopy(bw)
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			return total, fmt.Errorf("write transcript: the fixture is empty")
		}
	}
	if err := bw.Flush(); err != nil {
		return total, fmt.Errorf("write transcript: %w", err)
	}
	return total, nil
}
