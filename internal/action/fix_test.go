package action

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// The sample README and the agent's fixes of it: --shout is --loud (line
// 24), and ./test.sh runs with sh (line 32). They are read when a test
// starts, not at init: this test binary is also the egress proxy.
var (
	sampleReadme, fixLoud, fixBoth string
	loadSample                     sync.Once
)

func loadSampleReadme(t *testing.T) {
	loadSample.Do(func() {
		sampleReadme = mustRead(t, "../../testdata/sample-repo/README.md")
		fixLoud = strings.Replace(sampleReadme, "greet.py --shout World", "greet.py --loud World", 1)
		fixBoth = strings.Replace(fixLoud, "./test.sh", "sh test.sh", 1)
	})
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	assert.NilError(t, err)
	return string(b)
}

// fixHarness is a harness whose agent run edited the README (agent is the
// README it left), whose verification runs answer with verifyStatus for
// every command, and whose repository is on the fake GitHub.
type fixHarness struct {
	*harness
	agent        string
	extraDiff    string // appended to readme.diff (another file)
	outcome      commandlog.Outcome
	fixes        []string
	verifyStatus commandlog.Status
	mu           sync.Mutex
	engines      []string // the engines the pipeline ran, in order
	verified     []string // the README text each verification run got
	mainSHA      string
}

// newFixHarness starts on a pull request event (pr) or a schedule.
func newFixHarness(t *testing.T, pr bool) *fixHarness {
	loadSampleReadme(t)
	h := &fixHarness{harness: newHarness(t, ""), agent: fixBoth, outcome: commandlog.OutcomeSuccess,
		fixes: []string{"README section Shouting uses --shout, but greet.py only accepts --loud", "test.sh is not executable here: run it with sh"}, verifyStatus: commandlog.StatusOK}
	ws := h.env["GITHUB_WORKSPACE"]
	assert.NilError(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte(sampleReadme), 0o644))
	h.mainSHA = h.gh.SeedBranch("acme", "demo", "main", map[string]string{"README.md": sampleReadme, "greet.py": "print()\n"})
	event := scheduleEvent
	h.env["GITHUB_EVENT_NAME"] = "schedule"
	h.env["GITHUB_REF_NAME"] = "main"
	h.env["GITHUB_SHA"] = h.mainSHA
	if pr {
		event = h.prEvent(sampleReadme)
		h.env["GITHUB_EVENT_NAME"] = "pull_request"
		seedPRDiff(h.gh)
	}
	ev, err := json.Marshal(event)
	assert.NilError(t, err)
	evPath := filepath.Join(t.TempDir(), "event.json")
	assert.NilError(t, os.WriteFile(evPath, ev, 0o644))
	h.env["GITHUB_EVENT_PATH"] = evPath
	h.pipeline = h.fakePipeline
	return h
}

// prEvent is a pull_request event whose head commit holds head as README.md.
func (h *fixHarness) prEvent(head string) map[string]any {
	sha := h.gh.SeedBranch("acme", "demo", "docs-quickstart", map[string]string{"README.md": head})
	return map[string]any{"number": 7, "pull_request": map[string]any{"number": 7,
		"head": map[string]any{"sha": sha, "repo": map[string]any{"full_name": "acme/demo"}},
		"base": map[string]any{"repo": map[string]any{"full_name": "acme/demo"}}},
		"repository": map[string]any{"default_branch": "main"}}
}

var scheduleEvent = map[string]any{"schedule": "0 6 * * 1", "repository": map[string]any{"default_branch": "main"}}

