package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The plan printed for people and as JSON.

// WriteText prints a plan for people: one line per candidate, grouped by
// code block, and a summary.
func WriteText(w io.Writer, p *Plan) error {
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
		verdict := "skip"
		if e.Run {
			verdict = "run "
		}
		cmd := firstLine(e.Command)
		if cmd == "" {
			cmd = "(no command)"
		}
		fmt.Fprintf(&b, "  %s %4d  %s\n         %s\n", verdict, e.Line, cmd, e.Reason)
	}
	if why := p.NothingToRun(); why != "" {
		fmt.Fprintf(&b, "\n%s\n", why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the entries as a JSON array (the stable form).
func WriteJSON(w io.Writer, p *Plan) error {
	es := p.Entries
	if es == nil {
		es = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(es)
}
