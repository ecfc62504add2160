package termtext

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
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
		{"rtl \u202egnp.exe\u202c", "rtl ‹U+202E›gnp.exe‹U+202C›"},
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
		{"c1 \u009b31m \u202e", "c1 ‹U+009B›31m ‹U+202E›"},
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

// invisible are the characters issue 31 names (and the oracle checks): a
// list kept apart from the implementation's table, which is larger.
func invisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r == 0x2060, r == 0xfeff, r == 0x3164, r == 0x115f, r == 0x1160, r == 0xffa0,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x061c,
		r >= 0xe0000 && r <= 0xe007f, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// terminalSafe is the property both functions promise (an oracle kept
// apart from the implementation): no control but \n and \t (and, with
// colour, SGR sequences that conceal nothing), no C1, no invisible
// character, no variation selector that follows no character.
func terminalSafe(s string, colour bool) bool {
	prev := rune(-1)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c == 0x1b:
			m := sgrRe.FindString(s[i:])
			if !colour || m == "" || conceals(m) {
				return false
			}
			i += len(m)
			prev = -1
			continue
		case c < 0x20 || c == 0x7f:
			return false
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || invisible(r) {
				return false
			}
			if (r >= 0xfe00 && r <= 0xfe0f) && (prev < 0x20 || prev >= 0xfe00 && prev <= 0xfe0f) {
				return false
			}
			prev = r
			i += n
			continue
		}
		prev = rune(c)
		i++
	}
	return true
}

// conceals reports whether a colour sequence turns on conceal (8), read
// field by field: the arguments of an extended colour (38;5;8) are not
// attributes.
func conceals(sgr string) bool {
	fields := strings.Split(strings.TrimSuffix(strings.TrimPrefix(sgr, "\x1b["), "m"), ";")
	for i := 0; i < len(fields); i++ {
		switch fields[i] {
		case "8":
			return true
		case "38", "48", "58":
			if i+1 < len(fields) && fields[i+1] == "5" {
				i += 2
			} else if i+1 < len(fields) && fields[i+1] == "2" {
				i += 4
			}
		}
	}
	return false
}

// Each character issue 31 names, and the rest of the hidden table, is
// shown as an escape by both functions, wherever it stands.
func TestHiddenCharactersShown(t *testing.T) {
	for _, r := range []rune{0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x3164, 0x115f, 0xffa0, 0x00ad,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x061c, 0x200e, 0x200f,
		0xe0000, 0xe0001, 0xe0041, 0xe007f, 0x2028, 0x2029, 0x2061, 0x180e, 0xfff9, 0x1d173} {
		in := "a" + string(r) + "b"
		want := "a" + fmt.Sprintf("‹U+%04X›", r) + "b"
		assert.Check(t, Hidden(r), "%U", r)
		assert.Check(t, Visible(in) == want, "Visible(%q) = %q", in, Visible(in))
		assert.Check(t, Output(in) == want, "Output(%q) = %q", in, Output(in))
		assert.Check(t, Plain(in) == want, "Plain(%q) = %q", in, Plain(in))
		assert.Check(t, HasControl(in))
	}
	// Not hidden: what people write.
	for _, s := range []string{"naïve café ✓ 日本語 עברית العربية", "⚠️ warning", "👍🏽", " nbsp", "emoji❤️"} {
		assert.Check(t, Visible(s) == s && Output(s) == s && !HasControl(s), "%q changed: %q", s, Visible(s))
	}
}

// One variation selector after a character is how glyph variants and
// emoji are written; any other is shown (a run of them can smuggle bytes).
func TestVariationSelectors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\u26a0\ufe0f", "\u26a0\ufe0f"},
		{"a\ufe0f\ufe0f", "a\ufe0f‹U+FE0F›"},
		{"\ufe0fstart", "‹U+FE0F›start"},
		{"\u263a\U000e0100\U000e0101\U000e0102", "\u263a\U000e0100‹U+E0101›‹U+E0102›"},
		{"tab\t\ufe0f", "tab\t‹U+FE0F›"},
		{"line\n\ufe0e", "line\n‹U+FE0E›"},
	} {
		assert.Check(t, Visible(tc.in) == tc.want, "Visible(%q) = %q, want %q", tc.in, Visible(tc.in), tc.want)
		assert.Check(t, Output(tc.in) == tc.want, "Output(%q) = %q, want %q", tc.in, Output(tc.in), tc.want)
	}
	assert.Equal(t, Output("a\ufe0f\r\t"), "\t‹U+FE0F›") // overwritten: the selector lost its character
}

