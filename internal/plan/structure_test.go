package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The package keeps the shape #29 asks for: files by topic, none longer
// than 500 lines or named after a batch of READMEs, and the function that
// runs the rules over a command short enough to read at once.
func TestPackageShape(t *testing.T) {
	const maxFileLines, maxDecideLines = 500, 80
	files, err := filepath.Glob("*.go")
	assert.NilError(t, err)
	batchName := regexp.MustCompile(`(?i)(rules?|batch|fresh)\d+\.go$`)
	fset := token.NewFileSet()
	decideLines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		assert.Assert(t, !batchName.MatchString(f), "%s is named after a batch of READMEs, not a topic", f)
		b, err := os.ReadFile(f)
		assert.NilError(t, err)
		n := strings.Count(string(b), "\n")
		assert.Assert(t, n <= maxFileLines, "%s has %d lines (at most %d): split it by topic", f, n, maxFileLines)
		af, err := parser.ParseFile(fset, f, b, 0)
		assert.NilError(t, err)
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "decide" && fn.Recv != nil {
				decideLines = fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			}
		}
	}
	assert.Assert(t, decideLines > 0, "the planner's decide method was not found")
	assert.Assert(t, decideLines < maxDecideLines, "decide has %d lines (under %d): move logic into rules", decideLines, maxDecideLines)
}
