package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/longtest"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// The whole fix flow for real: the scripted LLM drives the real Claude Code
// CLI in a container; it finds that the sample README's --shout step fails,
// edits the README to --loud and ends with ADJUSTED_SUCCESS. The Action
// (run(), the real pipeline, a fake runner and a fake GitHub) then posts the
// edit as a suggestion on a pull_request event, and on a schedule event runs
// the fixed README's changed step again in a fresh container (the keyless
// markdown engine) and opens the fix pull request.
func TestFixEndToEndWithARealAgent(t *testing.T) {
	longtest.Require(t) // two agent runs and a verification run in containers
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	scenario := scriptedllm.Scenario{Name: "action-fix", Turns: []scriptedllm.Turn{
		scriptedllm.Run("I'll read the README first.", scriptedllm.Read("/workspace/README.md")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --shout World")),
		scriptedllm.Run("", scriptedllm.Edit("/workspace/README.md", "python3 greet.py --shout World", "python3 greet.py --loud World")),
		scriptedllm.Run("", scriptedllm.Bash("python3 greet.py --loud World")),
		scriptedllm.Say("The Shouting step works with --loud.\nFIX: README section Shouting uses --shout, but greet.py only accepts --loud\nADJUSTED_SUCCESS"),
	}}

	// The repository: the sample, checked out in the workspace and on the
	// fake GitHub (main, and the head of pull request 7, which reworded the
	// Shouting section: README lines 18-24 are in its diff).
	ws := filepath.Join(t.TempDir(), "workspace")
	assert.NilError(t, os.CopyFS(ws, os.DirFS("../../testdata/sample-repo")))
	readme, err := os.ReadFile(filepath.Join(ws, "README.md"))
	assert.NilError(t, err)
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	mainSHA := gh.SeedBranch("acme", "demo", "main", map[string]string{"README.md": string(readme), "greet.py": mustRead(t, filepath.Join(ws, "greet.py"))})
	headSHA := gh.SeedBranch("acme", "demo", "docs-shouting", map[string]string{"README.md": string(readme)})
	gh.SeedPullFiles("acme", "demo", 7, []fakegithub.PullFile{{Filename: "README.md", Status: "modified",
		Patch: "@@ -18,7 +18,7 @@ prints `Hello, World!`.\n \n ## Shouting\n \n-Add `--shout` to greet:\n+Add `--shout` to greet in capitals: <!-- readme2demo: run -->\n \n ```sh\n python3 greet.py --shout World"}})

	run := func(t *testing.T, eventName string, event map[string]any, extra map[string]string) (int, string, string) {
		srv, err := scriptedllm.Start(gw+":0", scenario)
		assert.NilError(t, err)
		defer srv.Close()
		dir := t.TempDir()
		evb, err := json.Marshal(event)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "event.json"), evb, 0o644))
		env := map[string]string{
			"GITHUB_ACTIONS":      "true",
			"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
			"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
			"GITHUB_WORKSPACE":    ws,
			"GITHUB_EVENT_NAME":   eventName,
			"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
			"GITHUB_REPOSITORY":   "acme/demo",
			"GITHUB_API_URL":      gh.URL,
			"GITHUB_WORKFLOW":     "readme-check",
			"GITHUB_JOB":          "readme",
			"INPUT_GITHUB_TOKEN":  "ghs_e2eTokenE2eTokenE2eTokenE2eToken00",
			"INPUT_ENGINE":        "claude-code",
			"INPUT_IMAGE":         img,
			"INPUT_OUTPUT_DIR":    filepath.Join(dir, "out"),
			"INPUT_MAX_TURNS":     "12",
			"ANTHROPIC_API_KEY":   scriptedllm.DummyAPIKey,
			"ANTHROPIC_BASE_URL":  srv.URL(),
		}
		for k, v := range extra {
			env[k] = v
		}
		var stdout, stderr bytes.Buffer
		code := Run(ctx, nil, func(k string) string { return env[k] }, &stdout, &stderr)
		t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
		assert.Check(t, is.Equal(srv.TurnsServed(), len(scenario.Turns)))
		// What was published: everything but the masks.
		var logs []string
		for _, l := range strings.Split(stdout.String()+stderr.String(), "\n") {
			if !strings.HasPrefix(l, "::add-mask::") {
				logs = append(logs, l)
			}
		}
		return code, strings.Join(logs, "\n"), string(summary)
	}

	t.Run("pull_request: the edit is a suggestion", func(t *testing.T) {
		code, logs, summary := run(t, "pull_request", map[string]any{"number": 7, "pull_request": map[string]any{"number": 7,
			"head": map[string]any{"sha": headSHA, "repo": map[string]any{"full_name": "acme/demo"}},
			"base": map[string]any{"repo": map[string]any{"full_name": "acme/demo"}}}}, nil)
		assert.Equal(t, code, exitcode.OK)
		reviews := gh.Reviews("acme", "demo", 7)
		assert.Assert(t, is.Len(reviews, 1))
		comments := gh.ReviewComments("acme", "demo", 7)
		assert.Assert(t, is.Len(comments, 1))
		assert.Check(t, is.Equal(comments[0].Line, 24))
		assert.Check(t, is.Equal(comments[0].Body, "**readme2demo:** the agent had to change this to follow the README.\n\n"+
			"> FIX: README section Shouting uses --shout, but greet.py only accepts --loud\n\n```suggestion\npython3 greet.py --loud World\n```\n"))
		sticky := gh.Comments("acme", "demo", 7)
		assert.Assert(t, is.Len(sticky, 1))
		assert.Check(t, is.Contains(sticky[0].Body, "1 suggested change in [this review]("+reviews[0].HTMLURL+")"))
		assert.Check(t, is.Contains(summary, "[this review]("))
		assert.Check(t, !strings.Contains(logs+summary+sticky[0].Body+reviews[0].Body+comments[0].Body, "ghs_e2eToken"))
	})

	t.Run("schedule: the verified fix pull request", func(t *testing.T) {
		code, logs, summary := run(t, "schedule", map[string]any{"schedule": "23 6 * * 1", "repository": map[string]any{"default_branch": "main"}},
			map[string]string{"INPUT_FIX": "pull-request", "GITHUB_REF_NAME": "main", "GITHUB_SHA": mainSHA})
		assert.Equal(t, code, exitcode.OK)
		assert.Check(t, is.Contains(logs, "readme2demo: verifying the README fix with the markdown engine"))
		pulls := gh.Pulls("acme", "demo")
		assert.Assert(t, is.Len(pulls, 1))
		pr := pulls[0]
		assert.Check(t, is.Equal(pr.Head, "readme2demo/fix-readme"))
		for _, want := range []string{
			"**Made by a machine.**",
			"- README section Shouting uses --shout, but greet.py only accepts --loud\n",
			"<details><summary><code>python3 greet.py --shout World</code> — exit 2 (README.md line 24)</summary>",
			"**Verification ✅ passed:** the keyless markdown runner ran the fixed README in a fresh sandbox.",
			"| ` README.md:24 ` | ` python3 greet.py --loud World ` | ✅ passed |",
		} {
			assert.Check(t, is.Contains(pr.Body, want))
		}
		head := gh.Branch("acme", "demo", "readme2demo/fix-readme")
		assert.Assert(t, head != nil)
		assert.Check(t, is.Equal(gh.Files("acme", "demo", head.SHA)["README.md"],
			strings.Replace(string(readme), "greet.py --shout World", "greet.py --loud World", 1)))
		assert.Check(t, is.Contains(summary, "[this pull request]("+pr.URL+") (opened)"))
		assert.Check(t, !strings.Contains(logs+summary+pr.Body, "ghs_e2eToken"))
	})
}
