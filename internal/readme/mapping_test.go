package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// mapCases are commands as AI agents ran them against the sample READMEs
// (wrapped in `cd … &&`, `bash -lc`, piped to tail), plus commands that
// must not map.
var mapCases = []struct {
	readme   string
	commands []string
}{
	{"01-node-quickstart.md", []string{
		"ls -la",
		"cat README.md",
		"git clone https://example.invalid/tinyserve.git",
		"cd tinyserve",
		"cd /workspace/tinyserve && npm install 2>&1 | tail -20",
		"npm  test",
		"npm start",
	}},
	{"02-console-session.md", []string{
		"$ pip install hello-cli",
		"hello --name world",
		"hello \\\n  --name \"multi line\" \\\n  --shout",
		"hello --name \"multi line\" --shout",
		"/bin/bash -lc 'hello --version'",
		"bash -lc \"python -c 'print(\\\"ok\\\")'\"",
		"echo two",
	}},
	{"06-heredocs-continuations.md", []string{
		"cat > config.toml <<EOF\nname = \"demo\"\n# not a comment: part of the heredoc\nport = 8080\nEOF",
		"docker run --rm -e MODE=demo alpine:3 echo hi",
		"if [ -f config.toml ]; then\n  echo found\nelse\n  echo missing\nfi",
		"npm run build && npm test",
		"cd /workspace; greet world",
	}},
	{"03-nested-lists.md", []string{
		"mkdir -p build && make all",
		"cc -o build/app main.c",
		"./build/app --version",
		"not a command, no prompt: ignored",
	}},
	{"12-crlf.md", []string{
		"go build ./...",
		"go test ./...",
		"./crlf --help",
	}},
	{"04-indented-code.md", []string{
		"./configure --prefix=$HOME/.local",
		"make && make install",
		"make",
	}},
}

// TestMapGolden maps agent-style commands onto the sample READMEs; the
// golden files show which README line each command got.
func TestMapGolden(t *testing.T) {
	for _, tc := range mapCases {
		name := strings.TrimSuffix(tc.readme, ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "readmes", "synthetic", tc.readme))
			assert.NilError(t, err)
			l := &commandlog.Log{}
			for i, c := range tc.commands {
				l.Commands = append(l.Commands, commandlog.Command{ID: fmt.Sprint(i + 1), Command: c})
			}
			n := Map(l, "README.md", src)
			var b strings.Builder
			count := 0
			for _, c := range l.Commands {
				where := "-"
				if c.Source != nil {
					where = fmt.Sprintf("%s:%d", c.Source.File, c.Source.Line)
					count++
				}
				fmt.Fprintf(&b, "%-12s %q\n", where, c.Command)
			}
			assert.Equal(t, n, count)
			golden.Assert(t, b.String(), filepath.Join("map", name+".txt"))
		})
	}
}

func TestMapKeepsExistingSourceAndOrder(t *testing.T) {
	src := []byte("```sh\ncd ..\nmake\ncd ..\nmake\n```\n")
	l := &commandlog.Log{Commands: []commandlog.Command{
		{ID: "a", Command: "make", Source: &commandlog.Source{File: "docs/x.md", Line: 9}},
		{ID: "b", Command: "cd .."},
		{ID: "c", Command: "make"},
		{ID: "d", Command: "cd .."},
		{ID: "e", Command: "make"},
	}}
	assert.Equal(t, Map(l, "README.md", src), 4)
	var got []string
	for _, c := range l.Commands {
		got = append(got, fmt.Sprintf("%s:%d", c.Source.File, c.Source.Line))
	}
	assert.DeepEqual(t, got, []string{"docs/x.md:9", "README.md:2", "README.md:3", "README.md:4", "README.md:5"})
}

func TestMapNothingToMap(t *testing.T) {
	assert.Equal(t, Map(nil, "README.md", []byte("```sh\nls\n```\n")), 0)
	l := &commandlog.Log{Commands: []commandlog.Command{{ID: "a", Command: "ls"}}}
	assert.Equal(t, Map(l, "README.md", []byte("# no code\n")), 0)
	assert.Assert(t, l.Commands[0].Source == nil)
}
