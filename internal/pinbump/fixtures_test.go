package pinbump_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/pinbump"
)

// Golden writes exactly what the engines' golden test expects: every
// committed real capture's golden is reproduced byte for byte.
func TestGoldenIsTheEnginesGolden(t *testing.T) {
	for _, engine := range []string{"claude-code", "codex", "gemini"} {
		matches, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "fixtures", engine, "real-*.jsonl"))
		assert.NilError(t, err)
		assert.Assert(t, len(matches) >= 4, engine)
		for _, fx := range matches {
			tr := must(os.ReadFile(fx))
			got, err := pinbump.Golden(engine, tr)
			assert.NilError(t, err)
			name := strings.TrimSuffix(filepath.Base(fx), ".jsonl") + ".json"
			want := must(os.ReadFile(filepath.Join(repoRoot, "testdata", "golden", engine, name)))
			assert.Check(t, is.Equal(string(got), string(want)), fx)
		}
	}
}

// driftOut lays out a drift run's output directory as `readme2demo drift`
// writes it, with the committed codex 0.171.0 captures as version's
// transcripts (codex does not name its version in them).
func driftOut(t *testing.T, version string, drifted bool) string {
	t.Helper()
	dir := t.TempDir()
	vdir := filepath.Join(dir, "codex-"+version)
	assert.NilError(t, os.MkdirAll(vdir, 0o755))
	scenarios := []string{"success", "failures", "bigoutput", "killed"}
	for _, sc := range scenarios {
		b := must(os.ReadFile(filepath.Join(repoRoot, "testdata", "fixtures", "codex", "real-0.171.0-"+sc+".jsonl")))
		assert.NilError(t, os.WriteFile(filepath.Join(vdir, sc+".jsonl"), b, 0o644))
		// and the rollout codex wrote beside it (a host capture keeps it)
		ro := must(os.ReadFile(filepath.Join(repoRoot, "testdata", "fixtures", "codex", "real-0.171.0-"+sc+".rollout.jsonl")))
		assert.NilError(t, os.WriteFile(filepath.Join(vdir, sc+".rollout.jsonl"), ro, 0o644))
	}
	first := "no drift"
	if drifted {
		first = "first changed field: commands[1].exit_code in scenario failures (exit 3): want 3, got null"
	}
	assert.NilError(t, drift.WriteSummary(dir, []drift.CheckSummary{{
		Engine: "codex", Pinned: "0.171.0", Drifted: drifted,
		Versions: []drift.VersionSummary{
			{Version: version, Mode: "docker readme2demo-base", Drifted: drifted, FirstChangedField: first, Dir: "codex-" + version, Scenarios: scenarios},
			{Version: "0.171.0", Mode: "docker readme2demo-base", FirstChangedField: "no drift", Dir: "codex-0.171.0", Scenarios: scenarios},
		},
		Report: "## readme2demo drift: codex\n\nNo drift: every expectation holds in 4 scenarios.\n",
	}}))
	return dir
}

func TestLocalBumpAddsTheVerifiedRunsFixtures(t *testing.T) {
	root := copyRepo(t)
	out := driftOut(t, "0.172.0", false)
	b, err := pinbump.Local(root, "codex", "0.172.0", out)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(b.From, "0.171.0"))
	assert.Check(t, is.Equal(b.To, "0.172.0"))
	assert.Check(t, is.Contains(b.Changed, "internal/agentcli/pins.go"))
	assert.Check(t, is.Contains(b.Changed, "action.yml"))
	// four transcripts and the four rollouts beside them, each with its golden
	assert.Check(t, is.Len(b.Fixtures, 16))
	for _, sc := range []string{"success", "failures", "bigoutput", "killed"} {
		fx := "testdata/fixtures/codex/real-0.172.0-" + sc + ".rollout.jsonl"
		gd := "testdata/golden/codex/real-0.172.0-" + sc + ".rollout.json"
		assert.Check(t, is.Contains(b.Fixtures, fx))
		assert.Check(t, is.Equal(string(must(os.ReadFile(filepath.Join(root, gd)))),
			string(must(os.ReadFile(filepath.Join(repoRoot, "testdata", "golden", "codex", "real-0.171.0-"+sc+".rollout.json"))))))
	}
	for _, sc := range []string{"success", "failures", "bigoutput", "killed"} {
		fx := pinbump.FixturePath("codex", "0.172.0", sc)
		gd := pinbump.GoldenPath("codex", "0.172.0", sc)
		assert.Check(t, is.Contains(b.Fixtures, fx))
		assert.Check(t, is.Contains(b.Fixtures, gd))
		assert.Check(t, is.Equal(string(must(os.ReadFile(filepath.Join(root, fx)))),
			string(must(os.ReadFile(filepath.Join(out, "codex-0.172.0", sc+".jsonl"))))))
		// The golden of a fixture that is byte for byte the 0.171.0 capture is the 0.171.0 golden.
		assert.Check(t, is.Equal(string(must(os.ReadFile(filepath.Join(root, gd)))),
			string(must(os.ReadFile(filepath.Join(repoRoot, pinbump.GoldenPath("codex", "0.171.0", sc)))))))
	}
	assert.Check(t, is.Contains(b.Report, "No drift"))

	// Already there: nothing to do.
	again, err := pinbump.Local(root, "codex", "0.172.0", out)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(again.From, again.To))
	assert.Check(t, is.Len(again.Changed, 0))
}

