package redact

import "strings"

// Dumps: od, xxd, hexdump and byte lists print a value as tokens on
// lines, with offsets in front and character columns behind. Each line is
// read in every dump format at once; consecutive lines that read in one
// format form a block, whose bytes are searched like any decoded text.
// The lines of a block that hold a found secret are redacted whole
// (offsets and character columns included).

type dumpFormat int

const (
	fHex    dumpFormat = iota // bytes in order: od -tx1, hexdump -C, xxd (-p, -g1..), hex strings, 0x73 lists
	fHex4LE                   // 16-bit words, little-endian: od -x, hexdump
	fHex8LE                   // 32-bit words, little-endian: od -tx4
	fOct3                     // octal bytes: od -b
	fOct6LE                   // octal 16-bit words: od
	fDec                      // decimal bytes: od -tu1, [115, 107, …]
	fChar                     // characters and escapes: od -c
	fBin                      // bits, most significant first: basenc --base2msbf, xxd -b
	fBinLSB                   // bits, least significant first: basenc --base2lsbf
	nFormats
)

// maxDumpLine bounds the line examined as a dump.
var maxDumpLine = 64 << 10

// minDumpToken is the shortest token that alone makes a dump line: a line
// of one field must read as 8 digits or bytes (the test in dumpSpans), and
// no format gets that from fewer than 8 characters (8 hex digits or bits;
// \ooo escapes need 32; the fixed-width fields give at most 4 bytes). A
// line of one shorter token, common in command output (numbers, short
// words), is passed over without reading it in every format.
const minDumpToken = 8

type token struct{ lo, hi int }

// dumpSpans returns the spans of the dump lines of s whose bytes hold a
// secret.
func (r *Redactor) dumpSpans(s string, from int, sc scan, spans []span) []span {
	sb := getScratch()
	defer putScratch(sb)
	blocks, toks, buf := &sb.blocks, sb.toks, sb.buf
	defer func() { sb.toks, sb.buf = toks, buf }()
	for f := range blocks {
		blocks[f].reset()
	}
	var open uint32 // the formats whose block holds something
	flush := func(f dumpFormat) {
		if open&(1<<f) == 0 {
			return
		}
		open &^= 1 << f
		b := &blocks[f]
		if stream(f) {
			b.packDigits(f)
		}
		if len(b.data) >= pieceRun {
			spans = r.inner(b, from, sc, spans)
		}
		b.reset()
	}
	flushAll := func() {
		for f := dumpFormat(0); open != 0; f++ {
			flush(f)
		}
	}
	first := true
	lineMax, minHi := maxDumpLine, from-maxDumpLine
	for lo := 0; lo < len(s); {
		hi, next := lineEnd(s, lo)
		last := next >= len(s)
		skip := hi-lo > lineMax || sc.trimmed && first || sc.partial && last || hi <= minHi
		first = false
		// A line shorter than minDumpToken without a separator is one
		// short field (or none), which the test below passes over: said
		// without splitting it, as most lines of a long listing (seq,
		// ls -1, numbers) are.
		if skip || hi-lo < minDumpToken && !hasSep(s[lo:hi]) {
			if open != 0 {
				flushAll()
			}
			lo = next
			continue
		}
		// No format reads a dump line (below) from a line of one short
		// field, nor from a line whose first field (after an offset) none
		// reads — most lines of text: every block ends, and the rest of
		// the line is not split.
		toks = tokenize(s, lo, hi, toks[:0], 2)
		lead := 0
		if len(toks) >= 2 && isOffset(s[toks[0].lo:toks[0].hi]) {
			lead = 1
		}
		if len(toks) == 0 || len(toks) == 1 && toks[0].hi-toks[0].lo < minDumpToken ||
			!anyFormatReads(s[toks[lead].lo:toks[lead].hi], buf[:0]) {
			flushAll()
			lo = next
			continue
		}
		toks = tokenize(s, lo, hi, toks[:0], -1)
		if len(toks) >= 2 && isOffset(s[toks[0].lo:toks[0].hi]) {
			toks = toks[1:]
		}
		if len(toks) == 1 && toks[0].hi-toks[0].lo < minDumpToken {
			flushAll()
			lo = next
			continue
		}
		for f := range nFormats {
			var n int
			buf, n = parseDumpLine(f, s, toks, buf[:0])
			// Two fields, or one that holds a few bytes (a hex string,
			// a run of bits), make a dump line.
			if n < 2 && !(n == 1 && len(buf) >= 8) || len(blocks[f].data)+len(buf) > maxDecodeRun {
				flush(f)
				if n < 2 && !(n == 1 && len(buf) >= 8) {
					continue
				}
			}
			for _, b := range buf {
				blocks[f].add(b, int32(lo), int32(hi))
			}
			if len(buf) > 0 {
				open |= 1 << f
			}
		}
		lo = next
	}
	flushAll()
	return spans
}

