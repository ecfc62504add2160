package main

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
)

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
		assert.Check(t, is.Equal(code, exitcode.Usage), "%v", tc.args)
		assert.Check(t, is.Contains(errOut, tc.want), "%v", tc.args)
	}
}
