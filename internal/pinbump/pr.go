package pinbump

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/ghapi"
)

// Bumped is what a local bump did: the pin moved From → To, Changed are the
// files whose pin copies were rewritten and Fixtures the fixtures and
// goldens added (all relative to the repository root).
type Bumped struct {
	Engine   string
	From, To string
	Changed  []string
	Fixtures []string
	// Report is the drift report of the run that verified To (markdown);
	// empty for a bump made by hand without --fixtures.
	Report string
}

// Branch is the branch that carries an engine's bump pull request.
func Branch(engine string) string { return "readme2demo/pin-" + engine }

// PRKey is the hidden-marker slot of an engine's bump pull request.
func PRKey(engine string) string { return "pin " + engine }

// Title is the bump pull request's title (and commit subject).
func (b *Bumped) Title() string {
	return fmt.Sprintf("%s: pin %s (verified by drift)", b.Engine, b.To)
}

// CommitMessage is the bump commit's message.
func (b *Bumped) CommitMessage() string {
	var m strings.Builder
	m.WriteString(b.Title() + "\n\n")
	fmt.Fprintf(&m, "readme2demo drift ran the real %s %s through the scripted scenarios against the mock\n", b.Engine, b.To)
	fmt.Fprintf(&m, "LLM and found no drift. Pin moved from %s (readme2demo pin --engine %s --version %s)\n", b.From, b.Engine, b.To)
	m.WriteString("and the run's transcripts added as fixtures with their golden command logs.\n")
	return m.String()
}

// Body is the bump pull request's body: what changed, how to review it,
// and the drift report. runURL links the workflow run (its artifact holds
// every transcript), when known.
func (b *Bumped) Body(runURL string) string {
	cli, _ := agentcli.Lookup(b.Engine)
	var s strings.Builder
	fmt.Fprintf(&s, "## Bump %s `%s` %s → %s\n\n", b.Engine, cli.Package, b.From, b.To)
	fmt.Fprintf(&s, "`readme2demo drift` ran the real `%s@%s` through the scripted scenarios (success, failures, "+
		"a big output, a run killed mid-command) against the mock LLM, and the %s parser read every transcript "+
		"as the scenarios make true: **no drift**. This pull request was opened by the scheduled drift workflow "+
		"and is updated in place when a newer version also shows no drift.\n\n", cli.Package, b.To, b.Engine)
	fmt.Fprintf(&s, "- The pin, moved in every place it lives (`readme2demo pin --engine %s --version %s`):\n", b.Engine, b.To)
	for _, f := range b.Changed {
		fmt.Fprintf(&s, "  - `%s`\n", f)
	}
	if len(b.Fixtures) > 0 {
		s.WriteString("- The drift run's transcripts as fixtures, each with its golden command log:\n")
		for _, f := range b.Fixtures {
			fmt.Fprintf(&s, "  - `%s`\n", f)
		}
	}
	s.WriteString("\n### How to review\n\n")
	s.WriteString("1. **CI is green** on this branch: the engines' golden tests read the new fixtures, the real-CLI " +
		"tests and `drift` run the new pin on the host and in the sandbox (CI installs it from the pin). " +
		"A pull request opened with the workflow's `GITHUB_TOKEN` does not start workflows by itself: close and " +
		"reopen it, or give the workflow a token in the `R2D_BUMP_TOKEN` secret (docs/drift.md).\n")
	s.WriteString("2. **Read each new golden against its scenario** (docs/drift.md lists what each scenario makes true): " +
		"commands, exit codes, statuses, file edits, markers, outcome. A golden is a claim about the new version.\n")
	s.WriteString("3. **Skim the transcripts for anything new**: event or item types, fields, a changed shape of output. " +
		"The parser counts unknown events (drift found none); a new field it ignores is not drift but may be worth reading.\n")
	fmt.Fprintf(&s, "4. **Note the version** in the header comment of `engines/%s.go` if the format changed in a way the parser tolerates.\n\n", b.Engine)
	if b.Report != "" {
		s.WriteString("<details><summary>Drift report</summary>\n\n")
		s.WriteString(strings.Replace(b.Report, "## readme2demo drift", "### readme2demo drift", 1))
		s.WriteString("\n</details>\n")
	}
	if runURL != "" {
		fmt.Fprintf(&s, "\nWorkflow run (every transcript is in its artifact): %s\n", runURL)
	}
	return s.String()
}

// OpenPR commits b's files, read from root, on the engine's bump branch on
// top of parent ("" for the head of t.Base) and opens or updates the one
// bump pull request of the engine. t.Branch and t.Key are filled in.
func OpenPR(ctx context.Context, gh *ghapi.Client, t ghapi.PRTarget, root, parent string, b *Bumped, runURL string) (*ghapi.PR, error) {
	t.Branch, t.Key = Branch(b.Engine), PRKey(b.Engine)
	var files []ghapi.File
	for _, rel := range append(append([]string(nil), b.Changed...), b.Fixtures...) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		content, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("open bump pull request: %w", err)
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("open bump pull request: %w", err)
		}
		files = append(files, ghapi.File{Path: rel, Content: content, Executable: info.Mode()&0o111 != 0})
	}
	pr, err := gh.UpsertPR(ctx, t, ghapi.Change{Message: b.CommitMessage(), Files: files, Parent: parent}, b.Title(), b.Body(runURL))
	if err != nil {
		return nil, fmt.Errorf("open bump pull request: %w", err)
	}
	return pr, nil
}

// Local does the file edits of a bump under root: the pin copies (Bump)
// and, with driftDir, the verified run's fixtures (prepareFixtures). The pin
// moves from what root's home (agentcli/pins.go) holds; when that already
// is version, nothing changes and Bumped.From == Bumped.To.
func Local(root, engine, version, driftDir string) (*Bumped, error) {
	found, err := Read(root, engine)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || len(found[0].Versions) != 1 {
		return nil, fmt.Errorf("bump pin: cannot read the %s pin from %s", engine, filepath.Join(root, "internal", "agentcli", "pins.go"))
	}
	b := &Bumped{Engine: engine, From: found[0].Versions[0], To: version}
	var fx *fixtures
	if driftDir != "" {
		// Verify and read everything before touching anything.
		if b.Report, fx, err = prepareFixtures(engine, version, driftDir); err != nil {
			return nil, err
		}
	}
	if b.From == b.To {
		return b, nil
	}
	if b.Changed, err = Bump(root, engine, version); err != nil {
		return nil, err
	}
	if fx != nil {
		if b.Fixtures, err = fx.write(root); err != nil {
			return nil, err
		}
	}
	return b, nil
}
