// Package readme reads a README the way readme2demo needs it, without
// running anything: it finds the shell code blocks with a real Markdown
// parser (goldmark), splits each block into commands with their README line
// numbers, reads the readme2demo hints in HTML comments before a block, and
// maps the commands of any command log back to the README lines they came
// from (Map). Everything here is pure: bytes in, values out.
//
// Which blocks are shell:
//   - fenced blocks labelled sh, bash, shell, zsh or ksh: every line is a
//     script line, unless some line starts with a `$ ` prompt, in which
//     case the block is read as a console session;
//   - fenced blocks labelled console, shell-session, sh-session,
//     shellsession or terminal: console sessions;
//   - unlabelled fenced blocks and indented code blocks: console sessions
//     when some line starts with a `$ ` prompt, otherwise not shell (they
//     are as often output or configuration as commands); the `run` hint
//     makes the engine run one as a script anyway;
//   - every other language (python, json, yaml, text, powershell, …) is
//     not shell.
//
// In a console session only prompt lines are commands (`$ `, `(venv) $ `,
// `user@host:~/dir$ `; `# ` root prompts only in a console-labelled block
// with no `$ ` prompt at all); other lines are expected output. A command
// continues on the following lines while it is incomplete (a trailing
// backslash, an open quote, a here-document, an open if/for/while/case or
// brace, a trailing && || |), and a `> ` continuation prompt on those
// lines is removed.
//
// Hints are HTML comments before a block, several allowed, e.g.
//
//	<!-- readme2demo: skip -->
//	<!-- readme2demo: timeout=30s continue-on-error -->
//	<!-- readme2demo: background ready="curl -sf localhost:8080" timeout=60s -->
//	<!-- readme2demo: run -->
//
// Hints apply to the next code block of any language and are then used up.
package readme

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Mode says how a block's lines become commands.
type Mode string

// The block modes.
const (
	ModeNone    Mode = ""        // not shell: no commands
	ModeScript  Mode = "script"  // every non-comment line is shell
	ModeConsole Mode = "console" // only prompt lines are commands; the rest is output
)

// Block is one code block of the README.
type Block struct {
	// Lang is the first word of the info string, lower case; "" for an
	// unlabelled fenced block or an indented block.
	Lang     string `json:"lang"`
	Indented bool   `json:"indented,omitempty"`
	// Line and EndLine are the README lines of the first and last content
	// line (1-based); both 0 for an empty block.
	Line    int  `json:"line"`
	EndLine int  `json:"end_line"`
	Mode    Mode `json:"mode"`
	// Shell is true when the block is recognised as shell by its language
	// or its prompts (see the package comment).
	Shell bool `json:"shell"`
	// Run is true when the markdown engine runs the block: shell or the run
	// hint, and no skip hint.
	Run      bool      `json:"run"`
	Hints    Hints     `json:"hints"`
	Commands []Command `json:"commands"`
}

// Command is one command of a block.
type Command struct {
	// Text is what bash runs: prompts and continuation prompts removed,
	// lines joined with newlines (backslash continuations kept).
	Text string `json:"text"`
	// Line and EndLine are the README lines the command spans.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
}

// Hints are the readme2demo comments before a block.
type Hints struct {
	Skip            bool          `json:"skip,omitempty"`
	Run             bool          `json:"run,omitempty"`
	ContinueOnError bool          `json:"continue_on_error,omitempty"`
	Background      bool          `json:"background,omitempty"`
	Timeout         time.Duration `json:"timeout,omitempty"`
	Ready           string        `json:"ready,omitempty"`
	// Problems lists hint words that were not understood, with their line.
	Problems []string `json:"problems,omitempty"`
}

func (h Hints) any() bool {
	return h.Skip || h.Run || h.ContinueOnError || h.Background || h.Timeout != 0 || h.Ready != "" || len(h.Problems) > 0
}

