// Package readme reads a README the way readme2demo needs it, without
// running anything: it finds the code blocks with a real Markdown parser
// (goldmark), keeps each block's lines with their README line numbers, the
// headings it stands under and the sentence before it, splits shell blocks
// into commands, reads the readme2demo hints in HTML comments before a
// block, and maps the commands of any command log back to the README lines
// they came from (Map). Everything here is pure: bytes in, values out.
// Deciding which commands to run is internal/plan's job.
//
// Which blocks are shell:
//   - fenced blocks labelled sh, bash, shell, zsh or ksh: every line is a
//     script line, unless some line starts with a shell prompt, in which
//     case the block is read as a console session;
//   - fenced blocks labelled console, shell-session, sh-session,
//     shellsession or terminal: console sessions, or scripts when no line
//     has a prompt;
//   - unlabelled fenced blocks and indented code blocks: console sessions
//     when some line starts with a shell prompt, otherwise split as a script
//     but not marked shell (they are as often output or configuration as
//     commands: internal/plan looks at their lines);
//   - every other language (python, json, yaml, text, powershell, …) is
//     not shell.
//
// In a console session only prompt lines are commands (`$ `, `% `, `❯ `, `› `,
// `▶ `, `(venv) $ `, `user@host:~/dir$ `; `# ` root prompts only in a
// console-labelled block with no other prompt at all); the other lines are
// the command's expected output. A command continues on the following lines
// while it is incomplete (a trailing backslash, an open quote, a
// here-document, an open if/for/while/case or brace, a trailing && || |),
// and a `> ` continuation prompt on those lines is removed.
//
// Hints are HTML comments before a block, several allowed, e.g.
//
//	<!-- readme2demo: skip -->
//	<!-- readme2demo: timeout=30s continue-on-error -->
//	<!-- readme2demo: background ready="curl -sf localhost:8080" timeout=60s -->
//	<!-- readme2demo: run platform=linux check-output exit=1 cwd=examples -->
//	<!-- readme2demo: file=config.yaml -->
//	<!-- readme2demo: setup="mkdir -p data" -->
//
// Hints apply to the next code block of any language and are then used up,
// except `order=install-first`, which applies to the whole README.
package readme

import (
	"fmt"
	"regexp"
	"slices"
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

// Doc is a parsed README.
type Doc struct {
	Blocks []Block
	// Order is the README's `order=` hint ("install-first"), "" when none.
	Order string
	// Problems lists document-level hint words that were not understood.
	Problems []string
}

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
	// Headings are the texts of the headings the block stands under, the
	// outermost first ("Installation", "macOS").
	Headings []string `json:"headings,omitempty"`
	// Before is the text of the paragraph (or list item text) right before
	// the block, as written (Markdown markup kept), "" when a heading or
	// nothing precedes it.
	Before string `json:"before,omitempty"`
	// Section is the prose of the block's section up to the block: the
	// paragraphs and list item texts since its innermost heading (code
	// blocks left out), at most maxSection bytes, the latest kept.
	Section string `json:"-"`
	// Lines are the block's content lines, without their newline.
	Lines    []Line    `json:"lines"`
	Hints    Hints     `json:"hints"`
	Commands []Command `json:"commands"`
}

// Line is one line of a block.
type Line struct {
	Text string `json:"text"`
	Line int    `json:"line"`
}

// Command is one command of a block.
type Command struct {
	// Text is what bash runs: prompts and continuation prompts removed,
	// lines joined with newlines (backslash continuations kept).
	Text string `json:"text"`
	// Line and EndLine are the README lines the command spans.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Output are the lines a console session shows after the command, up to
	// the next prompt (nil in script blocks).
	Output []Line `json:"output,omitempty"`
}

// Hints are the readme2demo comments before a block.
type Hints struct {
	Skip            bool          `json:"skip,omitempty"`
	Run             bool          `json:"run,omitempty"`
	ContinueOnError bool          `json:"continue_on_error,omitempty"`
	Background      bool          `json:"background,omitempty"`
	Timeout         time.Duration `json:"timeout,omitempty"`
	Ready           string        `json:"ready,omitempty"`
	// Platform is the platform the block is for: "linux", "macos" or
	// "windows"; "" when the hint is absent.
	Platform string `json:"platform,omitempty"`
	// CheckOutput compares each command's output with the lines the
	// README shows after it.
	CheckOutput bool `json:"check_output,omitempty"`
	// Exit is the exit code the block's last command is expected to
	// return; nil when the hint is absent.
	Exit *int `json:"exit,omitempty"`
	// Cwd is the directory, relative to the repository, the block runs in.
	Cwd string `json:"cwd,omitempty"`
	// File is the path the block's content is written to instead of being
	// run.
	File string `json:"file,omitempty"`
	// Setup is a command run, unseen, before the block.
	Setup string `json:"setup,omitempty"`
	// Problems lists hint words that were not understood, with their line.
	Problems []string `json:"problems,omitempty"`
}

