package engines

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/gosource"
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

// isEngineNameConst reports whether e is one of this package's engine name
// constants (engines.CodexName…) seen from another package.
func isEngineNameConst(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "engines" && strings.HasSuffix(sel.Sel.Name, "Name")
}

// TestNoEngineNameLiteralsOutsideEngines fails when Go code outside engines/
// (tests and testdata aside) spells a registered engine's name as a string
// literal, or compares a name with one of this package's name constants
// (==, !=, a switch case) or keys a map on one: an engine's facts live in
// its Spec, and other packages reach them through the registry. Naming an
// engine to run it (engines.MarkdownName for the keyless verification) is
// fine. Comments may mention names freely.
func TestNoEngineNameLiteralsOutsideEngines(t *testing.T) {
	t.Parallel()
	names := Names()
	files, err := gosource.Files("..")
	assert.NilError(t, err)
	seen := map[string][]string{}
	var bad []string
	for _, file := range files {
		rel := file.Path
		if strings.HasPrefix(rel, "engines/") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, file.Text, parser.SkipObjectResolution)
		assert.NilError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			var keys []ast.Expr // compared with, or used as a key
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					keys = []ast.Expr{n.X, n.Y}
				}
			case *ast.CaseClause:
				keys = n.List
			case *ast.KeyValueExpr:
				keys = []ast.Expr{n.Key}
			}
			for _, k := range keys {
				if isEngineNameConst(k) {
					bad = append(bad, fset.Position(k.Pos()).String()+": compares or keys on "+types.ExprString(k))
				}
			}
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
			bad = append(bad, fset.Position(lit.Pos()).String()+": "+lit.Value)
			return true
		})
	}
	assert.Assert(t, len(bad) == 0, "engine names spelled as literals, compared or used as keys outside engines/ "+
		"(declare the fact in the engine's Spec and read it through engines.SpecOf):\n%s", strings.Join(bad, "\n"))
	// Every exception is still needed, so the list cannot rot.
	for file, a := range allowedNameLiterals {
		for _, l := range a.literals {
			assert.Check(t, slices.Contains(seen[file], l), "%s no longer spells %q: drop it from allowedNameLiterals", file, l)
		}
	}
}
