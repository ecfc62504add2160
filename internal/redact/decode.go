package redact

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"io"
	"slices"
	"sync"

	"github.com/ulikunitz/xz"
)

// Nested encodings: a secret printed inside another encoding is found by
// decoding, then looking again (rules, forwarded values, skeleton, and
// the decoders once more), and redacted where its encoding stands:
//
//   - runs of base64 (either alphabet, wrapped across line breaks or their
//     JSON escapes, at each of the four character alignments) and of
//     base32 (at each of the eight): `env | base64`, `base64 | base64`,
//     `base32 -w 30`;
//   - compressed streams inside a decoded run (gzip, zlib, bzip2, xz):
//     `env | gzip | base64` — the whole stream is redacted;
//   - dumps, line by line: `od -c`, `od -x`, `od -b`, `od` (octal words),
//     `od -tx1`/`-tu1`, `xxd` (with or without offsets, grouped or plain),
//     `hexdump -C`, hex strings, and lists of byte values (`[115, 107, …]`,
//     `0x73, 0x6b, …`) — the dump lines holding the secret are redacted.
//
// Bounds: maxDepth nested decodings, runs of at most maxDecodeRun
// characters (a longer run is not decoded; the forms of a secret written
// directly in it are still found), maxInflate bytes out of a compressed
// stream, and a budget of decoded bytes per call proportional to the text.

const (
	maxDepth     = 4
	minDecodeRun = 16
	maxInflate   = 1 << 20
	minDecoded   = 8
)

// maxDecodeRun bounds a run or a dump block decoded. A variable (as is
// maxDumpLine) so that FuzzRedact can shrink it and reach its edges.
var maxDecodeRun = 256 << 10

// scan is one search's settings.
type scan struct {
	shapes bool // apply the shape rules
	depth  int  // nested decodings so far
	budget *int // decoded bytes left
	// For the streaming Writer: s does not start where the stream starts
	// (trimmed), or may continue after its end (partial). Runs and dump
	// blocks touching such an edge are left to the call that sees them
	// whole.
	trimmed, partial bool
}

// decoded is text decoded from part of a larger text: each decoded byte
// knows the span of the text it came from.
type decoded struct {
	data     []byte
	src, end []int32
}

func (d *decoded) reset() { d.data, d.src, d.end = d.data[:0], d.src[:0], d.end[:0] }

// scratch holds the buffers of one decodedSpans or dumpSpans call, reused
// from call to call: redaction runs for every string of every command, and
// growing fresh buffers each time cost more than the decoding. Nested
// calls (a decoded run searched again) take scratches of their own.
type scratch struct {
	d      decoded
	chars  []byte
	pos    []int32
	blocks [nFormats]decoded
	toks   []token
	buf    []byte
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratches.Get().(*scratch) }

// putScratch returns a scratch to the pool, unless a long text grew its
// buffers (they are not kept).
func putScratch(sb *scratch) {
	if cap(sb.chars) > maxScratch || cap(sb.d.data) > maxScratch || cap(sb.buf) > maxScratch {
		return
	}
	for i := range sb.blocks {
		if cap(sb.blocks[i].data) > maxScratch {
			return
		}
	}
	scratches.Put(sb)
}

const maxScratch = 64 << 10

func (d *decoded) add(b byte, src, end int32) {
	d.data = append(d.data, b)
	d.src = append(d.src, src)
	d.end = append(d.end, end)
}