// stream reports the formats whose fields are digits of a stream (hex
// nibbles, bits) rather than whole bytes: a byte may straddle two fields
// or two lines (basenc -w 15, basenc --base2msbf).
func stream(f dumpFormat) bool { return f == fHex || f == fBin || f == fBinLSB }

// packDigits turns a block of digits (nibbles or bits) into bytes, each
// byte spanning the lines of its digits.
func (d *decoded) packDigits(f dumpFormat) {
	per := 2
	if f != fHex {
		per = 8
	}
	n := len(d.data) / per
	for i := 0; i < n; i++ {
		var v byte
		for k := 0; k < per; k++ {
			x := d.data[i*per+k]
			switch {
			case f == fHex:
				v = v<<4 | x
			case f == fBin:
				v = v<<1 | x
			default:
				v |= x << uint(k)
			}
		}
		d.data[i] = v
		d.src[i], d.end[i] = d.src[i*per], d.end[i*per+per-1]
	}
	d.data, d.src, d.end = d.data[:n], d.src[:n], d.end[:n]
}

// lineEnd returns the end of the line starting at lo and where the next
// one starts. Raw and escaped line breaks end a line, and so does an
// unescaped double quote: in a JSON transcript a dump sits inside a string,
// and its lines must not take the JSON around it.
func lineEnd(s string, lo int) (hi, next int) {
	for i := lo; i < len(s); i++ {
		switch s[i] {
		case '"':
			if !oddBackslashesNear(s, i-1) {
				return i, i + 1
			}
		case '\n':
			return i, i + 1 // lineBreak's first case, without the call
		case '\r', '\\':
			if n := lineBreak(s, i); n > 0 {
				return i, i + n
			}
		}
	}
	return len(s), len(s)
}

// anyFormatReads reports whether some dump format reads t as a field.
func anyFormatReads(t string, scratch []byte) bool {
	for f := range nFormats {
		if _, ok := parseToken(f, t, scratch[:0]); ok {
			return true
		}
	}
	return false
}

// tokenize splits s[lo:hi] at spaces, tabs, commas and semicolons, into at
// most max tokens (all when max < 0).
func tokenize(s string, lo, hi int, toks []token, max int) []token {
	i := lo
	for i < hi && len(toks) != max {
		for i < hi && sepChar[s[i]] {
			i++
		}
		j := i
		for j < hi && !sepChar[s[j]] {
			j++
		}
		if j > i {
			toks = append(toks, token{i, j})
		}
		i = j
	}
	return toks
}

// sepChar is the class of characters tokenize splits at.
var sepChar = [256]bool{' ': true, '\t': true, ',': true, ';': true}

// hasSep reports whether t holds a character tokenize splits at.
func hasSep(t string) bool {
	for i := 0; i < len(t); i++ {
		if sepChar[t[i]] {
			return true
		}
	}
	return false
}

