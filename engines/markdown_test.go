package engines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	here "github.com/MakeNowJust/heredoc/v2"
	"github.com/readme2demo/readme2demo/internal/longtest"
	"github.com/readme2demo/readme2demo/internal/plan"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// runnerPIDNamespace is how runLocal starts the runner where the host
// allows it (root): in a PID namespace of its own with its own /proc
// (util-linux unshare), as in the sandbox's container. The runner reads
// /proc around every command to find the processes it started; on a host
// that is every process of the machine, hundreds under a parallel go test,
// which made each test cost seconds of CPU. Elsewhere (a user without the
// right to unshare) it runs with plain bash, slower but the same.
var runnerPIDNamespace = sync.OnceValue(func() []string {
	p := []string{"unshare", "--pid", "--fork", "--kill-child", "--mount-proc"}
	if exec.Command(p[0], append(p[1:], "true")...).Run() != nil {
		return nil
	}
	return p
})

// runLocal runs a runner script with the host's bash in a temporary
// workspace (the same script the sandbox runs, with other paths), in a PID
// namespace of its own where the host allows it, and parses its
// transcript. It is not the sandbox: it tests the runner's shell logic.
func runLocal(t *testing.T, engine string, plan runner.Plan, setup func(ws string)) (*commandlog.Log, string) {
	t.Helper()
	return runRunner(t, engine, plan, setup, runnerPIDNamespace())
}

// runLocalOnHost is runLocal among the host's processes, for the tests that
// look for the processes a run left behind by their pids: in a namespace
// of its own those pids mean nothing outside, and the namespace's end
// would kill what the runner failed to.
func runLocalOnHost(t *testing.T, engine string, plan runner.Plan, setup func(ws string)) (*commandlog.Log, string) {
	t.Helper()
	return runRunner(t, engine, plan, setup, nil)
}

// runnerTmp is where runRunner makes its directories: /dev/shm when it is
// a tmpfs that lets programs run (a README runs what it builds), else ""
// for the usual temporary directory. A run creates a dozen files, and on a
// disk file system without a journal (ext4 on the VMs that run the tests)
// each new inode first scans the inodes deleted in the last seconds: under
// a parallel go test that was a seventh of the runner tests' CPU.
var runnerTmp = sync.OnceValue(func() string {
	var st syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &st) == nil && st.Type == 0x01021994 && st.Flags&0x8 == 0 { // TMPFS_MAGIC, not ST_NOEXEC
		return "/dev/shm"
	}
	return ""
})