// decodedSpans returns the spans of s (ending after from) whose decoding
// holds a secret or a token shape.
func (r *Redactor) decodedSpans(s string, from int, sc scan, spans []span) []span {
	if sc.depth >= maxDepth || len(s) < minDecodeRun {
		return spans
	}
	sb := getScratch()
	defer putScratch(sb)
	d, chars, pos, probe := &sb.d, sb.chars, sb.pos, sb.buf
	defer func() { sb.chars, sb.pos, sb.buf = chars, pos, probe }()
	i := 0
	for i < len(s) {
		if !runChar[s[i]] {
			i++
			continue
		}
		var j int
		var ok bool
		chars, pos, j, ok = scanRun(s, i, chars[:0], pos[:0])
		switch {
		case !ok:
		case sc.trimmed && i == 0, sc.partial && j == len(s):
		case int(pos[len(pos)-1])+1 <= from:
		default:
			// Each alignment is probed on its first characters: only one
			// that decodes to text or to a compressed stream is decoded
			// whole (a wrong alignment, a hash or a path decodes to noise).
			// A run of decimal digits (seq, counters, timestamps) is not
			// read as base64 at all: it decodes to neither (decimalBase64).
			class := runClass(chars)
			b64 := 4
			if class&isDecimal != 0 {
				b64 = 0
			}
			for k := 0; k < b64; k++ {
				probe = probeBase64(probe[:0], chars[k:min(len(chars), k+probeChars)])
				if !promising(probe) {
					continue
				}
				d.reset()
				decodeBase64(d, chars[k:], pos[k:])
				spans = r.inner(d, from, sc, spans)
			}
			for _, alpha := range base32Alphabets(class) {
				for k := 0; k < 8; k++ {
					probe = probeBase32(probe[:0], alpha, chars[k:min(len(chars), k+probeChars)])
					if !promising(probe) {
						continue
					}
					d.reset()
					decodeBase32(d, alpha, chars[k:], pos[k:])
					spans = r.inner(d, from, sc, spans)
				}
			}
		}
		i = max(j, i+1)
	}
	return r.dumpSpans(s, from, sc, spans)
}

// inner looks for secrets in decoded text and maps what it finds back.
func (r *Redactor) inner(d *decoded, from int, sc scan, spans []span) []span {
	n := len(d.data)
	if n < minDecoded || *sc.budget < n {
		return spans
	}
	*sc.budget -= n
	sub := scan{shapes: sc.shapes, depth: sc.depth + 1, budget: sc.budget}
	text := string(d.data)
	var found []span
	if textLike(d.data) {
		// Binary is a wrong alignment, or compressed data (looked at
		// below), or a binary file: only text is searched.
		found = r.find(text, 0, sub)
	}
	for _, sp := range found {
		a, b := int(d.src[sp.start]), int(d.end[sp.end-1])
		if b > from {
			spans = append(spans, span{max(a, from), b, sp.rule, sp.order})
		}
	}
	// A compressed stream near the start: the whole stream goes when its
	// content holds a secret.
	if sub.depth < maxDepth {
		for m := 0; m < min(8, n); m++ {
			out := inflate(d.data[m:])
			if len(out) < minDecoded || *sc.budget < len(out) {
				continue
			}
			*sc.budget -= len(out)
			deeper := scan{shapes: sc.shapes, depth: sub.depth + 1, budget: sc.budget}
			if found := r.find(string(out), 0, deeper); len(found) > 0 {
				a, b := int(d.src[m]), int(d.end[n-1])
				if b > from {
					spans = append(spans, span{max(a, from), b, found[0].rule, found[0].order})
				}
			}
			break
		}
	}
	return spans
}

// probeChars is how much of a run is decoded to judge an alignment.
const probeChars = 96

// promising reports decoded bytes worth decoding whole: text, or a
// compressed stream near the start.
func promising(b []byte) bool {
	if textLike(b) {
		return true
	}
	for m := 0; m < min(8, len(b)); m++ {
		if magic(b[m:]) {
			return true
		}
	}
	return false
}

// magic reports the start of a gzip, zlib, bzip2 or xz stream.
func magic(b []byte) bool {
	if len(b) < 3 {
		return false
	}
	switch b[0] {
	case 0x1f:
		return b[1] == 0x8b && b[2] == 8
	case 0x78:
		return (uint16(b[0])<<8|uint16(b[1]))%31 == 0
	case 'B':
		return len(b) > 10 && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9' && b[4] == 0x31 && b[5] == 0x41
	case 0xfd:
		return len(b) > 6 && b[1] == '7' && b[2] == 'z' && b[3] == 'X' && b[4] == 'Z' && b[5] == 0
	}
	return false
}

// inflate decompresses a gzip, zlib, bzip2 or xz stream starting at b[0]
// (at most maxInflate bytes; a damaged or cut stream gives what it gave),
// or returns nil.
func inflate(b []byte) []byte {
	if !magic(b) {
		return nil
	}
	var rd io.Reader
	var err error
	switch {
	case len(b) > 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8:
		rd, err = gzip.NewReader(bytes.NewReader(b))
	case len(b) > 2 && b[0] == 0x78 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0:
		rd, err = zlib.NewReader(bytes.NewReader(b))
	case len(b) > 10 && bytes.HasPrefix(b, []byte("BZh")) && b[3] >= '1' && b[3] <= '9' && bytes.HasPrefix(b[4:], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}):
		rd = bzip2.NewReader(bytes.NewReader(b))
	case len(b) > 6 && bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		rd, err = xz.NewReader(bytes.NewReader(b))
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	var out bytes.Buffer
	_, _ = io.Copy(&out, io.LimitReader(rd, maxInflate))
	return out.Bytes()
}

