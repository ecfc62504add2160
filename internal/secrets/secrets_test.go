package secrets

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestValues(t *testing.T) {
	env := map[string]string{
		"ANTHROPIC_API_KEY":              "sk-ant-api03-abcdefghijklmnop",
		"INPUT_OPENAI-API-KEY":           "sk-proj-input-value",
		"GITHUB_TOKEN":                   "ghs_runner_token_value",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "multi\nline-token-value",
		"HOME":                           "/home/not-a-secret",
		"SHORT_TOKEN":                    "12345",
	}
	got := Values(func(k string) string { return env[k] }, map[string]string{"ANTHROPIC_BASE_URL": "http://10.0.0.1:8080", "X": "1"})
	assert.DeepEqual(t, got, []string{
		"ghs_runner_token_value", "http://10.0.0.1:8080", "line-token-value", "multi\nline-token-value",
		"sk-ant-api03-abcdefghijklmnop", "sk-proj-input-value",
	})
	assert.Check(t, is.Len(Values(nil, nil), 0))
}

func TestNamesCoverEveryEngineCredential(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	for _, n := range []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY",
		"LLM_API_KEY", "INPUT_ANTHROPIC-API-KEY", "INPUT_ANTHROPIC_API_KEY", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"} {
		assert.Check(t, names[n], "%s is not a secret", n)
	}
}
