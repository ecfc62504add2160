package pipeline_test

import (
	"bytes"
	"context"
	"os"
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

// codexSampleScenario is the sample README's demo as Codex would run it:
// a note written with apply_patch (absolute path: codex resolves relative
// ones against its own cwd, which is /workspace anyway), the README's four
// steps, the drifted --shout step failing, and a FIX marker.
var codexSampleScenario = scriptedllm.Scenario{
	Name: "codex-sample-failed",
	Turns: []scriptedllm.Turn{
		scriptedllm.Run("I'll follow the README.", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py Ada Grace")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
		scriptedllm.Run("", scriptedllm.Write("/workspace/NOTES.md", "--shout is not accepted\n")),
		scriptedllm.Run("", scriptedllm.Bash("./test.sh")),
		scriptedllm.Run("", scriptedllm.Bash(codexKeyCheck)),
	},
	FinalText: "The Shouting step fails: greet.py has no --shout flag, it accepts --loud.\n" +
		"FIX: README section Shouting uses --shout, but greet.py only accepts --loud",
}

// codexKeyCheck succeeds only when the API key is not in the environment of
// the commands codex runs.
const codexKeyCheck = `test -z "${OPENAI_API_KEY:-}${CODEX_API_KEY:-}" && echo no key in the environment`

// The acceptance run for the codex engine: the REAL pinned codex CLI in the
// REAL sandbox container, its model provider pointed at the mock on the
// Docker bridge gateway through OPENAI_BASE_URL (forwarded by ResolveEnv).
func TestRunEndToEndRealCodexInContainer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
	}{
		// gpt-5.5 is offered exec_command and apply_patch directly; codex's
		// default model gets a JavaScript exec tool that calls them.
		{"model gpt-5.5", scriptedllm.CodexModel},
		{"default model", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli, img := sandboxtest.Docker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			srv := startMock(ctx, t, cli, codexSampleScenario)

			repo := sampleRepo(t)
			before := treeHash(t, repo)
			out := t.TempDir()
			var progress bytes.Buffer
			res, err := pipeline.Run(ctx, pipeline.Config{
				Engine:  engines.CodexName,
				RepoDir: repo,
				Image:   img,
				Limits:  engines.Limits{MaxTurns: 20, Timeout: 3 * time.Minute, Model: tc.model},
				OutDir:  out,
				Getenv: env(map[string]string{
					"OPENAI_API_KEY":  scriptedllm.DummyAPIKey,
					"OPENAI_BASE_URL": srv.URL() + "/v1",
				}),
				Progress: &progress,
				Docker:   cli,
			})
			stderr := ""
			if res != nil {
				b, _ := os.ReadFile(res.Stderr)
				stderr = string(b)
			}
			assert.NilError(t, err, "progress:\n%s\nstderr:\n%s", progress.String(), stderr)
			t.Logf("progress:\n%s\nagent stderr:\n%s", progress.String(), stderr)

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
				{codexKeyCheck, 0, commandlog.StatusOK, 0},
			})
			assert.Check(t, is.Contains(log.Commands[0].Output, "Hello, World!"))
			assert.Check(t, is.Contains(log.Commands[1].Output, "Hello, Ada!"))
			assert.Check(t, is.Contains(log.Commands[2].Output, "unrecognized arguments: --shout"))
			assert.Check(t, is.Contains(log.Commands[3].Output, "all tests passed"))
			assert.Check(t, is.Contains(log.Commands[4].Output, "no key in the environment"))
			assert.Check(t, is.DeepEqual(log.FileEdits, []commandlog.FileEdit{
				{Path: "/workspace/NOTES.md", Tool: "apply_patch:add", OK: true},
			}))
			assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeFailed))
			assert.Check(t, is.DeepEqual(log.Markers, []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "README section Shouting uses --shout, but greet.py only accepts --loud"}}))
			// Codex states tokens, not dollars, and one exec is one turn.
			assert.Check(t, log.CostUSD == nil, "cost_usd is %v", log.CostUSD)
			assert.Assert(t, log.Turns != nil)
			assert.Check(t, is.Equal(*log.Turns, 1))
			assert.Check(t, is.Equal(srv.TurnsServed(), len(codexSampleScenario.Turns)))

			// Every model request went to the mock's Responses endpoint and
			// carried the tool results back (what the commands printed).
			var results []string
			for _, r := range srv.Requests() {
				assert.Check(t, is.Equal(r.Path, "/v1/responses"), "request %d", r.Seq)
				for _, tr := range r.ToolResults {
					results = append(results, tr.Content)
				}
			}
			assert.Check(t, is.Contains(strings.Join(results, "\n"), "Hello, Ada!"))

			// The key stays out of every artifact, and out of the commands'
			// environment (codex would otherwise pass it on).
			for _, p := range []string{res.CommandLog, res.Transcript, res.Stderr, res.Prompt} {
				b, err := os.ReadFile(p)
				assert.NilError(t, err)
				assert.Check(t, !strings.Contains(string(b), scriptedllm.DummyAPIKey), "%s holds the API key", p)
			}
			assert.Check(t, !strings.Contains(progress.String(), scriptedllm.DummyAPIKey))
			tr, err := os.ReadFile(res.Transcript)
			assert.NilError(t, err)
			assert.Check(t, is.Contains(string(tr), `"type":"turn.completed"`))

			for _, c := range log.Commands {
				assert.Check(t, is.Contains(progress.String(), "$ "+c.Command))
			}
			assert.Check(t, is.Contains(progress.String(), "-> exit 2 (failed)"))
			assert.Check(t, is.Contains(progress.String(), "outcome: failed: 5 commands, 1 failed"))

			assert.Equal(t, treeHash(t, repo), before, "the host checkout changed")
		})
	}
}