var (
	shellLangs   = map[string]bool{"sh": true, "bash": true, "shell": true, "zsh": true, "ksh": true}
	consoleLangs = map[string]bool{"console": true, "shell-session": true, "sh-session": true, "shellsession": true, "terminal": true}
)

// IsShellLang reports whether a fenced block's language names a shell
// script or a shell session.
func IsShellLang(lang string) bool { return shellLangs[lang] || consoleLangs[lang] }

// Extract returns the code blocks of a Markdown document in order.
func Extract(src []byte) []Block { return Parse(src).Blocks }

// Parse reads a Markdown document: its code blocks in order and its
// document-level hints.
func Parse(src []byte) Doc {
	lines := newLineIndex(src)
	root := goldmark.New().Parser().Parse(text.NewReader(src))
	var doc Doc
	var pending Hints
	var headings []heading
	var section string
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			for len(headings) > 0 && headings[len(headings)-1].level >= n.Level {
				headings = headings[:len(headings)-1]
			}
			headings = append(headings, heading{level: n.Level, text: segmentsText(n.Lines(), src)})
			section = ""
		case *ast.Paragraph, *ast.TextBlock:
			section = keepLast(section+"\n"+segmentsText(n.Lines(), src), maxSection)
		case *ast.HTMLBlock:
			html := n.Lines().Value(src) // a copy
			if n.HasClosure() {
				html = append(html, n.ClosureLine.Value(src)...)
			}
			parseHints(string(html), lines.first(n.Lines()), &pending, &doc)
			headings = detailsHeadings(string(html), headings)
		case *ast.RawHTML:
			parseHints(string(n.Segments.Value(src)), lines.first(n.Segments), &pending, &doc)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lang := ""
			if f, ok := n.(*ast.FencedCodeBlock); ok {
				lang = strings.ToLower(string(f.Language(src)))
			}
			b := newBlock(lang, n.Kind() == ast.KindCodeBlock, n.Lines(), src, lines, pending)
			b.Headings, b.Before, b.Section = headingTexts(headings), textBefore(n, src), strings.TrimSpace(section)
			doc.Blocks = append(doc.Blocks, b)
			pending = Hints{}
		}
		return ast.WalkContinue, nil
	})
	return doc
}

type heading struct {
	level int
	text  string
}

// detailsLevel is the heading level given to a <details> summary: deeper
// than any Markdown heading, so the next real heading closes it.
const detailsLevel = 7

var (
	summaryRe  = regexp.MustCompile(`(?is)<summary[^>]*>(.*?)</summary>`)
	tagRe      = regexp.MustCompile(`<[^>]*>`)
	detailsEnd = regexp.MustCompile(`(?i)</details>`)
)

// detailsHeadings treats the <summary> of a <details> element as a heading
// for the blocks inside it ("<summary>macOS</summary>" is a section title),
// and closes it at </details>.
func detailsHeadings(html string, hs []heading) []heading {
	ends := detailsEnd.FindAllStringIndex(html, -1)
	sums := summaryRe.FindAllStringSubmatchIndex(html, -1)
	// Process closings and summaries in document order.
	i, j := 0, 0
	for i < len(ends) || j < len(sums) {
		if j >= len(sums) || (i < len(ends) && ends[i][0] < sums[j][0]) {
			if n := len(hs); n > 0 && hs[n-1].level == detailsLevel {
				hs = hs[:n-1]
			}
			i++
			continue
		}
		m := sums[j]
		t := strings.TrimSpace(tagRe.ReplaceAllString(html[m[2]:m[3]], ""))
		if t != "" {
			hs = append(hs, heading{level: detailsLevel, text: t})
		}
		j++
	}
	return hs
}

