package ghapi

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"
)

// IssueTarget names the issue slot.
type IssueTarget struct {
	Owner, Repo string
	Key         string // e.g. "drift claude-code"
}

func (t IssueTarget) marker() string { return Marker("issue", t.Key) }

// Issue says what UpsertIssue did.
type Issue struct {
	Number  int
	URL     string // html_url
	Created bool
}

const issuePermissionHint = "the token needs `issues: write`"

const issueCapNote = "\n\n… (cut to fit GitHub's issue size limit; the full report is in the workflow artifact)\n"

// UpsertIssue makes the slot's open issue have title and body (the marker is
// prepended), opening it with labels when none is open.
func (c *Client) UpsertIssue(ctx context.Context, t IssueTarget, title, body string, labels []string) (*Issue, error) {
	full := Cap(t.marker()+"\n"+body, MaxBodyBytes, issueCapNote)
	var is *Issue
	err := c.Retry(ctx, func() error {
		var err error
		is, err = c.upsertIssueOnce(ctx, t, title, full, labels)
		return err
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

func (c *Client) upsertIssueOnce(ctx context.Context, t IssueTarget, title, body string, labels []string) (*Issue, error) {
	existing, err := c.FindIssue(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		is, _, err := c.Issues.Edit(ctx, t.Owner, t.Repo, existing.GetNumber(),
			&github.IssueRequest{Title: github.String(title), Body: github.String(body)})
		if err != nil {
			return nil, Classify("edit issue", issuePermissionHint, err)
		}
		return &Issue{Number: is.GetNumber(), URL: is.GetHTMLURL()}, nil
	}
	req := &github.IssueRequest{Title: github.String(title), Body: github.String(body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	is, _, err := c.Issues.Create(ctx, t.Owner, t.Repo, req)
	if err != nil {
		return nil, Classify("open issue", issuePermissionHint, err)
	}
	return &Issue{Number: is.GetNumber(), URL: is.GetHTMLURL(), Created: true}, nil
}

// FindIssue returns the oldest open issue (not pull request) whose body
// carries the slot's marker, searching every page, or nil.
func (c *Client) FindIssue(ctx context.Context, t IssueTarget) (*github.Issue, error) {
	marker := t.marker()
	opts := &github.IssueListByRepoOptions{
		State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100},
	}
	for {
		page, resp, err := c.Issues.ListByRepo(ctx, t.Owner, t.Repo, opts)
		if err != nil {
			return nil, Classify("list issues", issuePermissionHint, err)
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
