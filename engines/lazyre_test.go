package engines

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// The package's regular expressions are compiled on first use
// (internal/lazyre); this compiles every one, so a bad expression fails
// here rather than in a run that reaches it.
func TestRegexpsCompile(t *testing.T) {
	assert.NilError(t, lazyre.CompileAll())
}