// isOffset reports a dump offset: 6 to 16 hex digits, maybe with a colon.
func isOffset(t string) bool {
	if len(t) > 0 && t[len(t)-1] == ':' {
		t = t[:len(t)-1]
	}
	if len(t) < 6 || len(t) > 16 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if hexVal(t[i]) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// trimList strips the punctuation of a list element: [ ( { before, , ; ] ) }
// after.
func trimList(t string) string {
	for len(t) > 0 && (t[0] == '[' || t[0] == '(' || t[0] == '{') {
		t = t[1:]
	}
	for len(t) > 0 && (t[len(t)-1] == ',' || t[len(t)-1] == ';' || t[len(t)-1] == ']' || t[len(t)-1] == ')' || t[len(t)-1] == '}') {
		t = t[:len(t)-1]
	}
	return t
}

// parseDumpLine reads the leading tokens of a line in format f, appends
// their bytes and returns how many tokens it read (it stops at the first
// that does not read: a character column).
func parseDumpLine(f dumpFormat, s string, toks []token, out []byte) ([]byte, int) {
	n := 0
	for _, tk := range toks {
		t := s[tk.lo:tk.hi]
		var ok bool
		out, ok = parseToken(f, t, out)
		if !ok {
			break
		}
		n++
	}
	return out, n
}

func parseToken(f dumpFormat, t string, out []byte) ([]byte, bool) {
	switch f {
	case fHex:
		// Hex digits (a stream of nibbles), maybe after 0x, \x or %,
		// maybe separated by : - or . (73:6b, \x73\x6b, %73%6b, 0x73).
		t = trimList(t)
		n := len(out)
		for i := 0; i < len(t); {
			switch {
			case t[i] == ':' || t[i] == '-' || t[i] == '.' || t[i] == '%':
				if i == 0 && t[i] != '%' {
					return out[:n], false
				}
				i++
				continue
			case i+1 < len(t) && (t[i] == '0' && (t[i+1] == 'x' || t[i+1] == 'X') || t[i] == '\\' && t[i+1] == 'x'):
				i += 2
				continue
			}
			v := hexVal(t[i])
			if v < 0 {
				return out[:n], false
			}
			out = append(out, byte(v))
			i++
		}
		return out, len(out) >= n+2
	case fHex4LE, fHex8LE:
		w := 4
		if f == fHex8LE {
			w = 8
		}
		if len(t) != w {
			return out, false
		}
		var v uint32
		for i := 0; i < w; i++ {
			x := hexVal(t[i])
			if x < 0 {
				return out, false
			}
			v = v<<4 | uint32(x)
		}
		for i := 0; i < w/2; i++ {
			out = append(out, byte(v>>(8*uint(i))))
		}
		return out, true
	case fBin, fBinLSB:
		// Bits (a stream).
		if len(t) < 8 {
			return out, false
		}
		for i := 0; i < len(t); i++ {
			if t[i] != '0' && t[i] != '1' {
				return out, false
			}
		}
		for i := 0; i < len(t); i++ {
			out = append(out, t[i]-'0')
		}
		return out, true
	case fOct3, fOct6LE:
		if f == fOct3 && len(t) > 3 && t[0] == '\\' {
			// \163\153: C and printf octal escapes.
			n := len(out)
			for i := 0; i < len(t); i += 4 {
				if i+4 > len(t) || t[i] != '\\' {
					return out[:n], false
				}
				var ok bool
				if out, ok = parseToken(fOct3, t[i+1:i+4], out); !ok {
					return out[:n], false
				}
			}
			return out, true
		}
		w := 3
		if f == fOct6LE {
			w = 6
		}
		if len(t) != w {
			return out, false
		}
		var v uint32
		for i := 0; i < w; i++ {
			if t[i] < '0' || t[i] > '7' {
				return out, false
			}
			v = v<<3 | uint32(t[i]-'0')
		}
		if f == fOct3 {
			if v > 0xff {
				return out, false
			}
			return append(out, byte(v)), true
		}
		if v > 0xffff {
			return out, false
		}
		return append(out, byte(v), byte(v>>8)), true
	case fDec:
		t = trimList(t)
		if len(t) < 1 || len(t) > 3 {
			return out, false
		}
		v := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return out, false
			}
			v = v*10 + int(t[i]-'0')
		}
		if v > 255 {
			return out, false
		}
		return append(out, byte(v)), true
	case fChar:
		return parseCharToken(t, out)
	}
	return out, false
}

// parseCharToken reads one od -c field: a character, a backslash escape
// (also JSON-escaped, "\\n"), three octal digits, or "**".
func parseCharToken(t string, out []byte) ([]byte, bool) {
	switch {
	case len(t) == 1:
		if t[0] <= ' ' || t[0] >= 0x7f {
			return out, false
		}
		return append(out, t[0]), true
	case t == "**":
		return out, true
	case len(t) == 3 && t[0] >= '0' && t[0] <= '3' && t[1] >= '0' && t[1] <= '7' && t[2] >= '0' && t[2] <= '7':
		return append(out, (t[0]-'0')<<6|(t[1]-'0')<<3|(t[2]-'0')), true
	}
	esc := t
	if len(esc) == 3 && esc[0] == '\\' && esc[1] == '\\' {
		esc = esc[1:]
	}
	if len(esc) == 2 && esc[0] == '\\' {
		if i := strings.IndexByte("0abfnrtv", esc[1]); i >= 0 {
			return append(out, "\x00\a\b\f\n\r\t\v"[i]), true
		}
	}
	return out, false
}
