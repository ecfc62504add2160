package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// sampleRepo is the bundled sample repository, used in place: the run
// must leave it byte-identical.
func sampleRepo(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../../testdata/sample-repo")
	assert.NilError(t, err)
	return src
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The sample README's demo as a user would run it: two steps work, the
// drifted --shout step fails, the tests pass.
var sampleScenario = scriptedllm.Scenario{
	Name: "sample-failed",
	Turns: []scriptedllm.Turn{
		scriptedllm.Run("I'll read the README first.", scriptedllm.Read("/workspace/README.md")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py Ada Grace")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
		scriptedllm.Run("", scriptedllm.Bash("./test.sh")),
		scriptedllm.Run("", scriptedllm.Edit("/workspace/README.md", "python3 greet.py --shout World", "python3 greet.py --loud World")),
		scriptedllm.Say("The Shouting step fails: greet.py has no --shout flag, it accepts --loud.\n" +
			"FIX: README section Shouting uses --shout, but greet.py only accepts --loud"),
	},
}

func TestRunEndToEndRealClaudeCodeInContainer(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv := startMock(ctx, t, cli, sampleScenario)

	repo := sampleRepo(t)
	before := treeHash(t, repo)
	out := t.TempDir()
	var progress bytes.Buffer
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine:  engines.ClaudeCodeName,
		RepoDir: repo,
		Image:   img,
		Limits:  engines.Limits{MaxTurns: 20, Timeout: 3 * time.Minute},
		OutDir:  out,
		Getenv: env(map[string]string{
			"ANTHROPIC_API_KEY":  scriptedllm.DummyAPIKey,
			"ANTHROPIC_BASE_URL": srv.URL(),
		}),
		Progress: &progress,
		Docker:   cli,
	})
	assert.NilError(t, err, "progress:\n%s", progress.String())
	t.Logf("progress:\n%s", progress.String())

	// command_log.json on disk is what the run returned.
	f, err := os.Open(res.CommandLog)
	assert.NilError(t, err)
	defer f.Close()
	log, err := commandlog.Decode(f)
	assert.NilError(t, err)
	assert.NilError(t, commandlog.Validate(log))

	assert.DeepEqual(t, sandboxCmds(t, log), []sandboxCmd{
		{"python3 greet.py World", 0, commandlog.StatusOK, 10},
		{"python3 greet.py Ada Grace", 0, commandlog.StatusOK, 16},
		{"python3 greet.py --shout World", 2, commandlog.StatusFailed, 24},
		{"./test.sh", 0, commandlog.StatusOK, 32},
	})
	assert.Check(t, is.Contains(log.Commands[0].Output, "Hello, World!"))
	assert.Check(t, is.Contains(log.Commands[2].Output, "unrecognized arguments: --shout"))
	assert.Check(t, is.Contains(log.Commands[3].Output, "all tests passed"))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.DeepEqual(log.Markers, []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "README section Shouting uses --shout, but greet.py only accepts --loud"}}))
	assert.Assert(t, log.AgentVersion != nil)
	assert.Check(t, is.Equal(*log.AgentVersion, "2.1.332"))
	assert.Assert(t, log.CostUSD != nil, "cost_usd is null")
	assert.Check(t, *log.CostUSD > 0)
	assert.Assert(t, log.Turns != nil)
	assert.Check(t, *log.Turns >= 6)
	assert.Check(t, is.Equal(srv.TurnsServed(), len(sampleScenario.Turns)))

	// The other artifacts, and no secret anywhere.
	for _, p := range []string{res.CommandLog, res.Transcript, res.Stderr, res.Prompt} {
		b, err := os.ReadFile(p)
		assert.NilError(t, err)
		assert.Check(t, !strings.Contains(string(b), scriptedllm.DummyAPIKey), "%s holds the API key", p)
	}
	assert.Check(t, !strings.Contains(progress.String(), scriptedllm.DummyAPIKey))
	tr, err := os.ReadFile(res.Transcript)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(tr), `"type":"result"`))

	// One progress line per command, as it started.
	for _, c := range log.Commands {
		assert.Check(t, is.Contains(progress.String(), "$ "+c.Command))
	}
	assert.Check(t, is.Contains(progress.String(), "-> exit 2 (failed)"))
	assert.Check(t, is.Contains(progress.String(), "outcome: failed: 4 commands, 1 failed"))

	// The agent's README edit comes back as a diff, in the report too; the
	// demo is written beside the log.
	assert.Assert(t, res.ReadmeDiff != "", "no readme.diff for an edited README")
	diff, err := os.ReadFile(res.ReadmeDiff)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(diff), "--- a/README.md\n+++ b/README.md\n"))
	assert.Check(t, is.Contains(string(diff), "\n-python3 greet.py --shout World\n+python3 greet.py --loud World\n"))
	rep, err := os.ReadFile(res.Report)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(rep), "+python3 greet.py --loud World"))
	cast, err := os.ReadFile(res.DemoCast)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(cast), `"Hello, Ada!\r\n"`))
	page, err := os.ReadFile(res.HTMLReport)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(page), "greet.py --loud World"), "the page shows the README diff")
	script, err := os.ReadFile(res.DemoScript)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(script), "\npython3 greet.py Ada Grace\n"))

	assert.Equal(t, treeHash(t, repo), before, "the host checkout changed")
}
