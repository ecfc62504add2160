package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghissue"
	"github.com/readme2demo/readme2demo/internal/mockllm"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

func runDriftCLI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return vars[k] }
	code := run(context.Background(), append([]string{"drift"}, args...), env{getenv: getenv, stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// withCommand replaces the program runner (npm) for one test.
func withCommand(t *testing.T, c drift.Commander) {
	old := driftDeps.command
	driftDeps.command = c
	t.Cleanup(func() { driftDeps.command = old })
}

func TestDriftUsageErrors(t *testing.T) {
	noNpm := func(context.Context, string, ...string) ([]byte, error) {
		t.Error("npm must not run")
		return nil, nil
	}
	withCommand(t, noNpm)
	for _, tc := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"--host", "extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--host", "--issue", "nope"}, nil, `--issue wants OWNER/REPO, got "nope"`},
		{[]string{"--host", "--issue", "o/r"}, nil, "--issue needs GITHUB_TOKEN"},
		{[]string{"--host", "--engine", "openhands"}, nil, `look up engine "openhands": engine cannot be driven by the mock LLM`},
		{[]string{"--host", "--cli-version", "2.x"}, nil, `"2.x" is not a version like 1.2.3, "pinned" or "latest"`},
		{[]string{"--host", "--install=false", "--cli-dir", "/nonexistent", "--cli-version", "1.2.3"}, nil,
			"find claude-code 1.2.3: not installed at /nonexistent/claude-code-1.2.3/node_modules/.bin/claude; install it with: npm install --prefix /nonexistent/claude-code-1.2.3 @anthropic-ai/claude-code@1.2.3"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, errOut := runDriftCLI(t, tc.vars, append(tc.args, "--out", out)...)
			assert.Check(t, is.Equal(code, exitcode.Usage))
			assert.Check(t, is.Contains(errOut, tc.want))
			assert.Check(t, is.Equal(stdout, ""))
			_, err := os.Stat(out)
			assert.Check(t, os.IsNotExist(err), "nothing is written when nothing ran")
		})
	}
}

func TestDriftLatestResolvesThroughNpm(t *testing.T) {
	var calls []string
	withCommand(t, func(_ context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " "))
		return []byte("3.4.5\n"), nil
	})
	code, _, errOut := runDriftCLI(t, nil, "--host", "--install=false", "--cli-dir", "/nonexistent", "--cli-version", "latest")
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(errOut, "find claude-code 3.4.5: not installed"))
	assert.Check(t, is.DeepEqual(calls, []string{"npm view @anthropic-ai/claude-code version"}))
}

// fakeCLI installs, as version, a "claude" that ignores the mock and prints
// the pinned CLI's success capture: a CLI whose transcripts drifted.
func fakeCLI(t *testing.T, dir, version string) {
	t.Helper()
	bin := mockllm.ClaudeBinary(dir, version)
	assert.NilError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	fixture, err := filepath.Abs("../../testdata/fixtures/claude-code/real-" + mockllm.ClaudePinnedVersion + "-success.jsonl")
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\ncat '"+fixture+"'\n"), 0o755))
}

// fakeIssues is the smallest GitHub issues API: list (empty), open.
type fakeIssues struct {
	mu     sync.Mutex
	opened []map[string]any
}

