package pipeline

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseNetworkDefaultsAndAliases(t *testing.T) {
	for _, tc := range []struct{ value, engine, want string }{
		{"", "claude-code", NetworkAllowlist},
		{"", "codex", NetworkAllowlist},
		{"", "markdown", NetworkOpen},
		{"", "replay", NetworkOpen},
		{"bridge", "claude-code", NetworkOpen},
		{"open", "claude-code", NetworkOpen},
		{"none", "markdown", NetworkNone},
		{"allowlist", "markdown", NetworkAllowlist},
	} {
		got, err := ParseNetwork(tc.value, tc.engine)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(got, tc.want), "network %q, engine %s", tc.value, tc.engine)
	}
	_, err := ParseNetwork("host", "markdown")
	assert.Error(t, err, `"host": use open, none, allowlist (bridge is open)`)
}
