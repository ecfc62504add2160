package pipeline_test

import (
	"encoding/ascii85"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The decoding oracle's readers for the encodings of issue 31 and a few
// more (recoverable, views in security_hostile_redact_test.go): uuencode,
// base85 in its three alphabets, separators interleaved, JSON \u escapes,
// HTML entities, 0x byte lists, a Caesar shift. Each is loose: it decodes
// what it can and stops at the first thing it cannot.

// separators are what a README interleaves with a value to break it up.
var separators = strings.NewReplacer("-", "", "_", "", ".", "", ":", "", "|", "", ",", "", " ", "", "\n", "", "\t", "", "\r", "",
	"\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "")

func stripSeparators(s string) string { return separators.Replace(s) }

// unshift undoes shift (every letter and digit one place on).
func unshift(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r > 'a' && r <= 'z', r > 'A' && r <= 'Z', r > '0' && r <= '9':
			return r - 1
		case r == 'a':
			return 'z'
		case r == 'A':
			return 'Z'
		case r == '0':
			return '9'
		}
		return r
	}, s)
}

var (
	jsonUEscRe = regexp.MustCompile(`\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})`)
	hexByteRe  = regexp.MustCompile(`(?i)0x([0-9a-f]{2})\b`)
)

// unescapeJSON replaces \uXXXX and \xXX escapes by their characters.
func unescapeJSON(s string) string {
	return jsonUEscRe.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseUint(m[2:], 16, 32)
		if err != nil {
			return m
		}
		return string(rune(v))
	})
}

// hexBytes reads a 0x73, 0x6b, … byte list (xxd -i) back.
func hexBytes(s string) string {
	var b strings.Builder
	for _, m := range hexByteRe.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseUint(m[1], 16, 8)
		b.WriteByte(byte(v))
	}
	return b.String()
}

// The base85 alphabets: RFC 1924 (Python's b85encode, git), Z85 (basenc
// --z85); ascii85 (Adobe, btoa) is '!' to 'u' with 'z' for four zeros.
const (
	b85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
	z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)

// decode85 decodes every white-space separated field of s that could be
// base85 in each alphabet, at every offset of its 5-character groups.
func decode85(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		f = strings.TrimSuffix(strings.TrimPrefix(f, "<~"), "~>")
		if len(f) < 10 {
			continue
		}
		for off := 0; off < 5; off++ {
			if d := ascii85Loose(f[off:]); d != "" {
				out = append(out, d)
			}
			for _, alpha := range []string{b85Alphabet, z85Alphabet} {
				if d := base85Loose(f[off:], alpha); d != "" {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

func ascii85Loose(s string) string {
	dst := make([]byte, 4*len(s))
	n, _, err := ascii85.Decode(dst, []byte(s), true)
	if err != nil {
		// Decode up to the first bad character.
		if i := strings.IndexFunc(s, func(r rune) bool { return (r < '!' || r > 'u') && r != 'z' }); i > 0 {
			n, _, _ = ascii85.Decode(dst, []byte(s[:i]), true)
		}
	}
	return string(dst[:n])
}

// base85Loose decodes 5-character groups of alphabet until one does not
// decode; a last short group is padded with the alphabet's last character.
func base85Loose(s, alphabet string) string {
	var out []byte
	for i := 0; i < len(s); i += 5 {
		g := s[i:min(len(s), i+5)]
		pad := 5 - len(g)
		g += strings.Repeat(alphabet[84:], pad)
		var v uint64
		for j := 0; j < 5; j++ {
			k := strings.IndexByte(alphabet, g[j])
			if k < 0 {
				return string(out)
			}
			v = v*85 + uint64(k)
		}
		if v > 0xffffffff {
			return string(out)
		}
		b := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:4-pad]...)
	}
	return string(out)
}

// uudecode reads the uuencoded lines of s (their first character is the
// line's byte count) back, one after another.
func uudecode(s string) string {
	var out []byte
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(line, "begin ") {
			continue
		}
		n := int(line[0]-32) & 63
		if n == 0 || len(line) < 1+(n+2)/3*4 {
			continue
		}
		var b []byte
		ok := true
		for i := 1; i+4 <= len(line) && len(b) < n; i += 4 {
			var v uint32
			for j := 0; j < 4; j++ {
				c := line[i+j]
				if c < 32 || c > 96 {
					ok = false
				}
				v = v<<6 | uint32(c-32)&63
			}
			b = append(b, byte(v>>16), byte(v>>8), byte(v))
		}
		if ok && len(b) >= n {
			out = append(out, b[:n]...)
		}
	}
	return string(out)
}

// The oracle's own encoders, the inverse of its readers (TestRecoverableOracle).

func uuencode(b []byte) string {
	var sb strings.Builder
	for i := 0; i < len(b); i += 45 {
		chunk := b[i:min(len(b), i+45)]
		sb.WriteByte(byte(32 + len(chunk)))
		for j := 0; j < len(chunk); j += 3 {
			var g [3]byte
			copy(g[:], chunk[j:])
			v := uint32(g[0])<<16 | uint32(g[1])<<8 | uint32(g[2])
			for k := 18; k >= 0; k -= 6 {
				c := byte(v>>k) & 63
				if c == 0 {
					sb.WriteByte('`')
				} else {
					sb.WriteByte(32 + c)
				}
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func base85Encode(b []byte, alphabet string) string {
	var sb strings.Builder
	for i := 0; i < len(b); i += 4 {
		var g [4]byte
		n := copy(g[:], b[i:])
		v := uint32(g[0])<<24 | uint32(g[1])<<16 | uint32(g[2])<<8 | uint32(g[3])
		var c [5]byte
		for k := 4; k >= 0; k-- {
			c[k] = alphabet[v%85]
			v /= 85
		}
		sb.Write(c[:n+1])
	}
	return sb.String()
}

// interleave puts the characters of odd and even back together.
func interleave(odd, even string) string {
	var b strings.Builder
	for i := 0; i < len(odd) || i < len(even); i++ {
		if i < len(odd) {
			b.WriteByte(odd[i])
		}
		if i < len(even) {
			b.WriteByte(even[i])
		}
	}
	return b.String()
}

func a85(s string) string {
	dst := make([]byte, ascii85.MaxEncodedLen(len(s)))
	return string(dst[:ascii85.Encode(dst, []byte(s))])
}

// everyOther is every second character of s from the start'th.
func everyOther(s string, start int) string {
	var b strings.Builder
	for i := start; i < len(s); i += 2 {
		b.WriteByte(s[i])
	}
	return b.String()
}

func jsonU(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(`\u` + strconv.FormatInt(int64(r)+0x10000, 16)[1:])
	}
	return b.String()
}

func htmlEntities(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(fmt.Sprintf(format, r))
	}
	return b.String()
}

func hexList(s string) string {
	var parts []string
	for i := 0; i < len(s); i++ {
		parts = append(parts, fmt.Sprintf("0x%02x", s[i]))
	}
	return strings.Join(parts, ", ")
}