// runnerDir is a new directory for a run, removed at the end of the test.
func runnerDir(t *testing.T) string {
	t.Helper()
	if runnerTmp() == "" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(runnerTmp(), "readme2demo-test-")
	assert.NilError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func runRunner(t *testing.T, engine string, plan runner.Plan, setup func(ws string), prefix []string) (*commandlog.Log, string) {
	t.Helper()
	dir := runnerDir(t)
	ws := filepath.Join(dir, "workspace")
	assert.NilError(t, os.Mkdir(ws, 0o755))
	if setup != nil {
		setup(ws)
	}
	transcript := filepath.Join(dir, "transcript.jsonl")
	script := filepath.Join(dir, "runner.sh")
	assert.NilError(t, os.WriteFile(script, runner.Render(plan, runner.Paths{Transcript: transcript, Workspace: ws}), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	argv := append(append([]string{}, prefix...), "bash", script)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	err := cmd.Run()
	assert.Assert(t, ctx.Err() == nil, "runner hung: %s", stdout.String())
	var ee *exec.ExitError
	assert.Assert(t, err == nil || errors.As(err, &ee), "run runner: %v", err)
	f, err := os.Open(transcript)
	assert.NilError(t, err)
	defer f.Close()
	l, err := parseRunnerTranscript(engine, f, nil)
	assert.NilError(t, err)
	assert.NilError(t, commandlog.Validate(l))
	return l, ws
}

// readmePlan is the runner's plan of a README, with every command that
// runs as a step: these tests are about the runner, and say which lines are
// probes themselves (probes); the plan's own choice is internal/plan's.
//
// The tests' made-up programs (r2d-…, which exist nowhere, so that running
// them fails with 127) are programs the image has as far as the plan knows.
func readmePlan(md string) runner.Plan { return readmePlanOrder(md, "") }

// readmePlanOrder is readmePlan in the given run order.
func readmePlanOrder(md, order string) runner.Plan {
	programs := maps.Clone(plan.DefaultPrograms())
	for _, w := range regexp.MustCompile(`r2d[\w-]+`).FindAllString(md, -1) {
		programs[w] = true
	}
	return allSteps(markdownPlan(RunInput{ReadmeName: "README.md", Readme: []byte(md), Programs: programs, Order: order}))
}

// allSteps marks every command of a runner plan a step.
func allSteps(p runner.Plan) runner.Plan {
	for i := range p.Steps {
		p.Steps[i].Planned = commandlog.PlannedStep
	}
	return p
}

// cmdSummary is what a user reads in a log: line, command, exit code, status.
func cmdSummary(l *commandlog.Log) []string {
	var out []string
	for _, c := range l.Commands {
		code := "null"
		if c.ExitCode != nil {
			code = strconv.Itoa(*c.ExitCode)
		}
		line := 0
		if c.Source != nil {
			line = c.Source.Line
		}
		out = append(out, fmt.Sprintf("%d %s => %s %s", line, c.Command, code, c.Status))
	}
	return out
}

func TestMarkdownRunsREADMEInOneSession(t *testing.T) {
	t.Parallel()
	md := "# demo\n\n```bash\nmkdir -p sub && cd sub\nexport GREETING=hello\nset -eu\necho \"$GREETING from $(basename \"$PWD\")\"\n" +
		"cat <<EOF > f.txt\nheredoc body\nEOF\ngreet() {\n  echo \"hi $1\"\n}\ngreet you\n```\n\n" +
		"```console\n$ cat f.txt\nheredoc body\n$ echo \"$GREETING\" \\\n>   again\nhello again\n```\n\n```python\nprint('not run')\n```\n"
	l, ws := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{
		"4 mkdir -p sub && cd sub => 0 ok",
		"5 export GREETING=hello => 0 ok",
		"6 set -eu => 0 ok",
		"7 echo \"$GREETING from $(basename \"$PWD\")\" => 0 ok",
		"8 cat <<EOF > f.txt\nheredoc body\nEOF => 0 ok",
		"11 greet() {\n  echo \"hi $1\"\n} => 0 ok",
		"14 greet you => 0 ok",
		"18 cat f.txt => 0 ok",
		"20 echo \"$GREETING\" \\\n  again => 0 ok",
	})
	assert.Equal(t, l.Commands[3].Output, "hello from sub\n", "cd and export carry over")
	assert.Equal(t, l.Commands[6].Output, "hi you\n", "a function defined in one command is there in the next")
	assert.Equal(t, l.Commands[7].Output, "heredoc body\n")
	assert.Equal(t, l.Commands[8].Output, "hello again\n")
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
	assert.DeepEqual(t, l.Markers, []commandlog.Marker{{Kind: commandlog.MarkerSuccess}})
	assert.Equal(t, l.Engine, MarkdownName)
	assert.Equal(t, *l.AgentVersion, runner.Version)
	assert.Equal(t, *l.CostUSD, 0.0)
	assert.Assert(t, l.DurationMS != nil)
	for _, c := range l.Commands {
		assert.Assert(t, c.DurationMS != nil, "duration of %q", c.Command)
	}
	_, err := os.Stat(filepath.Join(ws, "sub", "f.txt"))
	assert.NilError(t, err, "commands run in the workspace")
}

func TestMarkdownStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	md := "# x\n\nInstall:\n\n```sh\necho start\nls does-not-exist\necho never\n```\n\n```sh\necho never either\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{
		"6 echo start => 0 ok",
		"7 ls does-not-exist => 2 failed",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, l.OutcomeReason, "README.md line 7: `ls does-not-exist` exited with 2; 2 of 4 planned commands were not reached")
	assert.Assert(t, strings.Contains(l.Commands[1].Output, "does-not-exist"), "stderr is captured: %q", l.Commands[1].Output)
	assert.Equal(t, len(l.Markers), 0)
}