func (h *fixHarness) fakePipeline(_ context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
	h.mu.Lock()
	h.engines = append(h.engines, cfg.Engine)
	h.mu.Unlock()
	assert.NilError(h.t, os.MkdirAll(cfg.OutDir, 0o755))
	res := &pipeline.Result{CommandLog: filepath.Join(cfg.OutDir, "command_log.json")}
	var l *commandlog.Log
	switch cfg.Engine {
	case "markdown", "replay":
		h.mu.Lock()
		h.verified = append(h.verified, string(cfg.ReadmeText))
		h.mu.Unlock()
		l = &commandlog.Log{SchemaVersion: 1, Engine: cfg.Engine, Outcome: commandlog.OutcomeSuccess}
		for i, line := range strings.Split(string(cfg.ReadmeText), "\n") {
			if !strings.HasPrefix(line, "python3 ") && !strings.HasPrefix(line, "sh ") && !strings.HasPrefix(line, "./") {
				continue
			}
			c := commandlog.Command{ID: "c", Command: line, Status: h.verifyStatus, ExitCode: ptr(0),
				Source: &commandlog.Source{File: "README.md", Line: i + 1}}
			if h.verifyStatus != commandlog.StatusOK {
				c.ExitCode = ptr(2)
				l.Outcome = commandlog.OutcomeFailed
			}
			l.Commands = append(l.Commands, c)
		}
	default:
		l = &commandlog.Log{SchemaVersion: 1, Engine: "claude-code", Outcome: h.outcome, Adjusted: h.outcome == commandlog.OutcomeSuccess,
			Commands: []commandlog.Command{
				{ID: "a", Command: "python3 greet.py --shout World", Output: "error: unrecognized arguments: --shout\n", Status: commandlog.StatusFailed, ExitCode: ptr(2),
					Source: &commandlog.Source{File: "README.md", Line: 24}},
				{ID: "b", Command: "python3 greet.py --loud World", Output: "HELLO, WORLD!\n", Status: commandlog.StatusOK, ExitCode: ptr(0)},
			}}
		for _, f := range h.fixes {
			l.Markers = append(l.Markers, commandlog.Marker{Kind: commandlog.MarkerFix, Text: f})
		}
		d, err := textdiff.Unified("a/README.md", "b/README.md", sampleReadme, h.agent)
		assert.NilError(h.t, err)
		res.ReadmeDiff = filepath.Join(cfg.OutDir, "readme.diff")
		assert.NilError(h.t, os.WriteFile(res.ReadmeDiff, []byte(d+h.extraDiff), 0o644))
	}
	var buf bytes.Buffer
	assert.NilError(h.t, commandlog.Encode(&buf, l))
	assert.NilError(h.t, os.WriteFile(res.CommandLog, buf.Bytes(), 0o644))
	res.Log = l
	return res, nil
}

// The pull request reworded the Shouting section (lines 21-27 are in its
// diff); the agent's fix of line 24 is a suggestion, its fix of line 32 a
// patch in the comment.
func seedPRDiff(gh *fakegithub.Server) {
	gh.SeedPullFiles("acme", "demo", 7, []fakegithub.PullFile{{Filename: "README.md", Status: "modified",
		Patch: "@@ -21,7 +21,7 @@ prints `HELLO, WORLD!`.\n \n-Add `--shout` to greet:\n+Add `--shout` to greet in capitals: <!-- readme2demo: run -->\n \n ```sh\n python3 greet.py --shout World\n ```\n "}})
}

