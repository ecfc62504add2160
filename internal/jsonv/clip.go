package jsonv

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Clipped output (Options.Clip). Command output is most of a transcript's
// bytes, and a caller that truncates it to a head and a tail reads a few
// KiB of it. Output is dense with escapes (a \n every few bytes), so
// decoding it all costs more than the rest of the record. For the value of
// a Clip key, the fast path decodes the head and the tail and only checks
// the middle: when every escape there is a two-byte one other than \\ (\n,
// \t, \r, \", \/, \b, \f; the middle of almost any output), each backslash
// starts an escape and removes one byte, so the decoded length is the raw
// length less the backslashes, and the record is as valid as a full decode
// would find it. Anything else there (\\, \u, an invalid escape) and the
// string is decoded whole, as any other, so the result never depends on
// the shortcut: the text kept is a prefix and a suffix of the whole text,
// and Omitted is exactly what lies between them.

// clipValue is value for the value of an Options.Clip key.
func (p *fastParser) clipValue(depth int) (*Value, error) {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '"' {
		p.i++
		raw, esc, err := p.rawString()
		if err != nil {
			return nil, err
		}
		if len(raw) > p.r.opt.ClipHead+p.r.opt.ClipTail {
			if v, ok := p.clipString(raw, esc); ok {
				return v, nil
			}
		}
		return p.stringValue(raw, esc)
	}
	return p.value(depth)
}

// clipString reads the value of an Options.Clip key: raw, the string's
// body (esc: it holds escapes), is longer than ClipHead+ClipTail. ok is
// false when it is not clipped here: keepString reads it then.
func (p *fastParser) clipString(raw []byte, esc bool) (v *Value, ok bool) {
	r := p.r
	h, t := r.opt.ClipHead, r.opt.ClipTail
	maxKeep := r.maxKeep()
	var head, tail []byte
	var n int // decoded length
	if !esc {
		head, tail, n = raw[:h], raw[len(raw)-t:], len(raw)
	} else {
		dec, a, err := unescapeUpTo(r.scratch[:0], raw, h)
		r.scratch = dec[:0]
		if err != nil {
			return nil, false
		}
		// The tail is decoded from a raw offset where it gives at least
		// ClipTail bytes: a quarter more than that (output with a line
		// break every few bytes), else twice that (two raw bytes give at
		// least one decoded byte where the escapes are two-byte ones),
		// moved past the escaped byte when it falls right after a
		// backslash. The middle runs from the end of the head, at the end
		// of an escape, up to there.
		var s int
		var td []byte
		for _, back := range [2]int{t + t/4 + 16, 2*t + 16} {
			if s = len(raw) - back; s <= a {
				return nil, false
			}
			if raw[s-1] == '\\' {
				s++
			}
			td, _, err = unescapeUpTo(r.scratch2[:0], raw[s:], len(raw)-s)
			r.scratch2 = td[:0]
			if err != nil {
				return nil, false
			}
			if len(td) >= t {
				break
			}
		}
		if len(td) < t {
			return nil, false
		}
		esc, ok := simpleEscapes(raw[a:s])
		if !ok {
			return nil, false
		}
		head, tail, n = dec[:h], td[len(td)-t:], len(dec)+(s-a-esc)+len(td)
	}
	if n > maxKeep || n <= h+t+2*utf8.UTFMax || mayBeJSON(head) {
		return nil, false
	}
	head, tail = trimIncompleteEnd(head), trimIncompleteStart(tail)
	buf := make([]byte, len(head)+len(tail))
	copy(buf[copy(buf, head):], tail)
	// The budget counts the string as keepString would, whole.
	r.budget -= n
	v = p.a.vals.one()
	v.Kind, v.S, v.Omitted, v.raw = String, unsafe.String(unsafe.SliceData(buf), len(buf)), int64(n-len(buf)), raw
	return v, true
}

// mayBeJSON reports whether a head of text starts, after white space, with
// [ or {, or is all white space: such a string is kept whole, callers may
// parse it (Claude Code serialises content blocks into a string).
func mayBeJSON(head []byte) bool {
	rest := bytes.TrimLeftFunc(trimIncompleteEnd(head), unicode.IsSpace)
	return len(rest) == 0 || rest[0] == '[' || rest[0] == '{'
}

// simpleEsc marks the bytes that make a two-byte escape other than \\.
var simpleEsc = func() (t [256]bool) {
	for c, b := range twoByteEscape {
		t[c] = b != 0 && c != '\\'
	}
	return t
}()

// simpleEscapes counts the escapes in raw, a piece of a string body that
// starts at the start of an escape or of a literal byte, and reports
// whether each is a two-byte escape other than \\ that ends within raw.
func simpleEscapes(raw []byte) (int, bool) {
	if !twoByteEscapes(raw) {
		return 0, false
	}
	// Every backslash starts an escape: count them all at once.
	return bytes.Count(raw, []byte{'\\'}), true
}

// twoByteEscapes is the check of simpleEscapes, sixteen bytes at a time.
// In a word x, (b-1)&^b&0x80 is set in the bytes b of x^'\\' that are
// zero (backslashes), and maybe in 0x01 bytes right above one (']' after a
// backslash: an invalid escape, which fails the check all the same); the
// bytes after them are the mask shifted by one byte, the first carried
// over from the word before; those that are 'n' (most, in output) are
// found the same way, and only the others are looked at one by one.
func twoByteEscapes(raw []byte) bool {
	i := 0
	var carry uint64 // 0x80 when the word before ended with a backslash
	for ; i+16 <= len(raw); i += 16 {
		w := raw[i : i+16 : i+16]
		x, y := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		bx, by := x^(lsb*'\\'), y^(lsb*'\\')
		mx, my := (bx-lsb)&^bx&msb, (by-lsb)&^by&msb
		nx, ny := x^(lsb*'n'), y^(lsb*'n')
		ox := (mx<<8 | carry) &^ ((nx - lsb) &^ nx & msb)
		oy := (my<<8 | mx>>56) &^ ((ny - lsb) &^ ny & msb)
		carry = my >> 56
		if ox|oy != 0 && (!escapesAt(w, ox) || !escapesAt(w[8:], oy)) {
			return false
		}
	}
	if carry != 0 {
		if i == len(raw) || !simpleEsc[raw[i]] {
			return false
		}
		i++
	}
	for ; i < len(raw); i++ {
		if raw[i] == '\\' {
			if i+1 == len(raw) || !simpleEsc[raw[i+1]] {
				return false
			}
			i++
		}
	}
	return true
}

// escapesAt reports whether the bytes of w marked in o (the top bit of
// each) make two-byte escapes.
func escapesAt(w []byte, o uint64) bool {
	for ; o != 0; o &= o - 1 {
		if !simpleEsc[w[bits.TrailingZeros64(o)>>3]] {
			return false
		}
	}
	return true
}
