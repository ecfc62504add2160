package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/readme2demo/readme2demo/internal/agentcli/clitest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

func runDriftCLI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runDriftWith(t, nil, vars, args...)
}

// runDriftWith is runDriftCLI with the drift verb's outside world replaced
// by deps (nil: the real one).
func runDriftWith(t *testing.T, deps *driftDeps, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return vars[k] }
	code := run(context.Background(), append([]string{"drift"}, args...), env{getenv: getenv, stdout: &out, stderr: &errb, drift: deps})
	return code, out.String(), errb.String()
}

// withCommand is the real outside world with c as the program runner (npm).
func withCommand(c agentcli.Commander) *driftDeps {
	d := realDriftDeps()
	d.command = c
	return &d
}

func TestDriftUsageErrors(t *testing.T) {
	t.Parallel()
	noNpm := func(context.Context, string, ...string) ([]byte, error) {
		t.Error("npm must not run")
		return nil, nil
	}
	deps := withCommand(noNpm)
	for _, tc := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"--host", "extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--host", "--issue", "nope"}, nil, `--issue wants OWNER/REPO, got "nope"`},
		{[]string{"--host", "--issue", "o/r"}, nil, "--issue needs GITHUB_TOKEN"},
		{[]string{"--host", "--engine", "markdown"}, nil, `look up engine "markdown": engine cannot be driven by the mock LLM (drift supports: claude-code, codex, gemini, openhands)`},
		{[]string{"--host", "--engine", "all", "--cli-version", "1.2.3"}, nil, `--engine all takes --cli-version and --against "pinned" or "latest" only`},
		{[]string{"--host", "--cli-version", "2.x"}, nil, `"2.x" is not a version like 1.2.3, "pinned" or "latest"`},
		{[]string{"--host", "--install=false", "--cli-dir", "/nonexistent", "--cli-version", "1.2.3"}, nil,
			"find claude-code 1.2.3: not installed at /nonexistent/claude-code-1.2.3/node_modules/.bin/claude; install it with: npm install --prefix /nonexistent/claude-code-1.2.3 @anthropic-ai/claude-code@1.2.3"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, errOut := runDriftWith(t, deps, tc.vars, append(tc.args, "--out", out)...)
			assert.Check(t, is.Equal(code, exitcode.Usage))
			assert.Check(t, is.Contains(errOut, tc.want))
			assert.Check(t, is.Equal(stdout, ""))
			_, err := os.Stat(out)
			assert.Check(t, os.IsNotExist(err), "nothing is written when nothing ran")
		})
	}
}

func TestDriftLatestResolvesThroughTheRegistry(t *testing.T) {
	t.Parallel()
	var paths []string
	npm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		io.WriteString(w, `{"name":"x","dist-tags":{"latest":"3.4.5"},"versions":{"3.4.5":{}}}`)
	}))
	defer npm.Close()
	code, _, errOut := runDriftCLI(t, map[string]string{"npm_config_registry": npm.URL},
		"--host", "--install=false", "--cli-dir", "/nonexistent", "--cli-version", "latest", "--engine", "codex",
		"--out", filepath.Join(t.TempDir(), "out"))
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(errOut, "find codex 3.4.5: not installed at /nonexistent/codex-3.4.5/node_modules/.bin/codex"))
	assert.Check(t, is.DeepEqual(paths, []string{"/@openai%2fcodex"}))
}

