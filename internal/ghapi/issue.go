package ghapi

import (
	"context"

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
	return retryValue(ctx, c, func() (*Issue, error) {
		return c.upsertIssueOnce(ctx, t, title, full, labels)
	})
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
	opts := &github.IssueListByRepoOptions{
		State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100},
	}
	return findMarked(t.marker(), "list issues", issuePermissionHint, func(page int) ([]*github.Issue, *github.Response, error) {
		opts.Page = page
		return c.Issues.ListByRepo(ctx, t.Owner, t.Repo, opts)
	}, func(is *github.Issue) bool { return !is.IsPullRequest() })
}
