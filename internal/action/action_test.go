package action

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

// Canary secrets in the real shapes; they must never leave the process
// except inside ::add-mask:: lines.
var (
	canaryAnthropic = "sk-ant-api03-" + strings.Repeat("Zq7", 31) + "AA"
	canaryGitHub    = "ghs_" + strings.Repeat("Tk9x", 9)
)

// harness is one fake runner: files, event payload, GitHub and pipeline.
type harness struct {
	t        *testing.T
	env      map[string]string
	gh       *fakegithub.Server
	pipeline pipelineFunc
	calls    atomic.Int32
	mutate   func(*commandlog.Log)
}

func newHarness(t *testing.T, eventFile string) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, gh: fakegithub.New("/api/v3/")}
	t.Cleanup(h.gh.Close)
	h.gh.Token = canaryGitHub
	ws := filepath.Join(dir, "workspace")
	assert.NilError(t, os.MkdirAll(ws, 0o755))
	h.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"GITHUB_WORKSPACE":    ws,
		"RUNNER_TEMP":         filepath.Join(dir, "runner-temp"),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_REPOSITORY":   "acme/demo",
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_API_URL":      h.gh.URL,
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_WORKFLOW":     "readme-check",
		"GITHUB_JOB":          "readme",
		"INPUT_GITHUB_TOKEN":  canaryGitHub,
		"ANTHROPIC_API_KEY":   canaryAnthropic,
	}
	if eventFile != "" {
		abs, err := filepath.Abs(filepath.Join("testdata", eventFile))
		assert.NilError(t, err)
		h.env["GITHUB_EVENT_PATH"] = abs
	}
	h.pipeline = func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
		h.calls.Add(1)
		// The container must never see the GitHub token.
		assert.Check(t, is.Equal(cfg.Getenv("INPUT_GITHUB_TOKEN"), ""))
		assert.Check(t, is.Equal(cfg.Getenv("GITHUB_TOKEN"), ""))
		f, err := os.Open("testdata/command_log_failed.json")
		assert.NilError(t, err)
		defer f.Close()
		log, err := commandlog.Decode(f)
		assert.NilError(t, err)
		// A leak the pipeline missed: the report must still not show it.
		log.Commands[2].Output += "ANTHROPIC_API_KEY=" + canaryAnthropic + "\n"
		if h.mutate != nil {
			h.mutate(log)
		}
		assert.NilError(t, os.MkdirAll(cfg.OutDir, 0o755))
		path := filepath.Join(cfg.OutDir, "command_log.json")
		var buf bytes.Buffer
		assert.NilError(t, commandlog.Encode(&buf, log))
		assert.NilError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return &pipeline.Result{Log: log, CommandLog: path}, nil
	}
	return h
}

type result struct {
	code    int
	stdout  string
	stderr  string
	outputs map[string]string
	summary string
}

func (h *harness) run() result {
	h.t.Helper()
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		if p := h.env[k]; p != "" {
			os.Remove(p) // each step gets fresh files
		}
	}
	a := &app{pipeline: h.pipeline, httpClient: http.DefaultClient,
		sleep: func(context.Context, time.Duration) error { return nil }}
	var stdout, stderr bytes.Buffer
	code := a.run(context.Background(), nil, func(k string) string { return h.env[k] }, &stdout, &stderr)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String(), outputs: map[string]string{}}
	if p := h.env["GITHUB_OUTPUT"]; p != "" {
		r.outputs = readOutputs(h.t, p)
	}
	if p := h.env["GITHUB_STEP_SUMMARY"]; p != "" {
		b, _ := os.ReadFile(p)
		r.summary = string(b)
	}
	return r
}

