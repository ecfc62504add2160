package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/pinbump"
)

func runPinCLI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"pin"}, args...), env{getenv: func(k string) string { return vars[k] }, stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// pinRepo copies the files that hold pins into a temporary checkout.
func pinRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copied := map[string]bool{}
	for _, l := range pinbump.Locations() {
		if copied[l.File] {
			continue
		}
		copied[l.File] = true
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(l.File)))
		assert.NilError(t, err)
		p := filepath.Join(root, filepath.FromSlash(l.File))
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, b, 0o644))
	}
	return root
}

// assertUntouched fails unless root holds exactly what pinRepo copied
// there: no file edited, none added.
func assertUntouched(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		assert.NilError(t, err)
		got, err := os.ReadFile(p)
		assert.NilError(t, err)
		want, err := os.ReadFile(filepath.Join("..", "..", rel))
		assert.Check(t, err == nil && bytes.Equal(got, want), "%s was edited or added", rel)
		return nil
	})
	assert.NilError(t, err)
}

func TestPinCheck(t *testing.T) {
	code, stdout, _ := runPinCLI(t, nil, "--check", "--root", "../..")
	assert.Check(t, is.Equal(code, exitcode.OK))
	assert.Check(t, is.Contains(stdout, "every copy of every pin agrees"))

	root := pinRepo(t)
	ci := filepath.Join(root, ".ci", "run")
	b, err := os.ReadFile(ci)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(ci, bytes.Replace(b, []byte("R2D_CODEX_VERSION="+agentcli.CodexVersion), []byte("R2D_CODEX_VERSION=0.170.0"), 1), 0o644))
	code, _, errOut := runPinCLI(t, nil, "--check", "--root", root)
	assert.Check(t, is.Equal(code, exitcode.Failed))
	assert.Check(t, is.Contains(errOut, ".ci/run: the codex pin is 0.170.0, internal/agentcli/pins.go says "+agentcli.CodexVersion))
}

func TestPinUsageErrors(t *testing.T) {
	root := pinRepo(t) // one checkout: each case checks that it edited nothing
	for _, tc := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"--engine", "markdown", "--version", "1.2.3"}, nil, "--engine: look up agent CLI \"markdown\""},
		{[]string{"--engine", "codex", "--version", "0.172"}, nil, `--version wants a version like 1.2.3 or "latest", got "0.172"`},
		{[]string{"--engine", "codex", "--version", "0.172.0", "--pull-request", "o"}, nil, `--pull-request wants OWNER/REPO, got "o"`},
		{[]string{"--engine", "codex", "--version", "0.172.0", "--pull-request", "o/r"}, nil, "--pull-request needs GITHUB_TOKEN"},
		{[]string{"--engine", "codex", "--version", "0.172.0", "extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--engine", "codex", "--version", "0.172.0", "--fixtures", "/nonexistent"}, nil, "read drift summary"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, errOut := runPinCLI(t, tc.vars, append(tc.args, "--root", root)...)
			assert.Check(t, is.Equal(code, exitcode.Usage))
			assert.Check(t, is.Contains(errOut, tc.want))
			assert.Check(t, is.Equal(stdout, ""))
			assertUntouched(t, root)
		})
	}
}

