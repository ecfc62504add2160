package readme

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// FuzzExtract feeds arbitrary Markdown to the README extractor and the
// command mapper. Properties: neither panics; Extract is deterministic;
// every block and command has 1-based line ranges inside the document
// (Line <= EndLine, commands inside their block); and Map, given a log made
// of the README's own commands, only sets sources that point at a line of
// the document.
//
//	go test ./internal/readme -run '^$' -fuzz '^FuzzExtract$' -fuzztime 20s
func FuzzExtract(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "readmes", "*", "*.md"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "```", "```sh\n", "```bash\nnpm install \\\n  --save x\n```\n",
		"<!-- readme2demo: skip timeout=1h ready=\"x -->\n```sh\necho hi\n```",
		"```console\n$ cat <<EOF\n> a\n> EOF\noutput\n# root\n```\n",
		"    $ indented\n    out\n", "- item\n\n  ```sh\n  if true; then\n  echo x\n  ```\n",
		"```sh\r\necho crlf\r\n```\r\n", "~~~~sh\n'unterminated\n~~~~", "\x00```sh\n\xff\xfe\n```",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		a := Extract(src)
		if b := Extract(src); !reflect.DeepEqual(a, b) {
			t.Fatal("same README, different blocks")
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		var log commandlog.Log
		for i, b := range a {
			if b.Line < 0 || b.Line > b.EndLine || b.EndLine > lines {
				t.Fatalf("block %d has lines %d-%d in a %d-line README", i, b.Line, b.EndLine, lines)
			}
			for j, c := range b.Commands {
				if c.Line < b.Line || c.Line > c.EndLine || c.EndLine > b.EndLine {
					t.Fatalf("block %d (%d-%d) command %d has lines %d-%d", i, b.Line, b.EndLine, j, c.Line, c.EndLine)
				}
				log.Commands = append(log.Commands, commandlog.Command{ID: "c", Command: c.Text, Status: commandlog.StatusUnknown})
			}
		}
		n := Map(&log, "README.md", src)
		if n < 0 || n > len(log.Commands) {
			t.Fatalf("Map says %d of %d commands mapped", n, len(log.Commands))
		}
		for _, c := range log.Commands {
			if c.Source != nil && (c.Source.Line < 1 || c.Source.Line > lines || c.Source.File != "README.md") {
				t.Fatalf("source %+v outside a %d-line README", *c.Source, lines)
			}
		}
	})
}
