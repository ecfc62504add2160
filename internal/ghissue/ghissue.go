// Package ghissue keeps ONE open GitHub issue per slot up to date (the
// scheduled drift report) through the REST API (go-github).
//
// The issue body carries a hidden marker (an HTML comment naming its slot),
// the technique internal/ghcomment uses for the PR comment. Upsert searches
// every page of the repository's open issues for the marker, edits the
// issue it finds (title and body), and opens one only when none is open, so
// a weekly run never opens a second issue for the same drift. A closed issue
// is history: the next drift opens a new one. Pull requests, which the
// issues API also lists, are skipped. A 403 or 404 is a *PermissionError.
// 5xx answers are retried with backoff through an injected sleeper.
package ghissue

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

// MaxBodyBytes caps an issue body, marker included (GitHub allows 65,536
// characters).
const MaxBodyBytes = 65_000

// Marker returns the hidden marker for a slot key; "--", ">" and newlines in
// the key are replaced so it cannot end the comment early.
func Marker(key string) string {
	key = strings.NewReplacer("--", "-", ">", "_", "\n", " ", "\r", " ").Replace(key)
	return "<!-- readme2demo:issue " + key + " -->"
}

// Target names the issue slot.
type Target struct {
	Owner, Repo string
	Key         string // e.g. "drift claude-code"
}

// Issue says what Upsert did.
type Issue struct {
	Number  int
	URL     string // html_url
	Created bool
}

// PermissionError is a 403 or 404: the token may not read or write issues.
type PermissionError struct {
	Op     string
	Status int
	Err    error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d (the token needs `issues: write`): %v", e.Op, e.Status, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Config configures New.
type Config struct {
	APIURL     string // e.g. https://api.github.com or GITHUB_API_URL; "" means github.com
	Token      string
	HTTPClient *http.Client // nil means a default client
	// Sleep waits between attempts; nil means a real timer.
	Sleep    func(ctx context.Context, d time.Duration) error
	Attempts int           // 0 means 4
	Backoff  time.Duration // first wait after a 5xx, doubled each time; 0 means 1s
}

// Service opens and updates issues.
type Service struct {
	client   *github.Client
	sleep    func(ctx context.Context, d time.Duration) error
	attempts int
	backoff  time.Duration
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c := github.NewClient(hc)
	if cfg.Token != "" {
		c = c.WithAuthToken(cfg.Token)
	}
	if cfg.APIURL != "" {
		u, err := url.Parse(cfg.APIURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("parse api url %q: not an absolute URL", cfg.APIURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		c.BaseURL = u
	}
	s := &Service{client: c, sleep: cfg.Sleep, attempts: cfg.Attempts, backoff: cfg.Backoff}
	if s.sleep == nil {
		s.sleep = sleep
	}
	if s.attempts <= 0 {
		s.attempts = 4
	}
	if s.backoff <= 0 {
		s.backoff = time.Second
	}
	return s, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Upsert makes the slot's open issue have title and body (the marker is
// prepended), opening it with labels when none is open.
func (s *Service) Upsert(ctx context.Context, t Target, title, body string, labels []string) (*Issue, error) {
	full := Cap(Marker(t.Key) + "\n" + body)
	for attempt := 1; ; attempt++ {
		// Each attempt searches again, so an open whose answer was lost is
		// found and edited, not duplicated.
		is, err := s.upsertOnce(ctx, t, title, full, labels)
		if err == nil {
			return is, nil
		}
		if !transient(err) || attempt >= s.attempts {
			return nil, err
		}
		if serr := s.sleep(ctx, s.backoff<<(attempt-1)); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

func (s *Service) upsertOnce(ctx context.Context, t Target, title, body string, labels []string) (*Issue, error) {
	existing, err := s.Find(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		is, _, err := s.client.Issues.Edit(ctx, t.Owner, t.Repo, existing.GetNumber(),
			&github.IssueRequest{Title: github.String(title), Body: github.String(body)})
		if err != nil {
			return nil, classify("edit issue", err)
		}
		return &Issue{Number: is.GetNumber(), URL: is.GetHTMLURL()}, nil
	}
	req := &github.IssueRequest{Title: github.String(title), Body: github.String(body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	is, _, err := s.client.Issues.Create(ctx, t.Owner, t.Repo, req)
	if err != nil {
		return nil, classify("open issue", err)
	}
	return &Issue{Number: is.GetNumber(), URL: is.GetHTMLURL(), Created: true}, nil
}

// Find returns the oldest open issue (not pull request) whose body carries
// the slot's marker, searching every page, or nil.
func (s *Service) Find(ctx context.Context, t Target) (*github.Issue, error) {
	marker := Marker(t.Key)
	opts := &github.IssueListByRepoOptions{
		State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100},
	}
	for {
		page, resp, err := s.client.Issues.ListByRepo(ctx, t.Owner, t.Repo, opts)
		if err != nil {
			return nil, classify("list issues", err)
		}
		for _, is := range page {
			if !is.IsPullRequest() && strings.Contains(is.GetBody(), marker) {
				return is, nil
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
	const note = "\n\n… (cut to fit GitHub's issue size limit; the full report is in the workflow artifact)\n"
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

func transient(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	return errors.As(err, &rl) || errors.As(err, &arl)
}