// readOutputs parses the GITHUB_OUTPUT file (name<<DELIM ... DELIM).
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	assert.NilError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		assert.Assert(t, ok, "bad output line %q", sc.Text())
		var val []string
		for sc.Scan() && sc.Text() != delim {
			val = append(val, sc.Text())
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

var allOutputs = []string{"outcome", "adjusted", "cost-usd", "turns", "duration-ms", "commands", "failed-commands", "command-log", "comment-url", "fix-url"}

// Acceptance: three runs on one PR post exactly one comment, set every
// output and keep the summary under 1 MiB.
func TestAcceptanceThreeRunsOneComment(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_FAIL_ON"] = "never"
	var urls []string
	for i := range 3 {
		if i == 2 { // the third run is huge: the caps must hold
			h.mutate = func(l *commandlog.Log) {
				for j := range 5000 {
					l.Commands = append(l.Commands, commandlog.Command{ID: "x", Command: strings.Repeat("make test ", 10),
						Output: strings.Repeat("FAIL: something broke\n", 50), Status: commandlog.StatusFailed, ExitCode: ptr(j%250 + 1)})
				}
			}
		}
		r := h.run()
		assert.Equal(t, r.code, exitcode.OK, "stderr: %s\nstdout: %s", r.stderr, r.stdout)
		for _, k := range allOutputs {
			_, ok := r.outputs[k]
			assert.Check(t, ok, "output %s not set", k)
		}
		assert.Check(t, is.Equal(r.outputs["outcome"], "failed"))
		assert.Check(t, is.Equal(r.outputs["adjusted"], "false"))
		assert.Check(t, is.Equal(r.outputs["cost-usd"], "0.0512"))
		assert.Check(t, is.Equal(r.outputs["turns"], "9"))
		assert.Check(t, is.Equal(r.outputs["duration-ms"], "61500"))
		assert.Check(t, is.Equal(r.outputs["command-log"], filepath.Join(h.env["RUNNER_TEMP"], "readme2demo", "command_log.json")))
		assert.Check(t, strings.HasPrefix(r.outputs["comment-url"], "https://github.example/acme/demo/pull/7#issuecomment-"))
		assert.Check(t, len(r.summary) > 0 && len(r.summary) < 1<<20, "summary is %d bytes", len(r.summary))
		assert.Check(t, is.Contains(r.summary, "The README did not work"))
		urls = append(urls, r.outputs["comment-url"])
	}
	assert.Check(t, is.Equal(h.calls.Load(), int32(3)))
	comments := h.gh.Comments("acme", "demo", 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Check(t, is.Equal(h.gh.Count("POST"), 1))
	assert.Check(t, is.Equal(h.gh.Count("PATCH"), 2))
	assert.Check(t, urls[0] == urls[1] && urls[1] == urls[2], "comment urls differ: %v", urls)
	assert.Check(t, len(comments[0].Body) <= 65536)
	assert.Check(t, is.Contains(comments[0].Body, "<!-- readme2demo:comment workflow=readme-check job=readme engine=claude-code readme=README.md -->"))
	assert.Check(t, is.Contains(comments[0].Body, "This report was shortened"))
}

func ptr(i int) *int { return &i }

func TestSecretsMaskedFirstAndNeverPublished(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	r := h.run()
	lines := strings.Split(r.stdout, "\n")
	assert.Assert(t, len(lines) >= 2)
	masked := map[string]bool{}
	for _, l := range lines[:2] {
		v, ok := strings.CutPrefix(l, "::add-mask::")
		assert.Check(t, ok, "line %q is not a mask", l)
		masked[v] = true
	}
	assert.Check(t, masked[canaryAnthropic] && masked[canaryGitHub], "masks: %v", masked)
	rest := strings.Join(lines[2:], "\n")
	for _, surface := range map[string]string{"log": rest + r.stderr, "summary": r.summary,
		"comment": h.gh.Comments("acme", "demo", 7)[0].Body, "outputs": strings.Join(mapValues(r.outputs), "\n")} {
		assert.Check(t, !strings.Contains(surface, canaryAnthropic))
		assert.Check(t, !strings.Contains(surface, canaryGitHub))
	}
	assert.Check(t, is.Contains(r.summary, "[REDACTED"))
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestAnnotationsForFailedCommands(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_WORKING_DIRECTORY"] = "docs"
	r := h.run()
	assert.Check(t, is.Contains(r.stdout, "::error file=docs/README.md,line=18,title=readme2demo - command failed::README command exited 2: make build\n"))
	assert.Check(t, is.Contains(r.stdout, "::error title=readme2demo - command failed::README command failed: curl -fsS http://localhost:8080/health\n"))
	assert.Check(t, !strings.Contains(r.stdout, "git clone"), "an ok command was annotated")
	// README links in the comment point at the PR head in the sub-directory.
	assert.Check(t, is.Contains(h.gh.Comments("acme", "demo", 7)[0].Body, "https://github.com/acme/demo/blob/4f2a9c1d0b7e6a5f4e3d2c1b0a9f8e7d6c5b4a39/docs/README.md#L18"))
}

// The Action's surfaces — annotations and notices in the job log, the job
// summary, the PR comment, and the same messages on stderr outside Actions
// — show every hidden, bidi, tag, separator and conceal character, C1
// control, OSC/DCS sequence and huge CSI parameter of a log visibly: the
// oracle finds none raw, and the log lines are kept as a golden.
func TestHostileTextOnEverySurface(t *testing.T) {
	for _, actions := range []bool{true, false} {
		h := newHarness(t, "event_pull_request.json")
		h.env["INPUT_FAIL_ON"] = "failed"
		if !actions {
			delete(h.env, "GITHUB_ACTIONS")
		}
		h.mutate = func(l *commandlog.Log) { *l = *termtexttest.Log() }
		r := h.run()
		var log []string
		for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
			if !strings.HasPrefix(line, "::add-mask::") && !strings.HasPrefix(line, "readme2demo: output ") && !strings.HasPrefix(line, "## readme2demo") {
				log = append(log, line)
			}
		}
		for _, p := range termtexttest.Problems(strings.Join(log, "\n"), termtexttest.Text) {
			t.Errorf("log (actions %v): %s", actions, p)
		}
		if actions {
			for _, p := range termtexttest.Problems(r.summary, termtexttest.Markdown) {
				t.Errorf("summary: %s", p)
			}
			for _, p := range termtexttest.Problems(h.gh.Comments("acme", "demo", 7)[0].Body, termtexttest.Markdown) {
				t.Errorf("comment: %s", p)
			}
			golden.Assert(t, strings.Join(log, "\n"), "hostile-text-log.txt")
		} else {
			golden.Assert(t, r.stderr, "hostile-text-stderr.txt")
		}
	}
}

func TestExitPolicy(t *testing.T) {
	tests := []struct {
		name     string
		outcome  commandlog.Outcome
		adjusted bool
		noCmds   bool
		failOn   string
		want     int
	}{
		{"failed, default", commandlog.OutcomeFailed, false, false, "", exitcode.Failed},
		{"blocked, default", commandlog.OutcomeBlocked, false, false, "", exitcode.Blocked},
		{"success, default", commandlog.OutcomeSuccess, false, false, "", exitcode.OK},
		{"adjusted, default", commandlog.OutcomeSuccess, true, false, "", exitcode.OK},
		{"adjusted, fail-on adjusted", commandlog.OutcomeSuccess, true, false, "failed,adjusted", exitcode.Failed},
		{"success without commands, default", commandlog.OutcomeSuccess, false, true, "", exitcode.Failed},
		{"success without commands, fail-on failed", commandlog.OutcomeSuccess, false, true, "failed", exitcode.OK},
		{"blocked, fail-on failed", commandlog.OutcomeBlocked, false, false, "failed", exitcode.OK},
		{"failed, never", commandlog.OutcomeFailed, false, false, "never", exitcode.OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "event_pull_request.json")
			h.env["INPUT_FAIL_ON"] = tc.failOn
			h.env["INPUT_COMMENT"] = "never"
			h.mutate = func(l *commandlog.Log) {
				l.Outcome, l.Adjusted = tc.outcome, tc.adjusted
				if tc.noCmds {
					l.Commands = nil
				}
			}
			r := h.run()
			assert.Check(t, is.Equal(r.code, tc.want), r.stdout)
			assert.Check(t, is.Equal(r.outputs["outcome"], string(tc.outcome)))
			assert.Check(t, is.Equal(h.gh.Count("GET")+h.gh.Count("POST"), 0), "comment: never still called GitHub")
		})
	}
}

