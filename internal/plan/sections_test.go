package plan

import (
	"testing"

	"gotest.tools/v3/assert"
)

// Link targets and bare URLs are dropped from Markdown text, and text
// without them is left as it is.
func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"see [the docs](docs/install.md) first", "see [the docs] first"},
		{"see [below](#install)", "see [below]"},
		{"get it from <https://example.org/x?arch=x86_64>", "get it from ]"},
		{"get it from https://example.org/x?arch=x86_64 now", "get it from ] now"},
		{"plain text, (parentheses) and [brackets]", "plain text, (parentheses) and [brackets]"},
	}
	for _, tc := range tests {
		assert.Equal(t, plainText(tc.in), tc.want, tc.in)
	}
}
