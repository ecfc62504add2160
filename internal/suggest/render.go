package suggest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sourcegraph/go-diff/diff"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/report"
)

// commentBody is a suggestion's comment: the agent's reason (its FIX
// markers that match the change, escaped as inert text) and the suggestion
// block GitHub turns into "Commit suggestion".
func commentBody(e edit, lines []string, markers []commandlog.Marker) string {
	var b strings.Builder
	b.WriteString("**readme2demo:** the agent had to change this to follow the README.\n\n")
	for _, m := range matchingFixes(e, markers) {
		fmt.Fprintf(&b, "> FIX: %s\n", report.Text(clip(m, 600)))
	}
	if len(markers) > 0 {
		b.WriteString("\n")
	}
	text := strings.Join(lines, "\n")
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	b.WriteString(fence + "suggestion\n")
	if len(lines) > 0 {
		b.WriteString(text + "\n")
	}
	b.WriteString(fence + "\n")
	return b.String()
}

// word is a token worth matching between a change and a FIX text: a flag,
// a file name, a word of three characters or more.
var word = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_./:-]{2,}|--?[A-Za-z0-9][A-Za-z0-9_-]*`)

func words(lines ...string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		for _, w := range word.FindAllString(strings.ToLower(l), -1) {
			out[strings.TrimRight(w, ".:")] = true
		}
	}
	return out
}

// matchingFixes picks the FIX texts that speak of a change: those sharing
// the most words with what the change removed or added (the words on only
// one side count, such as --shout and --loud). With none sharing a word, a
// single FIX is taken as the reason, and several are all shown.
func matchingFixes(e edit, markers []commandlog.Marker) []string {
	if len(markers) <= 1 {
		var out []string
		for _, m := range markers {
			out = append(out, m.Text)
		}
		return out
	}
	removed, added := words(e.removed...), words(e.added...)
	changed := map[string]bool{}
	for w := range removed {
		if !added[w] {
			changed[w] = true
		}
	}
	for w := range added {
		if !removed[w] {
			changed[w] = true
		}
	}
	if len(changed) == 0 {
		changed = words(append(e.removed, e.added...)...)
	}
	best, picked := 0, []string(nil)
	for _, m := range markers {
		n := 0
		for w := range words(m.Text) {
			if changed[w] {
				n++
			}
		}
		switch {
		case n > best:
			best, picked = n, []string{m.Text}
		case n == best && n > 0:
			picked = append(picked, m.Text)
		}
	}
	if best == 0 {
		for _, m := range markers {
			picked = append(picked, m.Text)
		}
	}
	return picked
}

// headPatch is the unified diff of an edit against the PR head's README,
// for `git apply`: the head's own lines (and line endings) as context and
// removed lines, the new lines with the line ending of the lines around
// them.
func headPatch(path string, e edit, a anchored, headLines []string) string {
	from := a.at - a.before
	to := a.at + len(e.removed) + a.after
	eol := "\n"
	for _, l := range headLines[from:to] {
		if strings.HasSuffix(l, "\r\n") {
			eol = "\r\n"
		}
	}
	if from == to && len(headLines) > 0 && strings.HasSuffix(headLines[0], "\r\n") {
		eol = "\r\n"
	}
	var body strings.Builder
	line := func(op byte, l string) {
		body.WriteByte(op)
		body.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			body.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, l := range headLines[from:a.at] {
		line(' ', l)
	}
	for _, l := range headLines[a.at : a.at+len(e.removed)] {
		line('-', l)
	}
	for _, l := range e.added {
		line('+', l+eol)
	}
	for _, l := range headLines[a.at+len(e.removed) : to] {
		line(' ', l)
	}
	oldN, newN := to-from, to-from-len(e.removed)+len(e.added)
	return header(path) + fmt.Sprintf("@@ -%s +%s @@\n", span(from+1, oldN), span(from+1, newN)) + body.String()
}

// runPatch is the unified diff of an edit as readme.diff had it: against
// the README the run followed.
func runPatch(path string, e edit) Patch {
	var body strings.Builder
	for _, l := range e.before {
		body.WriteString(" " + l + "\n")
	}
	for _, l := range e.removed {
		body.WriteString("-" + l + "\n")
	}
	for _, l := range e.added {
		body.WriteString("+" + l + "\n")
	}
	for _, l := range e.after {
		body.WriteString(" " + l + "\n")
	}
	from := e.oldStart - len(e.before)
	oldN := len(e.before) + len(e.removed) + len(e.after)
	newN := oldN - len(e.removed) + len(e.added)
	end := e.oldStart + max(len(e.removed), 1) - 1
	return Patch{StartLine: e.oldStart, EndLine: end,
		Patch: header(path) + fmt.Sprintf("@@ -%s +%s @@\n", span(from, oldN), span(from, newN)) + body.String()}
}

// filePatch is one hunk of another file's diff, as it was.
func filePatch(path string, h *diff.Hunk) string {
	return header(path) + fmt.Sprintf("@@ -%s +%s @@\n", span(int(h.OrigStartLine), int(h.OrigLines)), span(int(h.NewStartLine), int(h.NewLines))) + string(h.Body)
}

func header(path string) string {
	return "--- a/" + path + "\n+++ b/" + path + "\n"
}

// span is a hunk header's "start,count" (an empty side starts at the line
// before, as diff writes it).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, n)
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

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