// A keyless run with nothing to run is the no-commands case, not a failed
// README, nor a blocked one where its commands need what the sandbox
// lacks: it fails the step only when fail-on lists no-commands.
func TestNothingToRunIsNoCommands(t *testing.T) {
	for _, outcome := range []commandlog.Outcome{commandlog.OutcomeFailed, commandlog.OutcomeBlocked} {
		for _, tc := range []struct {
			failOn string
			want   int
		}{{"", exitcode.Failed}, {"failed", exitcode.OK}, {"no-commands", exitcode.Failed}, {"failed,blocked", exitcode.OK}} {
			t.Run(string(outcome)+" fail-on "+tc.failOn, func(t *testing.T) {
				h := newHarness(t, "event_pull_request.json")
				h.env["INPUT_FAIL_ON"] = tc.failOn
				h.env["INPUT_COMMENT"] = "never"
				h.mutate = func(l *commandlog.Log) {
					l.Engine, l.Outcome, l.Commands, l.Markers = "markdown", outcome, nil, nil
					l.OutcomeReason = "nothing to run: none of the 1 code blocks of README.md has a command to run on Linux (line 4: go code, not shell)"
					l.OutcomeCause = commandlog.CauseNothingToRun
				}
				r := h.run()
				assert.Check(t, is.Equal(r.code, tc.want), r.stdout)
				assert.Check(t, is.Equal(r.outputs["outcome"], string(outcome)), "schema v1 outcome")
			})
		}
	}
}

