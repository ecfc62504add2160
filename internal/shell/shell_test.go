package shell

import (
	"os/exec"
	"testing"

	"gotest.tools/v3/assert"
)

// A quoted value reaches bash as exactly the value, whatever it holds.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path-1.2_x": "plain/path-1.2_x",
		"":                 "''",
		"it's":             `'it'\''s'`,
		"$HOME `id` \\n":   "'$HOME `id` \\n'",
		"two\nlines":       "'two\nlines'",
	} {
		assert.Equal(t, Quote(in), want)
		out, err := exec.Command("bash", "-c", "printf %s "+Quote(in)).Output()
		assert.NilError(t, err)
		assert.Equal(t, string(out), in)
	}
}