func TestMarkdownHints(t *testing.T) {
	longtest.Require(t) // waits for real timeouts of whole seconds
	t.Parallel()
	md := "# hints\n\n<!-- readme2demo: skip -->\n```bash\necho skipped\n```\n\n" +
		"<!-- readme2demo: continue-on-error timeout=1s -->\n```bash\nsleep 30\nfalse\n```\n\n" +
		"<!-- readme2demo: background ready=\"test -e ready.flag\" timeout=20s -->\n```bash\necho $BASHPID > server.pid; sleep 1; touch ready.flag; echo serving; exec sleep 300\n```\n\n" +
		"```bash\ncat ready.flag && echo ready-seen\n```\n"
	start := time.Now()
	l, ws := runLocalOnHost(t, MarkdownName, readmePlan(md), nil) // reads the server's pid
	assert.DeepEqual(t, cmdSummary(l), []string{
		"10 sleep 30 => 124 failed",
		"11 false => 1 failed",
		"16 echo $BASHPID > server.pid; sleep 1; touch ready.flag; echo serving; exec sleep 300 => 0 ok",
		"20 cat ready.flag && echo ready-seen => 0 ok",
	})
	assert.Assert(t, time.Since(start) < 60*time.Second, "the timeout hint cut sleep 30 short")
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, "continue-on-error failures do not fail the run: %s", l.OutcomeReason)
	assert.Equal(t, l.Commands[2].Output, "serving\n", "background output collected when it was stopped")
	// The background job was stopped at the end of the run.
	pidText, err := os.ReadFile(filepath.Join(ws, "server.pid"))
	assert.NilError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	assert.NilError(t, err)
	assert.Assert(t, errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), "background process %d still running", pid)
}

func TestMarkdownTimeoutFailsTheRun(t *testing.T) {
	longtest.Require(t) // waits for real timeouts of whole seconds
	t.Parallel()
	md := "<!-- readme2demo: timeout=1s -->\n```sh\nsleep 30\n```\n\n```sh\necho never\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"3 sleep 30 => 124 failed"})
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "README.md line 3: `sleep 30` timed out after 1s"), l.OutcomeReason)
}

func TestMarkdownBackgroundThatNeverGetsReady(t *testing.T) {
	longtest.Require(t) // waits for real timeouts of whole seconds
	t.Parallel()
	md := "<!-- readme2demo: background ready=\"false\" timeout=2s -->\n```sh\nsleep 300\n```\n\n```sh\necho never\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"3 sleep 300 => 124 failed"})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "timed out after 2s"), l.OutcomeReason)
}

func TestMarkdownExitEndsTheRun(t *testing.T) {
	t.Parallel()
	md := "```console\n$ echo bye >&2; exit 0\n$ echo never\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"2 echo bye >&2; exit 0 => 0 ok"})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "ended the shell, so the rest of the README did not run"), l.OutcomeReason)
	assert.Equal(t, l.Commands[0].Output, "bye\n")
}

func TestMarkdownNoShellBlocks(t *testing.T) {
	t.Parallel()
	l, _ := runLocal(t, MarkdownName, readmePlan("# nothing\n\n```python\nprint(1)\n```\n"), nil)
	assert.Equal(t, len(l.Commands), 0)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "nothing to run: none of the 1 code blocks of README.md has a command to run on Linux (line 4: python code, not shell)"), l.OutcomeReason)
}

// A README whose commands need Docker has nothing to run in the sandbox:
// the run is blocked by the sandbox (exit status 3), never failed like a
// broken README, and never a success on the side steps (the cp that only
// puts the container's file in place); a README with nothing to run for
// another reason stays failed.
func TestMarkdownNeedsWhatTheSandboxLacksIsBlocked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, md string
		want     commandlog.Outcome
		lacks    string
	}{
		{"compose after a cp", "# app\n\n## Quick start\n\n```sh\ncp .env.example .env\ndocker compose up -d\n```\n",
			commandlog.OutcomeBlocked, "(README.md line 7: needs Docker"},
		{"a Docker section only", "# app\n\n## Docker\n\n```sh\ndocker run --rm -p 8080:80 example/app\n```\n",
			commandlog.OutcomeBlocked, "(README.md line 6: "},
		{"a GPU section only", "# app\n\n## CUDA\n\n```sh\n./train --device cuda:0\n```\n",
			commandlog.OutcomeBlocked, "(README.md line 6: needs hardware the sandbox does not have"},
		{"another platform only", "# app\n\n## macOS\n\n```sh\nbrew install app\n```\n",
			commandlog.OutcomeFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, _ := runLocal(t, MarkdownName, readmePlan(tc.md), nil)
			assert.Equal(t, len(l.Commands), 0)
			assert.Equal(t, l.Outcome, tc.want, l.OutcomeReason)
			assert.Equal(t, l.OutcomeCause, commandlog.CauseNothingToRun)
			assert.NilError(t, commandlog.Validate(l))
			if tc.lacks == "" {
				assert.Assert(t, !strings.Contains(l.OutcomeReason, "the sandbox does not have"), l.OutcomeReason)
				return
			}
			assert.Assert(t, strings.Contains(l.OutcomeReason, "the README's commands need what the sandbox does not have "+tc.lacks), l.OutcomeReason)
			assert.Assert(t, strings.Contains(l.OutcomeReason, "not a failure of the README"), l.OutcomeReason)
		})
	}
}

