package commandlog

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendMarker appends m as encoding/json would indent it inside the
// markers list (prefix "    ", indent "  ", no HTML escaping), without the
// leading indentation. The items of a log's lists are most of a large log,
// so they skip reflection; TestEncode* compare the bytes with encoding/json.
func AppendMarker(b []byte, m *Marker) []byte {
	b = append(b, "{\n      \"kind\": "...)
	b = appendString(b, string(m.Kind))
	b = append(b, ",\n      \"text\": "...)
	b = appendString(b, m.Text)
	return append(b, "\n    }"...)
}

// AppendFileEdit is AppendMarker for an item of file_edits.
func AppendFileEdit(b []byte, e *FileEdit) []byte {
	b = append(b, "{\n      \"path\": "...)
	b = appendString(b, e.Path)
	b = append(b, ",\n      \"tool\": "...)
	b = appendString(b, e.Tool)
	b = append(b, ",\n      \"ok\": "...)
	b = strconv.AppendBool(b, e.OK)
	return append(b, "\n    }"...)
}

// AppendCommand is AppendMarker for an item of commands.
func AppendCommand(b []byte, c *Command) []byte {
	b = append(b, "{\n      \"id\": "...)
	b = appendString(b, c.ID)
	b = append(b, ",\n      \"command\": "...)
	b = appendString(b, c.Command)
	b = append(b, ",\n      \"output\": "...)
	b = appendString(b, c.Output)
	b = append(b, ",\n      \"exit_code\": "...)
	if c.ExitCode == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*c.ExitCode), 10)
	}
	b = append(b, ",\n      \"status\": "...)
	b = appendString(b, string(c.Status))
	b = append(b, ",\n      \"truncated\": "...)
	b = strconv.AppendBool(b, c.Truncated)
	if c.ParentID != "" {
		b = append(b, ",\n      \"parent_id\": "...)
		b = appendString(b, c.ParentID)
	}
	if c.DurationMS != nil {
		b = append(b, ",\n      \"duration_ms\": "...)
		b = strconv.AppendInt(b, *c.DurationMS, 10)
	}
	if c.Source != nil {
		b = append(b, ",\n      \"source\": {\n        \"file\": "...)
		b = appendString(b, c.Source.File)
		b = append(b, ",\n        \"line\": "...)
		b = strconv.AppendInt(b, int64(c.Source.Line), 10)
		b = append(b, "\n      }"...)
	}
	if c.Environment != nil {
		b = append(b, ",\n      \"environment\": {\n        \"kind\": "...)
		b = appendString(b, c.Environment.Kind)
		b = append(b, ",\n        \"detail\": "...)
		b = appendString(b, c.Environment.Detail)
		b = append(b, "\n      }"...)
	}
	if c.Planned != "" {
		b = append(b, ",\n      \"planned\": "...)
		b = appendString(b, string(c.Planned))
	}
	for _, f := range [...]struct{ name, value string }{{"ran", c.Ran}, {"cwd", c.Cwd}} {
		if f.value != "" {
			b = append(b, ",\n      \""...)
			b = append(b, f.name...)
			b = append(b, "\": "...)
			b = appendString(b, f.value)
		}
	}
	if c.LeaveCwd {
		b = append(b, ",\n      \"leave_cwd\": true"...)
	}
	if c.Setup != "" {
		b = append(b, ",\n      \"setup\": "...)
		b = appendString(b, c.Setup)
	}
	if len(c.PipeStatus) > 0 {
		b = append(b, ",\n      \"pipe_status\": ["...)
		for i, st := range c.PipeStatus {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(st), 10)
		}
		b = append(b, ']')
	}
	if g := c.Background; g != nil {
		b = append(b, ",\n      \"background\": {"...)
		sep := "\n        "
		if g.Ready != "" {
			b = append(b, sep+"\"ready\": "...)
			b = appendString(b, g.Ready)
			sep = ",\n        "
		}
		if g.TimeoutS != 0 {
			b = append(b, sep+"\"timeout_s\": "...)
			b = strconv.AppendInt(b, g.TimeoutS, 10)
			sep = ",\n        "
		}
		if sep == "\n        " {
			b = append(b, '}')
		} else {
			b = append(b, "\n      }"...)
		}
	}
	return append(b, "\n    }"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as encoding/json does
// with SetEscapeHTML(false): invalid UTF-8 becomes \ufffd, U+2028 and
// U+2029 are escaped, control characters use short escapes where JSON has
// them and \u00XX otherwise.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	i := 0
	for i < len(s) {
		// Eight bytes at a time up to the first that needs a look (a
		// control byte, a quote, a backslash or a non-ASCII byte), written
		// into room made for the rest of s and one escape.
		if cap(b)-len(b) < len(s)-i+8 {
			b = slices.Grow(b, len(s)-i+8)
		}
		n, out := len(b), b[:cap(b)]
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			binary.LittleEndian.PutUint64(out[n:], x)
			if m := needsLook(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				n += k
				i += k
				// A line break, most of what output escapes, is
				// written here while the room lasts.
				if s[i] != '\n' || cap(out)-n < len(s)-i+9 {
					break
				}
				out[n], out[n+1] = '\\', 'n'
				n += 2
				i++
				continue
			}
			n += 8
			i += 8
		}
		b = out[:n]
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				if c >= 0x20 {
					b = append(b, c) // among the last seven bytes
				} else {
					b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// needsLook has the top bit set in the lowest byte of x that appendString
// cannot copy as it is (and maybe in later ones): below 0x20 ((b-0x20)&^b
// has its top bit set), a quote or a backslash (zero once xored with it:
// (b-1)&^b), or 0x80 and above. Borrows run only upwards, from a byte that
// is flagged, so the lowest flagged byte is exact.
func needsLook(x uint64) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(lsb*'"'), x^(lsb*'\\')
	return ((x-lsb*0x20)&^x | (q-lsb)&^q | (bs-lsb)&^bs | x) & msb
}