// Conceal (SGR 8) is taken out of a colour sequence and shown; colours
// with huge parameters are dropped; extended colours keep their numbers;
// what is kept has one form.
func TestSGR(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\x1b[8mhidden\x1b[0m", "‹SGR 8›hidden\x1b[0m"},
		{"\x1b[1;8;31mx\x1b[28m", "\x1b[1;31m‹SGR 8›x\x1b[28m"},
		{"\x1b[;8mx", "\x1b[m‹SGR 8›x"},
		{"\x1b[38;5;8mgrey \x1b[48;2;8;8;8mbg \x1b[38:5:8mc", "\x1b[38;5;8mgrey \x1b[48;2;8;8;8mbg \x1b[38:5:8mc"},
		{"\x1b[38;5;8;8mx", "\x1b[38;5;8m‹SGR 8›x"},
		// One form only: numbers without leading zeros (0038 is 38, 008 is
		// conceal), an extended colour cut short or of an unknown colour
		// space dropped with what follows it.
		{"\x1b[0038;2;8mx", "x"},
		{"\x1b[0038;0002;1;02;003;08mx", "\x1b[38;2;1;2;3m‹SGR 8›x"},
		{"\x1b[1;008mx", "\x1b[1m‹SGR 8›x"},
		{"\x1b[1;38;5mx \x1b[4;48;7;8my \x1b[38;05;08mz", "\x1b[1mx \x1b[4my \x1b[38;5;8mz"},
		{"\x1b[38;2;1;2:3;8mx", "x"},
		{"\x1b[99999mx \x1b[38;5;300my \x1b[1;4294967296mz", "x y z"},
		{"\x1b[" + strings.Repeat("9", 200) + "mw \x1b[" + strings.Repeat("1;", 5000) + "Hv", "w v"},
	} {
		got := Output(tc.in)
		assert.Check(t, got == tc.want, "Output(%q) = %q, want %q", tc.in, got, tc.want)
		assert.Check(t, terminalSafe(got, true), "%q", got)
		assert.Check(t, Output(got) == got, "not idempotent: %q", got)
	}
}

func TestPlain(t *testing.T) {
	assert.Equal(t, Plain("\x1b[31mred\x1b[0m \x1b]0;t\x07ok\x1b[8m s\nbar\rBAR\n"), "red ok‹SGR 8› s\nBAR\n")
	assert.Equal(t, Plain("plain\n"), "plain\n")
}

// bash reads back exactly the bytes Bash wrote, in the C locale (a
// container's default) and in a UTF-8 one, and the quoted form shows no
// hidden or control character itself.
func TestBashQuotesExactBytes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	inputs := []string{
		"plain echo 'it''s' \\ \"q\" $HOME `x` !",
		"multi\nline\twith tab",
		"bidi \u202eevil\u202c \u2066iso\u2069 \u200e\u200f\u061c",
		"zero \u200b\u200c\u200d\u2060\ufeff\u3164\u115f\u1160\uffa0",
		"tags \U000e0001\U000e0041\U000e007f sep \u2028\u2029",
		"esc \x1b]0;t\x07 \x1b[8m \x1b[31m cr\r bell\a del\x7f c1 \u0085\u009b",
		"emoji \u26a0\ufe0f ✓ 日本 \ufe0f\ufe0f",
		"bad utf8 \xff\xc2",
	}
	dir := t.TempDir()
	var script strings.Builder
	for i, in := range inputs {
		q, ok := Bash(in)
		assert.Assert(t, ok)
		assert.Check(t, terminalSafe(strings.NewReplacer("\n", "", "\t", "").Replace(q), false), "Bash(%q) = %q shows a control or hidden character", in, q)
		fmt.Fprintf(&script, "printf %%s %s > out%d\n", q, i)
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "s.sh"), []byte(script.String()), 0o644))
	for _, locale := range []string{"C", "C.UTF-8"} {
		cmd := exec.Command(bash, "s.sh")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL="+locale)
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, "%s", out)
		for i, in := range inputs {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d", i)))
			assert.NilError(t, err)
			assert.Check(t, string(got) == in, "LC_ALL=%s: bash read %q as %q", locale, in, got)
		}
	}
	_, ok := Bash("nul\x00")
	assert.Check(t, !ok, "a NUL cannot be quoted")
	q, _ := Bash("a\u202eb 'c'")
	assert.Equal(t, q, `$'a\xe2\x80\xaeb \'c\''`)
}

// The promises hold on random mixes of the pieces that interact (escapes
// and their parameters, CR and BS, hidden characters, variation selectors,
// C1 controls raw and encoded): a quick, deterministic cousin of the fuzz
// tests.
func TestPromisesOnPieces(t *testing.T) {
	pieces := []string{"a", " ", "\t", "\n", "\r", "\b", "\x1b", "[", "]", "8", ";", "m", "5", "38", "2", ":", "300", "\x07",
		"\x1b\\", "P", "c", "\u202e", "\ufe0f", "\u200b", "\U000e0041", "\U000e0100", "\u2028", "\u009b", "\u009d", "\x9b",
		"\xc2", "\xff", "⚠", "日", "‹"}
	rnd := rand.New(rand.NewSource(31))
	for range 20000 {
		var b strings.Builder
		for k := rnd.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		s := b.String()
		if o := Output(s); !terminalSafe(o, true) || Output(o) != o {
			t.Fatalf("Output(%q) = %q: unsafe or unstable (%q)", s, o, Output(o))
		}
		if v := Visible(s); !terminalSafe(v, false) || Visible(v) != v {
			t.Fatalf("Visible(%q) = %q: unsafe or unstable", s, v)
		}
		if p := Plain(s); !terminalSafe(p, false) || Plain(p) != p {
			t.Fatalf("Plain(%q) = %q: unsafe or unstable", s, p)
		}
	}
}

// FuzzOutput: whatever the bytes, Output's result is terminal-safe (only
// colour escapes), valid UTF-8 and stable.
//
//	go test ./internal/termtext -run '^$' -fuzz '^FuzzOutput$' -fuzztime 20s
func FuzzOutput(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;x", "a\rb\bc", "\x1b[31m\x1b[0m", "\u009b6n", "\x9d0;x\x07", "\x1bP\x1b\\", "\x1b[", "\xc2", "\x1b\x9b",
		"\x1b[8;38;5;8m\u202e\ufe0f", "a\ufe0f\r\t\ufe0f", "\U000e0041\u2028"} {
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
	for _, s := range []string{"echo \x1b]0;t\x07", "a\r\nb\rc", "\u202e\u009b", "\xff\xfe", "\x00\x7f", "\ufe0f\u200b\U000e0041"} {
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
