package engines

import (
	"math/rand"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// singleShellWord decodes what its first, byte-at-a-time form decoded, on
// words built from shell pieces.
func TestSingleShellWordMatchesReference(t *testing.T) {
	parts := []string{"a", "echo", "'x y'", "\"a b\"", "\"$HOME\"", "\\'", "\\\"", "\\\\", " ", ";", "|", "*", "é",
		"\"\\$x\"", "\"\\q\"", "'unterminated", "\"open", "\\", "-lc", "~", "{a,b}", "\t", "\n", "''", "\"\""}
	rnd := rand.New(rand.NewSource(3))
	ok := 0
	words := longtest.Count(10000, 50000)
	for i := 0; i < words; i++ {
		var b strings.Builder
		for n := rnd.Intn(5); n >= 0; n-- {
			b.WriteString(parts[rnd.Intn(len(parts))])
		}
		s := b.String()
		got, gotOK := singleShellWord(s)
		want, wantOK := refSingleShellWord(s)
		if gotOK != wantOK || got != want { // assert only to report: 10,000 asserts cost more than the check
			assert.Equal(t, gotOK, wantOK, "%q", s)
			assert.Equal(t, got, want, "%q", s)
		}
		if wantOK {
			ok++
		}
	}
	assert.Assert(t, ok > words/10, "only %d of %d words decode", ok, words)
}

func refSingleShellWord(s string) (string, bool) {
	var out strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			out.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case '"':
			i++
			for {
				if i >= len(s) {
					return "", false
				}
				d := s[i]
				if d == '"' {
					i++
					break
				}
				if d == '$' || d == '`' {
					return "", false // an expansion: the outer shell changed the text
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					out.WriteByte(s[i+1])
					i += 2
					continue
				}
				out.WriteByte(d)
				i++
			}
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			out.WriteByte(s[i+1])
			i += 2
		default:
			if strings.IndexByte(" \t\n;&|<>()$`*?[#~{}", c) >= 0 {
				return "", false
			}
			out.WriteByte(c)
			i++
		}
	}
	return out.String(), out.Len() > 0
}
