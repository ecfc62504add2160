package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

type issue struct {
	Number      int            `json:"number"`
	Title       string         `json:"title"`
	Body        string         `json:"body"`
	State       string         `json:"state"`
	HTMLURL     string         `json:"html_url"`
	Labels      []label        `json:"labels"`
	PullRequest map[string]any `json:"pull_request,omitempty"`
}

type label struct {
	Name string `json:"name"`
}

// fakeAPI serves the issues endpoints of one repository (o/r) under /api/v3/,
// paginated with Link headers like GitHub.
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	perPage int
	fail    func(r *http.Request, n int) int // a status to answer instead, or 0

	mu     sync.Mutex
	issues []*issue
	n      int
	log    []string
}

func newFake(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, perPage: 2}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/issues", f.list)
	mux.HandleFunc("POST /api/v3/repos/o/r/issues", f.create)
	mux.HandleFunc("PATCH /api/v3/repos/o/r/issues/{n}", f.edit)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.n++
		n := f.n
		f.log = append(f.log, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		if f.fail != nil {
			if st := f.fail(r, n); st != 0 {
				w.WriteHeader(st)
				fmt.Fprintf(w, `{"message":"injected %d"}`, st)
				return
			}
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) seed(title, body, state string, pr bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.issues) + 1
	is := &issue{Number: n, Title: title, Body: body, State: state, HTMLURL: fmt.Sprintf("https://github.test/o/r/issues/%d", n), Labels: []label{}}
	if pr {
		is.PullRequest = map[string]any{"url": "x"}
	}
	f.issues = append(f.issues, is)
	return n
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Check(f.t, is.Equal(r.URL.Query().Get("state"), "open"))
	var open []*issue
	for _, is := range f.issues {
		if is.State == "open" {
			open = append(open, is)
		}
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	from := (page - 1) * f.perPage
	to := min(from+f.perPage, len(open))
	if from > len(open) {
		from = len(open)
	}
	if to < len(open) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, f.srv.URL, u.RequestURI()))
	}
	writeJSON(w, http.StatusOK, open[from:to])
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	assert.NilError(f.t, json.NewDecoder(r.Body).Decode(&req))
	n := f.seed(req.Title, req.Body, "open", false)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range req.Labels {
		f.issues[n-1].Labels = append(f.issues[n-1].Labels, label{l})
	}
	writeJSON(w, http.StatusCreated, f.issues[n-1])
}

