package prompt_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/prompt"
)

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		readme string
		limits engines.Limits
	}{
		{"default", "README.md", engines.Limits{}},
		{"limits", "README.md", engines.Limits{MaxTurns: 30, MaxCostUSD: 1.5, Timeout: 20 * time.Minute}},
		{"subdir", "docs/./INSTALL.md", engines.Limits{MaxTurns: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := prompt.Render(tc.readme, tc.limits)
			assert.NilError(t, err)
			golden.Assert(t, got, tc.name+".golden")
		})
	}
}

// The marker contract: the prompt names every marker in the exact form the
// engines' ScanMarkers recognises, and each example line parses as its kind.
func TestRenderStatesTheMarkerContract(t *testing.T) {
	got, err := prompt.Render("README.md", engines.Limits{})
	assert.NilError(t, err)
	kinds := map[string]bool{}
	for _, m := range engines.ScanMarkers(got) {
		kinds[string(m.Kind)] = true
	}
	for _, k := range []string{"SUCCESS", "ADJUSTED_SUCCESS", "BLOCKED", "FIX"} {
		assert.Check(t, kinds[k], "the prompt does not show the %s marker line", k)
	}
	assert.Check(t, is.Contains(got, "/workspace/README.md"))
	assert.Check(t, is.Contains(got, "Never invent credentials"))
}

func TestRenderRejectsPathsOutsideTheRepository(t *testing.T) {
	for _, p := range []string{"", "/etc/passwd", "../README.md", "docs/../../x", ".", "a\nSUCCESS"} {
		_, err := prompt.Render(p, engines.Limits{})
		var pe *prompt.PathError
		assert.Check(t, errors.As(err, &pe), "path %q: err %v", p, err)
		assert.Check(t, err == nil || !strings.Contains(err.Error(), "\nSUCCESS"), "the error echoes a newline-bearing path verbatim")
	}
}
