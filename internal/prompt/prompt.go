// Package prompt renders the instructions an agent gets for one run: follow
// the README from a fresh checkout as a new user would, run its demo, never
// invent credentials, and end with the marker lines the engines parse
// (SUCCESS, ADJUSTED_SUCCESS, BLOCKED: reason, FIX: what and why).
//
// The prompt names the README by its path in the sandbox rather than
// pasting it in: the agent reads the file like a user would, and the
// README's text never becomes part of our instructions.
package prompt

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/readme2demo/readme2demo/engines"
)

// PathError is a README path the prompt cannot point at.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("readme path %q: %s", e.Path, e.Reason) }

// Render returns the prompt for the README at readme, a slash-separated path
// relative to the repository root (e.g. "README.md" or "docs/INSTALL.md"),
// with the run's limits stated so the agent can pace itself.
func Render(readme string, l engines.Limits) (string, error) {
	clean := path.Clean(strings.ReplaceAll(readme, `\`, "/"))
	switch {
	case readme == "":
		return "", &PathError{readme, "empty"}
	case path.IsAbs(clean):
		return "", &PathError{readme, "must be relative to the repository root"}
	case clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
		return "", &PathError{readme, "must name a file inside the repository"}
	case strings.ContainsAny(clean, "\n\r`"):
		return "", &PathError{readme, "contains a newline or a backquote"}
	}
	var b bytes.Buffer
	err := tmpl.Execute(&b, data{
		Workspace: engines.WorkspaceContainerPath,
		Readme:    path.Join(engines.WorkspaceContainerPath, clean),
		Dir:       path.Join(engines.WorkspaceContainerPath, path.Dir(clean)),
		Limits:    l,
	})
	if err != nil {
		return "", fmt.Errorf("render prompt: %w", err)
	}
	return b.String(), nil
}

type data struct {
	Workspace, Readme, Dir string
	Limits                 engines.Limits
}

var tmpl = template.Must(template.New("prompt").Funcs(template.FuncMap{
	"usd": func(f float64) string { return fmt.Sprintf("$%.2f", f) },
}).Parse(`You are checking whether a project's README still works. Act as a new user who has
just cloned the repository and wants to try it, following the README step by step.

The repository is checked out at {{.Workspace}}. The README to follow is {{.Readme}}.
You are in a fresh, disposable Linux container as an unprivileged user, without sudo.
Only the workspace, your home directory and /tmp are writable.

What to do:
1. Read {{.Readme}}.
2. Run the installation, build and demo steps it describes, in the order it gives them,
   from {{.Dir}} unless the README says otherwise. Type the commands as the README writes
   them; run each one with the shell so its output and exit code are recorded.
3. Never invent credentials, API keys, tokens, passwords or accounts, and do not look for
   them in the environment. If a step needs one that you were not given, or needs
   hardware, a paid service or anything else this environment lacks, stop there.
4. If a step fails, you may make the smallest change a new user could reasonably work out
   (create a missing directory, use the flag the tool suggests, install a missing
   dependency the README forgot) and carry on. Each such deviation is a FIX line below.
   Do not edit the README to make it pass; do not push, publish or post anything.
5. Stop as soon as the README's demo has run, or cannot run.
{{- if or .Limits.MaxTurns .Limits.MaxCostUSD .Limits.Timeout}}

Limits of this run:{{if .Limits.MaxTurns}} at most {{.Limits.MaxTurns}} turns;{{end}}{{if .Limits.MaxCostUSD}} at most {{usd .Limits.MaxCostUSD}} of model usage;{{end}}{{if .Limits.Timeout}} at most {{.Limits.Timeout}} in total;{{end}}
be economical: prefer the README's own commands over exploration.
{{- end}}

How to finish. Your final message must end with these lines, each alone on its own line,
at the start of the line, in plain text:
- one line per deviation from the README, if there were any:
  FIX: <what you changed, and why the README as written did not work>
- then exactly one of:
  SUCCESS
      the demo worked exactly as the README describes;
  ADJUSTED_SUCCESS
      the demo worked, but only after the deviations in your FIX lines;
  BLOCKED: <reason>
      you cannot proceed without something this environment lacks (say what).
If a step failed and you could not get past it, write no SUCCESS line: say which step failed
and how, and give the FIX lines that would repair the README.
`))