// isRunChar is the class of base64 (both alphabets) and base32 text.
func isRunChar(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_' }

// lineBreak returns the length of a line break at s[i] — raw, or written
// as an escape (\n, \r\n, and \\n as nested JSON writes it) — or 0.
func lineBreak(s string, i int) int {
	switch s[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		return 1
	case '\\':
		j := i
		for j < len(s) && j-i < 8 && s[j] == '\\' {
			j++
		}
		if j < len(s) && (s[j] == 'n' || s[j] == 'r') {
			n := j + 1 - i
			if s[j] == 'r' && j+n < len(s) && s[j+1] == '\\' {
				if m := lineBreak(s, j+1); m > 0 && s[j+m] == 'n' {
					return n + m
				}
			}
			return n
		}
	}
	return 0
}

// scanRun reads the run of base64/base32 characters starting at s[i],
// continuing across line breaks and ending after '=' padding. It returns
// where the run ends and, when it is minDecodeRun to maxDecodeRun
// characters long, its characters and their offsets (ok).
func scanRun(s string, i int, chars []byte, pos []int32) ([]byte, []int32, int, bool) {
	// First the extent, cheaply: most runs are words.
	j, n := i, 0
	for j < len(s) {
		k := j
		for k < len(s) && runChar[s[k]] {
			k++
		}
		n += k - j
		j = k
		if j == len(s) {
			break
		}
		if s[j] == '=' {
			for pad := 0; j < len(s) && s[j] == '=' && pad < 6; pad++ {
				n++
				j++
			}
			break
		}
		b := 1 // lineBreak's first case, without the call
		if s[j] != '\n' {
			b = lineBreak(s, j)
		}
		if b > 0 && j+b < len(s) && runChar[s[j+b]] {
			j += b
			continue
		}
		break
	}
	if n < minDecodeRun || n > maxDecodeRun {
		return chars, pos, j, false
	}
	// Then the characters and their offsets, written in place.
	at := len(chars)
	chars, pos = slices.Grow(chars, n)[:at+n], slices.Grow(pos, n)[:at+n]
	for k := i; k < j; {
		c := s[k]
		if runChar[c] || c == '=' {
			chars[at], pos[at] = c, int32(k)
			at++
			k++
			continue
		}
		if c == '\n' {
			k++
			continue
		}
		k += max(lineBreak(s, k), 1)
	}
	return chars[:at], pos[:at], j, true
}

// runChar is isRunChar as a table.
var runChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isRunChar(byte(c))
	}
	return t
}()

var b64Value = func() [256]int8 {
	t := alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
	t['+'], t['-'] = 62, 62
	t['/'], t['_'] = 63, 63
	return t
}()

// decodeBase64 decodes chars (either alphabet) group by group until a
// group does not decode.
func decodeBase64(d *decoded, chars []byte, pos []int32) {
	for g := 0; g+2 <= len(chars); g += 4 {
		var v uint32
		k := 0
		for ; k < 4 && g+k < len(chars); k++ {
			x := b64Value[chars[g+k]]
			if x < 0 {
				break
			}
			v = v<<6 | uint32(x)
		}
		if k < 2 {
			return
		}
		v <<= 6 * uint(4-k)
		src, end := pos[g], pos[g+k-1]+1
		for p := g + k; p < min(g+4, len(chars)) && chars[p] == '='; p++ {
			end = pos[p] + 1 // the padding goes with its group
		}
		for b := 0; b < k-1; b++ {
			d.add(byte(v>>(16-8*uint(b))), src, end)
		}
		if k < 4 {
			return
		}
	}
}

// runClass returns what every character of a run is: decimal (isDecimal,
// see decimal) and in which base32 alphabets (inStd, inHex), in one pass.
func runClass(chars []byte) uint8 {
	in := uint8(b32In | isDecimal)
	for _, c := range chars {
		in &= b32Class[c]
		if in == 0 {
			break
		}
	}
	return in
}

