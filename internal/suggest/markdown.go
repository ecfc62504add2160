package suggest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/readme2demo/readme2demo/internal/report"
)

// ReviewBody is the body of the review the Action posts with the comments.
func ReviewBody(rv *Review, readme string) string {
	n := len(rv.Comments)
	what := fmt.Sprintf("%d suggested changes", n)
	if n == 1 {
		what = "1 suggested change"
	}
	s := fmt.Sprintf("### readme2demo: %s to %s\n\nAn AI agent followed the README in a fresh sandbox and had to change it to make it work. "+
		"Each suggestion below is its edit; \"Commit suggestion\" applies it. The text was written by a machine from an untrusted README: review it before committing.\n",
		what, codeSpan(readme))
	if len(rv.OutsideDiff) > 0 {
		s += fmt.Sprintf("\n%d more change(s) fall outside this pull request's diff; the readme2demo comment on this pull request holds them as patches.\n", len(rv.OutsideDiff))
	}
	return s
}

// Markdown renders a review for people (`readme2demo suggest --format
// markdown`): each suggestion with its lines, then each patch with why it
// is not a suggestion.
func (rv *Review) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## readme2demo: %d suggestion(s), %d patch(es) outside the pull request's diff\n\n", len(rv.Comments), len(rv.OutsideDiff))
	for _, c := range rv.Comments {
		fmt.Fprintf(&b, "### %s %s\n\n%s\n", codeSpan(c.Path), lineLabel(c.StartLine, c.Line), c.Body)
	}
	if len(rv.OutsideDiff) > 0 {
		b.WriteString("### Outside the pull request's diff\n\n")
		for _, p := range rv.OutsideDiff {
			fmt.Fprintf(&b, "#### %s %s\n\n%s.\n\n%s\n", codeSpan(p.Path), lineLabel(p.StartLine, p.EndLine), report.Text(sentence(p.Reason)), fence("diff", p.Patch))
		}
	}
	if len(rv.Comments) == 0 && len(rv.OutsideDiff) == 0 {
		b.WriteString("The run made no README edit.\n")
	}
	return b.String()
}

func lineLabel(start, end int) string {
	if start == 0 || start == end {
		return fmt.Sprintf("line %d", end)
	}
	return fmt.Sprintf("lines %d–%d", start, end)
}

func codeSpan(s string) string {
	f := strings.Repeat("`", longestRun(s, '`')+1)
	return f + strings.ReplaceAll(s, "\n", " ") + f
}

// fence is text in a code block no line of it can close. Carriage returns
// are kept out of the markdown.
func fence(lang, text string) string {
	text = strings.ReplaceAll(text, "\r", "")
	f := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// WriteJSON writes the review's stable JSON form, indented, with no HTML
// escaping (a body's "<" stays "<").
func (rv *Review) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rv); err != nil {
		return fmt.Errorf("write review: %w", err)
	}
	return nil
}

// sentence is s with its first letter in capitals.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
