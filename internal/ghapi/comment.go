package ghapi

import (
	"context"
	"errors"

	"github.com/google/go-github/v60/github"
)

// CommentTarget says which comment slot to fill.
type CommentTarget struct {
	Owner, Repo string
	Number      int // pull request (issue) number
	// Key names the slot within the PR, usually workflow, job and README;
	// runs with the same Key share one comment.
	Key string
}

func (t CommentTarget) marker() string { return Marker("comment", t.Key) }

// CommentResult says what UpsertComment did.
type CommentResult struct {
	ID      int64
	URL     string // html_url of the comment
	Created bool   // true when a new comment was posted, false when one was edited
}

// ErrNoComment is returned by UpsertComment with createIfMissing false when
// no earlier comment exists (nothing was posted).
var ErrNoComment = errors.New("no earlier comment to update")

const commentPermissionHint = "the token may be read-only, as on pull requests from forks, or lack `pull-requests: write`"

const commentCapNote = "\n\n… (cut to fit GitHub's comment size limit; the full report is in the job summary and the artifact)\n"

// UpsertComment makes the slot's comment say body: it edits the existing
// comment (found by its marker on any page) or, when there is none and
// createIfMissing is true, creates it. With createIfMissing false and no
// comment, it returns ErrNoComment. The body is capped at MaxBodyBytes.
func (c *Client) UpsertComment(ctx context.Context, t CommentTarget, body string, createIfMissing bool) (*CommentResult, error) {
	full := Cap(t.marker()+"\n"+body, MaxBodyBytes, commentCapNote)
	return retryValue(ctx, c, func() (*CommentResult, error) {
		return c.upsertCommentOnce(ctx, t, full, createIfMissing)
	})
}

func (c *Client) upsertCommentOnce(ctx context.Context, t CommentTarget, body string, create bool) (*CommentResult, error) {
	existing, err := c.findComment(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		ic, _, err := c.Issues.EditComment(ctx, t.Owner, t.Repo, existing.GetID(), &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return nil, Classify("edit comment", commentPermissionHint, err)
		}
		return &CommentResult{ID: ic.GetID(), URL: ic.GetHTMLURL()}, nil
	}
	if !create {
		return nil, ErrNoComment
	}
	ic, _, err := c.Issues.CreateComment(ctx, t.Owner, t.Repo, t.Number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return nil, Classify("create comment", commentPermissionHint, err)
	}
	return &CommentResult{ID: ic.GetID(), URL: ic.GetHTMLURL(), Created: true}, nil
}

// findComment returns the oldest comment carrying the slot's marker,
// searching every page.
func (c *Client) findComment(ctx context.Context, t CommentTarget) (*github.IssueComment, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	return findMarked(t.marker(), "list comments", commentPermissionHint, func(page int) ([]*github.IssueComment, *github.Response, error) {
		opts.Page = page
		return c.Issues.ListComments(ctx, t.Owner, t.Repo, t.Number, opts)
	}, nil)
}