func TestLocalBumpRefusesAnUnverifiedVersion(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		out           func(t *testing.T) string
		want          string
	}{
		{"drifted", "0.172.0", func(t *testing.T) string { return driftOut(t, "0.172.0", true) },
			"codex 0.172.0: version not verified by drift: it drifted (first changed field: commands[1].exit_code"},
		{"another version", "0.173.0", func(t *testing.T) string { return driftOut(t, "0.172.0", false) },
			"codex 0.173.0: version not verified by drift: the drift run did not check it"},
		{"no drift run", "0.172.0", func(t *testing.T) string { return t.TempDir() }, "read drift summary"},
		{"a credential in a transcript", "0.172.0", func(t *testing.T) string {
			out := driftOut(t, "0.172.0", false)
			p := filepath.Join(out, "codex-0.172.0", "success.jsonl")
			b := must(os.ReadFile(p))
			assert.NilError(t, os.WriteFile(p, append(b, []byte(`{"type":"item.completed","item":{"type":"agent_message","text":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}}`+"\n")...), 0o644))
			return out
		}, "holds what looks like a credential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyRepo(t)
			before := read(t, "action.yml")
			_, err := pinbump.Local(root, "codex", tc.version, tc.out(t))
			assert.Check(t, is.ErrorContains(err, tc.want))
			if strings.Contains(tc.want, "not verified") {
				assert.Check(t, errors.Is(err, drift.ErrNotVerified))
			}
			assert.Check(t, is.Equal(string(must(os.ReadFile(filepath.Join(root, "action.yml")))), before), "nothing moved")
			_, err = os.Stat(filepath.Join(root, "testdata"))
			assert.Check(t, os.IsNotExist(err), "no fixture was written")
		})
	}
}

func TestOpenPRCarriesTheBumpAndTheReport(t *testing.T) {
	root := copyRepo(t)
	out := driftOut(t, "0.172.0", false)
	b, err := pinbump.Local(root, "codex", "0.172.0", out)
	assert.NilError(t, err)

	gh := fakegithub.New("/")
	defer gh.Close()
	base := gh.SeedBranch("o", "r", "main", map[string]string{"README.md": "# r\n"})
	svc, err := ghapi.New(ghapi.Config{APIURL: gh.URL, Sleep: func(context.Context, time.Duration) error { return nil }})
	assert.NilError(t, err)
	pr, err := pinbump.OpenPR(context.Background(), svc, ghapi.PRTarget{Owner: "o", Repo: "r", Base: "main"}, root, base, b,
		"https://github.example/o/r/actions/runs/9")
	assert.NilError(t, err)
	assert.Check(t, pr.Created)
	head := gh.Branch("o", "r", "readme2demo/pin-codex")
	assert.Assert(t, head != nil)
	assert.Check(t, strings.HasPrefix(head.Message, "codex: pin 0.172.0 (verified by drift)\n"))
	files := gh.Files("o", "r", head.SHA)
	for _, f := range append(b.Changed, b.Fixtures...) {
		assert.Check(t, is.Equal(files[f], string(must(os.ReadFile(filepath.Join(root, f))))), f)
	}
	pulls := gh.Pulls("o", "r")
	assert.Assert(t, is.Len(pulls, 1))
	body := pulls[0].Body
	assert.Check(t, strings.HasPrefix(body, ghapi.Marker("pr", "pin codex")+"\n## Bump codex `@openai/codex` 0.171.0 → 0.172.0"))
	for _, want := range []string{"**no drift**", "`testdata/golden/codex/real-0.172.0-failures.json`", "`action.yml`",
		"### How to review", "### readme2demo drift: codex", "Workflow run (every transcript is in its artifact): https://github.example/o/r/actions/runs/9"} {
		assert.Check(t, is.Contains(body, want))
	}
	assert.Check(t, is.Equal(pulls[0].Title, "codex: pin 0.172.0 (verified by drift)"))
}
