package engines

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// allowedNameLiterals are the string literals outside engines/ that spell an
// engine's name without meaning the engine, by file, with the reason.
var allowedNameLiterals = map[string]struct {
	literals []string
	why      string
}{
	"cmd/readme2demo/suggest.go": {[]string{MarkdownName},
		"`suggest --format markdown` is an output format, not the markdown engine"},
	"internal/plan/services.go": {[]string{CodexName, GeminiName},
		"the codex and gemini programs a README's commands run (they need an account); engines imports plan, so plan cannot import engines"},
	"internal/transcriptgen/shapes.go": {[]string{CodexName, GeminiName, OpenHandsName},
		"benchmark shape names (docs/benchmarks.md), the Shape.Name a user passes, which spell the engine they feed; their Engine fields use the constants"},
	"internal/report/fix.go": {[]string{MarkdownName, ReplayName},
		"report.MethodMarkdown and MethodReplay, the verification methods; report renders the command log and never imports an engine"},
}

// TestNoEngineNameLiteralsOutsideEngines fails when Go code outside engines/
// (tests and testdata aside) spells a registered engine's name as a string
// literal: an engine's facts live in its Spec, and other packages name it
// through the registry or this package's constants. Comments may mention
// names freely.
func TestNoEngineNameLiteralsOutsideEngines(t *testing.T) {
	names := Names()
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	seen := map[string][]string{}
	var bad []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "engines" || d.Name() == "testdata" || d.Name() == "vendor" || rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !slices.Contains(names, s) {
				return true
			}
			seen[rel] = append(seen[rel], s)
			if a, ok := allowedNameLiterals[rel]; ok && slices.Contains(a.literals, s) {
				return true
			}
			bad = append(bad, fset.Position(lit.Pos()).String()[len(root)+1:]+": "+lit.Value)
			return true
		})
		return nil
	})
	assert.NilError(t, err)
	assert.Assert(t, len(bad) == 0, "engine names spelled as literals outside engines/ "+
		"(declare the fact in the engine's Spec, or use its engines constant):\n%s", strings.Join(bad, "\n"))
	// Every exception is still needed, so the list cannot rot.
	for file, a := range allowedNameLiterals {
		for _, l := range a.literals {
			assert.Check(t, slices.Contains(seen[file], l), "%s no longer spells %q: drop it from allowedNameLiterals", file, l)
		}
	}
}
