package termtext

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
)

func TestOutput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented\n", "plain text\n\tindented\n"},
		{"crlf\r\nline\r\n", "crlf\nline\n"},
		{"\x1b[31mred\x1b[0m \x1b[1;38;5;200mbold\x1b[m", "\x1b[31mred\x1b[0m \x1b[1;38;5;200mbold\x1b[m"},
		{"clip \x1b]52;c;cHduZWQ=\nnext", "clip \nnext"},                   // unterminated OSC 52: to the end of its line
		{"title \x1b]0;pwned\x07 st \x1b]2;x\x1b\\ end", "title  st  end"}, // BEL and ST terminated
		{"dcs \x1bP1$r0m\x1b\\ apc \x1b_x\x1b\\ pm \x1b^y\x1b\\ sos \x1bXz\x1b\\.", "dcs  apc  pm  sos ."},
		{"reset \x1bc ris \x1b7\x1b8 \x1b(0 charset \x1b#8 align", "reset  ris   charset  align"},
		{"\x1b[2J\x1b[H\x1b[6n\x1b[?1049h\x1b[1;2r\x1b[21t\x1b[5 q ok", " ok"},
		{"c1 \u009b2J \u009d0;t\a \u0090q\u009c \u0085 end", "c1     end"},
		{"raw8 \x9b2J \x9d0;t\n", "raw8 \uFFFD2J \uFFFD0;t\n"},
		{"visible\rHIDDEN", "HIDDENe"},
		{"progress 10%\rprogress 50%\rprogress 100%\n", "progress 100%\n"},
		{"abc\b\bX", "aXc"},
		{"bell\a del\x7f nul\x00 vt\v ff\f esc\x1b", "bell del nul vt ff esc"},
		{"rtl \u202egnp.exe\u202c", "rtl <U+202E>gnp.exe<U+202C>"},
		{"\x1b[31mcolour\rover\n", "overur\n"},
		{"cut \x1b[3", "cut "},
		{"long sgr \x1b[" + strings.Repeat("1;", 40) + "m x", "long sgr  x"},
	} {
		got := Output(tc.in)
		assert.Check(t, got == tc.want, "Output(%q) = %q, want %q", tc.in, got, tc.want)
		assert.Check(t, terminalSafe(got, true), "%q", got)
		assert.Check(t, Output(got) == got, "not idempotent: %q", got)
	}
}

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"echo hi\n\tcd x", "echo hi\n\tcd x"},
		{"echo \x1b]0;t\x07 \x1b[2J\r\n", "echo ^[]0;t^G ^[[2J\n"},
		{"a\rb\x7f\x00", "a^Mb^?^@"},
		{"c1 \u009b31m \u202e", "c1 <U+009B>31m <U+202E>"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"ünïcode ✓", "ünïcode ✓"},
	} {
		got := Visible(tc.in)
		assert.Check(t, got == tc.want, "Visible(%q) = %q, want %q", tc.in, got, tc.want)
		assert.Check(t, terminalSafe(got, false))
		assert.Check(t, Visible(got) == got)
	}
	assert.Check(t, HasControl("a\x1bb"))
	assert.Check(t, HasControl("a\r\nb"))
	assert.Check(t, !HasControl("a\nb\tc ✓"))
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	_, _ = w.Write([]byte("one \x1b]0;x\x07"))
	assert.Equal(t, b.String(), "")
	_, _ = w.Write([]byte("line\ntwo\r\n"))
	assert.Equal(t, b.String(), "one ^[]0;x^Gline\ntwo\n")
	_, _ = w.Write(bytes.Repeat([]byte("x"), maxPending+1))
	assert.Equal(t, len(b.String()), len("one ^[]0;x^Gline\ntwo\n")+maxPending+2)
}

var sgrRe = regexp.MustCompile(`^\x1b\[[0-9;:]{0,32}m`)

// terminalSafe is the property both functions promise (an oracle kept
// apart from the implementation).
func terminalSafe(s string, colour bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c == 0x1b:
			m := sgrRe.FindString(s[i:])
			if !colour || m == "" {
				return false
			}
			i += len(m)
			continue
		case c < 0x20 || c == 0x7f:
			return false
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || isBidi(r) {
				return false
			}
			i += n
			continue
		}
		i++
	}
	return true
}

// FuzzOutput: whatever the bytes, Output's result is terminal-safe (only
// colour escapes), valid UTF-8 and stable.
//
//	go test ./internal/termtext -run '^$' -fuzz '^FuzzOutput$' -fuzztime 20s
func FuzzOutput(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;x", "a\rb\bc", "\x1b[31m\x1b[0m", "\u009b6n", "\x9d0;x\x07", "\x1bP\x1b\\", "\x1b[", "\xc2", "\x1b\x9b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Output(s)
		if !terminalSafe(out, true) {
			t.Fatalf("Output(%q) = %q is not terminal-safe", s, out)
		}
		if again := Output(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

// FuzzVisible: Visible's result is terminal-safe with no escape at all,
// keeps every line feed, and is stable.
//
//	go test ./internal/termtext -run '^$' -fuzz '^FuzzVisible$' -fuzztime 20s
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"echo \x1b]0;t\x07", "a\r\nb\rc", "\u202e\u009b", "\xff\xfe", "\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Visible(s)
		if !terminalSafe(out, false) {
			t.Fatalf("Visible(%q) = %q is not terminal-safe", s, out)
		}
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("line feeds changed: %q -> %q", s, out)
		}
		if Visible(out) != out {
			t.Fatalf("not idempotent")
		}
	})
}
