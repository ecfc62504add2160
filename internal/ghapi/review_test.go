package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
)

var reviewTarget = ghapi.ReviewTarget{Owner: "o", Repo: "r", Number: 7, CommitID: "abc", Key: "suggest readme=README.md"}

// The pull request changes lines 10-16 of README.md.
func seedReviewPR(gh *fakegithub.Server) {
	gh.SeedPullFiles("o", "r", 7, []fakegithub.PullFile{{Filename: "README.md", Status: "modified", Patch: "@@ -10,6 +10,7 @@ x\n a\n b\n c\n+d\n e\n f\n g"}})
}

func TestUpsertReviewPostsOnceAndReplaces(t *testing.T) {
	svc, gh, _ := newClient(t)
	seedReviewPR(gh)
	ctx := context.Background()
	first := []ghapi.ReviewComment{{Path: "README.md", Line: 13, Body: "```suggestion\nD\n```\n"}}

	r, err := svc.UpsertReview(ctx, reviewTarget, "2 suggestions", first)
	assert.NilError(t, err)
	assert.Check(t, r.Created)
	assert.Check(t, strings.HasPrefix(r.URL, "https://github.example/o/r/pull/7#pullrequestreview-"))

	// The same suggestions again: nothing new.
	again, err := svc.UpsertReview(ctx, reviewTarget, "2 suggestions", first)
	assert.NilError(t, err)
	assert.Check(t, !again.Created)
	assert.Check(t, is.Equal(again.URL, r.URL))
	assert.Check(t, is.Len(gh.Reviews("o", "r", 7), 1))

	// Other suggestions: a new review; the earlier one loses its comments
	// and its marker, and points at the new one.
	second := []ghapi.ReviewComment{{Path: "README.md", Line: 15, StartLine: 14, Body: "```suggestion\nE\nF\n```\n"}}
	r2, err := svc.UpsertReview(ctx, reviewTarget, "1 suggestion", second)
	assert.NilError(t, err)
	assert.Check(t, r2.Created)
	assert.Check(t, is.Equal(r2.Retired, 1))
	reviews := gh.Reviews("o", "r", 7)
	assert.Assert(t, is.Len(reviews, 2))
	assert.Check(t, is.Equal(reviews[0].Body, "<!-- readme2demo:review-retired suggest readme=README.md -->\nreadme2demo: these suggestions were superseded by ["+
		"a newer review]("+r2.URL+")."))
	assert.Check(t, is.Contains(reviews[1].Body, "<!-- readme2demo:review suggest readme=README.md -->\n"))
	assert.Check(t, is.Equal(reviews[1].CommitID, "abc"))
	comments := gh.ReviewComments("o", "r", 7)
	assert.Assert(t, is.Len(comments, 1))
	assert.Check(t, is.DeepEqual([]int{comments[0].StartLine, comments[0].Line}, []int{14, 15}))
	assert.Check(t, is.Equal(comments[0].Side, "RIGHT"))

	// Nothing to suggest: the live review is retired as resolved.
	r3, err := svc.UpsertReview(ctx, reviewTarget, "", nil)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(r3.URL, ""))
	assert.Check(t, is.Equal(r3.Retired, 1))
	assert.Check(t, is.Len(gh.ReviewComments("o", "r", 7), 0))
	assert.Check(t, is.Contains(gh.Reviews("o", "r", 7)[1].Body, "resolved"))
	assert.Check(t, is.Len(gh.Reviews("o", "r", 7), 2))
}

func TestUpsertReviewErrors(t *testing.T) {
	svc, gh, _ := newClient(t)
	seedReviewPR(gh)
	ctx := context.Background()
	// A line outside the pull request's diff: GitHub refuses the review.
	_, err := svc.UpsertReview(ctx, reviewTarget, "x", []ghapi.ReviewComment{{Path: "README.md", Line: 40, Body: "x"}})
	assert.ErrorContains(t, err, "create review: ")
	assert.ErrorContains(t, err, "must be part of the diff")

	gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
		if r.Method == http.MethodPost {
			return &fakegithub.Failure{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}
		}
		return nil
	}
	_, err = svc.UpsertReview(ctx, reviewTarget, "x", []ghapi.ReviewComment{{Path: "README.md", Line: 13, Body: "x"}})
	var pe *ghapi.PermissionError
	assert.Assert(t, errors.As(err, &pe), "%v", err)
	assert.Check(t, is.Equal(pe.Op, "create review"))
}

func TestPRFileDiffAndFileAt(t *testing.T) {
	svc, gh, base := newClient(t)
	seedReviewPR(gh)
	ctx := context.Background()
	d, err := svc.PRFileDiff(ctx, "o", "r", 7, "README.md")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(d), "--- a/README.md\n+++ b/README.md\n@@ -10,6 +10,7 @@ x\n a\n b\n c\n+d\n e\n f\n g\n"))
	d, err = svc.PRFileDiff(ctx, "o", "r", 7, "docs/README.md")
	assert.NilError(t, err)
	assert.Check(t, d != nil && len(d) == 0)

	b, err := svc.FileAt(ctx, "o", "r", "README.md", base)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(b), "# r\n"))
	_, err = svc.FileAt(ctx, "o", "r", "README.md", "nope")
	var pe *ghapi.PermissionError
	assert.Check(t, errors.As(err, &pe), "%v", err)
}
