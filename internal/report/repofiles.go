package report

import (
	"fmt"
	"strings"
)

// maxRepoFiles bounds each list of repository files in the report.
const maxRepoFiles = 20

// repoFiles lists what the run did with the repository's own agent files
// (command_log.json repo_findings): the instruction files it kept but
// flagged (CLAUDE.md, AGENTS.md, GEMINI.md…: an agent reads them like the
// README, so they can steer it; review them like the README), and what it
// left out of the sandbox (configuration that runs code, special files,
// hard links to files outside the repository). Git's own files (hooks,
// scrubbed configuration) are routine and only in the log.
func (r *renderer) repoFiles() string {
	var flagged, removed []string
	for _, f := range r.log.RepoFindings {
		if f.Path == ".git" || strings.HasPrefix(f.Path, ".git/") || strings.Contains(f.Path, "/.git/") {
			continue
		}
		switch f.Action {
		case "flag":
			flagged = append(flagged, codeSpan(clip(r.s(f.Path), 200)))
		case "remove", "skip":
			removed = append(removed, codeSpan(clip(r.s(f.Path), 200)))
		}
	}
	if len(flagged)+len(removed) == 0 {
		return ""
	}
	var b strings.Builder
	if len(flagged) > 0 {
		fmt.Fprintf(&b, "**Agent instruction files in the repository** (an agent reads them like the README; review them as you would the README): %s.\n\n", list(flagged))
	}
	if len(removed) > 0 {
		fmt.Fprintf(&b, "**Left out of the sandbox** (agent configuration that could run code at start, special files, hard links to files outside the repository): %s.\n\n", list(removed))
	}
	return b.String()
}

func list(items []string) string {
	if len(items) > maxRepoFiles {
		items = append(items[:maxRepoFiles:maxRepoFiles], fmt.Sprintf("and %d more (see `repo_findings` in command_log.json)", len(items)-maxRepoFiles))
	}
	return strings.Join(items, ", ")
}
