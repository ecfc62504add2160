package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/readme"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// runKeyless runs a keyless engine in the real sandbox the way a run does:
// PrepareInput → the runner copied to PromptContainerPath → BuildCommand
// under bash -lc → ParseTranscript → README line mapping → redaction.
func runKeyless(t *testing.T, cli *client.Client, img, name string, in engines.RunInput, repo string) *commandlog.Log {
	t.Helper()
	eng, err := engines.Lookup(name)
	assert.NilError(t, err)
	input, err := eng.(engines.InputPreparer).PrepareInput(in)
	assert.NilError(t, err)
	env, err := eng.ResolveEnv(os.Getenv)
	assert.NilError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := sandbox.Run(ctx, cli, sandbox.Spec{
		Image: img, RepoDir: repo, Workdir: engines.WorkspaceContainerPath,
		Files:          []sandbox.File{{Path: engines.PromptContainerPath, Data: input}},
		Command:        eng.BuildCommand(engines.Limits{}),
		Env:            env,
		Timeout:        2 * time.Minute,
		TranscriptPath: engines.TranscriptContainerPath,
		StderrPath:     engines.StderrContainerPath,
	})
	assert.NilError(t, err)
	assert.Assert(t, !res.TimedOut)
	t.Logf("runner output:\n%s\nstderr:\n%s", res.Output, res.Stderr)
	log, err := eng.ParseTranscript(bytes.NewReader(res.Transcript))
	assert.NilError(t, err)
	readme.Map(log, in.ReadmeName, in.Readme)
	redact.Log(log, redact.New(nil))
	assert.NilError(t, commandlog.Validate(log))
	return log
}

// TestMarkdownEngineInSandbox runs the bundled sample repository's README
// with the markdown engine in the real sandbox: the first two steps work,
// the drifted --shout step fails at README line 24 and stops the run; then
// the demo.sh of that run succeeds in a fresh sandbox.
func TestMarkdownEngineInSandbox(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	repo := sampleRepo(t)
	md, err := os.ReadFile(filepath.Join(repo, "README.md"))
	assert.NilError(t, err)
	log := runKeyless(t, cli, img, engines.MarkdownName, engines.RunInput{ReadmeName: "README.md", Readme: md}, repo)

	assert.DeepEqual(t, sandboxCmds(t, log), []sandboxCmd{
		{"python3 greet.py World", 0, commandlog.StatusOK, 10},
		{"python3 greet.py Ada Grace", 0, commandlog.StatusOK, 16},
		{"python3 greet.py --shout World", 2, commandlog.StatusFailed, 24},
	})
	assert.Check(t, is.Equal(log.Commands[0].Output, "Hello, World!\n"))
	assert.Check(t, is.Equal(log.Commands[1].Output, "Hello, Ada!\nHello, Grace!\n"))
	assert.Check(t, is.Contains(log.Commands[2].Output, "unrecognized arguments: --shout"))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.Equal(log.OutcomeReason, "README.md line 24: `python3 greet.py --shout World` exited with 2; 1 of 4 planned commands was not reached"))
	assert.Check(t, is.Equal(len(log.Markers), 0))
	assert.Assert(t, log.CostUSD != nil && *log.CostUSD == 0, "a keyless run costs nothing")

	// The demo of that run: the cast has every command; demo.sh (the two
	// working steps) succeeds in a fresh sandbox.
	dir := t.TempDir()
	castPath, scriptPath, err := demo.WriteFiles(dir, log, demo.Options{})
	assert.NilError(t, err)
	cast, err := os.ReadFile(castPath)
	assert.NilError(t, err)
	for _, c := range log.Commands {
		assert.Check(t, is.Contains(string(cast), strings.Fields(c.Command)[len(strings.Fields(c.Command))-1]))
	}
	script, err := os.ReadFile(scriptPath)
	assert.NilError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := sandbox.Run(ctx, cli, sandbox.Spec{
		Image: img, RepoDir: repo, Workdir: engines.WorkspaceContainerPath,
		Files:   []sandbox.File{{Path: engines.ContainerDir + "/demo.sh", Data: script}},
		Command: "bash " + engines.ContainerDir + "/demo.sh",
		Timeout: time.Minute,
	})
	assert.NilError(t, err)
	assert.Assert(t, res.ExitCode != nil, "demo.sh did not finish")
	assert.Equal(t, *res.ExitCode, 0, "demo.sh failed: %s", res.Output)
	assert.Check(t, is.Equal(string(res.Output), "Hello, World!\nHello, Ada!\nHello, Grace!\n"))
}

// adjustedScenario is an AI run a human would accept: the drifted --shout
// step fails, the agent finds --loud, and the tests pass.
var adjustedScenario = scriptedllm.Scenario{
	Name: "sample-adjusted",
	Turns: []scriptedllm.Turn{
		scriptedllm.Run("I'll follow the README.", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
		scriptedllm.Run("--shout is gone; the help says --loud.", scriptedllm.Bash("python3 greet.py --loud World")),
		scriptedllm.Run("", scriptedllm.Bash("./test.sh")),
		scriptedllm.Say("FIX: README section Shouting must say --loud, not --shout\nADJUSTED_SUCCESS"),
	},
}

// TestReplayAnAIProducedLogInSandbox records a run of the REAL Claude Code
// CLI (driven by the scripted mock LLM) on the sample repository, then
// replays its command log with the replay engine in a fresh sandbox: the
// successful path passes, the agent's failed attempt is not replayed.
func TestReplayAnAIProducedLogInSandbox(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv := startMock(ctx, t, cli, adjustedScenario)
	repo := sampleRepo(t)
	var progress bytes.Buffer
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ClaudeCodeName, RepoDir: repo, Image: img,
		Limits: engines.Limits{MaxTurns: 20, Timeout: 3 * time.Minute},
		OutDir: t.TempDir(),
		Getenv: func(k string) string {
			return map[string]string{"ANTHROPIC_API_KEY": scriptedllm.DummyAPIKey, "ANTHROPIC_BASE_URL": srv.URL()}[k]
		},
		Progress: &progress,
		Docker:   cli,
	})
	assert.NilError(t, err, "progress:\n%s", progress.String())
	ai := res.Log
	assert.Equal(t, ai.Outcome, commandlog.OutcomeSuccess, "the AI run: %s", progress.String())
	assert.Assert(t, ai.Adjusted)
	aiJSON, err := os.ReadFile(res.CommandLog)
	assert.NilError(t, err)

	md, err := os.ReadFile(filepath.Join(repo, "README.md"))
	assert.NilError(t, err)
	log := runKeyless(t, cli, img, engines.ReplayName, engines.RunInput{ReadmeName: "README.md", Readme: md, CommandLog: aiJSON}, repo)
	assert.DeepEqual(t, sandboxCmds(t, log), []sandboxCmd{
		{"python3 greet.py World", 0, commandlog.StatusOK, 10},
		{"python3 greet.py --loud World", 0, commandlog.StatusOK, 0},
		{"./test.sh", 0, commandlog.StatusOK, 32},
	})
	assert.Check(t, is.Equal(log.Commands[1].Output, "HELLO, WORLD!\n"))
	assert.Check(t, is.Contains(log.Commands[2].Output, "all tests passed"))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeSuccess))
	assert.Check(t, is.Equal(log.Engine, engines.ReplayName))
}
