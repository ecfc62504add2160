package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

const (
	sampleRepo = "../../testdata/sample-repo"
	slowCmd    = `python3 -c "import time; time.sleep(300)"`
)

func TestRunMissingCredentialsFailsBeforeAnyContainer(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runCLI(t, "run", "--engine", "claude-code", "--out", out, sampleRepo)
	assert.Equal(t, code, exitcode.Usage)
	assert.Check(t, is.Contains(errOut, "engine claude-code: ANTHROPIC_API_KEY: not set: set ANTHROPIC_API_KEY"))
	assert.Check(t, !strings.Contains(errOut, "run "), "a run started: %s", errOut)
	_, err := os.Stat(out)
	assert.Check(t, errors.Is(err, os.ErrNotExist))
}

func TestRunUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--network", "host", sampleRepo}, `--network "host"`},
		{[]string{"run", "a", "b"}, "at most one repository"},
		{[]string{"run", "--engine", "nope", sampleRepo}, `unknown engine "nope"`},
		{[]string{"run", "--timeout", "0s", sampleRepo}, "--timeout must be positive"},
		{[]string{"run", "--engine", "markdown", "--sandbox", "loose", sampleRepo}, `--sandbox: sandbox profile "loose": use dev or strict`},
		{[]string{"run", "--engine", "markdown", "--disk", "lots", sampleRepo}, `--disk: size "lots"`},
		{[]string{"run", "--engine", "markdown", "--memory", "0", sampleRepo}, `--memory: size "0"`},
		{[]string{"run", "--engine", "markdown", "--cpus", "-1", sampleRepo}, `--cpus: cpus "-1"`},
		{[]string{"run", "--engine", "markdown", "--pids", "-3", sampleRepo}, "--pids: -3 is negative"},
		{[]string{"run", "--engine", "markdown", "--inodes", "-3", sampleRepo}, "--inodes: -3 is negative"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			assert.Equal(t, code, exitcode.Usage)
			assert.Check(t, is.Contains(errOut, tc.want))
		})
	}
}

// startMock serves sc on the Docker bridge gateway, where sandbox
// containers reach it.
func startMock(t *testing.T, sc scriptedllm.Scenario) (*scriptedllm.Server, string) {
	t.Helper()
	cli, img := sandboxtest.Docker(t)
	gw, err := sandbox.BridgeGateway(context.Background(), cli)
	assert.NilError(t, err)
	srv, err := scriptedllm.Start(gw+":0", sc)
	assert.NilError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			// What the mock answered, to tell a CLI's extra or retried
			// request from a parser error.
			for _, r := range srv.Requests() {
				body := string(r.Body)
				if len(body) > 400 {
					body = body[:200] + " … " + body[len(body)-200:]
				}
				t.Logf("mock request %d: %s %s kind=%s turn=%d repeat=%v: %s", r.Seq, r.Method, r.Path, r.Kind, r.Turn, r.Repeat, body)
			}
		}
		srv.Close()
	})
	return srv, img
}

func TestRunBlockedExitsThree(t *testing.T) {
	srv, img := startMock(t, scriptedllm.Scenario{Name: "blocked", Turns: []scriptedllm.Turn{
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Say("The deploy section needs cloud credentials I was not given.\nBLOCKED: the demo needs a cloud account"),
	}})
	out := t.TempDir()
	vars := map[string]string{"ANTHROPIC_API_KEY": scriptedllm.DummyAPIKey, "ANTHROPIC_BASE_URL": srv.URL(), "R2D_IMAGE": img}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--engine", "claude-code", "--timeout", "3m", "--out", out, sampleRepo},
		env{getenv: func(k string) string { return vars[k] }, stdout: &stdout, stderr: &stderr})
	assert.Equal(t, code, exitcode.Blocked, "stderr:\n%s", stderr.String())
	assert.Check(t, is.Contains(stderr.String(), "readme2demo: [00:"))
	assert.Check(t, is.Contains(stderr.String(), "$ python3 greet.py World"))
	assert.Check(t, is.Contains(stderr.String(), "BLOCKED: the demo needs a cloud account"))
	log := readLog(t, filepath.Join(out, "command_log.json"))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeBlocked))
}

func readLog(t *testing.T, p string) *commandlog.Log {
	t.Helper()
	f, err := os.Open(p)
	assert.NilError(t, err)
	defer f.Close()
	l, err := commandlog.Decode(f)
	assert.NilError(t, err)
	return l
}

