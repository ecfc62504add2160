package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// geminiSampleScenario is the sample README's demo as Gemini would run it.
// Gemini CLI's stream states an exit code only for a command that printed
// nothing; its chat session file, which the run copies out and merges,
// states every one, so the drifted --shout step is failed with exit code 2.
var geminiSampleScenario = scriptedllm.Scenario{
	Name: "gemini-sample",
	Turns: []scriptedllm.Turn{
		scriptedllm.Run("I'll follow the README.", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
		scriptedllm.Run("", scriptedllm.Write("/workspace/NOTES.md", "--shout is not accepted\n")),
		scriptedllm.Run("", scriptedllm.Bash("test -n \"${GEMINI_API_KEY:-}\"")),
		scriptedllm.Run("", scriptedllm.Bash("./test.sh")),
	},
	FinalText: "FIX: README section Shouting uses --shout, but greet.py only accepts --loud",
}

// The REAL pinned Gemini CLI in the REAL sandbox container, pointed at the
// mock through GOOGLE_GEMINI_BASE_URL (forwarded by ResolveEnv) with the
// settings BuildCommand writes. The image must have gemini (build the test
// image with GEMINI_CLI_VERSION set); R2D_TEST_GEMINI_IMAGE names another.
func TestRunEndToEndRealGeminiInContainer(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	if v := os.Getenv("R2D_TEST_GEMINI_IMAGE"); v != "" {
		img = v
	}
	ver, err := exec.Command("docker", "run", "--rm", "--network", "none", "-e", "HOME=/tmp", img, "gemini", "--version").Output()
	if err != nil || strings.TrimSpace(string(ver)) != agentcli.GeminiCLIVersion {
		sandboxtest.Unavailable(t, "image %s has no gemini %s (got %q, %v): build it with GEMINI_CLI_VERSION=%s",
			img, agentcli.GeminiCLIVersion, strings.TrimSpace(string(ver)), err, agentcli.GeminiCLIVersion)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv := startMock(ctx, t, cli, geminiSampleScenario)

	repo := sampleRepo(t)
	before := treeHash(t, repo)
	var progress bytes.Buffer
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine:  engines.GeminiName,
		RepoDir: repo,
		Image:   img,
		Limits:  engines.Limits{MaxTurns: 20, Timeout: 3 * time.Minute},
		OutDir:  t.TempDir(),
		Getenv: env(map[string]string{
			"GEMINI_API_KEY":         scriptedllm.DummyAPIKey,
			"GOOGLE_GEMINI_BASE_URL": srv.URL(),
		}),
		Progress: &progress,
		Docker:   cli,
	})
	assert.NilError(t, err, "progress:\n%s", progress.String())
	stderr, _ := os.ReadFile(res.Stderr)
	t.Logf("progress:\n%s\nagent stderr:\n%s", progress.String(), stderr)

	f, err := os.Open(res.CommandLog)
	assert.NilError(t, err)
	defer f.Close()
	log, err := commandlog.Decode(f)
	assert.NilError(t, err)
	assert.NilError(t, commandlog.Validate(log))

	assert.DeepEqual(t, sandboxCmds(t, log), []sandboxCmd{
		{"python3 greet.py World", 0, commandlog.StatusOK, 10},
		{"python3 greet.py --shout World", 2, commandlog.StatusFailed, 24},
		// The key is not in the commands' environment.
		{`test -n "${GEMINI_API_KEY:-}"`, 1, commandlog.StatusFailed, 0},
		{"./test.sh", 0, commandlog.StatusOK, 32},
	})
	assert.Check(t, is.Contains(progress.String(), "gemini session file: exact results for 3 command(s)"))
	session, err := os.ReadFile(res.Session)
	assert.NilError(t, err, "the session file is kept beside the transcript")
	assert.Check(t, is.Contains(string(session), `"sessionId"`))
	assert.Check(t, is.Contains(log.Commands[0].Output, "Hello, World!"))
	assert.Check(t, is.Contains(log.Commands[1].Output, "unrecognized arguments: --shout"))
	assert.Check(t, is.Contains(log.Commands[3].Output, "all tests passed"))
	assert.Check(t, is.DeepEqual(log.FileEdits, []commandlog.FileEdit{{Path: "/workspace/NOTES.md", Tool: "write_file", OK: true}}))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.DeepEqual(log.Markers, []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "README section Shouting uses --shout, but greet.py only accepts --loud"}}))
	assert.Check(t, log.CostUSD == nil)
	assert.Check(t, is.Equal(srv.TurnsServed(), len(geminiSampleScenario.Turns)))
	for _, r := range srv.Requests() {
		assert.Check(t, r.Kind != scriptedllm.KindUnknown, "request to %s", r.Path)
	}

	for _, p := range []string{res.CommandLog, res.Transcript, res.Stderr, res.Prompt, res.Session} {
		b, err := os.ReadFile(p)
		assert.NilError(t, err)
		assert.Check(t, !strings.Contains(string(b), scriptedllm.DummyAPIKey), "%s holds the API key", p)
	}
	assert.Equal(t, treeHash(t, repo), before, "the host checkout changed")
}