func headingTexts(hs []heading) []string {
	if len(hs) == 0 {
		return nil
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.text
	}
	return out
}

// maxBefore caps the text kept from the paragraph before a block: its last
// sentences are what say "save this as" or "on macOS".
const maxBefore = 400

// textBefore returns the text of the paragraph right before n: its previous
// sibling when that is a paragraph (hint comments in between are passed
// over), or, for the first block of a list item, the item's own text.
func textBefore(n ast.Node, src []byte) string {
	prev := n.PreviousSibling()
	for prev != nil && prev.Kind() == ast.KindHTMLBlock {
		prev = prev.PreviousSibling()
	}
	var t string
	switch {
	case prev == nil:
		if p := n.Parent(); p != nil && p.Kind() == ast.KindListItem {
			if first := p.FirstChild(); first != nil && first != n && first.Type() == ast.TypeBlock && first.Lines() != nil {
				t = segmentsText(first.Lines(), src)
			}
		}
	case prev.Kind() == ast.KindParagraph || prev.Kind() == ast.KindTextBlock:
		t = segmentsText(prev.Lines(), src)
	case prev.Kind() == ast.KindList:
		// A list right before the block: its last item's text.
		if li := prev.LastChild(); li != nil {
			if first := li.FirstChild(); first != nil && first.Lines() != nil {
				t = segmentsText(first.Lines(), src)
			}
		}
	}
	return keepLast(t, maxBefore)
}

// maxSection caps the prose kept of a block's section.
const maxSection = 2000

// keepLast returns the last limit bytes of t, from a word's start.
func keepLast(t string, limit int) string {
	if len(t) > limit {
		t = t[len(t)-limit:]
		if i := strings.IndexByte(t, ' '); i >= 0 {
			t = t[i+1:]
		}
	}
	return t
}

// segmentsText joins the source lines of a node with spaces.
func segmentsText(segs *text.Segments, src []byte) string {
	var b strings.Builder
	for i := 0; i < segs.Len(); i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		seg := segs.At(i)
		b.WriteString(strings.TrimSpace(string(seg.Value(src))))
	}
	return strings.TrimSpace(b.String())
}

func newBlock(lang string, indented bool, segs *text.Segments, src []byte, idx lineIndex, h Hints) Block {
	var ls []Line
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		t := strings.TrimRight(string(seg.Value(src)), "\r\n")
		ls = append(ls, Line{Text: t, Line: idx.line(seg.Start)})
	}
	return blockOf(lang, indented, ls, h)
}

// blockOf makes a block of a code block's lines (as in the README, with
// their line numbers): how its lines become commands, from its language
// and its prompts. Every README format's reader makes its blocks here.
func blockOf(lang string, indented bool, ls []Line, h Hints) Block {
	b := Block{Lang: lang, Indented: indented, Hints: h}
	b.Lines = ls
	if len(ls) > 0 {
		b.Line, b.EndLine = ls[0].Line, ls[len(ls)-1].Line
	}
	hasPrompt, hasRoot, hasGt := false, false, false
	for _, l := range ls {
		if _, ok := CutPrompt(l.Text); ok {
			hasPrompt = true
			break
		}
		if _, ok := cutRootPrompt(l.Text); ok {
			hasRoot = true
		}
		if gtPromptRe.MatchString(l.Text) {
			hasGt = true
		}
	}
	// `> cmd` is a prompt too, in a block with no other prompt whose first
	// line has it (as some READMEs write sessions).
	gt := !hasPrompt && hasGt && len(ls) > 0 && gtPromptRe.MatchString(firstText(ls)) && (shellLangs[lang] || consoleLangs[lang] || lang == "")
	if gt {
		hasPrompt = true
	}
	switch {
	case consoleLangs[lang] && !hasPrompt && !hasRoot:
		// A console block without a single prompt holds commands only.
		b.Mode, b.Shell = ModeScript, true
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
		// internal/plan to judge, but are not marked shell.
		b.Mode = ModeScript
	}
	switch b.Mode {
	case ModeScript:
		b.Commands = scriptCommands(ls)
	case ModeConsole:
		root := consoleLangs[lang] && !hasPrompt
		b.Commands = consoleCommands(ls, root, gt)
	}
	return b
}

// gtPromptRe is a `> ` prompt in the first column followed by a word.
var gtPromptRe = regexp.MustCompile(`^> +[A-Za-z./~$]`)