func TestPinLatestEditsEveryCopy(t *testing.T) {
	npm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"dist-tags":{"latest":"0.99.0"}}`)
	}))
	defer npm.Close()
	root := pinRepo(t)
	code, stdout, errOut := runPinCLI(t, map[string]string{"npm_config_registry": npm.URL}, "--engine", "gemini", "--version", "latest", "--root", root)
	assert.Check(t, is.Equal(code, exitcode.OK), errOut)
	assert.Check(t, is.Contains(stdout, "gemini: pin "+agentcli.GeminiCLIVersion+" -> 0.99.0"))
	for _, f := range []string{"internal/agentcli/pins.go", ".ci/run", "action.yml", "README.md", "docs/engines/gemini.md"} {
		assert.Check(t, is.Contains(stdout, "  pin     "+f+"\n"))
	}
	assert.Check(t, is.Contains(stdout, "next: capture fixtures of the new version"))
	found, err := pinbump.Read(root, "gemini")
	assert.NilError(t, err)
	for _, f := range found {
		assert.Check(t, is.DeepEqual(f.Versions, []string{"0.99.0"}), f.File)
	}
	code, stdout, _ = runPinCLI(t, nil, "--engine", "gemini", "--version", "0.99.0", "--root", root)
	assert.Check(t, is.Equal(code, exitcode.OK))
	assert.Check(t, is.Equal(stdout, "gemini is already pinned to 0.99.0: nothing to do\n"))
}

// The workflow's step after a drift run without drift: the pin moves, the
// run's transcripts become fixtures with goldens, and ONE pull request
// carries it, updated (not duplicated) by the next run.
func TestPinOpensThenUpdatesTheBumpPullRequest(t *testing.T) {
	root := pinRepo(t)
	out := t.TempDir()
	scenarios := []string{"success", "failures", "bigoutput", "killed"}
	assert.NilError(t, os.MkdirAll(filepath.Join(out, "codex-0.172.0"), 0o755))
	for _, sc := range scenarios {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "codex", "real-0.171.0-"+sc+".jsonl"))
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(filepath.Join(out, "codex-0.172.0", sc+".jsonl"), b, 0o644))
	}
	assert.NilError(t, drift.WriteSummary(out, []drift.CheckSummary{{Engine: "codex", Pinned: agentcli.CodexVersion,
		Versions: []drift.VersionSummary{{Version: "0.172.0", FirstChangedField: "no drift", Dir: "codex-0.172.0", Scenarios: scenarios}},
		Report:   "## readme2demo drift: codex\n\nNo drift: every expectation holds in 4 scenarios.\n"}}))

	gh := fakegithub.New("/api/v3/")
	gh.Token = "tok"
	defer gh.Close()
	head := gh.SeedBranch("o", "r", "main", map[string]string{"README.md": "# r\n"})
	vars := map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_API_URL": gh.URL, "GITHUB_SHA": head,
		"GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42"}
	args := []string{"--engine", "codex", "--version", "0.172.0", "--fixtures", out, "--pull-request", "o/r"}
	code, stdout, errOut := runPinCLI(t, vars, append(args, "--root", root)...)
	assert.Check(t, is.Equal(code, exitcode.OK), errOut)
	assert.Check(t, is.Contains(stdout, "  fixture testdata/golden/codex/real-0.172.0-killed.json\n"))
	assert.Check(t, is.Contains(stdout, "opened pull request #"))
	pulls := gh.Pulls("o", "r")
	assert.Assert(t, is.Len(pulls, 1))
	assert.Check(t, strings.HasPrefix(pulls[0].Body, ghapi.Marker("pr", "pin codex")))
	assert.Check(t, is.Contains(pulls[0].Body, "Workflow run (every transcript is in its artifact): https://github.example/o/r/actions/runs/42"))
	branch := gh.Branch("o", "r", "readme2demo/pin-codex")
	assert.Assert(t, branch != nil)
	assert.Check(t, is.DeepEqual(branch.Parents, []string{head}))
	files := gh.Files("o", "r", branch.SHA)
	assert.Check(t, is.Contains(files["internal/agentcli/pins.go"], `CodexVersion      = "0.172.0"`))
	assert.Check(t, files["testdata/fixtures/codex/real-0.172.0-failures.jsonl"] != "")

	// The next week's run of the same version, from a fresh checkout: the same PR, updated.
	root = pinRepo(t)
	code, _, errOut = runPinCLI(t, vars, args...) // without --root: the working directory is no checkout
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(errOut, "read pin copies"))
	code, stdout, errOut = runPinCLI(t, vars, append(args, "--root", root)...)
	assert.Check(t, is.Equal(code, exitcode.OK), errOut)
	assert.Check(t, is.Contains(stdout, "updated pull request #"))
	assert.Check(t, is.Len(gh.Pulls("o", "r"), 1))
}
