package main

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/pipeline"
)

func TestNetworkPolicyDefaultsAndAliases(t *testing.T) {
	for _, tc := range []struct{ flag, engine, want string }{
		{"", "claude-code", pipeline.NetworkAllowlist},
		{"", "codex", pipeline.NetworkAllowlist},
		{"", "markdown", pipeline.NetworkOpen},
		{"", "replay", pipeline.NetworkOpen},
		{"bridge", "claude-code", pipeline.NetworkOpen},
		{"open", "claude-code", pipeline.NetworkOpen},
		{"none", "markdown", pipeline.NetworkNone},
		{"allowlist", "markdown", pipeline.NetworkAllowlist},
	} {
		got, err := networkPolicy(tc.flag, tc.engine)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(got, tc.want), "--network %q --engine %s", tc.flag, tc.engine)
	}
	_, err := networkPolicy("host", "markdown")
	assert.ErrorContains(t, err, `--network "host": use open, none, allowlist`)
}

// Bad network flags are usage errors before anything starts.
func TestRunNetworkUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--engine", "markdown", "--allow-host", "pypi.org", sampleRepo}, "--allow-host needs --network allowlist (the network is open)"},
		{[]string{"run", "--engine", "markdown", "--network", "allowlist", "--allow-host", "*", sampleRepo}, "allows everything"},
		{[]string{"run", "--engine", "markdown", "--network", "allowlist", "--allow-host", "a.com:0", sampleRepo}, "port"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		assert.Check(t, is.Equal(code, exitUsage), "%v", tc.args)
		assert.Check(t, is.Contains(errOut, tc.want), "%v", tc.args)
	}
}
