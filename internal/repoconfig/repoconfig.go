// Package repoconfig neutralises agent configuration that a repository under
// test could use to run code or widen permissions when the agent starts.
//
// The repository comes from a pull request and is untrusted. Agent CLIs read
// project-level configuration from the directory they start in: Claude Code
// runs hooks and an apiKeyHelper from .claude/settings.json and starts the
// MCP servers of .mcp.json; Gemini CLI runs tools.discoveryCommand and MCP
// servers from .gemini/settings.json and loads .gemini/.env; Codex reads
// .codex/config.toml (MCP servers, notify commands, sandbox settings);
// OpenHands runs .openhands/setup.sh when it opens a repository. Any of them
// executes attacker code before the agent reads our prompt, with the API key
// in its environment. This package decides, per path, what the copy of the
// repository inside the sandbox may contain:
//
//   - Remove: the file or directory is left out of the copy.
//   - Scrub: the file is copied reduced to what is safe: git configuration
//     keeps an allowlist of keys (no hook path, fsmonitor, filter or diff
//     driver, ssh command, include…; credentials actions/checkout may have
//     persisted are removed), a ".git" pointer file is kept only when it
//     points into a ".git" directory.
//   - Flag: copied as is but reported. Instruction files (CLAUDE.md,
//     AGENTS.md, GEMINI.md) cannot run code by themselves; they are prompt
//     injection vectors, exactly like the README, and the report lists them.
//   - Keep: everything else.
//
// Skip is used by the copy-in for paths that are not repository content
// at all (special files, hard links to files outside the tree): see
// internal/repofs.
//
// The host checkout is never modified: FilterTar filters the tar stream
// that copies it into the container.
package repoconfig

import (
	"path"
	"strings"
)

// Action is what happens to one path.
type Action int

// The actions, from harmless to strongest.
const (
	Keep Action = iota
	Flag
	Scrub
	Remove
	Skip // not repository content: left out by the copy-in (repofs)
)

func (a Action) String() string {
	switch a {
	case Keep:
		return "keep"
	case Flag:
		return "flag"
	case Scrub:
		return "scrub"
	case Remove:
		return "remove"
	case Skip:
		return "skip"
	}
	return "unknown"
}

// Finding is one path that was not simply kept.
type Finding struct {
	Path   string // slash-separated, relative to the repository root
	Action Action
	Reason string
}

// configDirs are directories whose whole content is agent configuration
// that can run code or change permissions. Entries listed in keepInside
// are instruction files inside them, kept and flagged.
var configDirs = map[string]string{
	".claude":    "Claude Code project settings, hooks, commands, skills and subagents (hooks, apiKeyHelper, permissions and allowed-tools run or widen what the agent may do at start)",
	".gemini":    "Gemini CLI project settings, .env, commands and extensions (tools.discoveryCommand, mcpServers and hooks run on start; .env can redirect the API endpoint)",
	".codex":     "Codex project configuration (config.toml: mcp_servers, notify, sandbox and approval settings)",
	".openhands": "OpenHands repository setup (setup.sh runs when the repository is opened; microagents can add MCP tools)",
	".agents":    "repository skills read by Codex (scripts the agent may be told to run, with their own permissions)",
}

var keepInside = map[string]bool{
	".claude/CLAUDE.md": true,
}

// configFiles are single files with the same power.
var configFiles = map[string]string{
	".mcp.json": "Claude Code project MCP servers (each is a command started with the agent)",
}

// instructionFiles are read into the agent's context: kept, flagged.
var instructionFiles = map[string]string{
	"CLAUDE.md":                       "Claude Code instructions (prompt injection vector, read before our prompt)",
	"CLAUDE.local.md":                 "Claude Code local instructions (prompt injection vector)",
	"AGENTS.md":                       "Codex / OpenHands instructions (prompt injection vector)",
	"AGENTS.override.md":              "Codex instructions override (prompt injection vector)",
	"GEMINI.md":                       "Gemini CLI instructions (prompt injection vector)",
	".openhands_instructions":         "OpenHands legacy repository instructions (prompt injection vector)",
	".github/copilot-instructions.md": "agent instructions (prompt injection vector)",
	".env":                            "Gemini CLI loads a project .env into its own environment (it can redirect the API endpoint); kept because the application may need it, the egress allowlist stops the redirect",
}

const (
	gitConfigReason = "git configuration: reduced to an allowlist of keys (no hooksPath, fsmonitor, filter, diff or merge driver, sshCommand, pager, alias, include, credential helper…), credentials in URLs and persisted by actions/checkout removed"
	gitFileReason   = "git directory pointer: kept only when it points into a .git directory"
	gitHooksReason  = "git hooks run on git commands the agent may type"
)

// Classify says what to do with one repository path: rel is relative to the
// repository root, slash- or OS-separated; isDir says whether it is a
// directory. A path inside a removed directory is removed too.
func Classify(rel string, isDir bool) (Action, string) {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(rel, "\\", "/")), "/")
	if rel == "" || rel == "." {
		return Keep, ""
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		last := i == len(parts)-1
		if reason, ok := configDirs[p]; ok {
			if last {
				if isDir {
					// The directory itself is kept (so that a kept file
					// inside can be written), its content is not.
					return Keep, ""
				}
				return Remove, reason
			}
			inside := p + "/" + strings.Join(parts[i+1:], "/")
			if keepInside[inside] {
				return Flag, instructionFiles[path.Base(inside)]
			}
			return Remove, reason
		}
		if p == ".git" {
			switch {
			case last && !isDir:
				return Scrub, gitFileReason
			case last:
			case gitHooksPath(parts, i):
				return Remove, gitHooksReason
			case !isDir && gitConfigFile(parts, i):
				return Scrub, gitConfigReason
			}
		}
	}
	base := parts[len(parts)-1]
	if isDir {
		return Keep, ""
	}
	if reason, ok := configFiles[base]; ok {
		return Remove, reason
	}
	if len(parts) >= 2 {
		if reason, ok := instructionFiles[parts[len(parts)-2]+"/"+base]; ok {
			return Flag, reason
		}
	}
	if reason, ok := instructionFiles[base]; ok {
		return Flag, reason
	}
	return Keep, ""
}

// ScrubFile returns the scrubbed content of a file Classify says to
// scrub (rel as given to Classify).
func ScrubFile(rel string, b []byte) []byte {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(rel, "\\", "/")), "/")
	if path.Base(rel) == ".git" {
		return ScrubGitFile(b)
	}
	return ScrubGitConfig(b)
}

// Merge joins finding lists, sorted by path.
func Merge(lists ...[]Finding) []Finding {
	var out []Finding
	for _, l := range lists {
		out = append(out, l...)
	}
	sortFindings(out)
	return out
}
