package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// readmes returns the synthetic sample READMEs of testdata/readmes/synthetic.
func readmes(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "readmes", "synthetic", "*.md"))
	assert.NilError(t, err)
	assert.Assert(t, len(paths) >= 12, "want a dozen sample READMEs, got %d", len(paths))
	return paths
}

// render prints the blocks in a form a reviewer can check against the
// README line by line.
func render(blocks []Block) string {
	var b strings.Builder
	for i, bl := range blocks {
		lang := bl.Lang
		if lang == "" {
			lang = "-"
		}
		kind := "fenced"
		if bl.Indented {
			kind = "indented"
		}
		mode := string(bl.Mode)
		if mode == "" {
			mode = "not-shell"
		}
		fmt.Fprintf(&b, "block %d: %s %s lines %d-%d mode=%s shell=%t", i+1, kind, lang, bl.Line, bl.EndLine, mode, bl.Shell)
		h := bl.Hints
		var hs []string
		if h.Skip {
			hs = append(hs, "skip")
		}
		if h.Run {
			hs = append(hs, "run")
		}
		if h.ContinueOnError {
			hs = append(hs, "continue-on-error")
		}
		if h.Background {
			hs = append(hs, "background")
		}
		if h.Timeout != 0 {
			hs = append(hs, "timeout="+h.Timeout.String())
		}
		if h.Ready != "" {
			hs = append(hs, fmt.Sprintf("ready=%q", h.Ready))
		}
		if h.Platform != "" {
			hs = append(hs, "platform="+h.Platform)
		}
		if h.CheckOutput {
			hs = append(hs, "check-output")
		}
		if h.Exit != nil {
			hs = append(hs, fmt.Sprintf("exit=%d", *h.Exit))
		}
		for _, kv := range [][2]string{{"cwd", h.Cwd}, {"file", h.File}, {"setup", h.Setup}} {
			if kv[1] != "" {
				hs = append(hs, fmt.Sprintf("%s=%q", kv[0], kv[1]))
			}
		}
		if len(hs) > 0 {
			fmt.Fprintf(&b, " hints: %s", strings.Join(hs, " "))
		}
		b.WriteString("\n")
		if len(bl.Headings) > 0 {
			fmt.Fprintf(&b, "  under: %s\n", strings.Join(bl.Headings, " > "))
		}
		if bl.Before != "" {
			fmt.Fprintf(&b, "  after: %q\n", bl.Before)
		}
		for _, p := range h.Problems {
			fmt.Fprintf(&b, "  hint problem: %s\n", p)
		}
		for _, c := range bl.Commands {
			fmt.Fprintf(&b, "  %d-%d: %q\n", c.Line, c.EndLine, c.Text)
			for _, o := range c.Output {
				fmt.Fprintf(&b, "    output %d: %q\n", o.Line, o.Text)
			}
		}
	}
	return b.String()
}

// TestExtractGolden extracts every sample README; the golden files list each
// block with its mode, hints and commands with their README lines.
func TestExtractGolden(t *testing.T) {
	for _, path := range readmes(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			assert.NilError(t, err)
			got := render(Extract(src))
			golden.Assert(t, got, filepath.Join("extract", name+".txt"))
			// Every command line number points at a README line holding
			// (the start of) that command.
			lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
			for _, bl := range Extract(src) {
				for _, c := range bl.Commands {
					first, _, _ := strings.Cut(c.Text, "\n")
					assert.Assert(t, strings.Contains(lines[c.Line-1], strings.TrimSpace(first)),
						"line %d %q does not hold %q", c.Line, lines[c.Line-1], first)
				}
			}
		})
	}
}

// A block's section prose: the paragraphs and list items since its
// innermost heading, without code, the latest kept when it is long.
func TestSection(t *testing.T) {
	src := "# Tool\n\nIntro.\n\n## Install\n\n1. Download it from the release page\n   and unpack it.\n\n2. Then:\n\n   ```sh\n   make install\n   ```\n\nAnd more.\n\n```sh\nmake test\n```\n\n## Use\n\n```sh\ntool\n```\n\n## Long\n\n" +
		strings.Repeat("word ", 500) + "end.\n\n```sh\nx\n```\n"
	bs := Extract([]byte(src))
	assert.Equal(t, len(bs), 4)
	assert.Equal(t, bs[0].Section, "Download it from the release page and unpack it.\nThen:")
	assert.Equal(t, bs[1].Section, "Download it from the release page and unpack it.\nThen:\nAnd more.")
	assert.Equal(t, bs[2].Section, "")
	assert.Assert(t, len(bs[3].Section) <= maxSection && strings.HasSuffix(bs[3].Section, "word end."), bs[3].Section)
}