func TestForkPullRequestIsSkipped(t *testing.T) {
	h := newHarness(t, "event_pull_request_fork.json")
	delete(h.env, "ANTHROPIC_API_KEY") // GitHub withholds secrets from fork PRs
	h.env["INPUT_GITHUB_TOKEN"] = "ghs_readonlyreadonlyreadonlyreadonly00"
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.OK))
	assert.Check(t, is.Equal(r.outputs["outcome"], "skipped"))
	for _, k := range allOutputs {
		_, ok := r.outputs[k]
		assert.Check(t, ok, "output %s not set", k)
	}
	assert.Check(t, is.Contains(r.stdout, "::notice::readme2demo skipped: GitHub does not pass secrets"))
	assert.Check(t, is.Contains(r.summary, "skipped"))
	assert.Check(t, is.Contains(r.summary, "pull_request_target"))
	assert.Check(t, is.Equal(h.calls.Load(), int32(0)), "the agent ran without credentials")
	assert.Check(t, is.Len(h.gh.Requests(), 0))
}

// The same missing credential on a same-repository PR is a configuration
// error, not a skip.
func TestMissingCredentialOnOwnPRFails(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	delete(h.env, "ANTHROPIC_API_KEY")
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Usage))
	assert.Check(t, is.Contains(r.stdout, "::error::engine claude-code"))
	assert.Check(t, is.Equal(r.outputs["outcome"], "error"))
	assert.Check(t, is.Equal(h.calls.Load(), int32(0)))
}

func TestCLIModeUsesNoActionsCommands(t *testing.T) {
	h := newHarness(t, "")
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_NAME", "GITHUB_API_URL", "RUNNER_TEMP"} {
		delete(h.env, k)
	}
	h.env["INPUT_OUTPUT_DIR"] = t.TempDir()
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Failed))
	assert.Check(t, !strings.Contains(r.stdout, "::"), "a workflow command in CLI mode:\n%s", r.stdout)
	assert.Check(t, !strings.Contains(r.stdout+r.stderr, canaryAnthropic))
	assert.Check(t, is.Contains(r.stdout, "## readme2demo: ❌ The README did not work"))
	assert.Check(t, is.Contains(r.stderr, "error: README.md:18: README command exited 2: make build"))
	assert.Check(t, is.Contains(r.stderr, "readme2demo: output outcome=failed"))
	assert.Check(t, is.Len(h.gh.Requests(), 0))
}

func TestBadInputsAreAllReported(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_MAX_TURNS"] = "lots"
	h.env["INPUT_MAX-COST-USD"] = "-1" // the hyphenated form JavaScript actions get
	h.env["INPUT_COMMENT"] = "sometimes"
	h.env["INPUT_FAIL_ON"] = "failed,bored"
	h.env["INPUT_NETWORK"] = "wide"
	h.env["INPUT_SANDBOX"] = "loose"
	h.env["INPUT_DISK"] = "a lot"
	h.env["INPUT_MEMORY"] = "0"
	h.env["INPUT_CPUS"] = "-2"
	h.env["INPUT_PIDS"] = "many"
	h.env["INPUT_INODES"] = "0"
	h.env["INPUT_ORDER"] = "alphabetical"
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Usage))
	for _, in := range []string{"max-turns", "max-cost-usd", "comment", "fail-on", "network", "order", "sandbox", "disk", "memory", "cpus", "pids", "inodes"} {
		assert.Check(t, is.Contains(r.stdout, "::error::input "+in+":"))
	}
	assert.Check(t, is.Equal(h.calls.Load(), int32(0)))
}

// The sandbox inputs reach the pipeline as the profile and its limits;
// image: devcontainer builds on the base image action.yml built.
func TestSandboxInputsReachThePipeline(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_SANDBOX"] = "strict"
	h.env["INPUT_DISK"] = "2g"
	h.env["INPUT_MEMORY"] = "1.5g"
	h.env["INPUT_CPUS"] = "1.5"
	h.env["INPUT_PIDS"] = "300"
	h.env["INPUT_INODES"] = "250000"
	h.env["INPUT_IMAGE"] = "devcontainer"
	h.env["INPUT_BASE_IMAGE"] = "readme2demo-base:action"
	var got pipeline.Config
	inner := h.pipeline
	h.pipeline = func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
		got = cfg
		return inner(ctx, cfg)
	}
	h.run()
	assert.Assert(t, is.Equal(h.calls.Load(), int32(1)))
	assert.Check(t, is.Equal(got.Sandbox, "strict"))
	assert.Check(t, is.DeepEqual(got.Resources, sandbox.Resources{Disk: 2 << 30, Inodes: 250000, Memory: 3 << 29, NanoCPUs: 15e8, PidsLimit: 300}))
	assert.Check(t, got.Devcontainer)
	assert.Check(t, is.Equal(got.Image, "readme2demo-base:action"))

	h = newHarness(t, "event_pull_request.json")
	h.env["INPUT_IMAGE"] = "devcontainer" // without the base image action.yml names
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Usage))
	assert.Check(t, is.Contains(r.stdout, "::error::input image: devcontainer needs the base image"))
}

