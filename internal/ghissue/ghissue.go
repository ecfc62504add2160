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
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/readme2demo/readme2demo/internal/ghapi"
)

// MaxBodyBytes caps an issue body, marker included (GitHub allows 65,536
// characters).
const MaxBodyBytes = ghapi.MaxBodyBytes

// Marker returns the hidden marker for a slot key; "--", ">" and newlines in
// the key are replaced so it cannot end the comment early.
func Marker(key string) string { return ghapi.Marker("issue", key) }

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

// PermissionError is a 403 or 404: the token lacks issues: write.
type PermissionError = ghapi.PermissionError

const permissionHint = "the token needs `issues: write`"

// Config configures the service; see ghapi.Config.
type Config = ghapi.Config

// Service opens and updates the issues.
type Service struct {
	client *ghapi.Client
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	c, err := ghapi.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Service{client: c}, nil
}

// Upsert makes the slot's open issue have title and body (the marker is
// prepended), opening it with labels when none is open.
func (s *Service) Upsert(ctx context.Context, t Target, title, body string, labels []string) (*Issue, error) {
	full := Cap(Marker(t.Key) + "\n" + body)
	var is *Issue
	err := s.client.Retry(ctx, func() error {
		var err error
		is, err = s.upsertOnce(ctx, t, title, full, labels)
		return err
	})
	if err != nil {
		return nil, err
	}
	return is, nil
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
	return ghapi.Cap(body, MaxBodyBytes, "\n\n… (cut to fit GitHub's issue size limit; the full report is in the workflow artifact)\n")
}

func classify(op string, err error) error { return ghapi.Classify(op, permissionHint, err) }
