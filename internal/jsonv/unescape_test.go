package jsonv

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// unescape copies eight bytes at a time between escapes; it decodes
// exactly as the byte-by-byte loop it replaced (unescapeRef), escapes at
// every alignment, near the ends, valid and not.
func TestUnescapeMatchesByteByByte(t *testing.T) {
	pieces := []string{"a", "hello world ", "\\n", "\\\\", "\\\"", "\\/", "\\t", "\\r", "\\b", "\\f",
		"\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\ud83d", "\\ude00", "\\ud83dx", "\\u12", "\\x", "é", "\x01", "01234567"}
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < longtest.Count(5000, 20000); n++ {
		var raw bytes.Buffer
		for k := rng.Intn(30); k >= 0; k-- {
			raw.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b := raw.Bytes()
		if rng.Intn(10) == 0 && len(b) > 0 {
			b = b[:rng.Intn(len(b))] // cut anywhere, a trailing backslash included
		}
		prefix := []byte("pre")[:rng.Intn(4)]
		got, gerr := unescape(append([]byte(nil), prefix...), b)
		want, werr := unescapeRef(append([]byte(nil), prefix...), b)
		// assert only on a mismatch: its t.Helper calls cost more than the case
		if (gerr != nil) != (werr != nil) || werr == nil && !bytes.Equal(got, want) {
			assert.Equal(t, gerr != nil, werr != nil, "%q", b)
			assert.Equal(t, string(got), string(want), "%q", b)
		}
	}
}

// unescapeRef is unescape as it was before the eight-byte copy.
func unescapeRef(dst, raw []byte) ([]byte, error) {
	n := len(dst)
	if cap(dst)-n < len(raw) {
		dst = append(dst[:n:n], make([]byte, len(raw))...)
	}
	out := dst[:cap(dst)]
	i := 0
	for i < len(raw) {
		c := raw[i]
		if c != '\\' {
			out[n] = c
			n++
			i++
			continue
		}
		if i+1 >= len(raw) {
			return out[:n], synErr("invalid escape at end of string")
		}
		e := raw[i+1]
		i += 2
		switch e {
		case 'n':
			out[n] = '\n'
		case '"', '\\', '/':
			out[n] = e
		case 't':
			out[n] = '\t'
		case 'r':
			out[n] = '\r'
		case 'b':
			out[n] = '\b'
		case 'f':
			out[n] = '\f'
		case 'u':
			r1, ok := hex4(raw[i:])
			if !ok {
				return out[:n], synErr("invalid \\u escape")
			}
			i += 4
			var buf [2 * utf8.UTFMax]byte
			enc := buf[:0]
			if utf16.IsSurrogate(r1) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok := hex4(raw[i+2:])
					if !ok {
						return out[:n], synErr("invalid \\u escape")
					}
					i += 6
					if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
						enc = utf8.AppendRune(enc, d)
					} else {
						enc = utf8.AppendRune(enc, utf8.RuneError)
						enc = utf8.AppendRune(enc, r2)
					}
				} else {
					enc = utf8.AppendRune(enc, utf8.RuneError)
				}
			} else {
				enc = utf8.AppendRune(enc, r1)
			}
			// A \u escape takes 6 raw bytes and at most 3 decoded ones (6
			// for a surrogate pair from 12), so out has room.
			n += copy(out[n:], enc)
			continue
		default:
			return out[:n], synErr(fmt.Sprintf("invalid escape \\%c", e))
		}
		n++
	}
	return out[:n], nil
}