// The order input reaches the pipeline as given.
func TestOrderInputReachesThePipeline(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_ENGINE"] = "markdown"
	h.env["INPUT_ORDER"] = "install-first"
	inner := h.pipeline
	var got string
	h.pipeline = func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
		got = cfg.Order
		return inner(ctx, cfg)
	}
	h.run()
	assert.Check(t, is.Equal(got, "install-first"))
}

func TestUnknownEngine(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_ENGINE"] = "nonesuch"
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Usage))
	assert.Check(t, is.Contains(r.stdout, `unknown engine "nonesuch"`))
}

func TestCommentPermissionDeniedIsAWarning(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_FAIL_ON"] = "never"
	h.gh.Fail = func(*http.Request, int) *fakegithub.Failure {
		return &fakegithub.Failure{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
	}
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.OK))
	assert.Check(t, is.Contains(r.stdout, "::warning::readme2demo: could not comment on the PR"))
	assert.Check(t, is.Contains(r.stdout, "pull-requests: write"))
	assert.Check(t, is.Equal(r.outputs["comment-url"], ""))
}

func TestCommentOnFailureMode(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_COMMENT"] = "on-failure"
	succeed := func(l *commandlog.Log) {
		l.Outcome = commandlog.OutcomeSuccess
		for i := range l.Commands {
			l.Commands[i].Status, l.Commands[i].ExitCode, l.Commands[i].Output = commandlog.StatusOK, ptr(0), ""
		}
	}
	h.mutate = succeed
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.OK))
	assert.Check(t, is.Len(h.gh.Comments("acme", "demo", 7), 0), "on-failure posted on success")

	h.mutate = nil
	r = h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Failed))
	assert.Check(t, is.Len(h.gh.Comments("acme", "demo", 7), 1))

	h.mutate = succeed // fixed: the earlier comment is updated, not left stale
	r = h.run()
	comments := h.gh.Comments("acme", "demo", 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Check(t, is.Contains(comments[0].Body, "The README works"))
	assert.Check(t, r.outputs["comment-url"] != "")
}

func TestPipelineErrorFailsTheStep(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.pipeline = func(context.Context, pipeline.Config) (*pipeline.Result, error) {
		return nil, errors.New("start container: no such image (token " + canaryAnthropic + ")")
	}
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Failed))
	assert.Check(t, is.Equal(r.outputs["outcome"], "error"))
	assert.Check(t, is.Contains(r.stdout, "::error::readme2demo could not run: start container: no such image"))
	assert.Check(t, !strings.Contains(r.stdout[strings.LastIndex(r.stdout, "::add-mask::"):], canaryAnthropic+")"))
	assert.Check(t, !strings.Contains(r.summary, canaryAnthropic))
}

// run is tested directly too: with no Actions variables and no pipeline it
// still only talks on stdout/stderr.
func TestRunHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &errb)
	assert.Check(t, is.Equal(code, exitcode.OK))
	assert.Check(t, is.Contains(out.String(), "INPUT_*"))
	code = Run(context.Background(), []string{"extra"}, func(string) string { return "" }, &out, &errb)
	assert.Check(t, is.Equal(code, exitcode.Usage))
}

// A run cancelled mid-way still reports the partial log it produced.
func TestCancelledRunReportsPartialLog(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	full := h.pipeline
	h.pipeline = func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
		res, err := full(ctx, cfg)
		assert.NilError(t, err)
		return res, errors.New("run canceled: context canceled")
	}
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Failed))
	assert.Check(t, is.Contains(r.stdout, "::warning::readme2demo: run canceled: context canceled; reporting what the agent did until then"))
	assert.Check(t, is.Equal(r.outputs["outcome"], "failed"))
	assert.Check(t, is.Contains(r.summary, "make build"))
}