func TestMarkdownForgedSuccessDoesNotPass(t *testing.T) {
	t.Parallel()
	// A README command appends a fake SUCCESS summary to the transcript and
	// then fails: the run must still fail.
	md := "```sh\nprintf '{\"type\":\"summary\",\"text\":\"SUCCESS\"}\\n' >> \"$__r2d_transcript\"\nfalse\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, len(l.Markers), 0)
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "README.md line 3: `false` exited with 1"), l.OutcomeReason)
}

func TestMarkdownLongOutputIsTruncated(t *testing.T) {
	t.Parallel()
	md := "```sh\nseq 1 100000\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	c := l.Commands[0]
	assert.Assert(t, c.Truncated)
	assert.Assert(t, strings.HasPrefix(c.Output, "1\n2\n3\n"), c.Output[:20])
	assert.Assert(t, strings.HasSuffix(c.Output, "99999\n100000\n"))
	assert.Assert(t, len(c.Output) < OutputHeadBytes+OutputTailBytes+200)
}

func TestRunnerTranscriptDamage(t *testing.T) {
	start := `{"type":"start","id":"1","command":"make","file":"README.md","line":7,"timeout_s":600}`
	end0 := `{"type":"end","id":"1","exit_code":0,"duration_ms":5,"output_head_b64":"b2sK"}`
	tests := []struct {
		name      string
		lines     []string
		summary   []string
		outcome   commandlog.Outcome
		reason    string
		malformed int
		unknown   int
	}{
		{name: "killed mid-command", lines: []string{`{"type":"plan","runner":"readme2demo-runner/1"}`, start},
			summary: []string{"7 make => null unknown"}, outcome: commandlog.OutcomeFailed,
			reason: "README.md line 7: `make` did not finish (the run was killed or timed out); if it starts a server"},
		{name: "malformed and unknown records", lines: []string{`{"type":"plan",}`, start, `{"type":"telemetry"}`, end0, `{"type":"summary","text":"SUCCESS"}`},
			summary: []string{"7 make => 0 ok"}, outcome: commandlog.OutcomeSuccess, malformed: 1, unknown: 1},
		{name: "no summary", lines: []string{start, end0},
			summary: []string{"7 make => 0 ok"}, outcome: commandlog.OutcomeFailed, reason: "the run ended without the runner's summary"},
		{name: "end without start", lines: []string{end0, `{"type":"summary","text":"SUCCESS"}`},
			outcome: commandlog.OutcomeSuccess, unknown: 1},
		{name: "not a runner", lines: []string{`{"type":"error","text":"the sandbox input is not a readme2demo runner script"}`},
			outcome: commandlog.OutcomeFailed, reason: "not a readme2demo runner script"},
		{name: "empty", outcome: commandlog.OutcomeFailed, reason: "the transcript is empty"},
		{name: "damaged base64 keeps what decodes", lines: []string{start, `{"type":"end","id":"1","exit_code":2,"output_head_b64":"aGVsbG8gd29ybGQ=!!"}`},
			summary: []string{"7 make => 2 failed"}, outcome: commandlog.OutcomeFailed, reason: "README.md line 7: `make` exited with 2"},
	}
	e, err := Lookup(MarkdownName)
	assert.NilError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := e.ParseTranscript(strings.NewReader(strings.Join(tt.lines, "\n")))
			assert.NilError(t, err)
			assert.NilError(t, commandlog.Validate(l))
			assert.DeepEqual(t, cmdSummary(l), tt.summary)
			assert.Equal(t, l.Outcome, tt.outcome)
			assert.Assert(t, strings.Contains(l.OutcomeReason, tt.reason), "reason %q lacks %q", l.OutcomeReason, tt.reason)
			assert.Equal(t, l.ParseStats.Malformed, tt.malformed)
			assert.Equal(t, l.ParseStats.UnknownEvents, tt.unknown)
		})
	}
}

