package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
)

// The forms a forwarded secret takes in logs.
//
// Exact forms are matched whole, in the text as it is: the value itself,
// its base64 (standard and URL alphabets, at the three byte alignments),
// hex, reversed, URL- and JSON-escaped (Encodings). Every forwarded value
// gets them; values that are not credentials (a base URL, a model name)
// get only them.
//
// Piece forms are what a credential-like value (credentialLike) can be cut
// into: the value, reversed, rot13, hex (both cases), base64 (both
// alphabets, three alignments) and base32 (five alignments). Any run of a
// piece form at least minRun long that holds at least bodyMin characters
// of the value's random part (past a public prefix such as "sk-ant-api03-")
// is a leak. Piece forms are matched in the skeleton of the text (white
// space, line breaks and their JSON escapes removed, skeleton.go), so a
// value wrapped (base64 -w 40, fold -w 11) or spaced (od -An -tx1,
// sed 's/./& /g') is still caught.

// Minimum runs of a piece form, per 12 characters of the value, and the
// share of them that must come from the random part.
const (
	pieceRun  = 12 // characters of the value in a match, at least
	pieceBody = 6  // of which, at least, from past the public prefix
	maxPublic = 24 // longest public prefix
)

// form is one piece form of a secret.
type form struct {
	text string
	// minRun and bodyMin are pieceRun and pieceBody in this form's units.
	minRun, bodyMin int
	// [pubLo, pubHi) is the public prefix's image in text.
	pubLo, pubHi int
}

// publicPrefix returns the length of s's well-known prefix: words of lower
// case letters and digits each ending in '-' or '_' ("sk-ant-api03-",
// "ghp_", "github_pat_", "xoxb-"), at most maxPublic bytes, and only when
// pieceRun bytes are left after it.
func publicPrefix(s string) int {
	i := 0
	for {
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i || j >= len(s) || s[j] != '-' && s[j] != '_' || j+1 > maxPublic || len(s)-(j+1) < pieceRun {
			return i
		}
		i = j + 1
	}
}

// pieceForms returns the piece forms of a credential-like secret.
func pieceForms(s string) []form {
	pp := publicPrefix(s)
	var out []form
	add := func(f form) {
		if len(f.text) >= f.minRun {
			out = append(out, f)
		}
	}
	// One character per character of s.
	add(form{text: s, minRun: pieceRun, bodyMin: pieceBody, pubLo: 0, pubHi: pp})
	add(form{text: reverse(s), minRun: pieceRun, bodyMin: pieceBody, pubLo: len(s) - pp, pubHi: len(s)})
	if r := rot13(s); r != s {
		add(form{text: r, minRun: pieceRun, bodyMin: pieceBody, pubLo: 0, pubHi: pp})
	}
	add(form{text: rot47(s), minRun: pieceRun, bodyMin: pieceBody, pubLo: 0, pubHi: pp})
	// Two per byte.
	h := hex.EncodeToString([]byte(s))
	add(form{text: h, minRun: 2 * pieceRun, bodyMin: 2 * pieceBody, pubLo: 0, pubHi: 2 * pp})
	if u := strings.ToUpper(h); u != h {
		add(form{text: u, minRun: 2 * pieceRun, bodyMin: 2 * pieceBody, pubLo: 0, pubHi: 2 * pp})
	}
	// Four per three bytes, at each alignment.
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for align := 0; align < 3; align++ {
			text, first := fragment(enc.EncodeToString, 6, s, align)
			f := form{text: text, minRun: 4 * pieceRun / 3, bodyMin: 4 * pieceBody / 3,
				pubLo: 0, pubHi: max(0, (8*(align+pp))/6-first)}
			add(f)
			// base64 | rev, base64 | tr (rot13).
			add(form{text: reverse(f.text), minRun: f.minRun, bodyMin: f.bodyMin, pubLo: len(f.text) - f.pubHi, pubHi: len(f.text)})
			add(form{text: rot13(f.text), minRun: f.minRun, bodyMin: f.bodyMin, pubLo: f.pubLo, pubHi: f.pubHi})
		}
	}
	// Eight per five bytes, at each alignment.
	for align := 0; align < 5; align++ {
		text, first := fragment(base32.StdEncoding.EncodeToString, 5, s, align)
		add(form{text: text, minRun: 8 * pieceRun / 5, bodyMin: 8 * pieceBody / 5,
			pubLo: 0, pubHi: max(0, (8*(align+pp))/5-first)})
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, f := range out {
		if !seen[f.text] {
			seen[f.text] = true
			uniq = append(uniq, f)
		}
	}
	return uniq
}

// fragment encodes s as it appears after align bytes of other data with
// an encoding of bits bits per character, keeping only the characters
// whose bits all come from s; it also returns the index, in the full
// encoding, of the first character kept.
func fragment(encode func([]byte) string, bits int, s string, align int) (string, int) {
	buf := make([]byte, align+len(s))
	copy(buf[align:], s)
	full := encode(buf)
	first := (8*align + bits - 1) / bits // first char starting at or after bit 8*align
	last := (8 * (align + len(s))) / bits
	if last <= first {
		return "", first
	}
	return full[first:last], first
}

// Encodings returns the forms a secret commonly takes in logs, s itself
// first: base64 in the standard and URL alphabets at each of the three byte
// alignments (only the characters that depend on s alone, so the form is
// found inside the encoding of any longer text), hex in both cases, s
// reversed, URL-encoded (query and path) and JSON-escaped.
func Encodings(s string) []string {
	out := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for align := 0; align < 3; align++ {
			out = append(out, base64Fragment(enc, s, align))
		}
	}
	h := hex.EncodeToString([]byte(s))
	out = append(out, h, strings.ToUpper(h), reverse(s), url.QueryEscape(s), url.PathEscape(s), jsonEscape(s))
	seen := map[string]bool{}
	uniq := out[:0]
	for _, e := range out {
		if !seen[e] && e != "" {
			seen[e] = true
			uniq = append(uniq, e)
		}
	}
	return uniq
}

// base64Fragment encodes s as it appears after align bytes of other data,
// keeping only the characters whose six bits all come from s.
func base64Fragment(enc *base64.Encoding, s string, align int) string {
	f, _ := fragment(enc.EncodeToString, 6, s, align)
	return f
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

func rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

// rot47 rotates the printable ASCII characters by 47 (tr '!-~' 'P-~!-O').
func rot47(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= '!' && c <= '~' {
			b[i] = '!' + (c-'!'+47)%94
		}
	}
	return string(b)
}

var jsonEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "/", `\/`)

func jsonEscape(s string) string { return jsonEscaper.Replace(s) }

// credentialLike reports whether a forwarded value looks like a generated
// credential, whose pieces are secret too: at least 16 bytes, no white
// space, not a URL, and upper-case letters, lower-case letters and digits
// all present (API keys and tokens are; URLs, model and project names are
// not).
func credentialLike(s string) bool {
	if len(s) < 16 || strings.Contains(s, "://") {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f:
			return false
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}
