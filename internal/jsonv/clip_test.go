package jsonv

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// clipOpt clips the values of "out" to 16 bytes of head and 8 of tail, so
// that escapes of every kind fall on the edges.
var clipOpt = Options{Clip: map[string]bool{"out": true}, ClipHead: 16, ClipTail: 8}

// readAll reads every record of in: each is its "out" string, whole text
// (Value.Whole) and Omitted, or the error.
type clipRead struct {
	s, whole string
	omitted  int64
	err      string
}

func readClip(in []byte, opt Options) []clipRead {
	r := NewReader(bytes.NewReader(in), opt)
	var out []clipRead
	for {
		v, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			out = append(out, clipRead{err: err.Error()})
			continue
		}
		o := v.Get("out")
		s, om := o.Text()
		w, wom := o.Whole()
		if wom != 0 {
			w = "whole clipped"
		}
		out = append(out, clipRead{s: s, whole: w, omitted: om})
	}
}

// checkClipAgainstWhole checks that each raw, a JSON string body, reads
// with clipOpt as a head and a tail of what it reads without, with Omitted
// the bytes between, or whole; and with the same error when it is
// malformed. The raws are the records of one input, one a line, read by one
// Reader with clipOpt and one without.
func checkClipAgainstWhole(t *testing.T, raws ...string) {
	t.Helper()
	var in []byte
	for _, raw := range raws {
		in = append(in, `{"a":"`+raw+`","out":"`+raw+`","b":"`+raw+`"}`+"\n"...)
	}
	got, want := readClip(in, clipOpt), readClip(in, Options{})
	assert.Equal(t, len(got), len(raws))
	assert.Equal(t, len(want), len(raws))
	for i, raw := range raws {
		checkClipRecord(t, raw, got[i], want[i])
	}
}

func checkClipRecord(t *testing.T, raw string, g, w clipRead) {
	t.Helper()
	assert.Equal(t, g.err, w.err, "%q", raw)
	if w.err != "" {
		return
	}
	full := w.s
	assert.Equal(t, g.whole, full, "%q", raw)
	if g.omitted == 0 {
		assert.Equal(t, g.s, full, "%q", raw)
		return
	}
	assert.Equal(t, int64(len(full)-len(g.s)), g.omitted, "%q", raw)
	ok := false
	for k := clipOpt.ClipHead - 3; k <= clipOpt.ClipHead && k <= len(g.s); k++ {
		tail := g.s[k:]
		if g.s[:k] == full[:k] && strings.HasSuffix(full, tail) && len(tail) >= clipOpt.ClipTail-3 {
			ok = true
		}
	}
	assert.Assert(t, ok, "clipped %q is not a head and a tail of %q", g.s, full)
}

// Clip keeps a head and a tail of the whole text, counts exactly what lies
// between, and finds a record malformed exactly when a whole decode does:
// escapes of every kind (\\ and \u among them, surrogate pairs, invalid
// ones, a backslash at the end) and multi-byte UTF-8 at every position.
func TestClipMatchesWholeDecode(t *testing.T) {
	pieces := []string{`\n`, `\n`, `\n`, "7", "42", "é", "€", "😀", `\t`, `\"`, `\/`, `\r`, `\b`, `\f`,
		`\\`, `\\\\`, `\u00e9`, `\u001b`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\u12`, `\x`, " ", "[", "{", "\x00", "\xff"}
	valid := pieces[:13]
	rng := rand.New(rand.NewSource(21))
	var raws []string
	for n := 0; n < longtest.Count(500, 6000); n++ {
		var b strings.Builder
		size := rng.Intn(120)
		odd := rng.Intn(size + 1)
		for b.Len() < size {
			if b.Len() >= odd && odd >= 0 {
				b.WriteString(pieces[rng.Intn(len(pieces))])
				odd = -1
				continue
			}
			b.WriteString(valid[rng.Intn(len(valid))])
		}
		raw := b.String()
		if rng.Intn(20) == 0 {
			raw += `\`
		}
		raws = append(raws, raw)
	}
	checkClipAgainstWhole(t, raws...)
}

// The check of a clipped middle agrees with a byte-by-byte one: every
// backslash starts a two-byte escape other than \\ and \u that ends inside.
func TestSimpleEscapesMatchesByteByByte(t *testing.T) {
	ref := func(raw []byte) (int, bool) {
		n := 0
		for i := 0; i < len(raw); i++ {
			if raw[i] == '\\' {
				if i+1 == len(raw) || !strings.ContainsRune(`"/bfnrt`, rune(raw[i+1])) {
					return 0, false
				}
				n++
				i++
			}
		}
		return n, true
	}
	alphabet := []byte(`\\\\\\nnnnnnbfrtu"/xo]12`)
	rng := rand.New(rand.NewSource(5))
	for k := 0; k < longtest.Count(20000, 100000); k++ {
		raw := make([]byte, rng.Intn(70))
		for i := range raw {
			raw[i] = alphabet[rng.Intn(len(alphabet))]
		}
		gn, gok := simpleEscapes(raw)
		wn, wok := ref(raw)
		// assert only on a mismatch: its t.Helper calls cost more than the case
		if gok != wok || wok && gn != wn {
			assert.Equal(t, gok, wok, "%q", raw)
			assert.Equal(t, gn, wn, "%q", raw)
		}
	}
}

// FuzzClip: any string body reads with Clip as a head and a tail of its
// whole decoding, or whole, and is malformed exactly when that is.
//
//	go test ./internal/jsonv -run '^$' -fuzz '^FuzzClip$' -fuzztime 20s
func FuzzClip(f *testing.F) {
	for _, s := range []string{
		`0123456789abcdef\n0123456789\n01234567`, `0123456789abcde\u00e9\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nxyz012345678`,
		`0123456789abcdef` + strings.Repeat(`\n1`, 30) + `\\` + strings.Repeat(`\n2`, 10),
		`0123456789abcdef` + strings.Repeat(`\n1`, 30) + `\ud83d\ude00` + strings.Repeat(`\n2`, 10),
		`0123456789abcdef` + strings.Repeat(`\n1`, 30) + `\q` + strings.Repeat(`\n2`, 10),
		`   [0123456789abcdef` + strings.Repeat(`\n1`, 30), "0123456789abcdé" + strings.Repeat(`\t`, 40) + "€€€€",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.ContainsAny(raw, "\"\n") {
			return // ends the string or the line: another record shape
		}
		checkClipAgainstWhole(t, raw)
	})
}
