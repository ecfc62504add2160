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
		// From the end of the head, at the end of an escape, the middle
		// runs up to where the tail's raw bytes start: twice ClipTail
		// bytes before the end (two raw bytes give at least one decoded
		// byte where the escapes are two-byte ones), moved past the
		// escaped byte when it falls right after a backslash.
		s := len(raw) - 2*t - 16
		if err != nil || s <= a {
			return nil, false
		}
		if raw[s-1] == '\\' {
			s++
		}
		esc, ok := simpleEscapes(raw[a:s])
		if !ok {
			return nil, false
		}
		td, _, err := unescapeUpTo(r.scratch2[:0], raw[s:], len(raw)-s)
		r.scratch2 = td[:0]
		if err != nil || len(td) < t {
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
var simpleEsc = [256]bool{'"': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// simpleEscapes counts the escapes in raw, a piece of a string body that
// starts at the start of an escape or of a literal byte, and reports
// whether each is a two-byte escape other than \\ that ends within raw.
// Eight bytes at a time: the backslashes of a word are found exactly (a
// byte is zero in x^'\\' where ((b&0x7f)+0x7f)|b has its top bit clear),
// the bytes after them are those shifted by one (the first one carried
// over from the word before), and those that are 'n' — most, in output —
// need no look each ((b-1)&^b has its top bit set where b is zero: in the
// lowest zero byte of a word and maybe in 0x01 bytes above it, which hold
// 'o' and so follow no backslash).
func simpleEscapes(raw []byte) (int, bool) {
	if !twoByteEscapes(raw) {
		return 0, false
	}
	// Every backslash starts an escape: count them all at once.
	return bytes.Count(raw, []byte{'\\'}), true
}

// twoByteEscapes is the check of simpleEscapes.
func twoByteEscapes(raw []byte) bool {
	const low7 = lsb * 0x7f
	i := 0
	var carry uint64 // 0x80 when the word before ended with a backslash
	for ; i+8 <= len(raw); i += 8 {
		x := binary.LittleEndian.Uint64(raw[i:])
		b := x ^ (lsb * '\\')
		m := ^((b&low7 + low7) | b) & msb
		f := m<<8 | carry // the bytes that follow a backslash
		carry = m >> 56
		e := x ^ (lsb * 'n')
		if o := f &^ ((e - lsb) &^ e & msb); o != 0 && !escapesAt(raw[i:], o) {
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