// probeBase64 appends the bytes decodeBase64 decodes from chars to dst,
// without their offsets: a probe of an alignment reads only the bytes
// (TestProbesDecodeAsDecoders).
func probeBase64(dst, chars []byte) []byte {
	for g := 0; g+2 <= len(chars); g += 4 {
		var v uint32
		k := 0
		for ; k < 4 && g+k < len(chars); k++ {
			x := b64Value[chars[g+k]]
			if x < 0 {
				break
			}
			v = v<<6 | uint32(x)
		}
		if k < 2 {
			return dst
		}
		v <<= 6 * uint(4-k)
		for b := 0; b < k-1; b++ {
			dst = append(dst, byte(v>>(16-8*uint(b))))
		}
		if k < 4 {
			return dst
		}
	}
	return dst
}

// probeBase32 is probeBase64 for decodeBase32.
func probeBase32(dst []byte, alpha *[256]int8, chars []byte) []byte {
	for g := 0; g+2 <= len(chars); g += 8 {
		var v uint64
		k := 0
		for ; k < 8 && g+k < len(chars); k++ {
			x := alpha[chars[g+k]]
			if x < 0 {
				break
			}
			v = v<<5 | uint64(x)
		}
		if k < 2 {
			return dst
		}
		v <<= 5 * uint(8-k)
		for b := 0; b < 5*k/8; b++ {
			dst = append(dst, byte(v>>(32-8*uint(b))))
		}
		if k < 8 {
			return dst
		}
	}
	return dst
}

// base32Alphabets returns the base32 alphabets a run of class in (see
// runClass) can be written in: the standard one (A-Z2-7) and the
// extended-hex one (0-9A-V).
func base32Alphabets(in uint8) []*[256]int8 {
	switch in & b32In {
	case 0:
		return nil
	case b32In:
		return []*[256]int8{&b32Std, &b32Hex}
	case inStd:
		return []*[256]int8{&b32Std}
	default:
		return []*[256]int8{&b32Hex}
	}
}

// isDecimal marks a run of decimal digits (and '=' padding, which ends
// a decoding): runClass.
//
// decimalBase64: the base64 digits '0'-'9' have the values 52-61, so the
// first byte of every group decoded from them is 0xd0 or more — at least
// one byte in three is not text (textLike wants seven in eight) — and no
// byte of any alignment starts a gzip, zlib, bzip2 or xz stream
// (TestDecimalBase64 checks every group): inner would find nothing in
// them. The same does not hold for base32: in the extended-hex alphabet
// digits decode to text ("61130921" is "0B0$A"), so digit runs are still
// read as base32 (TestDecimalBase32StillDecoded).
//
// b32Class tells, per character, the base32 alphabets it belongs to
// ('=' to both), and whether it is decimal (digits and '=').
const (
	inStd = 1 << iota
	inHex
	isDecimal
	b32In = inStd | inHex
)

var b32Class = func() (t [256]uint8) {
	t['='] = b32In | isDecimal
	for c := '0'; c <= '9'; c++ {
		t[c] |= isDecimal
	}
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") {
		t[c] |= inStd
	}
	for _, c := range []byte("0123456789ABCDEFGHIJKLMNOPQRSTUV") {
		t[c] |= inHex
	}
	return t
}()

var b32Std, b32Hex = alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), alphabet("0123456789ABCDEFGHIJKLMNOPQRSTUV")

func alphabet(a string) (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(a); i++ {
		t[a[i]] = int8(i)
	}
	return t
}

// decodeBase32 decodes chars group by group in the given alphabet.
func decodeBase32(d *decoded, alpha *[256]int8, chars []byte, pos []int32) {
	for g := 0; g+2 <= len(chars); g += 8 {
		var v uint64
		k := 0
		for ; k < 8 && g+k < len(chars); k++ {
			x := alpha[chars[g+k]]
			if x < 0 {
				break
			}
			v = v<<5 | uint64(x)
		}
		if k < 2 {
			return
		}
		v <<= 5 * uint(8-k)
		src, end := pos[g], pos[g+k-1]+1
		for b := 0; b < 5*k/8; b++ {
			d.add(byte(v>>(32-8*uint(b))), src, end)
		}
		if k < 8 {
			return
		}
	}
}

// textLike reports decoded bytes that read as text (at least 7 in 8 bytes
// printable ASCII, white space or NUL, as in an environ dump): only text
// is searched and decoded further.
func textLike(b []byte) bool {
	bad := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0 || c >= 0x7f {
			bad++
		}
	}
	return bad*8 <= len(b)
}