var (
	shellLangs   = map[string]bool{"sh": true, "bash": true, "shell": true, "zsh": true, "ksh": true}
	consoleLangs = map[string]bool{"console": true, "shell-session": true, "sh-session": true, "shellsession": true, "terminal": true}
)

// Extract returns the code blocks of a Markdown document in order.
func Extract(src []byte) []Block {
	lines := newLineIndex(src)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var blocks []Block
	var pending Hints
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			var b bytes.Buffer
			segs := n.Lines()
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				b.Write(seg.Value(src))
			}
			if n.HasClosure() {
				b.Write(n.ClosureLine.Value(src))
			}
			start := 0
			if segs.Len() > 0 {
				start = lines.line(segs.At(0).Start)
			}
			parseHints(b.String(), start, &pending)
		case *ast.RawHTML:
			var b bytes.Buffer
			segs := n.Segments
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				b.Write(seg.Value(src))
			}
			start := 0
			if segs.Len() > 0 {
				start = lines.line(segs.At(0).Start)
			}
			parseHints(b.String(), start, &pending)
		case *ast.FencedCodeBlock:
			blocks = append(blocks, newBlock(strings.ToLower(string(n.Language(src))), false, n.Lines(), src, lines, pending))
			pending = Hints{}
		case *ast.CodeBlock:
			blocks = append(blocks, newBlock("", true, n.Lines(), src, lines, pending))
			pending = Hints{}
		}
		return ast.WalkContinue, nil
	})
	return blocks
}

// srcLine is one content line of a block with its README line number.
type srcLine struct {
	text string
	line int
}

func newBlock(lang string, indented bool, segs *text.Segments, src []byte, idx lineIndex, h Hints) Block {
	b := Block{Lang: lang, Indented: indented, Hints: h}
	var ls []srcLine
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		t := strings.TrimRight(string(seg.Value(src)), "\r\n")
		ls = append(ls, srcLine{text: t, line: idx.line(seg.Start)})
	}
	if len(ls) > 0 {
		b.Line, b.EndLine = ls[0].line, ls[len(ls)-1].line
	}
	hasPrompt := false
	for _, l := range ls {
		if _, ok := cutPrompt(l.text); ok {
			hasPrompt = true
			break
		}
	}
	switch {
	case consoleLangs[lang]:
		b.Mode, b.Shell = ModeConsole, true
	case shellLangs[lang] && hasPrompt:
		b.Mode, b.Shell = ModeConsole, true
	case shellLangs[lang]:
		b.Mode, b.Shell = ModeScript, true
	case lang == "" && hasPrompt:
		b.Mode, b.Shell = ModeConsole, true
	case lang == "" || h.Run:
		// Unlabelled blocks may be commands; they are split for Map and for
		// the run hint, but not run by default.
		b.Mode = ModeScript
	}
	switch b.Mode {
	case ModeScript:
		b.Commands = scriptCommands(ls)
	case ModeConsole:
		root := consoleLangs[lang] && !hasPrompt
		b.Commands = consoleCommands(ls, root)
	}
	b.Run = (b.Shell || h.Run) && !h.Skip && b.Mode != ModeNone
	return b
}

// scriptCommands splits script lines: every line that is not blank or a
// comment starts a command, which runs on while it is incomplete.
func scriptCommands(ls []srcLine) []Command {
	var out []Command
	var cur *Command
	var sc shellScanner
	for _, l := range ls {
		if cur != nil {
			cur.Text += "\n" + l.text
			cur.EndLine = l.line
			sc.feed(l.text)
			if sc.complete() {
				out = append(out, trimCommand(*cur))
				cur = nil
			}
			continue
		}
		if isBlankOrComment(l.text) {
			continue
		}
		sc = shellScanner{}
		sc.feed(l.text)
		c := Command{Text: l.text, Line: l.line, EndLine: l.line}
		if sc.complete() {
			out = append(out, trimCommand(c))
			continue
		}
		cur = &c
	}
	if cur != nil { // an unfinished command at the end of the block
		out = append(out, trimCommand(*cur))
	}
	return out
}