// fakeCLI installs, as version, a "claude" that ignores the mock and prints
// the pinned CLI's success capture: a CLI whose transcripts drifted.
func fakeCLI(t *testing.T, dir, version string) {
	t.Helper()
	cli, err := agentcli.Lookup("claude-code")
	assert.NilError(t, err)
	bin := cli.Binary(dir, version)
	assert.NilError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	fixture, err := filepath.Abs("../../testdata/fixtures/claude-code/real-2.1.332-success.jsonl")
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

	for _, sc := range scriptedllm.CaptureScenarioNames {
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
	assert.Check(t, strings.HasPrefix(body, ghapi.Marker("issue", "drift claude-code")+"\n"))
	assert.Check(t, is.Contains(body, string(report)))
}

// cliOrSkip finds an installed version of an engine's CLI (clitest.Require:
// a long test, failing in CI when the version is missing) and returns the
// directory CLI versions are installed under.
func cliOrSkip(t *testing.T, engine, version string) string {
	t.Helper()
	_, dir, _ := clitest.Require(t, engine, version, "../..")
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
	pin := agentcli.ClaudeCodeVersion
	cliDir := cliOrSkip(t, "claude-code", pin)
	cliOrSkip(t, "claude-code", old)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runDriftCLI(t, nil, "--host", "--install=false", "--cli-dir", cliDir,
		"--cli-version", old, "--against", "pinned", "--out", out)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	assert.Check(t, is.Equal(code, exitcode.Failed))
	for _, want := range []string{
		"no drift: claude-code " + pin + " matches every expectation in 4 scenarios",
		"DRIFT: claude-code 1.0.128 differs from what the parser expects",
		`first changed field: agent_version in scenario success: want "1.0.128", got null [agent_version missing]`,
		"capabilities: exit codes stated: no; agent version stated: no",
		`  - agent_version missing: want "1.0.128", got null (4 fields) — in success, failures, bigoutput, killed`,
		"  - exit codes not stated: failed commands have status failed and exit_code null (5 fields) — in failures",
		"== command logs side by side: claude-code " + pin + " | 1.0.128",
	} {
		assert.Check(t, is.Contains(stdout, want))
	}
	assert.Check(t, is.Contains(errOut, `claude-code 1.0.128: first changed field: agent_version`))
	assert.Check(t, !strings.Contains(errOut, "claude-code "+pin+": first changed field"), "the pinned CLI drifted")
	for _, sc := range scriptedllm.CaptureScenarioNames {
		assert.Check(t, fileExists(drift.CandidatePath(out, "claude-code", old, sc)), sc)
		assert.Check(t, !fileExists(drift.CandidatePath(out, "claude-code", pin, sc)), sc)
	}
	sum, err := drift.ReadSummary(out)
	assert.NilError(t, err)
	_, _, err = sum.Verified("claude-code", old)
	assert.Check(t, errors.Is(err, drift.ErrNotVerified))
	_, v, err := sum.Verified("claude-code", pin)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(v.Dir, "claude-code-"+pin))
}

// The product path: the pinned CLI in the hardened sandbox, through the same
// pipeline as `readme2demo run`, with the mock on the bridge gateway.
func TestDriftPinnedClaudeCodeInDocker(t *testing.T) {
	_, img := sandboxtest.Docker(t)
	out := filepath.Join(t.TempDir(), "out")
	pin := agentcli.ClaudeCodeVersion
	code, stdout, errOut := runDriftCLI(t, nil, "--image", img, "--out", out)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	assert.Check(t, is.Equal(code, exitcode.OK))
	assert.Check(t, is.Contains(stdout, "no drift: claude-code "+pin+" matches every expectation in 4 scenarios"))
	assert.Check(t, is.Contains(stdout, "scenario killed (docker "+img+"): 16 fields, 0 differ"))
	assert.Check(t, fileExists(filepath.Join(out, "claude-code-"+pin, "failures.jsonl")))
	assert.Check(t, !fileExists(filepath.Join(out, "fixture-candidates")))
}

// withParser is the real outside world with p as the engine lookup drift
// parses with.
func withParser(p func(string) (engines.AgentEngine, error)) *driftDeps {
	d := realDriftDeps()
	d.parser = p
	return &d
}

// alteredParser is an engine's real parser with one deliberate change: a
// test double standing in for a parser that no longer reads the CLI right.
type alteredParser struct {
	engines.AgentEngine
	alter func(*commandlog.Log)
}

func (a alteredParser) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	l, err := a.AgentEngine.ParseTranscript(r)
	if err == nil {
		a.alter(l)
	}
	return l, err
}

// alteredMerger is an alteredParser of an engine that merges session files:
// the merged log is altered too.
type alteredMerger struct{ alteredParser }

func (a alteredMerger) MergeSession(l *commandlog.Log, session io.Reader) (int, error) {
	n, err := a.AgentEngine.(engines.SessionMerger).MergeSession(l, session)
	if err == nil {
		a.alter(l)
	}
	return n, err
}

// alter wraps eng's parser with a deliberate change.
func alter(eng engines.AgentEngine, change func(*commandlog.Log)) engines.AgentEngine {
	a := alteredParser{eng, change}
	if _, ok := eng.(engines.SessionMerger); ok {
		return alteredMerger{a}
	}
	return a
}