func firstText(ls []Line) string {
	for _, l := range ls {
		if strings.TrimSpace(l.Text) != "" {
			return l.Text
		}
	}
	return ""
}

// scriptCommands splits script lines: every line that is not blank or a
// comment starts a command, which runs on while it is incomplete.
func scriptCommands(ls []Line) []Command {
	var s splitter
	for _, l := range ls {
		if s.cur != nil || !IsBlankOrComment(l.Text) {
			s.add(l.Text, l.Line)
		}
	}
	return s.end()
}

// splitter gathers commands, each running on over the lines that follow
// it while it is incomplete.
type splitter struct {
	out []Command
	cur *Command // the incomplete command
	sc  Scanner
}

// add starts a command with text t of README line n, or continues the
// incomplete one with it.
func (s *splitter) add(t string, n int) {
	if s.cur == nil {
		s.sc = Scanner{}
		s.cur = &Command{Text: t, Line: n}
	} else {
		s.cur.Text += "\n" + t
	}
	s.cur.EndLine = n
	s.sc.Feed(t)
	if s.sc.Complete() {
		s.end()
	}
}

// end closes the incomplete command, if any (at the end of a block: it
// stays unfinished), and returns the commands.
func (s *splitter) end() []Command {
	if s.cur != nil {
		s.out = append(s.out, trimCommand(*s.cur))
		s.cur = nil
	}
	return s.out
}

// consoleCommands splits a console session: prompt lines start commands,
// which continue while incomplete; the other lines are the output of the
// command before them.
func consoleCommands(ls []Line, rootPrompts, gtPrompts bool) []Command {
	var s splitter
	// When some prompt stands in the first column, an indented prompt is
	// part of an output (a help text that shows examples).
	anchored := slices.ContainsFunc(ls, func(l Line) bool {
		_, ok := CutPrompt(l.Text)
		return ok && !strings.HasPrefix(l.Text, " ") && !strings.HasPrefix(l.Text, "\t")
	})
	for _, l := range ls {
		if s.cur != nil {
			t := l.Text
			if rest, ok := strings.CutPrefix(t, "> "); ok {
				t = rest
			} else if t == ">" {
				t = ""
			}
			s.add(t, l.Line)
			continue
		}
		cmd, ok := CutPrompt(l.Text)
		if ok && anchored && (strings.HasPrefix(l.Text, " ") || strings.HasPrefix(l.Text, "\t")) {
			ok = false
		}
		if !ok && rootPrompts {
			cmd, ok = cutRootPrompt(l.Text)
		}
		if !ok && gtPrompts && gtPromptRe.MatchString(l.Text) {
			cmd, ok = strings.TrimLeft(l.Text[1:], " "), true
		}
		if !ok {
			if len(s.out) > 0 {
				last := &s.out[len(s.out)-1]
				last.Output = append(last.Output, l)
			}
			continue
		}
		if strings.TrimSpace(cmd) != "" && !IsBlankOrComment(cmd) {
			s.add(cmd, l.Line)
		}
	}
	return s.end()
}

func trimCommand(c Command) Command {
	c.Text = strings.TrimSpace(c.Text)
	return c
}

// promptRe matches a shell prompt at the start of a console line: `$ `,
// `% `, `❯ `, `▶ `, `› `, `(venv) $ `, `user@host:~/dir$ `, oh-my-zsh's
// `➜  ~/dir(branch) `. A bare prompt with nothing after it matches too.
// `%`, `❯`, `▶`, `›` and `➜` count only in the first column: an indented
// "  % Total" is curl's progress output.
var promptRe = regexp.MustCompile(`^\s*(?:\([^()\s]*\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^\s$#%]*)?\s*)?\$(?:\s+|$)|^(?:\([^()\s]*\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^\s$#%]*)?\s*)?(?:%|❯|▶|›)(?:\s+|$)|^➜ +(?:[~/.][^\s(]*(?:\([^)\s]*\))? +)?`)

// IsPromptLine reports a line that starts with a shell prompt.
func IsPromptLine(line string) bool {
	_, ok := CutPrompt(line)
	return ok
}

// CutPrompt returns the command after a shell prompt at the start of line.
func CutPrompt(line string) (string, bool) { return cutMatch(line, "$%❯▶›➜", promptRe) }

var rootPromptRe = regexp.MustCompile(`^\s*(?:[\w.-]+@[\w.-]+(?::[^\s$#]*)?\s*)?#\s+`)