func (f *fakeIssues) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer tok" {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"message":"Bad credentials"}`)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/repos/o/r/issues":
		io.WriteString(w, "[]")
	case r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/issues":
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		f.opened = append(f.opened, req)
		f.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"number":7,"html_url":"https://github.test/o/r/issues/7"}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"message":"Not Found"}`)
	}
}

func TestDriftSavesCandidatesAndOpensTheIssue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a (fake) CLI against the mock four times; skipped with -short")
	}
	cliDir := t.TempDir()
	fakeCLI(t, cliDir, "7.7.7")
	fakeCLI(t, cliDir, "7.7.8")
	gh := &fakeIssues{}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runDriftCLI(t, map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_API_URL": srv.URL},
		"--host", "--install=false", "--cli-dir", cliDir, "--cli-version", "7.7.7", "--against", "7.7.8", "--out", out, "--issue", "o/r")
	assert.Check(t, is.Equal(code, exitcode.Failed), errOut)
	assert.Check(t, is.Contains(errOut, `readme2demo drift: claude-code 7.7.7: first changed field: agent_version in scenario success: want "7.7.7", got "2.1.332"`))
	assert.Check(t, is.Contains(errOut, "opened issue #7 https://github.test/o/r/issues/7"))
	assert.Check(t, is.Contains(stdout, "DRIFT: claude-code 7.7.7 differs from what the parser expects"))
	assert.Check(t, is.Contains(stdout, "the CLI ended before it could be killed mid-command"))
	assert.Check(t, is.Contains(stdout, "== command logs side by side: claude-code 7.7.8 | 7.7.7"))
	assert.Check(t, is.Contains(stdout, "-- scenario failures: identical"))

	for _, sc := range mockllm.ClaudeScenarioNames {
		_, err := os.Stat(drift.CandidatePath(out, "claude-code", "7.7.7", sc))
		assert.Check(t, err, "fixture candidate for %s", sc)
		_, err = os.Stat(filepath.Join(out, "claude-code-7.7.7", sc+".command_log.json"))
		assert.Check(t, err)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	assert.NilError(t, err)

	assert.Assert(t, is.Len(gh.opened, 1))
	assert.Check(t, is.Equal(gh.opened[0]["title"], "Agent CLI drift: claude-code 7.7.7"))
	body, _ := gh.opened[0]["body"].(string)
	assert.Check(t, strings.HasPrefix(body, ghissue.Marker("drift claude-code")+"\n"))
	assert.Check(t, is.Contains(body, string(report)))
}

// cliOrSkip finds an npm-installed Claude Code version: FAIL in CI, skip elsewhere.
func cliOrSkip(t *testing.T, version string) string {
	t.Helper()
	dir, err := filepath.Abs(mockllm.CLIDir(os.Getenv, "../.."))
	assert.NilError(t, err)
	if bin := mockllm.ClaudeBinary(dir, version); !fileExists(bin) {
		msg := "claude-code " + version + " not installed at " + bin + "; install it with: " + mockllm.ClaudeInstallCommand(dir, version)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The acceptance run: the pinned Claude Code passes every scenario; the last
// 1.0.x release differs in exactly what it does not state, without a crash;
// the two command logs are diffed side by side. Real CLIs, on the host.
func TestDriftRealClaudeCodeOnHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real CLIs; skipped with -short")
	}
	const old = "1.0.128"
	cliDir := cliOrSkip(t, mockllm.ClaudePinnedVersion)
	cliOrSkip(t, old)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runDriftCLI(t, nil, "--host", "--install=false", "--cli-dir", cliDir,
		"--cli-version", old, "--against", "pinned", "--out", out)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	assert.Check(t, is.Equal(code, exitcode.Failed))
	for _, want := range []string{
		"no drift: claude-code 2.1.332 matches every expectation in 4 scenarios",
		"DRIFT: claude-code 1.0.128 differs from what the parser expects",
		`first changed field: agent_version in scenario success: want "1.0.128", got null [agent_version missing]`,
		"capabilities: exit codes stated: no; agent version stated: no",
		`  - agent_version missing: want "1.0.128", got null (4 fields) — in success, failures, bigoutput, killed`,
		"  - exit codes not stated: failed commands have status failed and exit_code null (5 fields) — in failures",
		"== command logs side by side: claude-code 2.1.332 | 1.0.128",
	} {
		assert.Check(t, is.Contains(stdout, want))
	}
	assert.Check(t, is.Contains(errOut, `claude-code 1.0.128: first changed field: agent_version`))
	assert.Check(t, !strings.Contains(errOut, "claude-code 2.1.332: first changed field"), "the pinned CLI drifted")
	for _, sc := range mockllm.ClaudeScenarioNames {
		assert.Check(t, fileExists(drift.CandidatePath(out, "claude-code", old, sc)), sc)
		assert.Check(t, !fileExists(drift.CandidatePath(out, "claude-code", mockllm.ClaudePinnedVersion, sc)), sc)
	}
}

// The product path: the pinned CLI in the hardened sandbox, through the same
// pipeline as `readme2demo run`, with the mock on the bridge gateway.
func TestDriftPinnedClaudeCodeInDocker(t *testing.T) {
	_, img := sandboxtest.Docker(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runDriftCLI(t, nil, "--image", img, "--out", out)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	assert.Check(t, is.Equal(code, exitcode.OK))
	assert.Check(t, is.Contains(stdout, "no drift: claude-code 2.1.332 matches every expectation in 4 scenarios"))
	assert.Check(t, is.Contains(stdout, "scenario killed (docker "+img+"): 16 fields, 0 differ"))
	assert.Check(t, fileExists(filepath.Join(out, "claude-code-2.1.332", "failures.jsonl")))
	assert.Check(t, !fileExists(filepath.Join(out, "fixture-candidates")))
}
