package action

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/secrets"
)

// credentialInputs maps the Action's credential inputs to the variables the
// engines read (internal/secrets owns the list).
var credentialInputs = secrets.CredentialInputs

// secretValues returns the distinct secret values in the environment
// (internal/secrets decides which), each multi-line value also split into
// its lines (the runner masks line by line).
func secretValues(getenv func(string) string) []string { return secrets.Values(getenv, nil) }

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
