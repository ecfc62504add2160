package engines

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// readKeys returns the object keys a parser's source reads by name: the
// string arguments of Get, Has, Path and firstString calls, and the strings
// of a `range []string{…}` whose body reads its variable with Get or Has.
func readKeys(t *testing.T, files ...string) map[string]string {
	keys := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		assert.NilError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			if rs, ok := n.(*ast.RangeStmt); ok {
				if lit, ok := rs.X.(*ast.CompositeLit); ok && readsVar(rs.Body, rs.Value) {
					for _, e := range lit.Elts {
						if s, ok := e.(*ast.BasicLit); ok && s.Kind == token.STRING {
							k, _ := strconv.Unquote(s.Value)
							keys[k] = fset.Position(s.Pos()).String()
						}
					}
				}
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			}
			switch name {
			case "Get", "Has", "Path", "firstString":
			default:
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					k, err := strconv.Unquote(lit.Value)
					assert.NilError(t, err)
					keys[k] = fset.Position(lit.Pos()).String()
				}
			}
			return true
		})
	}
	return keys
}

// readsVar reports whether body calls Get or Has with the variable v.
func readsVar(body *ast.BlockStmt, v ast.Expr) bool {
	id, ok := v.(*ast.Ident)
	if !ok {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Get" || sel.Sel.Name == "Has") {
				for _, a := range call.Args {
					if ai, ok := a.(*ast.Ident); ok && ai.Name == id.Name {
						found = true
					}
				}
			}
		}
		return true
	})
	return found
}

// An engine that decodes only the fields it names (jsonv.Options.Keep)
// must name every field it reads: one left out would read as missing.
func TestEngineKeysListed(t *testing.T) {
	for _, c := range []struct {
		keys  map[string]bool
		files []string
	}{
		{claudeKeys, []string{"claude_code.go"}},
		{union(codexOptions), []string{"codex.go", "codex_rollout.go"}},
		{union(geminiOptions), []string{"gemini.go", "gemini_session.go"}},
		{union(openHandsOptions), []string{"openhands.go", "openhands_container.go", "openhands_v0.go", "openhands_v1.go", "instances.go"}},
	} {
		for k, where := range readKeys(t, c.files...) {
			assert.Check(t, c.keys[k], "%s reads %q, which the decoder is not told to keep", where, k)
		}
	}
	// claudeContentText (claude_code.go) reads the blocks of OpenHands V1
	// message content.
	assert.Check(t, openHandsOptions.Keep["type"] && openHandsOptions.Keep["text"])
}

func union(o jsonv.Options) map[string]bool {
	m := map[string]bool{}
	for k := range o.Keep {
		m[k] = true
	}
	for k := range o.KeepAll {
		m[k] = true
	}
	return m
}
