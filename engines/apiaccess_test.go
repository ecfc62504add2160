package engines_test

import (
	"regexp"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
)

func apiAccess(t *testing.T, engine string, vars map[string]string) engines.APIAccess {
	t.Helper()
	e, err := engines.Lookup(engine)
	assert.NilError(t, err)
	env, err := e.ResolveEnv(func(k string) string { return vars[k] })
	assert.NilError(t, err)
	u, ok := e.(engines.APIUser)
	assert.Assert(t, ok, "%s declares no APIAccess", engine)
	return u.APIAccess(env)
}

// What each engine tells the run about its API: which credentials the
// egress proxy holds (the CLI takes a placeholder and a base URL), which
// enter the container and why, and the API hosts for the allowlist then.
func TestAPIAccess(t *testing.T) {
	quietClaude := map[string]string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
	anthropic := engines.APIRoute{API: "anthropic", KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL",
		DefaultBase: "https://api.anthropic.com", Header: "x-api-key"}
	oauth := engines.APIRoute{API: "anthropic", KeyVar: "CLAUDE_CODE_OAUTH_TOKEN", BaseVar: "ANTHROPIC_BASE_URL",
		DefaultBase: "https://api.anthropic.com", Header: "Authorization", Prefix: "Bearer ", Placeholder: "sk-ant-oat01-" + engines.PlaceholderKey}
	openai := func(v string) engines.APIRoute {
		return engines.APIRoute{API: "openai", KeyVar: v, BaseVar: "OPENAI_BASE_URL", DefaultBase: "https://api.openai.com/v1",
			Header: "Authorization", Prefix: "Bearer "}
	}
	geminiRoute := engines.APIRoute{API: "gemini", KeyVar: "GEMINI_API_KEY", BaseVar: "GOOGLE_GEMINI_BASE_URL",
		DefaultBase: "https://generativelanguage.googleapis.com", Header: "x-goog-api-key", Query: "key"}
	const ohWhy = "OpenHands has not been run with a placeholder key through the key-holding proxy"
	const vertexWhy = "Gemini CLI on Vertex AI has not been run through the key-holding proxy"
	for _, tc := range []struct {
		name, engine string
		vars         map[string]string
		want         engines.APIAccess
	}{
		{"claude api key", engines.ClaudeCodeName, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-x"},
			engines.APIAccess{Routes: []engines.APIRoute{anthropic}, Quiet: quietClaude}},
		{"claude oauth token", engines.ClaudeCodeName, map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-x"},
			engines.APIAccess{Routes: []engines.APIRoute{oauth}, Quiet: quietClaude}},
		{"codex", engines.CodexName, map[string]string{"OPENAI_API_KEY": "sk-proj-x", "OPENAI_BASE_URL": "https://gw.example/v1"},
			engines.APIAccess{Routes: []engines.APIRoute{openai("OPENAI_API_KEY")}}},
		{"codex alternative key", engines.CodexName, map[string]string{"CODEX_API_KEY": "sk-proj-x"},
			engines.APIAccess{Routes: []engines.APIRoute{openai("CODEX_API_KEY")}}},
		{"gemini api key", engines.GeminiName, map[string]string{"GEMINI_API_KEY": "AIzax"},
			engines.APIAccess{Routes: []engines.APIRoute{geminiRoute}}},
		{"gemini vertex key", engines.GeminiName, map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": "AIzax"},
			engines.APIAccess{InContainer: []string{"GOOGLE_API_KEY"}, Why: vertexWhy, Hosts: []string{"*.googleapis.com"}}},
		{"gemini vertex with application default credentials", engines.GeminiName,
			map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"},
			engines.APIAccess{Hosts: []string{"*.googleapis.com"}}},
		{"openhands by model", engines.OpenHandsName, map[string]string{"LLM_API_KEY": "k-123456", "LLM_MODEL": "anthropic/claude-sonnet-4-5"},
			engines.APIAccess{InContainer: []string{"LLM_API_KEY"}, Why: ohWhy, Hosts: []string{"api.anthropic.com"},
				HostsFrom: `LLM_MODEL="anthropic/claude-sonnet-4-5"`}},
		{"openhands by base url", engines.OpenHandsName, map[string]string{"LLM_API_KEY": "k-123456", "LLM_MODEL": "x/y", "LLM_BASE_URL": "https://llm.example:8443/v1"},
			engines.APIAccess{InContainer: []string{"LLM_API_KEY"}, Why: ohWhy, Hosts: []string{"llm.example:8443"}}},
		{"openhands base url not a url", engines.OpenHandsName, map[string]string{"LLM_API_KEY": "k-123456", "LLM_BASE_URL": "llm.example"},
			engines.APIAccess{InContainer: []string{"LLM_API_KEY"}, Why: ohWhy, HostsFrom: "LLM_BASE_URL, which is not a URL"}},
		{"openhands unknown provider", engines.OpenHandsName, map[string]string{"LLM_API_KEY": "k-123456", "LLM_MODEL": "mistral/large"},
			engines.APIAccess{InContainer: []string{"LLM_API_KEY"}, Why: ohWhy, HostsFrom: `LLM_MODEL="mistral/large"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, apiAccess(t, tc.engine, tc.vars), tc.want)
		})
	}
}

// Every engine that takes credentials declares its API access, and every
// credential it forwards is either held by the proxy or said to enter
// the container: none is forgotten.
func TestEveryCredentialIsRoutedOrDeclared(t *testing.T) {
	credential := regexp.MustCompile(`KEY|TOKEN`)
	full := map[string]map[string]string{
		engines.ClaudeCodeName: {"ANTHROPIC_API_KEY": "sk-ant-api03-x", "ANTHROPIC_BASE_URL": "https://a.example"},
		engines.CodexName:      {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "https://o.example/v1"},
		engines.GeminiName:     {"GEMINI_API_KEY": "AIzax"},
		engines.OpenHandsName:  {"LLM_API_KEY": "k-123456", "LLM_MODEL": "openai/gpt-5"},
	}
	for _, name := range engines.Names() {
		e, err := engines.Lookup(name)
		assert.NilError(t, err)
		if len(e.RequiredEnv()) == 0 {
			_, ok := e.(engines.APIUser)
			assert.Check(t, !ok, "keyless %s declares API access", name)
			continue
		}
		vars, ok := full[name]
		if !assert.Check(t, ok, "engine %s takes credentials: add it here", name) {
			continue
		}
		a := apiAccess(t, name, vars)
		env, err := e.ResolveEnv(func(k string) string { return vars[k] })
		assert.NilError(t, err)
		for v := range env {
			if !credential.MatchString(v) {
				continue
			}
			routed := slices.ContainsFunc(a.Routes, func(r engines.APIRoute) bool { return r.KeyVar == v })
			assert.Check(t, routed != slices.Contains(a.InContainer, v), "%s: %s is neither routed nor declared in the container, or both", name, v)
		}
		if len(a.InContainer) > 0 {
			assert.Check(t, a.Why != "", "%s: keys in the container without a reason", name)
		}
	}
}

func TestPlaceholderValue(t *testing.T) {
	assert.Check(t, is.Equal(engines.APIRoute{}.PlaceholderValue(), engines.PlaceholderKey))
	assert.Check(t, is.Equal(engines.APIRoute{Placeholder: "p"}.PlaceholderValue(), "p"))
}
