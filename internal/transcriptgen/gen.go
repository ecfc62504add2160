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
	"sort"
	"strconv"
)

// piece is a part of a fixture line: literal text, or an id to make unique.
type piece struct {
	text   []byte // literal text, or the string id (without quotes)
	key    string // a numeric id's field name ("id", "cause"); a string id's key and colon
	number int64  // a numeric id's value
	kind   byte   // 0 literal, 's' string id, 'n' numeric id
}

// Generator writes copies of one fixture.
type Generator struct {
	lines [][]piece
	n     int // copies written so far
	buf   []byte
}

// New returns a Generator over the records (lines) of a JSONL fixture. The
// ids of each line are found once; copies are written from those pieces.
func New(fixture []byte) *Generator {
	g := &Generator{}
	for _, l := range bytes.Split(fixture, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			g.lines = append(g.lines, split(l))
		}
	}
	return g
}

// split cuts a line at its ids: string values whose key names an id ("id",
// keys ending in _id, Id or uuid: tool_use_id, sessionId, parentUuid, …),
// and numeric event ids and the fields that point at them (OpenHands:
// "id": 5, "cause": 4). Keys, type names ("tool_use") and ids inside
// JSON-in-a-string (escaped quotes) are left as they are.
func split(line []byte) (out []piece) {
	at := 0
	for i := 0; ; i++ {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			return append(out, piece{text: line[at:]})
		}
		if p, end := idAt(line, i+q); end > 0 {
			out = append(out, piece{text: line[at : i+q]}, p)
			at, q = end, end-1-i
		}
		i += q
	}
}

// idAt reads the id that starts at line[i], a quote, and returns where it
// ends, 0 when there is none. (Regular expressions took 40 ns a byte.)
func idAt(line []byte, i int) (piece, int) {
	k := i + 1 // the key is line[i+1:k]
	for k < len(line) && ('a' <= line[k]|0x20 && line[k]|0x20 <= 'z' || line[k] == '_') {
		k++
	}
	key, rest := line[i+1:k], line[k:]
	if r, ok := bytes.CutPrefix(rest, []byte(`":`)); ok && (string(key) == "id" || string(key) == "cause") {
		r = bytes.TrimPrefix(r, []byte(" "))
		if n := len(r) - len(bytes.TrimLeft(r, "0123456789")); n > 0 {
			v, _ := strconv.ParseInt(string(r[:n]), 10, 64)
			return piece{kind: 'n', key: string(key), number: v, text: line[i : len(line)-len(r)+n]}, len(line) - len(r) + n
		}
	}
	if string(key) == "id" || bytes.HasSuffix(key, []byte("_id")) || bytes.HasSuffix(key, []byte("uuid")) ||
		bytes.HasSuffix(key, []byte("Uuid")) || len(key) > 2 && bytes.HasSuffix(key, []byte("Id")) && bytes.IndexByte(key, '_') < 0 {
		for _, sep := range []string{`":"`, `": "`, `" :"`, `" : "`} { // at most a space each side
			if r, ok := bytes.CutPrefix(rest, []byte(sep)); ok {
				if e := bytes.IndexAny(r, `"\`); e > 0 && r[e] == '"' {
					v := len(line) - len(r)
					return piece{kind: 's', key: string(line[i:v]), text: line[v : v+e]}, v + e + 1
				}
			}
		}
	}
	return piece{}, 0
}

// WriteCopy writes the next copy of the fixture, every id made unique, and
// returns the bytes written: string ids get the suffix -rN, numeric ids
// (after the first copy) N×1,000,000 more.
func (g *Generator) WriteCopy(w io.Writer) (int64, error) {
	i := g.n
	g.n++
	suffix := "-r" + strconv.Itoa(i)
	var total int64
	for _, line := range g.lines {
		b := g.buf[:0]
		for _, p := range line {
			switch p.kind {
			case 's':
				b = append(b, p.key...)
				b = append(b, p.text...)
				b = append(b, suffix...)
				b = append(b, '"')
			case 'n':
				if i == 0 {
					b = append(b, p.text...)
					continue
				}
				b = fmt.Appendf(b, `"%s": %d`, p.key, p.number+int64(i)*1_000_000)
			default:
				b = append(b, p.text...)
			}
		}
		b = append(b, '\n')
		g.buf = b
		k, err := w.Write(b)
		total += int64(k)
		if err != nil {
			return total, fmt.Errorf("write transcript: %w", err)
		}
	}
	return total, nil
}

// Copies returns how many copies were written so far.
func (g *Generator) Copies() int { return g.n }

// medianLength returns how many lines lengths counts (lines by length) and
// the median length.
func medianLength(lengths map[int]int64) (n int64, median int) {
	ls := make([]int, 0, len(lengths))
	for l, k := range lengths {
		ls = append(ls, l)
		n += k
	}
	sort.Ints(ls)
	var seen int64
	for _, l := range ls {
		seen += lengths[l]
		if 2*seen >= n {
			return n, l
		}
	}
	return n, 0
}

// LineCounter is an io.Writer that counts the bytes written to it and the
// lengths of their lines, for a summary of what was written.
type LineCounter struct {
	bytes   int64
	cur     int
	lengths map[int]int64 // lines by length, newline excluded
}

func (l *LineCounter) Write(p []byte) (int, error) {
	if l.lengths == nil {
		l.lengths = map[int]int64{}
	}
	l.bytes += int64(len(p))
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.cur += len(rest)
			break
		}
		l.lengths[l.cur+i]++
		l.cur = 0
		rest = rest[i+1:]
	}
	return len(p), nil
}

// Bytes is how many bytes were written.
func (l *LineCounter) Bytes() int64 { return l.bytes }

// Lines returns how many whole lines were written and their median length.
func (l *LineCounter) Lines() (n int64, median int) { return medianLength(l.lengths) }

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
