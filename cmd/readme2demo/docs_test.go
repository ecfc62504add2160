package main

// The docs cannot drift from the CLI: every readme2demo command line in
// README.md, SECURITY.md and docs/ (code blocks and inline code, with
// "go run ./cmd/readme2demo" forms too), scripts/ and the workflows goes
// through the real command tree with each verb's work replaced by a stub.
// A verb, flag or flag value the CLI does not accept fails the test,
// naming the file and line.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
)

// docLine is one readme2demo command line found in a document.
type docLine struct {
	where  string   // file:line
	args   []string // after "readme2demo", as written
	inline bool     // from inline code: may be a fragment ("readme2demo parse --engine E")
}

func TestDocsCommandLinesParse(t *testing.T) {
	files := []string{"../../README.md", "../../SECURITY.md"}
	err := filepath.WalkDir("../../docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	assert.NilError(t, err)
	var lines []docLine
	for _, f := range files {
		src, err := os.ReadFile(f)
		assert.NilError(t, err)
		lines = append(lines, docCommandLines(strings.TrimPrefix(f, "../../"), src)...)
	}
	// Scripts and workflows run the CLI too (the README's quickstart, the
	// scheduled drift check).
	for _, glob := range []string{"../../scripts/*.sh", "../../.github/workflows/*.yml"} {
		more, err := filepath.Glob(glob)
		assert.NilError(t, err)
		for _, f := range more {
			src, err := os.ReadFile(f)
			assert.NilError(t, err)
			lines = append(lines, scriptCommandLines(strings.TrimPrefix(f, "../../"), 1, strings.Split(string(src), "\n"))...)
		}
	}
	// The README alone has a dozen; finding few means extraction broke.
	assert.Assert(t, len(lines) >= 15, "found only %d readme2demo command lines", len(lines))
	verbs := map[string]bool{}
	for _, l := range lines {
		for _, v := range expandDocLine(l) {
			if err := checkDocArgs(v, l.inline); err != nil {
				t.Errorf("%s: readme2demo %s: %v", l.where, strings.Join(v, " "), err)
			}
			if len(v) > 0 {
				verbs[v[0]] = true
			}
		}
	}
	// Every verb is documented somewhere.
	for _, c := range newRootCmd(env{getenv: os.Getenv, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}).Commands() {
		assert.Check(t, verbs[c.Name()], "no document shows readme2demo %s", c.Name())
	}
}

// The checker fails on what the CLI does not accept.
func TestDocsCheckerCatchesDrift(t *testing.T) {
	md := "# x\n\n```bash\n" +
		"readme2demo parse --engine claude-code transcript.jsonl -o command_log.json   # fine\n" +
		"readme2demo parse --engin claude-code t.jsonl\n" +
		"ANTHROPIC_API_KEY=x go run ./cmd/readme2demo frobnicate\n" +
		"readme2demo run --max-turns many .\n" +
		"readme2demo report\n" +
		"readme2demo drift --engine claude-code \\\n  --cli-version latest --bogus\n" +
		"readme2demo demo [-o DIR] [--title T]\n            [--wide] LOG\n" +
		"```\n\nInline: `readme2demo run [--engine E] [--max-turns N] [--network allowlist\\|open\\|none] [REPO_DIR]`, " +
		"`readme2demo parse --engine claude-code`, `readme2demo demo -max-turns 3`, `readme2demo completion bash|zsh|fish`, " +
		"`go build -o readme2demo ./cmd/readme2demo` and `readme2demo`.\n"
	lines := docCommandLines("x.md", []byte(md))
	var got []string
	for _, l := range lines {
		for _, v := range expandDocLine(l) {
			res := "ok"
			if err := checkDocArgs(v, l.inline); err != nil {
				res = "FAIL"
			}
			got = append(got, fmt.Sprintf("%s %s: %s", l.where, strings.Join(v, " "), res))
		}
	}
	assert.DeepEqual(t, got, []string{
		"x.md:4 parse --engine claude-code transcript.jsonl -o command_log.json: ok",
		"x.md:5 parse --engin claude-code t.jsonl: FAIL",
		"x.md:6 frobnicate: FAIL",
		"x.md:7 run --max-turns many .: FAIL",
		"x.md:8 report: FAIL", // a code block is a whole command line: the log is missing
		"x.md:9 drift --engine claude-code --cli-version latest --bogus: FAIL",
		"x.md:11 demo -o DIR --title T --wide LOG: FAIL",
		"x.md:15 run --engine E --max-turns N --network allowlist REPO_DIR: ok",
		"x.md:15 run --engine E --max-turns N --network open REPO_DIR: ok",
		"x.md:15 run --engine E --max-turns N --network none REPO_DIR: ok",
		"x.md:15 parse --engine claude-code: ok", // inline code may be a fragment
		"x.md:15 demo -max-turns 3: FAIL",
		"x.md:15 completion bash: ok",
		"x.md:15 completion zsh: ok",
		"x.md:15 completion fish: ok",
	})
}

// docCommandLines returns the readme2demo command lines in the code
// blocks and inline code of a Markdown document.
func docCommandLines(name string, src []byte) []docLine {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	lineOf := func(offset int) int { return bytes.Count(src[:offset], []byte("\n")) + 1 }
	var out []docLine
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			segs := n.Lines()
			var lines []string
			for i := 0; i < segs.Len(); i++ {
				seg := segs.At(i)
				lines = append(lines, string(seg.Value(src)))
			}
			if segs.Len() > 0 {
				out = append(out, scriptCommandLines(name, lineOf(segs.At(0).Start), lines)...)
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			at := 0
			if t, ok := n.FirstChild().(*ast.Text); ok {
				at = t.Segment.Start
			}
			for _, args := range shellCommands(strings.ReplaceAll(b.String(), `\|`, "|")) {
				out = append(out, docLine{where: fmt.Sprintf("%s:%d", name, lineOf(at)), args: args, inline: true})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// scriptCommandLines returns the readme2demo command lines in lines of
// shell (a code block, a script, a workflow), the first being line first
// of the file. A line ending in \ continues on the next, and so does a
// synopsis whose next line is indented "[--flag …]".
func scriptCommandLines(name string, first int, lines []string) []docLine {
	var out []docLine
	var cur strings.Builder
	start, cont := 0, false
	flush := func() {
		for _, args := range shellCommands(cur.String()) {
			out = append(out, docLine{where: fmt.Sprintf("%s:%d", name, start), args: args})
		}
		cur.Reset()
	}
	for i, l := range lines {
		l = strings.TrimRight(l, "\r\n")
		synopsisCont := strings.HasPrefix(l, " ") && strings.HasPrefix(strings.TrimSpace(l), "[")
		if !cont && !synopsisCont {
			flush()
			start = first + i
		}
		cur.WriteString(" " + strings.TrimSpace(strings.TrimSuffix(l, "\\")))
		cont = strings.HasSuffix(l, "\\")
	}
	flush()
	return out
}

// commandSep splits a shell line into simple commands: ; && || and a pipe
// with spaces around it ("a|b" is a synopsis's alternatives, not a pipe).
var (
	commandSep = regexp.MustCompile(`\s*(?:;|&&|\|\||\s\|\s)\s*`)
	assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) // VAR=value before a command
)

// shellCommands returns the arguments of each readme2demo invocation in a
// line of shell or a usage synopsis: "readme2demo ARGS", "./readme2demo
// ARGS", "VAR=x readme2demo ARGS", "go run ./cmd/readme2demo ARGS". An
// invocation without arguments names the program and is left out.
func shellCommands(line string) [][]string {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var out [][]string
	for _, cmd := range commandSep.Split(line, -1) {
		words := splitWords(cmd)
		for len(words) > 0 && assignment.MatchString(words[0]) {
			words = words[1:] // VAR=value
		}
		if len(words) >= 3 && words[0] == "go" && words[1] == "run" {
			for i := 2; i < len(words); i++ {
				if !strings.HasPrefix(words[i], "-") {
					words = words[i:] // the package
					break
				}
			}
		}
		if len(words) > 1 && filepath.Base(words[0]) == "readme2demo" {
			out = append(out, words[1:])
		}
	}
	return out
}

// splitWords splits a command into words the way a shell would for the
// quoting the docs use ('…', "…", \x). It is not a shell parser because
// the docs mix shell with usage synopses, which no shell parser reads.
func splitWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for i, rs := 0, []rune(s); i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			w.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// expandDocLine turns a synopsis into command lines: [optional] parts are
// included, "…" dropped, a|b|c alternatives give one line each, and
// <command> stands for every verb.
func expandDocLine(l docLine) [][]string {
	var verbs []string
	for _, c := range newRootCmd(env{getenv: os.Getenv, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}).Commands() {
		verbs = append(verbs, c.Name())
	}
	var words [][]string // each word's alternatives
	n := 1
	for _, w := range l.args {
		w = strings.Trim(w, "[]")
		switch {
		case w == "" || w == "…" || w == "...":
			continue
		case w == "<command>":
			words = append(words, verbs)
		default:
			words = append(words, strings.Split(w, "|"))
		}
		n = max(n, len(words[len(words)-1]))
	}
	out := make([][]string, n)
	for i := range out {
		for _, alts := range words {
			out[i] = append(out[i], alts[min(i, len(alts)-1)])
		}
	}
	return out
}

// placeholder matches a value a synopsis leaves to the reader: N, DIR,
// <new>.
var placeholder = regexp.MustCompile(`^(?:[A-Z][A-Z0-9_]*|<[^>]+>)$`)

// checkDocArgs runs args through the CLI with every verb's work stubbed
// out. A placeholder given to a numeric or duration flag is replaced by the
// flag's default. Inline code may leave out positional arguments.
func checkDocArgs(args []string, inline bool) error {
	var stdout, stderr bytes.Buffer
	e := env{getenv: func(string) string { return "" }, stdout: &stdout, stderr: &stderr}
	root := newRootCmd(e)
	var stub func(c *cobra.Command)
	stub = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			sub.RunE = func(*cobra.Command, []string) error { return nil }
			if inline {
				sub.Args = cobra.ArbitraryArgs
			}
			stub(sub)
		}
	}
	stub(root)
	args = append([]string(nil), args...)
	if cmd, _, err := root.Find(args); err == nil && cmd != root {
		for i := 0; i+1 < len(args); i++ {
			name, ok := strings.CutPrefix(args[i], "--")
			if !ok || strings.Contains(name, "=") {
				continue
			}
			f := cmd.Flags().Lookup(name)
			if f == nil || f.Value.Type() == "bool" {
				continue
			}
			if placeholder.MatchString(args[i+1]) && isNumeric(f) {
				args[i+1] = f.DefValue
			}
			i++
		}
	}
	if code := execute(context.Background(), root, args, e); code != exitcode.OK {
		return fmt.Errorf("exit %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func isNumeric(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "int", "int64", "uint", "float64", "duration":
		return true
	}
	return false
}

func TestShellCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		want [][]string
	}{
		{"readme2demo parse --engine claude-code t.jsonl -o out.json", [][]string{{"parse", "--engine", "claude-code", "t.jsonl", "-o", "out.json"}}},
		{"$ ANTHROPIC_API_KEY=… go run ./cmd/readme2demo run --engine claude-code PATH", [][]string{{"run", "--engine", "claude-code", "PATH"}}},
		{`./readme2demo report "my log.json" | head -5 && readme2demo demo x # comment`, [][]string{{"report", "my log.json"}, {"demo", "x"}}},
		{"go build -o readme2demo ./cmd/readme2demo", nil},
		{"readme2demo", nil},
		{"readme2demo-base:test", nil},
	} {
		assert.Check(t, is.DeepEqual(shellCommands(tc.line), tc.want), tc.line)
	}
}
