package ghapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/ghapi/fakegithub"
)

const token = "ghs_faketokenfaketokenfaketokenfake0000"

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func newClient(t *testing.T, gh *fakegithub.Server, sl *sleeps) *Client {
	t.Helper()
	svc, err := New(Config{APIURL: gh.URL, Token: token, Sleep: sl.sleep, Backoff: 100 * time.Millisecond})
	assert.NilError(t, err)
	return svc
}

var target = CommentTarget{Owner: "acme", Repo: "demo", Number: 7, Key: "workflow=readme job=check readme=README.md"}

func TestUpsertCommentCreatesThenUpdates(t *testing.T) {
	gh := fakegithub.New("/gh/api/v3/")
	defer gh.Close()
	gh.Token = token
	svc := newClient(t, gh, &sleeps{})
	ctx := context.Background()

	first, err := svc.UpsertComment(ctx, target, "run 1", true)
	assert.NilError(t, err)
	assert.Check(t, first.Created)
	assert.Check(t, is.Contains(first.URL, "issuecomment-"))

	second, err := svc.UpsertComment(ctx, target, "run 2", true)
	assert.NilError(t, err)
	assert.Check(t, !second.Created)
	assert.Check(t, is.Equal(second.ID, first.ID))

	got := gh.Comments("acme", "demo", 7)
	assert.Assert(t, is.Len(got, 1))
	assert.Check(t, is.Equal(got[0].Body, target.marker()+"\nrun 2"))

	// Another job's slot is a different comment.
	other := target
	other.Key = "workflow=readme job=check-docs readme=docs/README.md"
	_, err = svc.UpsertComment(ctx, other, "other", true)
	assert.NilError(t, err)
	assert.Check(t, is.Len(gh.Comments("acme", "demo", 7), 2))
}

func TestUpsertCommentFindsMarkerOnALaterPage(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	gh.PerPage = 2 // the client asks for 100; the server serves 2 per page
	for range 5 {
		gh.Seed("acme", "demo", 7, "someone", "looks good to me")
	}
	id := gh.Seed("acme", "demo", 7, "github-actions[bot]", target.marker()+"\nold report")
	gh.Seed("acme", "demo", 7, "someone", "another remark")

	res, err := newClient(t, gh, &sleeps{}).UpsertComment(context.Background(), target, "new report", true)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.ID, id))
	assert.Check(t, !res.Created)
	assert.Check(t, is.Equal(gh.Count("POST"), 0))
	assert.Check(t, is.Equal(gh.Count("GET"), 3), "requests: %v", gh.Requests())
	assert.Check(t, is.Len(gh.Comments("acme", "demo", 7), 7))
}

func TestUpsertCommentWithoutCreate(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	_, err := newClient(t, gh, &sleeps{}).UpsertComment(context.Background(), target, "x", false)
	assert.Check(t, errors.Is(err, ErrNoComment))
	assert.Check(t, is.Len(gh.Comments("acme", "demo", 7), 0))
}

func TestCommentPermissionErrors(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		for _, method := range []string{"GET", "POST"} {
			gh := fakegithub.New("/api/v3/")
			gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
				if r.Method == method {
					return &fakegithub.Failure{Status: status, Body: `{"message":"Resource not accessible by integration"}`}
				}
				return nil
			}
			sl := &sleeps{}
			_, err := newClient(t, gh, sl).UpsertComment(context.Background(), target, "x", true)
			var pe *PermissionError
			assert.Check(t, errors.As(err, &pe), "%d %s: %v", status, method, err)
			if pe != nil {
				assert.Check(t, is.Equal(pe.Status, status))
			}
			assert.Check(t, is.Len(sl.d, 0), "a permission error was retried")
			assert.Check(t, !strings.Contains(err.Error(), token))
			gh.Close()
		}
	}
}

