package report

import (
	"html"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/internal/termtext"
)

// Everything in a command log came from the agent or from the commands it
// ran, so it is untrusted: it may hold markdown that would break the page
// (a ``` fence, a table pipe, a stray </details>), HTML, image links that
// fetch attacker URLs when GitHub renders them, @-mentions, escape
// sequences, or characters that draw nothing or reorder the text around
// them so that it reads differently from what it is. internal/termtext
// makes every piece visible first (termtext.Visible for text, termtext.Plain
// for command output: a hidden character becomes ‹U+202E›, never nothing);
// the helpers below then make it inert in each context the report uses.

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
	return mdEscaper.Replace(termtext.Visible(s))
}

// codeSpan renders untrusted text as an inline code span on one line. The
// fence is one backtick longer than the longest run inside, and "|" is
// escaped so the span is safe inside a table cell (GFM removes the
// backslash inside the span).
func codeSpan(s string) string {
	s = oneLine(termtext.Visible(s))
	if strings.TrimSpace(s) == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	s = strings.ReplaceAll(s, "|", `\|`)
	return fence + " " + s + " " + fence
}

// htmlText renders untrusted text for an HTML context (a <summary> line).
func htmlText(s string) string {
	s = oneLine(termtext.Visible(s))
	s = html.EscapeString(s)
	return strings.ReplaceAll(s, "@", "@\u200B")
}

// codeBlock renders text made visible (termtext) as a fenced code block
// whose fence no line of the text can close.
func codeBlock(lang, s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	s = strings.TrimRight(s, "\n")
	return fence + lang + "\n" + s + "\n" + fence + "\n"
}

// pathEscape keeps a repository path usable inside a markdown link target:
// each segment percent-encoded, so no character of it is shown or acts.
func pathEscape(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
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
