package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
)

func newClient(t *testing.T) (*ghapi.Client, *fakegithub.Server, string) {
	t.Helper()
	gh := fakegithub.New("/api/v3/")
	gh.Token = "tok"
	t.Cleanup(gh.Close)
	base := gh.SeedBranch("o", "r", "main", map[string]string{
		"README.md":                 "# r\n",
		"internal/agentcli/pins.go": "CodexVersion = \"0.171.0\"\n",
	})
	svc, err := ghapi.New(ghapi.Config{APIURL: gh.URL, Token: "tok",
		Sleep: func(context.Context, time.Duration) error { return nil }})
	assert.NilError(t, err)
	return svc, gh, base
}

var target = ghapi.PRTarget{Owner: "o", Repo: "r", Base: "main", Branch: "readme2demo/pin-codex", Key: "pin codex"}

func change(version string) ghapi.Change {
	return ghapi.Change{Message: "codex: pin " + version, Files: []ghapi.File{
		{Path: "internal/agentcli/pins.go", Content: []byte("CodexVersion = \"" + version + "\"\n")},
		{Path: "testdata/fixtures/codex/real-" + version + "-success.jsonl", Content: []byte("{\"type\":\"thread.started\"}\n")},
		{Path: "scripts/x.sh", Content: []byte("#!/bin/sh\n"), Executable: true},
	}}
}

func TestUpsertPROpensThenUpdatesOnePullRequest(t *testing.T) {
	svc, gh, base := newClient(t)
	ctx := context.Background()

	pr, err := svc.UpsertPR(ctx, target, change("0.172.0"), "codex: pin 0.172.0", "No drift.")
	assert.NilError(t, err)
	assert.Check(t, pr.Created)
	assert.Check(t, pr.Pushed)
	head := gh.Branch("o", "r", "readme2demo/pin-codex")
	assert.Assert(t, head != nil)
	assert.Check(t, is.Equal(pr.Commit, head.SHA))
	assert.Check(t, is.DeepEqual(head.Parents, []string{base}), "the change sits on the base branch's head")
	assert.Check(t, is.Equal(head.Message, "codex: pin 0.172.0"))
	files := gh.Files("o", "r", head.SHA)
	assert.Check(t, is.Equal(files["internal/agentcli/pins.go"], "CodexVersion = \"0.172.0\"\n"))
	assert.Check(t, is.Equal(files["README.md"], "# r\n"), "files outside the change are kept")
	assert.Check(t, is.Equal(files["testdata/fixtures/codex/real-0.172.0-success.jsonl"], "{\"type\":\"thread.started\"}\n"))
	pulls := gh.Pulls("o", "r")
	assert.Assert(t, is.Len(pulls, 1))
	assert.Check(t, is.Equal(pulls[0].Title, "codex: pin 0.172.0"))
	assert.Check(t, is.Equal(pulls[0].Head, "readme2demo/pin-codex"))
	assert.Check(t, is.Equal(pulls[0].Base, "main"))
	assert.Check(t, strings.HasPrefix(pulls[0].Body, ghapi.Marker("pr", "pin codex")+"\nNo drift."))

	// The same change again: no new commit, the one pull request is updated.
	again, err := svc.UpsertPR(ctx, target, change("0.172.0"), "codex: pin 0.172.0", "No drift, again.")
	assert.NilError(t, err)
	assert.Check(t, !again.Created)
	assert.Check(t, !again.Pushed, "an identical change is not committed twice")
	assert.Check(t, is.Equal(again.Number, pr.Number))
	assert.Check(t, is.Equal(gh.Branch("o", "r", "readme2demo/pin-codex").SHA, head.SHA))

	// A newer version next week: the branch moves (force) and the same pull request says so.
	newer, err := svc.UpsertPR(ctx, target, change("0.173.0"), "codex: pin 0.173.0", "No drift in 0.173.0.")
	assert.NilError(t, err)
	assert.Check(t, newer.Pushed)
	assert.Check(t, is.Equal(newer.Number, pr.Number))
	head = gh.Branch("o", "r", "readme2demo/pin-codex")
	assert.Check(t, is.DeepEqual(head.Parents, []string{base}), "one commit on the base, not a pile of bumps")
	files = gh.Files("o", "r", head.SHA)
	assert.Check(t, is.Equal(files["internal/agentcli/pins.go"], "CodexVersion = \"0.173.0\"\n"))
	_, stale := files["testdata/fixtures/codex/real-0.172.0-success.jsonl"]
	assert.Check(t, !stale, "the older bump's fixtures are gone with its commit")
	pulls = gh.Pulls("o", "r")
	assert.Assert(t, is.Len(pulls, 1))
	assert.Check(t, is.Equal(pulls[0].Title, "codex: pin 0.173.0"))
	assert.Check(t, is.Contains(pulls[0].Body, "No drift in 0.173.0."))
}

