package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

// The plan printed for people and as JSON, and the hints that change it.

// WriteOptions adjust how a plan is printed.
type WriteOptions struct {
	// Hints adds, to each decision, the hint comment that flips it.
	Hints bool
}

// WriteText prints a plan for people: one line per candidate, grouped by
// code block, and a summary. A run entry is a step or a probe.
func WriteText(w io.Writer, p *Plan, o WriteOptions) error {
	var b strings.Builder
	run := len(p.Run())
	cmds := 0
	for _, e := range p.Entries {
		if e.Command != "" {
			cmds++
		}
	}
	fmt.Fprintf(&b, "%s: %d of %d candidate commands run, %d code blocks, order %s\n", p.File, run, cmds, p.Blocks, p.Order)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n.Text) // the text names the hint's line
	}
	last := -1
	for _, e := range p.Entries {
		if e.BlockLine != last {
			last = e.BlockLine
			lang := e.Language
			if lang == "" {
				lang = "unlabelled"
			}
			fmt.Fprintf(&b, "\nblock at line %d (%s)\n", e.BlockLine, lang)
		}
		verdict := "skip "
		if e.Run {
			verdict = fmt.Sprintf("%-5s", e.Planned)
		}
		cmd := firstLine(e.Command)
		if cmd == "" {
			cmd = "(no command)"
		}
		fmt.Fprintf(&b, "  %s %4d  %s\n          %s\n", verdict, e.Line, cmd, e.Reason)
		if o.Hints {
			if h := p.Hint(e); h.Comment != "" {
				fmt.Fprintf(&b, "          %s: %s above its code block (whose first line is %d)\n", h.Effect, h.Comment, e.BlockLine)
			}
		}
	}
	if why := p.NothingToRun(); why != "" {
		fmt.Fprintf(&b, "\n%s\n", why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the entries as a JSON array (the stable form); with
// o.Hints each entry also has "hint": {"comment", "effect"}.
func WriteJSON(w io.Writer, p *Plan, o WriteOptions) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if !o.Hints {
		es := p.Entries
		if es == nil {
			es = []Entry{}
		}
		return enc.Encode(es)
	}
	type hinted struct {
		Entry
		Hint *Hint `json:"hint,omitempty"`
	}
	out := make([]hinted, 0, len(p.Entries))
	for _, e := range p.Entries {
		h := p.Hint(e)
		out = append(out, hinted{Entry: e})
		if h.Comment != "" {
			out[len(out)-1].Hint = &h
		}
	}
	return enc.Encode(out)
}

// Hint is the hint comment that flips a decision: it goes above the code
// block the entry belongs to.
type Hint struct {
	// Comment is the hint as the README's format writes a comment:
	// <!-- readme2demo: run --> in Markdown, ".. readme2demo: run" in
	// reStructuredText, "// readme2demo: run" in AsciiDoc.
	Comment string `json:"comment"`
	// Effect says what it does: "to run it", "to make it a step", "to
	// skip it".
	Effect string `json:"effect"`
}

// Hint returns the hint that flips an entry's decision: skip for what
// runs as a step or writes a file; run for a probe (it becomes a step) and
// for what is skipped (every command of the block then runs, as steps).
func (p *Plan) Hint(e Entry) Hint {
	var word, effect string
	switch {
	case e.Run && e.Planned == PlannedProbe:
		word, effect = "run", "to make it a step (with every command of its block)"
	case e.Run:
		word, effect = "skip", "to skip it (with its block)"
	case e.Kind == KindHint:
		return Hint{} // the README's own hint decided it: remove that hint
	case e.Kind == KindFileContent:
		word, effect = "file=PATH", "to write it to PATH"
	default:
		word, effect = "run", "to run it (with every command of its block, as steps)"
	}
	return Hint{Comment: hintComment(p.File, "readme2demo: "+word), Effect: effect}
}

// hintComment writes a hint as a comment of the README's format.
func hintComment(file, text string) string {
	switch readme.FormatOf(file) {
	case readme.ReStructuredText:
		return ".. " + text
	case readme.AsciiDoc:
		return "// " + text
	}
	return "<!-- " + text + " -->"
}
