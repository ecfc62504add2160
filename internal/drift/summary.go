package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SummaryFile is the machine-readable summary of a drift run under its
// output directory; `readme2demo pin --fixtures DIR` and the scheduled
// workflow read it.
const SummaryFile = "drift.json"

// ReportFile is the markdown report of a drift run under its output
// directory (the workflow's job summary).
const ReportFile = "report.md"

// Summary is drift.json: one entry per engine checked.
type Summary struct {
	SchemaVersion int            `json:"schema_version"`
	Checks        []CheckSummary `json:"checks"`
}

// CheckSummary is one engine's check.
type CheckSummary struct {
	Engine  string `json:"engine"`
	Pinned  string `json:"pinned"`
	Drifted bool   `json:"drifted"`
	// Error: the check could not run (nothing was checked).
	Error string `json:"error,omitempty"`
	// Versions: the version under test, then the --against version.
	Versions []VersionSummary `json:"versions,omitempty"`
	// Report is the engine's markdown report (Markdown).
	Report string `json:"report_markdown,omitempty"`
}

// VersionSummary is one CLI version's run.
type VersionSummary struct {
	Version           string   `json:"version"`
	Mode              string   `json:"mode"`
	Drifted           bool     `json:"drifted"`
	FirstChangedField string   `json:"first_changed_field"`
	Dir               string   `json:"dir"` // the transcripts, relative to the output directory
	Scenarios         []string `json:"scenarios"`
	DriftedScenarios  []string `json:"drifted_scenarios"`
}

// SummaryOf summarizes one engine's outcome.
func SummaryOf(o *Outcome) CheckSummary {
	cs := CheckSummary{Engine: o.Engine, Pinned: o.Pinned, Drifted: o.Drifted(), Report: Markdown(o)}
	for _, r := range []*Report{o.Report, o.Against} {
		if r == nil {
			continue
		}
		vs := VersionSummary{Version: r.Version, Mode: r.Mode, Drifted: r.Drifted(), FirstChangedField: r.FirstLine(),
			Dir: r.Engine + "-" + r.Version, Scenarios: scenarioNames(r), DriftedScenarios: r.DriftedScenarios()}
		if vs.DriftedScenarios == nil {
			vs.DriftedScenarios = []string{}
		}
		cs.Versions = append(cs.Versions, vs)
	}
	return cs
}

// WriteSummary writes drift.json and report.md (every engine's report, and
// the engines that could not be checked) under dir.
func WriteSummary(dir string, checks []CheckSummary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Summary{SchemaVersion: 1, Checks: checks}); err != nil {
		return fmt.Errorf("encode drift summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write drift summary: %w", err)
	}
	var md strings.Builder
	for i, c := range checks {
		if i > 0 {
			md.WriteString("\n")
		}
		if c.Error != "" {
			fmt.Fprintf(&md, "## readme2demo drift: %s\n\n**Not checked:** %s\n", c.Engine, mdEscape(c.Error))
			continue
		}
		md.WriteString(c.Report)
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// ReadSummary reads dir/drift.json.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("read drift summary: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read drift summary %s: %w", filepath.Join(dir, SummaryFile), err)
	}
	if s.SchemaVersion != 1 {
		return nil, fmt.Errorf("read drift summary %s: schema_version %d, want 1", filepath.Join(dir, SummaryFile), s.SchemaVersion)
	}
	return &s, nil
}

// ErrNotVerified is returned by Verified when a drift run does not show a
// version free of drift.
var ErrNotVerified = errors.New("version not verified by drift")

// Verified returns the check and version run of engine at version in s,
// when that run showed no drift; otherwise an error wrapping
// ErrNotVerified that says what the run showed.
func (s *Summary) Verified(engine, version string) (*CheckSummary, *VersionSummary, error) {
	for i := range s.Checks {
		c := &s.Checks[i]
		if c.Engine != engine {
			continue
		}
		if c.Error != "" {
			return nil, nil, fmt.Errorf("%s %s: %w: the check could not run: %s", engine, version, ErrNotVerified, c.Error)
		}
		for j := range c.Versions {
			v := &c.Versions[j]
			if v.Version != version {
				continue
			}
			if v.Drifted {
				return nil, nil, fmt.Errorf("%s %s: %w: it drifted (%s)", engine, version, ErrNotVerified, v.FirstChangedField)
			}
			return c, v, nil
		}
	}
	return nil, nil, fmt.Errorf("%s %s: %w: the drift run did not check it", engine, version, ErrNotVerified)
}

// Markdown is one engine's report as GitHub markdown (the drift issue's and
// the pin bump pull request's body).
func Markdown(o *Outcome) string {
	var b strings.Builder
	section := func(rep *Report, caps Capabilities) {
		fmt.Fprintf(&b, "### %s %s (%s)\n\n", rep.Engine, rep.Version, rep.Mode)
		if !rep.Drifted() {
			fmt.Fprintf(&b, "No drift: every expectation holds in %d scenarios (%s).\n\n", len(rep.Results), strings.Join(scenarioNames(rep), ", "))
			return
		}
		fmt.Fprintf(&b, "**Drift.** %s\n\n", mdEscape(rep.FirstLine()))
		fmt.Fprintf(&b, "Capabilities: exit codes stated: %s; agent version stated: %s.\n\n", yesNo(caps.ExitCodes), yesNo(caps.AgentVersion))
		for _, d := range rep.Differences() {
			fmt.Fprintf(&b, "- %s\n", mdEscape(d))
		}
		fmt.Fprintf(&b, "\nFixture candidates: `fixture-candidates/%s/real-%s-{%s}.jsonl` in the workflow artifact.\n\n",
			rep.Engine, rep.Version, strings.Join(rep.DriftedScenarios(), ","))
	}
	fmt.Fprintf(&b, "## readme2demo drift: %s\n\n", o.Engine)
	if o.Pinned != "" {
		fmt.Fprintf(&b, "Pinned: %s.\n\n", o.Pinned)
	}
	section(o.Report, o.Caps)
	if o.Against != nil {
		section(o.Against, o.AgCaps)
		var d bytes.Buffer
		WriteDiff(&d, o.Against, o.Report)
		b.WriteString("<details><summary>Command logs side by side</summary>\n\n```text\n")
		b.WriteString(strings.ReplaceAll(d.String(), "```", "'''"))
		b.WriteString("\n```\n\n</details>\n\n")
	}
	b.WriteString("How to bump a pinned CLI safely: docs/drift.md.\n")
	return b.String()
}

func scenarioNames(rep *Report) []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Scenario)
	}
	return out
}