func TestUpsertPRFindsTheMarkerAmongOtherPullRequests(t *testing.T) {
	svc, gh, _ := newClient(t)
	gh.PerPage = 2 // pages of two
	gh.SeedBranch("o", "r", "feature", map[string]string{"a": "b"})
	for i := 0; i < 3; i++ {
		gh.SeedPull("o", "r", "feature", "main", "someone's PR", "mentions readme2demo:pr pin codex in prose", "open")
	}
	gh.SeedBranch("o", "r", "readme2demo/pin-codex", map[string]string{"old": "bump"})
	closed := gh.SeedPull("o", "r", "readme2demo/pin-codex", "main", "codex: pin 0.170.0", ghapi.Marker("pr", "pin codex")+"\nold", "closed")
	ours := gh.SeedPull("o", "r", "readme2demo/pin-codex", "main", "codex: pin 0.171.0", ghapi.Marker("pr", "pin codex")+"\nold", "open")
	pr, err := svc.UpsertPR(context.Background(), target, change("0.172.0"), "codex: pin 0.172.0", "new")
	assert.NilError(t, err)
	assert.Check(t, !pr.Created)
	assert.Check(t, is.Equal(pr.Number, ours))
	for _, p := range gh.Pulls("o", "r") {
		if p.Number == closed {
			assert.Check(t, is.Contains(p.Body, "old"), "a closed bump stays as it was")
		}
	}
	// the seeded branch was not a descendant of main: moved with force
	files := gh.Files("o", "r", gh.Branch("o", "r", "readme2demo/pin-codex").SHA)
	assert.Check(t, is.Equal(files["internal/agentcli/pins.go"], "CodexVersion = \"0.172.0\"\n"))
}

func TestUpsertPRErrors(t *testing.T) {
	svc, gh, _ := newClient(t)
	ctx := context.Background()
	gh.Fail = func(r *http.Request, n int) *fakegithub.Failure {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pulls") {
			return &fakegithub.Failure{Status: http.StatusForbidden, Body: `{"message":"GitHub Actions is not permitted to create or approve pull requests."}`}
		}
		return nil
	}
	_, err := svc.UpsertPR(ctx, target, change("0.172.0"), "t", "b")
	var perr *ghapi.PermissionError
	assert.Assert(t, errors.As(err, &perr), "%v", err)
	assert.Check(t, is.Equal(perr.Op, "open pull request"))
	assert.Check(t, is.Contains(err.Error(), "allow GitHub Actions to create pull requests"))

	// 5xx on the list: retried, then it works, and only one PR is opened.
	fails := 0
	gh.Fail = func(r *http.Request, n int) *fakegithub.Failure {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pulls") && fails < 2 {
			fails++
			return &fakegithub.Failure{Status: http.StatusBadGateway, Body: `{"message":"bad gateway"}`}
		}
		return nil
	}
	pr, err := svc.UpsertPR(ctx, target, change("0.172.0"), "t", "b")
	assert.NilError(t, err)
	assert.Check(t, pr.Created)
	assert.Check(t, is.Len(gh.Pulls("o", "r"), 1))

	_, err = svc.UpsertPR(ctx, ghapi.PRTarget{Owner: "o", Repo: "r", Base: "nope", Branch: "b", Key: "k"}, change("1.0.0"), "t", "b")
	assert.Check(t, is.ErrorContains(err, "get base branch nope"))
	_, err = svc.UpsertPR(ctx, target, ghapi.Change{Message: "m"}, "t", "b")
	assert.Check(t, is.ErrorContains(err, "the change has no files"))
}
