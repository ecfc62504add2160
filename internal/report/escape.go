package report

import (
	"html"
	"strings"
	"unicode/utf8"
)

// Everything in a command log came from the agent or from the commands it
// ran, so it is untrusted: it may hold markdown that would break the page
// (a ``` fence, a table pipe, a stray </details>), HTML, image links that
// fetch attacker URLs when GitHub renders them, @-mentions, or
// bidirectional-override characters that make text read differently from
// what it is. The helpers below make such text inert in each context the
// report uses.

// invisible are the characters stripped from untrusted text: zero-width,
// byte-order-mark, bidirectional override/isolate controls and the soft
// hyphen (the set claude-code-action's sanitizer strips).
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200D, r == 0xFEFF, r == 0x00AD,
		r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// clean removes invisible and control characters (except newline and tab)
// and replaces invalid UTF-8, so every later step sees plain text.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' {
			return -1
		}
		if r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || invisible(r) {
			return -1
		}
		return r
	}, s)
}

// oneLine turns s into a single line: newlines and tabs become spaces.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	return strings.ReplaceAll(s, "\t", " ")
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// mdEscaper backslash-escapes the markdown punctuation that could start
// emphasis, links, images, code, HTML or a table cell boundary, and turns
// the HTML-significant characters into entities.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `{`, `\{`, `}`, `\}`,
	`[`, `\[`, `]`, `\]`, `(`, `\(`, `)`, `\)`, `#`, `\#`, `+`, `\+`,
	`!`, `\!`, `|`, `\|`, `~`, `\~`, `<`, `&lt;`, `>`, `&gt;`, `&`, `&amp;`,
	// A zero-width space after @ keeps GitHub from turning @name into a
	// mention (and notifying name).
	`@`, "@\u200B",
	"\n", " ", "\t", " ",
)

// Text renders untrusted text as one line of inert markdown prose: no
// links, images, emphasis, HTML or mentions survive, and a table cell
// cannot be split. It is exported for callers that write their own
// markdown around report output (for example the Action's notices).
func Text(s string) string {
	return mdEscaper.Replace(clean(s))
}

// codeSpan renders untrusted text as an inline code span on one line. The
// fence is one backtick longer than the longest run inside, and "|" is
// escaped so the span is safe inside a table cell (GFM removes the
// backslash inside the span).
func codeSpan(s string) string {
	s = oneLine(clean(s))
	if strings.TrimSpace(s) == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	s = strings.ReplaceAll(s, "|", `\|`)
	return fence + " " + s + " " + fence
}

// htmlText renders untrusted text for an HTML context (a <summary> line).
func htmlText(s string) string {
	s = oneLine(clean(s))
	s = html.EscapeString(s)
	return strings.ReplaceAll(s, "@", "@\u200B")
}

// codeBlock renders untrusted text as a fenced code block whose fence no
// line of the text can close.
func codeBlock(lang, s string) string {
	s = clean(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	s = strings.TrimRight(s, "\n")
	return fence + lang + "\n" + s + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