func TestCommentRetriesServerErrors(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	gh.Fail = func(r *http.Request, n int) *fakegithub.Failure {
		if n <= 2 { // the first list and its first retry fail
			return &fakegithub.Failure{Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`}
		}
		return nil
	}
	sl := &sleeps{}
	res, err := newClient(t, gh, sl).UpsertComment(context.Background(), target, "x", true)
	assert.NilError(t, err)
	assert.Check(t, res.Created)
	assert.Check(t, is.DeepEqual(sl.d, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}))
}

// A create that GitHub stored but answered with 502 must not be posted twice.
func TestCommentRetriedCreateDoesNotDuplicate(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	var once sync.Once
	gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
		var f *fakegithub.Failure
		if r.Method == "POST" {
			once.Do(func() {
				gh.Seed("acme", "demo", 7, "github-actions[bot]", target.marker()+"\nx") // stored...
				f = &fakegithub.Failure{Status: http.StatusBadGateway, Body: `{}`}       // ...but the answer was lost
			})
		}
		return f
	}
	_, err := newClient(t, gh, &sleeps{}).UpsertComment(context.Background(), target, "x", true)
	assert.NilError(t, err)
	assert.Check(t, is.Len(gh.Comments("acme", "demo", 7), 1))
	assert.Check(t, is.Equal(gh.Count("POST"), 1))
	assert.Check(t, is.Equal(gh.Count("PATCH"), 1))
}

func TestCommentRetriesRateLimits(t *testing.T) {
	tests := []struct {
		name     string
		failure  fakegithub.Failure
		wantWait time.Duration
	}{
		{"secondary with retry-after", fakegithub.Failure{Status: 403, Header: map[string]string{"Retry-After": "7"},
			Body: `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}, 7 * time.Second},
		{"secondary without header", fakegithub.Failure{Status: 403,
			Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`}, time.Minute},
		{"429", fakegithub.Failure{Status: 429, Body: `{}`}, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh := fakegithub.New("/api/v3/")
			defer gh.Close()
			gh.Fail = func(r *http.Request, _ int) *fakegithub.Failure {
				if r.Method == "POST" && gh.Count("POST") == 1 {
					return &tc.failure
				}
				return nil
			}
			sl := &sleeps{}
			res, err := newClient(t, gh, sl).UpsertComment(context.Background(), target, "x", true)
			assert.NilError(t, err)
			assert.Check(t, res.Created)
			assert.Check(t, is.DeepEqual(sl.d, []time.Duration{tc.wantWait}))
			assert.Check(t, is.Len(gh.Comments("acme", "demo", 7), 1))
		})
	}
}

func TestCommentGivesUpAfterAttempts(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	gh.Fail = func(*http.Request, int) *fakegithub.Failure {
		return &fakegithub.Failure{Status: http.StatusServiceUnavailable, Body: `{}`}
	}
	sl := &sleeps{}
	svc, err := New(Config{APIURL: gh.URL, Sleep: sl.sleep, Attempts: 2, Backoff: time.Millisecond})
	assert.NilError(t, err)
	_, err = svc.UpsertComment(context.Background(), target, "x", true)
	assert.ErrorContains(t, err, "503")
	assert.Check(t, is.Equal(gh.Count("GET"), 4)) // 2 upsert attempts × 2 transport attempts
}

func TestCommentBodyIsCapped(t *testing.T) {
	gh := fakegithub.New("/api/v3/")
	defer gh.Close()
	huge := strings.Repeat("é", 80_000) // 160,000 bytes, 80,000 characters
	_, err := newClient(t, gh, &sleeps{}).UpsertComment(context.Background(), target, huge, true)
	assert.NilError(t, err)
	got := gh.Comments("acme", "demo", 7)
	assert.Assert(t, is.Len(got, 1))
	assert.Check(t, len(got[0].Body) <= MaxBodyBytes)
	assert.Check(t, strings.HasPrefix(got[0].Body, target.marker()))
	assert.Check(t, is.Contains(got[0].Body, "cut to fit GitHub's comment size limit"))
}

func TestCommentMarkerCannotBeClosedByKey(t *testing.T) {
	m := Marker("comment", "wf--> <img src=x> job")
	assert.Check(t, is.Equal(strings.Count(m, "-->"), 1))
	assert.Check(t, strings.HasSuffix(m, " -->"))
}
