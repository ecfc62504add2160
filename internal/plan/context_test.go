package plan

import (
	"testing"

	"gotest.tools/v3/assert"
)

// Each documented spelling of the option that turns the program's
// interactive mode off is found, with its short form; and a README that
// says the program is interactive by default is told apart from one that
// only uses the word.
func TestInteractiveDefault(t *testing.T) {
	tests := []struct {
		name, src string
		flags     []string
		ok        bool
	}{
		{"--non-interactive", "Options:\n  -n, --non-interactive  no UI\n", []string{"-n", "--non-interactive"}, true},
		{"--noninteractive", "Pass --noninteractive in scripts.\n", []string{"--noninteractive"}, true},
		{"--no-interactive", "  -y, --no-interactive\n", []string{"-y", "--no-interactive"}, true},
		{"-noninteractive", "Run it with -noninteractive.\n", []string{"-noninteractive"}, true},
		{"interactive (default)", "Modes: interactive (default), batch.\n", nil, true},
		{"interactive mode by default", "It starts in Interactive mode by default.\n", nil, true},
		{"defaults to interactive", "# x\n\nThe tool defaults to the interactive\nview.\n", nil, true},
		{"the word alone", "An interactive tutorial.\nBy default it prints.\n", nil, false},
		{"no word", "Prints files.\n", nil, false},
		{"a longer word", "noninteractive by default\n", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flags, ok := interactiveDefault([]byte(tc.src))
			assert.DeepEqual(t, flags, tc.flags)
			assert.Equal(t, ok, tc.ok)
		})
	}
}

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

// A section of key bindings is found under any heading of one or two #s
// that names them, in any case, and not under others.
func TestKeyBindingsSection(t *testing.T) {
	tests := []struct {
		src  string
		keys bool
	}{
		{"# x\n\n## Key bindings\n\nq: quit\n", true},
		{"## keymaps\n", true},
		{"# x\n#  KEYBOARD SHORTCUTS  \n", true},
		{"# x\n## Key-binding\n", true},
		{"# x\n##\n\nkey maps\n", true},  // white space runs over lines
		{"# x\n## \u212aeymaps\n", true}, // the Kelvin sign is a k in any case
		{"# x\n### Key bindings\n", false},
		{"# x\n## Keys\n", false},
		{"# x\nKey bindings\n", false},
		{"# x\n## Key bindings and more\n", false},
	}
	for _, tc := range tests {
		keys, _ := presentsTUI([]byte(tc.src))
		assert.Equal(t, keys, tc.keys, "%q", tc.src)
	}
}

// The opening's phrase that presents the program as working
// interactively, of each kind, and none when it speaks of a mode.
func TestIntroCue(t *testing.T) {
	tests := []struct{ src, cue string }{
		{"# x\n\nAn interactive tool to clean disks.\n", "interactive"},
		{"# x\n\nA text user interface for git.\n", "text user interface"},
		{"# x\n\nA TUI for docker.\n", "TUI"},
		{"# x\n\nA [terminal UI](https://example.org/k) for k8s.\n", "terminal UI"},
		{"# x\n\nIt has an interactive mode.\n", ""},
		{"# x\n\nA fast grep.\n", ""},
	}
	for _, tc := range tests {
		_, cue := presentsTUI([]byte(tc.src))
		assert.Equal(t, cue, tc.cue, "%q", tc.src)
	}
}
