package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// The real thing: run() with the real pipeline, a real container and the
// real Claude Code CLI driven by the scripted mock LLM, against the bundled sample repository
// whose --shout step has drifted. A fake runner (output files, event
// payload) and a fake GitHub API stand in for Actions.
func TestActionEndToEndInContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs containers; skipped with -short")
	}
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	srv, err := scriptedllm.Start(gw+":0", scriptedllm.Scenario{
		Name: "action-sample",
		Turns: []scriptedllm.Turn{
			scriptedllm.Run("", scriptedllm.Bash("python3 greet.py World")),
			scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
			scriptedllm.Say("The Shouting step fails: greet.py has no --shout flag.\nFIX: README section Shouting uses --shout, but greet.py only accepts --loud"),
		},
	})
	assert.NilError(t, err)
	defer srv.Close()

	testdata, err := filepath.Abs("../../testdata")
	assert.NilError(t, err)
	event, err := filepath.Abs("testdata/event_pull_request.json")
	assert.NilError(t, err)

	// The keyless markdown engine belongs in this list too, once the
	// pipeline hands it its runner script (engines.InputPreparer).
	for _, engine := range []string{"claude-code"} {
		t.Run(engine, func(t *testing.T) {
			gh := fakegithub.New("/api/v3/")
			defer gh.Close()
			dir := t.TempDir()
			env := map[string]string{
				"GITHUB_ACTIONS":          "true",
				"GITHUB_OUTPUT":           filepath.Join(dir, "output"),
				"GITHUB_STEP_SUMMARY":     filepath.Join(dir, "summary"),
				"GITHUB_WORKSPACE":        testdata,
				"GITHUB_EVENT_NAME":       "pull_request",
				"GITHUB_EVENT_PATH":       event,
				"GITHUB_REPOSITORY":       "acme/demo",
				"GITHUB_API_URL":          gh.URL,
				"GITHUB_WORKFLOW":         "readme-check",
				"GITHUB_JOB":              "readme",
				"INPUT_GITHUB_TOKEN":      "ghs_e2eTokenE2eTokenE2eTokenE2eToken00",
				"INPUT_ENGINE":            engine,
				"INPUT_IMAGE":             img,
				"INPUT_WORKING_DIRECTORY": "sample-repo",
				"INPUT_OUTPUT_DIR":        filepath.Join(dir, "out"),
				"INPUT_MAX_TURNS":         "10",
				"INPUT_TIMEOUT_MINUTES":   "3",
			}
			if engine == "claude-code" {
				env["ANTHROPIC_API_KEY"] = scriptedllm.DummyAPIKey
				env["ANTHROPIC_BASE_URL"] = srv.URL()
			}
			var stdout, stderr bytes.Buffer
			code := Run(ctx, nil, func(k string) string { return env[k] }, &stdout, &stderr)
			t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

			assert.Check(t, is.Equal(code, exitcode.Failed))
			outputs := readOutputs(t, env["GITHUB_OUTPUT"])
			for _, k := range allOutputs {
				assert.Check(t, outputs[k] != "" || k == "cost-usd" || k == "turns" || k == "duration-ms" || k == "fix-url", "output %s empty: %v", k, outputs)
			}
			assert.Check(t, is.Equal(outputs["outcome"], "failed"))
			assert.Check(t, outputs["failed-commands"] != "0", outputs)

			f, err := os.Open(outputs["command-log"])
			assert.NilError(t, err)
			log, err := commandlog.Decode(f)
			f.Close()
			assert.NilError(t, err)
			assert.Check(t, is.Equal(log.Engine, engine))
			var shout *commandlog.Command
			for i, c := range log.Commands {
				if strings.Contains(c.Command, "--shout") {
					shout = &log.Commands[i]
				}
			}
			assert.Assert(t, shout != nil, "no --shout command in %+v", log.Commands)
			assert.Check(t, is.Equal(shout.Status, commandlog.StatusFailed))
			assert.Assert(t, shout.Source != nil, "the --shout command was not located in the README")

			// The annotation points at the README line, relative to the workspace.
			assert.Check(t, is.Contains(stdout.String(), "::error file=sample-repo/README.md,line="+strconv.Itoa(shout.Source.Line)+","))
			summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
			assert.NilError(t, err)
			assert.Check(t, is.Contains(string(summary), "The README did not work"))
			assert.Check(t, len(summary) < 1<<20)
			comments := gh.Comments("acme", "demo", 7)
			assert.Assert(t, is.Len(comments, 1))
			assert.Check(t, is.Contains(comments[0].Body, "--shout"))
			published := string(summary) + comments[0].Body + stderr.String()
			for _, line := range strings.Split(stdout.String(), "\n") {
				if !strings.HasPrefix(line, "::add-mask::") {
					published += line + "\n"
				}
			}
			assert.Check(t, !strings.Contains(published, env["INPUT_GITHUB_TOKEN"]))
		})
	}
}
