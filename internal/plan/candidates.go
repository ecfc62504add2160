package plan

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// A block's would-be commands: script lines joined while incomplete,
// console prompts, and the lines of a text block that run the project.

// scriptCandidates splits a script block into would-be commands: a line
// shaped like a command starts one, which runs on while it is incomplete
// (readme.Scanner); other lines are text candidates of their own; comment
// lines are kept as the context of the command below them.
func (pl *planner) scriptCandidates(ls []readme.Line) []candidate {
	cands := scriptCandidates(ls)
	markHelpText(cands, ls)
	for i, c := range cands {
		if c.shape == shapeCommand && c.endLine == c.line && pl.isProse(stripComment(c.text)) {
			cands[i].shape = shapeText
		}
	}
	return cands
}

func scriptCandidates(ls []readme.Line) []candidate {
	var out []candidate
	var cur *candidate
	var sc readme.Scanner
	comment, lastWasComment := "", false
	output := false // after a "# Output:" comment, until a blank line or another comment
	for _, l := range ls {
		if cur != nil {
			cur.text += "\n" + l.Text
			cur.endLine = l.Line
			sc.Feed(l.Text)
			if sc.Complete() {
				cur.text = strings.TrimSpace(cur.text)
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		t := strings.TrimSpace(l.Text)
		switch {
		case t == "":
			comment, lastWasComment, output = "", false, false
			continue
		case strings.HasPrefix(t, "#"):
			output = outputMarkRe.MatchString(t)
			if lastWasComment {
				comment += "\n" + t
			} else {
				comment = t
			}
			lastWasComment = true
			continue
		}
		lastWasComment = false
		shape := shapeOf(l.Text)
		if output {
			shape = shapeText // what the command above prints
		}
		c := candidate{text: t, line: l.Line, endLine: l.Line, shape: shape, comment: comment}
		if shape != shapeCommand {
			out = append(out, c)
			continue
		}
		sc = readme.Scanner{}
		sc.Feed(l.Text)
		c.text = l.Text
		if sc.Complete() {
			c.text = strings.TrimSpace(c.text)
			out = append(out, c)
			continue
		}
		cur = &c
	}
	if cur != nil {
		cur.text = strings.TrimSpace(cur.text)
		out = append(out, *cur)
	}
	return out
}

// notCommands says why an unlabelled block is not a block of commands, ""
// when every line is one and at least one starts with a known command.
func (pl *planner) notCommands(cands []candidate) string {
	if len(cands) == 0 {
		return "no commands"
	}
	known, firstKnown, texts := false, false, 0
	for i, c := range cands {
		if c.shape != shapeCommand {
			texts++
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) > 0 {
			n := ss[0].name()
			if knownCommands[path.Base(n)] || platformTools[path.Base(n)] != "" || pl.repo.is(path.Base(n)) || pl.seen.installed[strings.ToLower(path.Base(n))] > 0 ||
				strings.HasPrefix(n, "./") || strings.HasPrefix(n, "$") {
				known = true
				firstKnown = firstKnown || i == 0
			}
		}
	}
	// Text lines may be the output of the commands above them: a block
	// that starts with a command the plan knows and has at least as many
	// commands as lines of text (`spark 1 5 22` over `▁▂█`).
	if texts > 0 && !(firstKnown && len(cands)-texts >= texts) {
		for _, c := range cands {
			if c.shape != shapeCommand {
				return fmt.Sprintf("line %d is not a command (%s)", c.line, firstLine(c.text))
			}
		}
	}
	if !known {
		return fmt.Sprintf("no line starts with a command it knows (%s); add the run hint to run it", firstLine(cands[0].text))
	}
	return ""
}

// projectLines returns the commands of a text-labelled block that run the
// project's own program: its `$ tool …` prompt lines, or, in a block with
// no prompt, its lines when every one is such a command or installs the
// project. Authors label sessions "text" too; nil when the block is text.
func (pl *planner) projectLines(b readme.Block) []candidate {
	own := func(cmd string) bool {
		ss := simples(lex(cmd))
		if len(ss) == 0 || shapeOf(cmd) != shapeCommand {
			return false
		}
		if pl.repo.is(path.Base(ss[0].name())) {
			return true
		}
		// Or it installs the project (`go install …/golines@latest`).
		ts, _, ok := installs(ss[0], pl.repo)
		return ok && slices.ContainsFunc(ts, pl.repo.is)
	}
	var out []candidate
	prompted := false
	for _, l := range b.Lines {
		if strings.TrimSpace(l.Text) == "" || l.Text[0] == ' ' || l.Text[0] == '\t' {
			continue
		}
		if cmd, ok := readme.CutPrompt(l.Text); ok {
			prompted = true
			// A session the author labelled text: its prompted commands.
			if cmd = strings.TrimSpace(cmd); shapeOf(cmd) == shapeCommand && pl.commandResolves(Entry{Command: cmd}) {
				out = append(out, candidate{text: cmd, line: l.Line, endLine: l.Line, shape: shapeCommand})
			}
		}
	}
	if prompted {
		return out
	}
	for _, l := range b.Lines {
		t := strings.TrimSpace(l.Text)
		if t == "" {
			continue
		}
		if !own(t) {
			return nil
		}
		out = append(out, candidate{text: t, line: l.Line, endLine: l.Line, shape: shapeCommand})
	}
	return out
}

// codeLines are the lines of every code block of the README.
func codeLines(doc *readme.Doc) []readme.Line {
	var out []readme.Line
	for _, b := range doc.Blocks {
		out = append(out, b.Lines...)
	}
	return out
}

// shellWordsByLine indexes the words of the README's shell lines, for
// usedAfter: word (without quotes and a leading ./) to the lines using it.
func shellWordsByLine(doc *readme.Doc) map[string][]int {
	out := map[string][]int{}
	for _, b := range doc.Blocks {
		if !b.Shell {
			continue
		}
		for _, l := range b.Lines {
			t, ok := readme.CutPrompt(l.Text)
			if !ok {
				t = l.Text
			}
			for _, w := range lex(t) {
				if w.op == "" && w.text != "" {
					k := strings.TrimPrefix(w.text, "./")
					out[k] = append(out[k], l.Line)
				}
			}
		}
	}
	return out
}

// usedAfter returns the first README line after line whose shell command
// names file as a word (`node index.js`, `./run.sh`), 0 when none does.
func (pl *planner) usedAfter(file string, line int) int {
	for _, u := range pl.readme.uses[file] {
		if u > line {
			return u
		}
	}
	return 0
}

// outputMarkRe is a comment that introduces what the command above it
// prints: "# Output:", "# => ", "# Result (abridged):".
var outputMarkRe = lazyre.New(`(?i)^#+\s*(=>|->|output|outputs|result|results|returns|prints|response|stdout)\s*(\([^)]*\))?\s*:?\s*$`)