func (f *fakeAPI) edit(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	var req struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	assert.NilError(f.t, json.NewDecoder(r.Body).Decode(&req))
	f.mu.Lock()
	defer f.mu.Unlock()
	if n < 1 || n > len(f.issues) {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	is := f.issues[n-1]
	if req.Title != nil {
		is.Title = *req.Title
	}
	if req.Body != nil {
		is.Body = *req.Body
	}
	writeJSON(w, http.StatusOK, is)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func newIssueClient(t *testing.T, f *fakeAPI) (*Client, *[]time.Duration) {
	var waits []time.Duration
	s, err := New(Config{
		APIURL: f.srv.URL + "/api/v3", Token: "tok",
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
	})
	assert.NilError(t, err)
	return s, &waits
}

var issueTarget = IssueTarget{Owner: "o", Repo: "r", Key: "drift claude-code"}

func TestUpsertIssueOpensOneIssueThenEditsIt(t *testing.T) {
	f := newFake(t)
	// Noise across pages: unrelated issues, a pull request and a closed
	// issue carrying the marker.
	f.seed("unrelated", "hello", "open", false)
	f.seed("a PR", issueTarget.marker(), "open", true)
	f.seed("old drift", issueTarget.marker()+"\nfixed", "closed", false)
	f.seed("other slot", Marker("issue", "drift codex"), "open", false)
	s, _ := newIssueClient(t, f)
	ctx := context.Background()

	first, err := s.UpsertIssue(ctx, issueTarget, "Drift: claude-code 2.2.0", "body one", []string{"drift"})
	assert.NilError(t, err)
	assert.Check(t, first.Created)
	assert.Check(t, is.Equal(first.Number, 5))
	second, err := s.UpsertIssue(ctx, issueTarget, "Drift: claude-code 2.2.1", "body two", []string{"drift"})
	assert.NilError(t, err)
	assert.Check(t, !second.Created)
	assert.Check(t, is.Equal(second.Number, 5))
	assert.Check(t, is.Len(f.issues, 5), "no second issue")
	got := f.issues[4]
	assert.Check(t, is.Equal(got.Title, "Drift: claude-code 2.2.1"))
	assert.Check(t, is.Equal(got.Body, issueTarget.marker()+"\nbody two"))
	assert.Check(t, is.DeepEqual(got.Labels, []label{{"drift"}}))
	assert.Check(t, is.Equal(f.issues[2].Body, issueTarget.marker()+"\nfixed"), "the closed issue is left alone")
	assert.Check(t, is.Equal(f.issues[3].Body, Marker("issue", "drift codex")), "the other slot is left alone")
}

func TestUpsertIssueRetriesServerErrorsWithoutDuplicating(t *testing.T) {
	f := newFake(t)
	// The first open is stored but answered 502: the retry must find it.
	stored := false
	f.fail = func(r *http.Request, n int) int {
		if r.Method == http.MethodPost && !stored {
			stored = true
			f.seed("Drift", issueTarget.marker()+"\nbody", "open", false)
			return http.StatusBadGateway
		}
		return 0
	}
	s, waits := newIssueClient(t, f)
	res, err := s.UpsertIssue(context.Background(), issueTarget, "Drift", "body", nil)
	assert.NilError(t, err)
	assert.Check(t, !res.Created)
	assert.Check(t, is.Len(f.issues, 1))
	assert.Check(t, is.DeepEqual(*waits, []time.Duration{time.Second}))
}

func TestUpsertIssuePermissionError(t *testing.T) {
	f := newFake(t)
	f.fail = func(r *http.Request, n int) int { return http.StatusForbidden }
	s, waits := newIssueClient(t, f)
	_, err := s.UpsertIssue(context.Background(), issueTarget, "Drift", "body", nil)
	var perr *PermissionError
	assert.Assert(t, errors.As(err, &perr), "%v", err)
	assert.Check(t, is.Equal(perr.Status, http.StatusForbidden))
	assert.Check(t, is.Equal(perr.Op, "list issues"))
	assert.Check(t, is.Len(*waits, 0), "a 403 is not retried")
}

func TestUpsertIssueGivesUpAfterAttempts(t *testing.T) {
	f := newFake(t)
	f.fail = func(r *http.Request, n int) int { return http.StatusServiceUnavailable }
	s, waits := newIssueClient(t, f)
	_, err := s.UpsertIssue(context.Background(), issueTarget, "Drift", "body", nil)
	assert.ErrorContains(t, err, "list issues")
	// 4 upsert attempts, each a GET the transport tries 4 times: the
	// transport waits 1s, 2s, 4s between its tries, the upsert loop 1s, 2s,
	// 4s between its attempts.
	transport := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	var want []time.Duration
	for attempt := 0; attempt < 4; attempt++ {
		want = append(want, transport...)
		if attempt < 3 {
			want = append(want, time.Second<<attempt)
		}
	}
	assert.Check(t, is.DeepEqual(*waits, want))
}

func TestIssueMarkerAndCap(t *testing.T) {
	assert.Check(t, is.Equal(Marker("issue", "a-->b\nc"), "<!-- readme2demo:issue a-_b c -->"))
	long := strings.Repeat("é", MaxBodyBytes)
	capped := Cap(long, MaxBodyBytes, issueCapNote)
	assert.Check(t, len(capped) <= MaxBodyBytes)
	assert.Check(t, strings.HasSuffix(capped, "workflow artifact)\n"))
	assert.Check(t, is.Equal(Cap("short", MaxBodyBytes, issueCapNote), "short"))
}