// A CI job cancelled mid-run: SIGTERM to the readme2demo process. The
// container must be gone within 10 s, and the partial transcript is parsed
// with the interrupted command's result unknown.
func TestRunSIGTERMRemovesTheContainerWithin10s(t *testing.T) {
	srv, img := startMock(t, scriptedllm.Scenario{Name: "long", Turns: []scriptedllm.Turn{
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py World")),
		// Claude Code refuses a standalone `sleep N`; a slow program is fine.
		scriptedllm.Run("", scriptedllm.Bash(slowCmd)),
	}})
	bin := filepath.Join(t.TempDir(), "readme2demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	assert.NilError(t, build.Run())

	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--engine", "claude-code", "--timeout", "5m", "--out", out, sampleRepo)
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY="+scriptedllm.DummyAPIKey, "CLAUDE_CODE_OAUTH_TOKEN=",
		"ANTHROPIC_BASE_URL="+srv.URL(), "R2D_IMAGE="+img)
	stderr, err := cmd.StderrPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	runID := ""
	runRe := regexp.MustCompile(`run ([0-9a-f]{12}):`)
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	found := make(chan struct{})
	go func() {
		for sc.Scan() {
			line := sc.Text()
			seen.WriteString(line + "\n")
			if m := runRe.FindStringSubmatch(line); m != nil && runID == "" {
				runID = m[1]
			}
			if strings.Contains(line, "$ "+slowCmd) {
				close(found)
			}
		}
	}()
	select {
	case <-found:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the agent never started %s; stderr so far:\n%s", slowCmd, seen.String())
	}
	assert.Assert(t, runID != "")
	time.Sleep(time.Second) // the command is under way in the container
	termAt := time.Now()
	assert.NilError(t, cmd.Process.Signal(syscall.SIGTERM))

	cli, _ := sandboxtest.Docker(t)
	var left []container.Summary
	for time.Since(termAt) < 10*time.Second {
		left, err = cli.ContainerList(context.Background(), container.ListOptions{
			All: true, Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelRunID+"="+runID)),
		})
		assert.NilError(t, err)
		if len(left) == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	assert.Assert(t, is.Len(left, 0), "the run's container outlived SIGTERM by 10 s")
	err = cmd.Wait()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "wait: %v", err)
	assert.Check(t, is.Equal(ee.ExitCode(), exitcode.Failed))
	assert.Check(t, time.Since(termAt) < 10*time.Second, "the process took %v to exit", time.Since(termAt))

	log := readLog(t, filepath.Join(out, "command_log.json"))
	tr, _ := os.ReadFile(filepath.Join(out, "transcript.jsonl"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr:\n%s\ntranscript:\n%s", seen.String(), tr)
		}
	})
	assert.Assert(t, is.Len(log.Commands, 2))
	assert.Check(t, is.Equal(log.Commands[0].Status, commandlog.StatusOK))
	assert.Check(t, is.Equal(log.Commands[1].Command, slowCmd))
	assert.Check(t, is.Equal(log.Commands[1].Status, commandlog.StatusUnknown))
	assert.Check(t, log.Commands[1].ExitCode == nil)
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.Contains(log.OutcomeReason, "canceled"))
}

// The README's quickstart: the keyless markdown engine on the bundled
// sample, no API key at all. The sample's drifted step fails the run.
func TestRunMarkdownEngineOnTheSampleNeedsNoKey(t *testing.T) {
	_, img := sandboxtest.Docker(t)
	out := t.TempDir()
	vars := map[string]string{"R2D_IMAGE": img}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--engine", "markdown", "--out", out, sampleRepo},
		env{getenv: func(k string) string { return vars[k] }, stdout: &stdout, stderr: &stderr})
	assert.Equal(t, code, exitcode.Failed, "stderr:\n%s", stderr.String())
	log := readLog(t, filepath.Join(out, "command_log.json"))
	var got []string
	for _, c := range log.Commands {
		got = append(got, c.Command+" "+string(c.Status))
	}
	assert.Check(t, is.DeepEqual(got, []string{
		"python3 greet.py World ok", "python3 greet.py Ada Grace ok", "python3 greet.py --shout World failed",
	}))
	assert.Check(t, is.Contains(stderr.String(), "$ python3 greet.py --shout World"))
}

// The sandbox flags become the sandbox's resources; --inodes left at 0
// takes the sandbox's default (one per 8 KiB of --disk).
func TestSandboxFlagsResolve(t *testing.T) {
	r, err := sandboxFlags{profile: "strict", disk: "2g", memory: "1g", cpus: "1.5", pids: 300, inodes: 250000}.resolve()
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(r, sandbox.Resources{Disk: 2 << 30, Memory: 1 << 30, NanoCPUs: 15e8, PidsLimit: 300, Inodes: 250000}))
	r, err = sandboxFlags{profile: "dev", disk: "10g", memory: "4g"}.resolve()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(r.Inodes, int64(0)))
}
