// Package ghcomment keeps ONE readme2demo comment per pull request, workflow,
// job and README up to date through the GitHub REST API (go-github).
//
// The comment carries a hidden marker (an HTML comment naming its slot).
// Upsert searches every page of the pull request's comments for the marker,
// edits the comment it finds, and creates one only when none exists, so
// repeated runs never spam the PR. Bodies are capped below GitHub's 65,536
// characters. A 403 or 404 (a read-only token, as on fork pull requests) is a
// *PermissionError the caller reports as a warning, never a failure.
// Transient failures (5xx, primary and secondary rate limits) are retried with
// backoff; the sleeper is injected so tests do not wait.
package ghcomment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// MaxBodyBytes caps a comment body, marker included. GitHub's limit is 65,536
// characters; counting bytes keeps us below it whatever the text.
const MaxBodyBytes = 65_000

// Sleeper waits d or until ctx is done.
type Sleeper func(ctx context.Context, d time.Duration) error

// Sleep is the real Sleeper.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Target says which comment slot to fill.
type Target struct {
	Owner, Repo string
	Number      int // pull request (issue) number
	// Key names the slot within the PR, usually workflow, job and README;
	// runs with the same Key share one comment.
	Key string
}

// Marker returns the hidden marker for a slot key. It is an HTML comment, so
// GitHub does not render it; "--" and ">" in the key are replaced so the key
// cannot end the comment early.
func Marker(key string) string {
	key = strings.NewReplacer("--", "-", ">", "_", "\n", " ", "\r", " ").Replace(key)
	return "<!-- readme2demo:comment " + key + " -->"
}

// Result says what Upsert did.
type Result struct {
	ID      int64
	URL     string // html_url of the comment
	Created bool   // true when a new comment was posted, false when one was edited
}

// ErrNoComment is returned by Upsert with createIfMissing false when no
// earlier comment exists (nothing was posted).
var ErrNoComment = errors.New("no earlier comment to update")

// PermissionError is a 403 or 404 from GitHub: the token cannot comment
// (read-only on fork pull requests, missing `pull-requests: write`).
type PermissionError struct {
	Op     string // "list comments", "create comment", "edit comment"
	Status int
	Err    error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d (the token may be read-only, as on pull requests from forks, or lack `pull-requests: write`): %v", e.Op, e.Status, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Config configures New.
type Config struct {
	// APIURL is the REST API base, e.g. https://api.github.com or
	// GITHUB_API_URL on GitHub Enterprise; any base path is kept.
	APIURL string
	Token  string
	// HTTPClient is the client to wrap; nil means http.DefaultClient's transport.
	HTTPClient *http.Client
	// Sleep waits between retries; nil means Sleep.
	Sleep Sleeper
	// Attempts per request and per upsert; 0 means 4.
	Attempts int
	// Backoff is the first wait after a 5xx, doubled each time; 0 means 1s.
	Backoff time.Duration
	// MaxWait is the longest rate-limit wait worth sleeping; 0 means 2m.
	MaxWait time.Duration
}

// Service posts and updates the comment.
type Service struct {
	client   *github.Client
	sleep    Sleeper
	attempts int
	backoff  time.Duration
}

// New returns a Service talking to cfg.APIURL with cfg.Token.
func New(cfg Config) (*Service, error) {
	if cfg.Sleep == nil {
		cfg.Sleep = Sleep
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 4
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 2 * time.Minute
	}
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	rt := &retryTransport{base: base, sleep: cfg.Sleep, attempts: cfg.Attempts, backoff: cfg.Backoff, maxWait: cfg.MaxWait}
	hc := &http.Client{Transport: rt}
	if cfg.HTTPClient != nil {
		hc.Timeout = cfg.HTTPClient.Timeout
	}
	client := github.NewClient(hc)
	if cfg.Token != "" {
		client = client.WithAuthToken(cfg.Token)
	}
	if cfg.APIURL != "" {
		u, err := url.Parse(cfg.APIURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("parse api url %q: not an absolute URL", cfg.APIURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		client.BaseURL = u
	}
	return &Service{client: client, sleep: cfg.Sleep, attempts: cfg.Attempts, backoff: cfg.Backoff}, nil
}

// Upsert makes the slot's comment say body: it edits the existing comment
// (found by Marker(t.Key) on any page) or, when there is none and
// createIfMissing is true, creates it. With createIfMissing false and no
// comment, it returns ErrNoComment. The body is capped at MaxBodyBytes.
func (s *Service) Upsert(ctx context.Context, t Target, body string, createIfMissing bool) (*Result, error) {
	full := Cap(Marker(t.Key) + "\n" + body)
	var err error
	for attempt := 1; ; attempt++ {
		var res *Result
		// Each attempt searches again, so a create whose response was lost
		// (a 5xx after GitHub stored it) is found and edited, not duplicated.
		res, err = s.upsertOnce(ctx, t, full, createIfMissing)
		if err == nil {
			return res, nil
		}
		if !transient(err) || attempt >= s.attempts {
			return nil, err
		}
		if serr := s.sleep(ctx, s.backoff<<(attempt-1)); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

func (s *Service) upsertOnce(ctx context.Context, t Target, body string, create bool) (*Result, error) {
	existing, err := s.find(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		c, _, err := s.client.Issues.EditComment(ctx, t.Owner, t.Repo, existing.GetID(), &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return nil, classify("edit comment", err)
		}
		return &Result{ID: c.GetID(), URL: c.GetHTMLURL()}, nil
	}
	if !create {
		return nil, ErrNoComment
	}
	c, _, err := s.client.Issues.CreateComment(ctx, t.Owner, t.Repo, t.Number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, classify("create comment", err)
	}
	return &Result{ID: c.GetID(), URL: c.GetHTMLURL(), Created: true}, nil
}

// find returns the oldest comment carrying the slot's marker, searching
// every page.
func (s *Service) find(ctx context.Context, t Target) (*github.IssueComment, error) {
	marker := Marker(t.Key)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := s.client.Issues.ListComments(ctx, t.Owner, t.Repo, t.Number, opts)
		if err != nil {
			return nil, classify("list comments", err)
		}
		for _, c := range page {
			if strings.Contains(c.GetBody(), marker) {
				return c, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// Cap shortens body to MaxBodyBytes on a rune boundary, with a note.
func Cap(body string) string {
	if len(body) <= MaxBodyBytes {
		return body
	}
	const note = "\n\n… (cut to fit GitHub's comment size limit; the full report is in the job summary and the artifact)\n"
	cut := MaxBodyBytes - len(note)
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return body[:cut] + note
}

func classify(op string, err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusForbidden, http.StatusNotFound:
			return &PermissionError{Op: op, Status: er.Response.StatusCode, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// transient reports whether retrying the whole upsert may help.
func transient(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	return errors.As(err, &rl) || errors.As(err, &arl)
}