// consoleCommands splits a console session: prompt lines start commands,
// which continue while incomplete; other lines are output.
func consoleCommands(ls []srcLine, rootPrompts bool) []Command {
	var out []Command
	var cur *Command
	var sc shellScanner
	for _, l := range ls {
		if cur != nil {
			t := l.text
			if rest, ok := strings.CutPrefix(t, "> "); ok {
				t = rest
			} else if t == ">" {
				t = ""
			}
			cur.Text += "\n" + t
			cur.EndLine = l.line
			sc.feed(t)
			if sc.complete() {
				out = append(out, trimCommand(*cur))
				cur = nil
			}
			continue
		}
		cmd, ok := cutPrompt(l.text)
		if !ok && rootPrompts {
			cmd, ok = cutRootPrompt(l.text)
		}
		if !ok || strings.TrimSpace(cmd) == "" || isBlankOrComment(cmd) {
			continue
		}
		sc = shellScanner{}
		sc.feed(cmd)
		c := Command{Text: cmd, Line: l.line, EndLine: l.line}
		if sc.complete() {
			out = append(out, trimCommand(c))
			continue
		}
		cur = &c
	}
	if cur != nil {
		out = append(out, trimCommand(*cur))
	}
	return out
}

func trimCommand(c Command) Command {
	c.Text = strings.TrimSpace(c.Text)
	return c
}

// promptRe matches a shell prompt at the start of a console line: `$ `,
// `(venv) $ `, `user@host:~/dir$ `.
var promptRe = regexp.MustCompile(`^\s*(?:\([^()\s]*\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s*)?\$(?:\s+|$)`)

// cutPrompt returns the command after a `$` prompt.
func cutPrompt(line string) (string, bool) {
	loc := promptRe.FindStringIndex(line)
	if loc == nil {
		return "", false
	}
	return line[loc[1]:], true
}

var rootPromptRe = regexp.MustCompile(`^\s*(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s*)?#\s+`)

// cutRootPrompt returns the command after a `#` root prompt.
func cutRootPrompt(line string) (string, bool) {
	loc := rootPromptRe.FindStringIndex(line)
	if loc == nil {
		return "", false
	}
	return line[loc[1]:], true
}

var hintRe = regexp.MustCompile(`(?s)<!--\s*readme2demo:(.*?)-->`)

// parseHints adds the readme2demo hints found in an HTML fragment.
func parseHints(html string, line int, h *Hints) {
	for _, m := range hintRe.FindAllStringSubmatch(html, -1) {
		for _, w := range hintWords(m[1]) {
			key, val, hasVal := strings.Cut(w, "=")
			switch key {
			case "skip":
				h.Skip = true
			case "run":
				h.Run = true
			case "continue-on-error":
				h.ContinueOnError = true
			case "background":
				h.Background = true
			case "timeout":
				d, err := parseTimeout(val)
				if err != nil || !hasVal {
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: timeout=%q is not a duration like 30s or 5m", line, val))
					continue
				}
				h.Timeout = d
			case "ready":
				if !hasVal || strings.TrimSpace(val) == "" {
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: ready needs a command, e.g. ready=\"curl -sf localhost:8080\"", line))
					continue
				}
				h.Ready = val
			default:
				h.Problems = append(h.Problems, fmt.Sprintf("line %d: unknown hint %q (known: skip, run, timeout=D, continue-on-error, background, ready=CMD)", line, w))
			}
		}
	}
}

func parseTimeout(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("timeout must be positive")
	}
	return d, nil
}

// hintWords splits a hint comment into words; a value may be quoted with
// single or double quotes (key="a b").
func hintWords(s string) []string {
	var out []string
	var w strings.Builder
	var quote byte
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
			w.WriteByte(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	return out
}

// lineIndex turns byte offsets into 1-based line numbers.
type lineIndex []int

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (idx lineIndex) line(offset int) int {
	return sort.Search(len(idx), func(i int) bool { return idx[i] > offset })
}
