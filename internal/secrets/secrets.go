// Package secrets is the one place that decides which values readme2demo
// must never publish: the CLI, the Action and the pipeline all ask it, so
// a credential one of them knows is redacted by all.
//
// A secret is the value of
//   - every variable an engine forwards that looks like a credential
//     (its name says KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL),
//   - the Action's credential inputs, under every name the runner gives
//     them (INPUT_ANTHROPIC-API-KEY, INPUT_ANTHROPIC_API_KEY),
//   - the GitHub and runner tokens (GITHUB_TOKEN, GH_TOKEN,
//     ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN),
//   - and every value a run actually forwards into the sandbox (a base
//     URL or a model name is redacted whole, never by pieces: see
//     internal/redact).
//
// A multi-line value counts line by line too (the runner masks it so).
// Values shorter than MinLen are ignored: a placeholder like "1" would
// mask ordinary text everywhere.
package secrets

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
)

// MinLen is the shortest value treated as a secret.
const MinLen = 6

// CredentialInputs maps the Action's credential inputs to the variables
// the engines read; action.yml exports each input under its variable name.
var CredentialInputs = map[string]string{
	"anthropic-api-key":       "ANTHROPIC_API_KEY",
	"claude-code-oauth-token": "CLAUDE_CODE_OAUTH_TOKEN",
	"llm-api-key":             "LLM_API_KEY",
	"openai-api-key":          "OPENAI_API_KEY",
	"gemini-api-key":          "GEMINI_API_KEY",
}

// secretName matches variable names whose values are secrets.
var secretName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)`)

// Names lists every variable whose value is a secret, sorted.
func Names() []string {
	set := map[string]bool{
		"INPUT_GITHUB_TOKEN": true, "INPUT_GITHUB-TOKEN": true, "GITHUB_TOKEN": true, "GH_TOKEN": true,
		"ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": true,
	}
	for input, v := range CredentialInputs {
		set[v] = true
		up := strings.ToUpper(input)
		set["INPUT_"+up] = true
		set["INPUT_"+strings.ReplaceAll(up, "-", "_")] = true
	}
	for _, name := range engines.Names() {
		e, err := engines.Lookup(name)
		if err != nil {
			continue
		}
		for _, v := range e.RequiredEnv() {
			if secretName.MatchString(v) {
				set[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// Values returns the distinct secret values: those of Names in getenv and
// the forwarded values (nil when nothing is forwarded yet), sorted.
func Values(getenv func(string) string, forwarded map[string]string) []string {
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= MinLen {
			seen[v] = true
		}
	}
	addAll := func(v string) {
		add(v)
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				add(line)
			}
		}
	}
	if getenv != nil {
		for _, name := range Names() {
			addAll(getenv(name))
		}
	}
	for _, v := range forwarded {
		addAll(v)
	}
	return slices.Sorted(maps.Keys(seen))
}
