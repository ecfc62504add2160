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
		{"get it from <https://dl.acme.dev/x?arch=x86_64>", "get it from ]"},
		{"get it from https://dl.acme.dev/x?arch=x86_64 now", "get it from ] now"},
		{"plain text, (parentheses) and [brackets]", "plain text, (parentheses) and [brackets]"},
	}
	for _, tc := range tests {
		assert.Equal(t, plainText(tc.in), tc.want, tc.in)
	}
}

// The last sentence of a paragraph is what the block rules read.
func TestLastSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Install it. Then run:", "Then run:"},
		{"Really? Yes! Run it:", "Run it:"},
		{"One sentence", "One sentence"},
		{"See [the docs](https://dl.acme.dev/a. b). Then:", "Then:"},
	}
	for _, tc := range tests {
		assert.Equal(t, lastSentence(tc.in), tc.want, tc.in)
	}
}

// A section about upgrading the install, not one about updating
// something of the reader's, nor the README's title.
func TestUpgradeHeading(t *testing.T) {
	tests := []struct {
		hs   []string
		want string
	}{
		{[]string{"tool", "Upgrading"}, "Upgrading"},
		{[]string{"tool", "Updating tool"}, ""},
		{[]string{"tool", "Upgrade to the latest version"}, "Upgrade to the latest version"},
		{[]string{"tool", "Updating requirements"}, ""},
		{[]string{"tool", "Installing and Updating"}, ""},
		{[]string{"tool", "Installing and Updating", "Usage"}, ""},
		{[]string{"Upgrading", "Usage"}, ""},
	}
	for _, tc := range tests {
		assert.Equal(t, upgradeHeading(tc.hs), tc.want, "%q", tc.hs)
	}
}