// cutRootPrompt returns the command after a `#` root prompt. What follows
// `# ` must look like a command a root session runs (a lower-case program
// name, a path, an assignment); "# For AMD64" or "# Alpine Linux" is a
// comment, and so is a sentence ("# a comment, will be ignored": a comma
// and a blank, outside quotes, which a command line seldom holds).
func cutRootPrompt(line string) (string, bool) {
	cmd, ok := cutMatch(line, "#", rootPromptRe)
	if !ok || !rootCommandRe.MatchString(cmd) || strings.Contains(cmd, ", ") && !strings.ContainsAny(cmd, `"'`) {
		return "", false
	}
	return cmd, true
}

// rootCommandRe is the start of a command after a root prompt: a program
// name in lower case followed by an argument or nothing, a path, an
// assignment, a subshell or test.
var rootCommandRe = regexp.MustCompile(`^(?:[a-z0-9][\w.+-]*(?:\s+[-./$~"'\w]|\s*$)|[./~$]|\w+=|\[|\()`)

// cutMatch returns what follows re's match in line. Every match holds one
// of chars: most lines hold none, and are answered without re.
func cutMatch(line, chars string, re *regexp.Regexp) (string, bool) {
	if !strings.ContainsAny(line, chars) {
		return "", false
	}
	if loc := re.FindStringIndex(line); loc != nil {
		return line[loc[1]:], true
	}
	return "", false
}

var hintRe = regexp.MustCompile(`(?s)<!--\s*readme2demo:(.*?)-->`)

// knownHints is the hint list error messages show.
const knownHints = "skip, run, timeout=D, continue-on-error, background, ready=CMD, platform=linux|macos|windows, check-output, exit=N, cwd=DIR, file=PATH, setup=CMD, order=install-first"

// parseHints adds the readme2demo hints found in an HTML fragment to h (the
// next block's) or to doc (document-level ones).
func parseHints(html string, line int, h *Hints, doc *Doc) {
	flags := map[string]*bool{"skip": &h.Skip, "run": &h.Run, "continue-on-error": &h.ContinueOnError,
		"background": &h.Background, "check-output": &h.CheckOutput}
	// The hints that take a string, with an example for a missing value.
	values := map[string]struct {
		to      *string
		example string
	}{
		"ready": {&h.Ready, `ready="curl -sf localhost:8080"`}, "cwd": {&h.Cwd, "cwd=examples"},
		"file": {&h.File, "file=config.yaml"}, "setup": {&h.Setup, `setup="mkdir -p data"`},
	}
	for _, m := range hintRe.FindAllStringSubmatch(html, -1) {
		for _, w := range hintWords(m[1]) {
			key, val, hasVal := strings.Cut(w, "=")
			if f := flags[key]; f != nil {
				*f = true
				continue
			}
			if v, ok := values[key]; ok {
				if !hasVal || strings.TrimSpace(val) == "" {
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: %s needs a value, e.g. %s", line, key, v.example))
				} else {
					*v.to = val
				}
				continue
			}
			switch key {
			case "timeout":
				d, err := parseTimeout(val)
				if err != nil || !hasVal {
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: timeout=%s is not a duration like 30s or 5m", line, val))
					continue
				}
				h.Timeout = d
			case "platform":
				switch strings.ToLower(val) {
				case "linux", "macos", "windows":
					h.Platform = strings.ToLower(val)
				default:
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: platform=%s: use linux, macos or windows", line, val))
				}
			case "exit":
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 || n > 255 {
					h.Problems = append(h.Problems, fmt.Sprintf("line %d: exit=%s is not an exit code from 0 to 255", line, val))
					continue
				}
				h.Exit = &n
			case "order":
				switch val {
				case "install-first", "readme":
					doc.Order = val
				default:
					doc.Problems = append(doc.Problems, fmt.Sprintf("line %d: order=%s: use order=install-first (or order=readme, the default)", line, val))
				}
			default:
				h.Problems = append(h.Problems, fmt.Sprintf("line %d: unknown hint %s (known: %s)", line, w, knownHints))
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

// first is the line of the first of segs, 0 when there is none.
func (idx lineIndex) first(segs *text.Segments) int {
	if segs.Len() == 0 {
		return 0
	}
	return idx.line(segs.At(0).Start)
}