func TestFixSuggestPostsOneReviewAndReplacesIt(t *testing.T) {
	h := newFixHarness(t, true)

	r := h.run()
	assert.Equal(t, r.code, exitcode.OK, "stderr: %s\nstdout: %s", r.stderr, r.stdout)
	reviews := h.gh.Reviews("acme", "demo", 7)
	assert.Assert(t, is.Len(reviews, 1))
	assert.Check(t, is.Equal(r.outputs["fix-url"], reviews[0].HTMLURL))
	assert.Check(t, is.Contains(reviews[0].Body, "<!-- readme2demo:review suggest workflow=readme-check job=readme engine=claude-code readme=README.md -->"))
	comments := h.gh.ReviewComments("acme", "demo", 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Check(t, is.Equal(comments[0].Line, 24))
	assert.Check(t, is.Equal(comments[0].Body, "**readme2demo:** the agent had to change this to follow the README.\n\n"+
		"> FIX: README section Shouting uses --shout, but greet.py only accepts --loud\n\n```suggestion\npython3 greet.py --loud World\n```\n"))
	// The sticky comment links to the review and holds the other change as a patch.
	sticky := h.gh.Comments("acme", "demo", 7)
	assert.Assert(t, is.Len(sticky, 1))
	assert.Check(t, is.Contains(sticky[0].Body, "💡 The agent's README edit is 1 suggested change in [this review]("+reviews[0].HTMLURL+")"))
	assert.Check(t, is.Contains(sticky[0].Body, "<details><summary>Not a suggestion: README.md line 32</summary>"))
	assert.Check(t, is.Contains(sticky[0].Body, "-./test.sh\n+sh test.sh\n"))
	assert.Check(t, is.Contains(r.summary, "[this review]("))

	// A re-run with the same edit: no second review.
	r = h.run()
	assert.Equal(t, r.code, exitcode.OK)
	assert.Check(t, is.Len(h.gh.Reviews("acme", "demo", 7), 1))
	assert.Check(t, is.Len(h.gh.ReviewComments("acme", "demo", 7), 1))

	// A re-run with another edit: the review is replaced, not added to.
	h.agent = strings.Replace(fixBoth, "greet.py --loud World", "greet.py --loud Ada", 1)
	r = h.run()
	assert.Equal(t, r.code, exitcode.OK)
	reviews = h.gh.Reviews("acme", "demo", 7)
	assert.Assert(t, is.Len(reviews, 2))
	assert.Check(t, is.Contains(reviews[0].Body, "superseded by [a newer review]("+reviews[1].HTMLURL+")"))
	assert.Check(t, !strings.Contains(reviews[0].Body, "<!-- readme2demo:review suggest"))
	comments = h.gh.ReviewComments("acme", "demo", 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Check(t, is.Contains(comments[0].Body, "python3 greet.py --loud Ada"))
	assert.Check(t, is.Equal(r.outputs["fix-url"], reviews[1].HTMLURL))
	assert.Check(t, is.Len(h.gh.Comments("acme", "demo", 7), 1))
}

func TestFixSuggestWithoutPermissionWarns(t *testing.T) {
	h := newFixHarness(t, true)
	h.gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/reviews") {
			return &fakegithub.Failure{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	r := h.run()
	assert.Equal(t, r.code, exitcode.OK, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "::warning::readme2demo: could not post the review of suggested README changes: create review: GitHub answered 403"))
	assert.Check(t, is.Len(h.gh.Reviews("acme", "demo", 7), 0))
	assert.Check(t, is.Contains(r.summary, "-python3 greet.py --shout World\n+python3 greet.py --loud World\n"), "the edit is kept in the summary")
}

func TestFixPullRequestOpenedThenUpdatedBySchedule(t *testing.T) {
	h := newFixHarness(t, false)
	h.env["INPUT_FIX"] = "pull-request"
	r := h.run()
	assert.Equal(t, r.code, exitcode.OK, "stderr: %s\nstdout: %s", r.stderr, r.stdout)
	assert.Check(t, is.DeepEqual(h.engines, []string{"claude-code", "markdown"}))
	assert.Check(t, is.DeepEqual(h.verified, []string{fixBoth}))
	pulls := h.gh.Pulls("acme", "demo")
	assert.Assert(t, is.Len(pulls, 1))
	pr := pulls[0]
	assert.Check(t, is.Equal(pr.Head, "readme2demo/fix-readme"))
	assert.Check(t, is.Equal(pr.Base, "main"))
	assert.Check(t, is.Equal(pr.Title, "readme2demo: fix README.md (verified)"))
	assert.Check(t, is.Equal(r.outputs["fix-url"], pr.URL))
	head := h.gh.Branch("acme", "demo", "readme2demo/fix-readme")
	assert.Assert(t, head != nil)
	assert.Check(t, is.DeepEqual(head.Parents, []string{h.mainSHA}))
	assert.Check(t, is.Equal(h.gh.Files("acme", "demo", head.SHA)["README.md"], fixBoth))
	assert.Check(t, is.Equal(h.gh.Files("acme", "demo", head.SHA)["greet.py"], "print()\n"))
	for _, want := range []string{
		"<!-- readme2demo:pr fix-readme readme=README.md -->",
		"**Made by a machine.**",
		"- README section Shouting uses --shout, but greet.py only accepts --loud\n",
		"<details><summary><code>python3 greet.py --shout World</code> — exit 2 (README.md line 24)</summary>",
		"error: unrecognized arguments: --shout",
		"**Verification ✅ passed:** the keyless markdown runner ran the fixed README in a fresh sandbox.",
		"| ` README.md:24 ` | ` python3 greet.py --loud World ` | ✅ passed |\n| ` README.md:32 ` | ` sh test.sh ` | ✅ passed |\n",
		"-python3 greet.py --shout World\n+python3 greet.py --loud World\n",
	} {
		assert.Check(t, is.Contains(pr.Body, want))
	}
	assert.Check(t, is.Contains(r.summary, "🔧 The agent's README edit, verified in a fresh sandbox, is in [this pull request]("+pr.URL+") (opened)."))

	// The next scheduled run finds another fix: the same branch and pull
	// request carry it.
	h.agent = fixLoud
	h.fixes = h.fixes[:1]
	r = h.run()
	assert.Equal(t, r.code, exitcode.OK)
	pulls = h.gh.Pulls("acme", "demo")
	assert.Assert(t, is.Len(pulls, 1))
	assert.Check(t, is.Equal(pulls[0].Number, pr.Number))
	assert.Check(t, !strings.Contains(pulls[0].Body, "test.sh is not executable"))
	head2 := h.gh.Branch("acme", "demo", "readme2demo/fix-readme")
	assert.Check(t, head2.SHA != head.SHA)
	assert.Check(t, is.Equal(h.gh.Files("acme", "demo", head2.SHA)["README.md"], fixLoud))
	assert.Check(t, is.Contains(r.summary, "(updated)"))
}

func TestFixPullRequestNotOpened(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(h *fixHarness)
		notice  string
		engines []string
	}{
		{"verification fails", func(h *fixHarness) { h.verifyStatus = commandlog.StatusFailed },
			"No fix pull request: the verification failed: the fixed README's changed steps did not pass in a fresh sandbox.", []string{"claude-code", "markdown"}},
		{"the edit touches a workflow", func(h *fixHarness) {
			h.extraDiff = "--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n@@ -1 +1 @@\n-on: push\n+on: pull_request\n"
		}, "No fix pull request: the edit touches a workflow (.github/workflows/ci.yml); readme2demo never proposes workflow changes.", []string{"claude-code"}},
		{"the edit touches another file", func(h *fixHarness) {
			h.extraDiff = "--- a/greet.py\n+++ b/greet.py\n@@ -1 +1 @@\n-print()\n+print(1)\n"
		}, "No fix pull request: the agent's edit touches files other than the README (greet.py); readme2demo proposes README edits only.", []string{"claude-code"}},
		{"blocked", func(h *fixHarness) { h.outcome = commandlog.OutcomeBlocked },
			"No fix pull request: the run was blocked, so the edit is not a fix.", []string{"claude-code"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newFixHarness(t, false)
			h.env["INPUT_FIX"] = "pull-request"
			h.env["INPUT_FAIL_ON"] = "never"
			tc.setup(h)
			r := h.run()
			assert.Equal(t, r.code, exitcode.OK, r.stderr)
			assert.Check(t, is.Len(h.gh.Pulls("acme", "demo"), 0))
			assert.Check(t, h.gh.Branch("acme", "demo", "readme2demo/fix-readme") == nil)
			assert.Check(t, is.Contains(r.stdout, "::notice::readme2demo: "+tc.notice+"\n"))
			assert.Check(t, is.Contains(r.summary, "### Suggested README fix\n\n"+report.Text(tc.notice)+"\n\n"), r.summary)
			assert.Check(t, is.DeepEqual(h.engines, tc.engines))
			assert.Check(t, is.Equal(h.gh.Count("POST"), 0))
		})
	}
}

func TestFixPullRequestWithoutPermissionsWarnsAndKeepsThePatch(t *testing.T) {
	h := newFixHarness(t, false)
	h.env["INPUT_FIX"] = "pull-request"
	h.gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
		if r.Method == http.MethodPost {
			return &fakegithub.Failure{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	r := h.run()
	assert.Equal(t, r.code, exitcode.OK, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "::warning::readme2demo: could not open the fix pull request: create blob README.md: GitHub answered 403"))
	assert.Check(t, is.Len(h.gh.Pulls("acme", "demo"), 0))
	assert.Check(t, is.Contains(r.summary, "-python3 greet.py --shout World\n+python3 greet.py --loud World\n"))
	assert.Check(t, is.Contains(r.summary, "**Verification ✅ passed:**"))
	assert.Check(t, is.Equal(r.outputs["fix-url"], ""))
}

func TestFixDefaultsByEvent(t *testing.T) {
	// A schedule without the input: off, so nothing is verified or opened.
	h := newFixHarness(t, false)
	r := h.run()
	assert.Equal(t, r.code, exitcode.OK)
	assert.Check(t, is.DeepEqual(h.engines, []string{"claude-code"}))
	assert.Check(t, is.Len(h.gh.Pulls("acme", "demo"), 0))
	assert.Check(t, is.Contains(r.summary, "<details><summary>Suggested README fix: the edit the agent made to follow it</summary>"))

	// fix: off on a pull request: no review.
	h = newFixHarness(t, true)
	h.env["INPUT_FIX"] = "off"
	r = h.run()
	assert.Equal(t, r.code, exitcode.OK)
	assert.Check(t, is.Len(h.gh.Reviews("acme", "demo", 7), 0))
}

func TestFixInputsAreChecked(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_FIX"] = "commit"
	h.env["INPUT_FIX_BRANCH"] = "bad..branch"
	r := h.run()
	assert.Equal(t, r.code, exitcode.Usage)
	assert.Check(t, is.Contains(r.stdout, `::error::input fix: "commit" is not suggest, pull-request or off`))
	assert.Check(t, is.Contains(r.stdout, `::error::input fix-branch: "bad..branch" is not a branch name`))
}