func TestKeylessEnginesNeedNoCredentials(t *testing.T) {
	for _, name := range []string{MarkdownName, ReplayName} {
		e, err := Lookup(name)
		assert.NilError(t, err)
		assert.Equal(t, len(e.RequiredEnv()), 0)
		env, err := e.ResolveEnv(func(string) string { return "sk-ant-api03-should-never-be-forwarded-0123456789" })
		assert.NilError(t, err)
		assert.Assert(t, env != nil && len(env) == 0, "%s forwards nothing: %v", name, env)
		_, ok := e.(InputPreparer)
		assert.Assert(t, ok, "%s prepares its own sandbox input", name)
	}
}

func TestKeylessBuildCommand(t *testing.T) {
	e, _ := Lookup(MarkdownName)
	cmd := e.BuildCommand(Limits{})
	for _, want := range []string{PromptContainerPath, TranscriptContainerPath, StderrContainerPath, "cd " + WorkspaceContainerPath, runner.Magic} {
		assert.Assert(t, strings.Contains(cmd, want), "%q lacks %q", cmd, want)
	}
	// The same command, pointed at a prompt that is not a runner, writes an
	// error record instead of running it.
	dir := t.TempDir()
	prompt, transcript := filepath.Join(dir, "prompt.md"), filepath.Join(dir, "t.jsonl")
	assert.NilError(t, os.WriteFile(prompt, []byte("# Follow the README\nrm -rf /\n"), 0o644))
	local := strings.NewReplacer(PromptContainerPath, prompt, TranscriptContainerPath, transcript, StderrContainerPath, filepath.Join(dir, "err")).Replace(cmd)
	out, err := exec.Command("bash", "-c", local).CombinedOutput()
	assert.ErrorContains(t, err, "exit status 2", string(out))
	f, err := os.Open(transcript)
	assert.NilError(t, err)
	defer f.Close()
	l, err := e.ParseTranscript(f)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "the pipeline must call PrepareInput"), l.OutcomeReason)
}

func TestMarkdownPrepareInputIsARunner(t *testing.T) {
	e, _ := Lookup(MarkdownName)
	in, err := e.(InputPreparer).PrepareInput(RunInput{ReadmeName: "docs/README.md", Readme: []byte("```sh\necho 'it''s' $HOME\n```\n")})
	assert.NilError(t, err)
	lines := strings.SplitN(string(in), "\n", 3)
	assert.Equal(t, lines[1], runner.Magic)
	assert.Assert(t, strings.Contains(string(in), "__r2d_transcript="+TranscriptContainerPath))
	assert.Assert(t, strings.Contains(string(in), `$HOME","file":"docs/README.md","line":2,`), "%s", in)
	out, err := exec.Command("bash", "-n", "-c", string(in)).CombinedOutput()
	assert.NilError(t, err, "the runner is valid bash: %s", out)
}

// A probe that does no toolchain's work (a program of the project, an
// interpreter running an example) gets the probe's timeout: a server the
// plan did not recognise costs minutes, not the run. Steps, probes that
// build, test or fetch, and the timeout hint keep theirs.
func TestMarkdownProbeTimeouts(t *testing.T) {
	md := here.Doc(`
		## Installation

		~~~sh
		make
		~~~

		## Usage

		~~~sh
		node examples/server.js
		cargo run --example listen
		go run ./cmd/demo
		npm run build
		cargo test
		curl -fsSLO https://dl.acme.dev/data.csv
		~~~

		<!-- readme2demo: timeout=20m -->
		~~~sh
		node examples/train.js
		~~~
	`)
	p := markdownPlan(RunInput{ReadmeName: "README.md", Readme: []byte(md)})
	var got []string
	for _, s := range p.Steps {
		got = append(got, fmt.Sprintf("%d %s %s %s", s.Line, s.Planned, s.Timeout, s.Command))
	}
	assert.DeepEqual(t, got, []string{
		"4 step 10m0s make",
		"10 probe 2m0s node examples/server.js",
		"11 probe 2m0s cargo run --example listen",
		"12 probe 2m0s go run ./cmd/demo",
		"13 probe 10m0s npm run build",
		"14 probe 10m0s cargo test",
		"15 probe 10m0s curl -fsSLO https://dl.acme.dev/data.csv",
		"20 probe 20m0s node examples/train.js",
	})
}
