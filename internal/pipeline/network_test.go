package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// setupWithout sets up a network with no Docker client: what the policy
// decides before any proxy is started.
func setupWithout(t *testing.T, engine string, cfg Config, vars map[string]string) (*agentNetwork, error) {
	t.Helper()
	eng, err := engines.Lookup(engine)
	assert.NilError(t, err)
	env, err := eng.ResolveEnv(func(k string) string { return vars[k] })
	assert.NilError(t, err)
	cfg.Image = "img"
	return setupNetwork(context.Background(), nil, cfg, eng, env, "run", time.Now().Add(time.Minute), redact.New(nil), func(string, ...any) {})
}

// An engine whose CLI can use a placeholder needs the proxy in every
// policy: open and none too (issue 31). Without a Docker client that
// manages networks nothing starts, whatever the policy.
func TestKeyHoldingEngineNeedsTheProxyInEveryPolicy(t *testing.T) {
	for _, policy := range NetworkModes {
		_, err := setupWithout(t, engines.ClaudeCodeName, Config{Network: policy}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-x"})
		var ce *ConfigError
		assert.Check(t, errors.As(err, &ce), "%s: %v", policy, err)
		assert.Check(t, is.ErrorContains(err, "network "+policy+" needs a Docker client that manages networks (for the egress proxy)"))
	}
}

// An engine whose key must enter the container keeps the plain network of
// its policy, its key, and a warning that says so.
func TestKeyInContainerKeepsThePlainNetworkAndWarns(t *testing.T) {
	vars := map[string]string{"LLM_API_KEY": "k-1234567", "LLM_MODEL": "anthropic/claude-sonnet-4-5"}
	for policy, mode := range map[string]string{NetworkOpen: "bridge", NetworkNone: "none"} {
		n, err := setupWithout(t, engines.OpenHandsName, Config{Network: policy}, vars)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(n.mode, mode))
		assert.Check(t, is.Equal(n.env["LLM_API_KEY"], "k-1234567"))
		assert.Check(t, is.DeepEqual(n.inContainer, []string{"LLM_API_KEY"}))
		assert.Check(t, is.Equal(n.keyWarning(), "warning: LLM_API_KEY in the agent's environment "+
			"(OpenHands has not been run with a placeholder key through the key-holding proxy): a README can read it, and only redaction guards what is published"))
	}
	// Allowlist lists its API host: it needs the proxy.
	_, err := setupWithout(t, engines.OpenHandsName, Config{Network: NetworkAllowlist}, vars)
	assert.Check(t, is.ErrorContains(err, "network allowlist needs a Docker client"))
}

// Under allowlist, an API host that cannot be told is an error naming
// what was read, unless the user lists hosts.
func TestAllowlistNeedsTheAPIHost(t *testing.T) {
	vars := map[string]string{"LLM_API_KEY": "k-1234567", "LLM_MODEL": "mistral/large"}
	_, err := setupWithout(t, engines.OpenHandsName, Config{Network: NetworkAllowlist}, vars)
	var ce *ConfigError
	assert.Assert(t, errors.As(err, &ce))
	assert.Check(t, is.Equal(ce.Reason, `network allowlist: cannot tell the API host of openhands from LLM_MODEL="mistral/large": list it with --allow-host (allow-hosts)`))
	_, err = setupWithout(t, engines.OpenHandsName, Config{Network: NetworkAllowlist, AllowHosts: []string{"api.mistral.ai"}}, vars)
	assert.Check(t, is.ErrorContains(err, "needs a Docker client"), "listed: the next step is the proxy")
}

// The keyless engines need no proxy under open and none; the raw network
// mode (Config.Network "") forwards every credential and says so.
func TestNetworksWithoutProxy(t *testing.T) {
	n, err := setupWithout(t, engines.MarkdownName, Config{Network: NetworkNone}, nil)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n.mode, "none"))
	assert.Check(t, strings.Contains(n.test, "direct 1.1.1.1 443"), "none runs the self-test")
	assert.Check(t, is.Equal(n.keyWarning(), ""))

	n, err = setupWithout(t, engines.MarkdownName, Config{Network: NetworkOpen}, nil)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n.mode, "bridge"))
	assert.Check(t, is.Equal(n.test, ""))

	n, err = setupWithout(t, engines.ClaudeCodeName, Config{NetworkMode: "bridge"}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-x"})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n.mode, "bridge"))
	assert.Check(t, is.Equal(n.env["ANTHROPIC_API_KEY"], "sk-ant-api03-x"))
	assert.Check(t, is.DeepEqual(n.inContainer, []string{"ANTHROPIC_API_KEY"}))
	assert.Check(t, is.Equal(n.why, rawModeWhy))

	_, err = setupWithout(t, engines.MarkdownName, Config{Network: "bridge"}, nil)
	assert.Check(t, is.ErrorContains(err, `network "bridge": use open, none, allowlist`))
}