// The acceptance runs of codex and gemini: the pinned REAL CLI passes every
// scenario on the host and in the sandbox (through the same pipeline as
// `readme2demo run`); with a deliberately altered parser the same check
// fails and names the first changed field.
func TestDriftPinnedCodexAndGemini(t *testing.T) {
	for _, engine := range []string{"codex", "gemini"} {
		cli, err := agentcli.Lookup(engine)
		assert.NilError(t, err)
		pin := cli.Pinned
		for _, mode := range []string{"host", "docker", "host, altered parser"} {
			t.Run(engine+"/"+mode, func(t *testing.T) {
				if testing.Short() {
					t.Skip("runs a real CLI; skipped with -short")
				}
				out := filepath.Join(t.TempDir(), "out")
				args := []string{"--engine", engine, "--out", out}
				if mode == "docker" {
					_, img := sandboxtest.Docker(t)
					args = append(args, "--image", img)
				} else {
					args = append(args, "--host", "--install=false", "--cli-dir", cliOrSkip(t, engine, pin))
				}
				altered := strings.Contains(mode, "altered")
				var deps *driftDeps
				if altered {
					// The parser loses the exit code of every failed command.
					deps = withParser(func(name string) (engines.AgentEngine, error) {
						real, err := engines.Lookup(name)
						if err != nil {
							return nil, err
						}
						return alter(real, func(l *commandlog.Log) {
							for i := range l.Commands {
								if c := &l.Commands[i]; c.ExitCode != nil && *c.ExitCode != 0 {
									c.ExitCode = nil
								}
							}
						}), nil
					})
				}
				code, stdout, errOut := runDriftWith(t, deps, nil, args...)
				t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
				sum, err := drift.ReadSummary(out)
				assert.NilError(t, err)
				_, _, verr := sum.Verified(engine, pin)
				if altered {
					assert.Check(t, is.Equal(code, exitcode.Failed))
					assert.Check(t, is.Contains(errOut, "readme2demo drift: "+engine+" "+pin+
						": first changed field: commands[0].exit_code in scenario failures (false): want 1, got null [exit codes not stated]"))
					assert.Check(t, errors.Is(verr, drift.ErrNotVerified))
					assert.Check(t, fileExists(drift.CandidatePath(out, engine, pin, "failures")))
					return
				}
				assert.Check(t, is.Equal(code, exitcode.OK))
				assert.Check(t, is.Contains(stdout, "no drift: "+engine+" "+pin+" matches every expectation in 4 scenarios"))
				assert.Check(t, verr)
				for _, sc := range scriptedllm.CaptureScenarioNames {
					assert.Check(t, fileExists(filepath.Join(out, engine+"-"+pin, sc+".jsonl")), sc)
				}
				assert.Check(t, !fileExists(filepath.Join(out, "fixture-candidates")))
				report, err := os.ReadFile(filepath.Join(out, "report.md"))
				assert.NilError(t, err)
				assert.Check(t, is.Contains(string(report), "No drift: every expectation holds in 4 scenarios"))
			})
		}
	}
}

// installReplayCLI installs, as version of engine's CLI, a program that
// ignores the mock and prints a committed capture of scenario: a CLI whose
// every run looks the same.
func installReplayCLI(t *testing.T, dir, engine, version, fixture string) {
	t.Helper()
	cli, err := agentcli.Lookup(engine)
	assert.NilError(t, err)
	bin := cli.Binary(dir, version)
	assert.NilError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	abs, err := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", engine, fixture))
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\ncat '"+abs+"'\n"), 0o755))
}

// --engine all checks every scheduled engine in turn, reports each, and
// one that cannot run does not stop the others.
func TestDriftAllEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs (fake) CLIs against the mock; skipped with -short")
	}
	cliDir := t.TempDir()
	installReplayCLI(t, cliDir, "claude-code", agentcli.ClaudeCodeVersion, "real-2.1.332-success.jsonl")
	installReplayCLI(t, cliDir, "codex", agentcli.CodexVersion, "real-0.171.0-success.jsonl")
	// gemini is not installed
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, errOut := runDriftCLI(t, nil, "--engine", "all", "--host", "--install=false", "--cli-dir", cliDir, "--out", out)
	assert.Check(t, is.Equal(code, exitcode.Failed), errOut)
	assert.Check(t, is.Contains(stdout, "DRIFT: claude-code "+agentcli.ClaudeCodeVersion))
	assert.Check(t, is.Contains(stdout, "DRIFT: codex "+agentcli.CodexVersion))
	assert.Check(t, is.Contains(errOut, "readme2demo drift: find gemini "+agentcli.GeminiCLIVersion+": not installed"))
	// a replayed success transcript is right for success and wrong for failures
	assert.Check(t, is.Contains(errOut, "readme2demo drift: codex "+agentcli.CodexVersion+": first changed field: commands in scenario failures: want 6, got 3"))
	sum, err := drift.ReadSummary(out)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(sum.Checks, 3))
	var engines []string
	for _, c := range sum.Checks {
		engines = append(engines, c.Engine)
	}
	assert.Check(t, is.DeepEqual(engines, []string{"claude-code", "codex", "gemini"}))
	assert.Check(t, sum.Checks[1].Drifted)
	assert.Check(t, is.DeepEqual(sum.Checks[1].Versions[0].DriftedScenarios, []string{"bigoutput", "failures", "killed"}))
	assert.Check(t, is.Contains(sum.Checks[2].Error, "not installed"))
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	assert.NilError(t, err)
	for _, want := range []string{"## readme2demo drift: claude-code", "## readme2demo drift: codex", "## readme2demo drift: gemini\n\n**Not checked:** find gemini"} {
		assert.Check(t, is.Contains(string(report), want))
	}
}
