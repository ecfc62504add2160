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
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/readme2demo/readme2demo/internal/ghapi"
)

// MaxBodyBytes caps a comment body, marker included. GitHub's limit is 65,536
// characters; counting bytes keeps us below it whatever the text.
const MaxBodyBytes = ghapi.MaxBodyBytes

// Sleeper and Sleep are ghapi's, kept here for callers of this package.
type Sleeper = ghapi.Sleeper

// Sleep is the real Sleeper.
var Sleep = ghapi.Sleep

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
func Marker(key string) string { return ghapi.Marker("comment", key) }

// Result says what Upsert did.
type Result struct {
	ID      int64
	URL     string // html_url of the comment
	Created bool   // true when a new comment was posted, false when one was edited
}

// ErrNoComment is returned by Upsert with createIfMissing false when no
// earlier comment exists (nothing was posted).
var ErrNoComment = errors.New("no earlier comment to update")

// PermissionError is a 403 or 404: the token may be read-only, as on pull
// requests from forks, or lack pull-requests: write. Report it as a warning.
type PermissionError = ghapi.PermissionError

const permissionHint = "the token may be read-only, as on pull requests from forks, or lack `pull-requests: write`"

// Config configures the service; see ghapi.Config.
type Config = ghapi.Config

// Service posts and updates the comments.
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

// Upsert makes the slot's comment say body: it edits the existing comment
// (found by Marker(t.Key) on any page) or, when there is none and
// createIfMissing is true, creates it. With createIfMissing false and no
// comment, it returns ErrNoComment. The body is capped at MaxBodyBytes.
func (s *Service) Upsert(ctx context.Context, t Target, body string, createIfMissing bool) (*Result, error) {
	full := Cap(Marker(t.Key) + "\n" + body)
	var res *Result
	err := s.client.Retry(ctx, func() error {
		var err error
		res, err = s.upsertOnce(ctx, t, full, createIfMissing)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
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
	return ghapi.Cap(body, MaxBodyBytes, "\n\n… (cut to fit GitHub's comment size limit; the full report is in the job summary and the artifact)\n")
}

func classify(op string, err error) error { return ghapi.Classify(op, permissionHint, err) }
