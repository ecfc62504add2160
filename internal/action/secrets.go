package action

import "strings"

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
