package action

import (
	"regexp"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
)

// credentialInputs maps the Action's credential inputs to the variables the
// engines read. action.yml exports each input under its variable name.
var credentialInputs = map[string]string{
	"anthropic-api-key":       "ANTHROPIC_API_KEY",
	"claude-code-oauth-token": "CLAUDE_CODE_OAUTH_TOKEN",
	"llm-api-key":             "LLM_API_KEY",
	"openai-api-key":          "OPENAI_API_KEY",
	"gemini-api-key":          "GEMINI_API_KEY",
}

// secretName matches variable names whose values are secrets.
var secretName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)`)

// secretVars lists every variable whose value must be masked and redacted:
// the credential variables, every secret-looking variable an engine may
// forward, the GitHub token input, and the runner's own tokens.
func secretVars() []string {
	set := map[string]bool{
		"INPUT_GITHUB_TOKEN": true, "INPUT_GITHUB-TOKEN": true, "GITHUB_TOKEN": true,
		"ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": true,
	}
	for input, v := range credentialInputs {
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
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// minMaskLen keeps a short value (a test placeholder, "1") from masking
// ordinary text everywhere in the log.
const minMaskLen = 6

// secretValues returns the distinct non-empty secret values in the
// environment, each multi-line value also split into its lines (the runner
// masks line by line).
func secretValues(getenv func(string) string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= minMaskLen && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, name := range secretVars() {
		v := getenv(name)
		add(v)
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				add(line)
			}
		}
	}
	return out
}

// pipelineEnv is the getenv the pipeline sees: the GitHub and runner tokens
// are hidden, so no engine or sandbox code can forward them into the
// container even by mistake.
func pipelineEnv(getenv func(string) string) func(string) string {
	return func(name string) string {
		switch {
		case name == "GITHUB_TOKEN", strings.HasPrefix(name, "INPUT_GITHUB"),
			strings.HasPrefix(name, "ACTIONS_"), name == "GH_TOKEN":
			return ""
		}
		return getenv(name)
	}
}
