package ghapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// ReviewTarget names the review slot: one live review of suggestions per
// pull request and Key.
type ReviewTarget struct {
	Owner, Repo string
	Number      int    // the pull request
	CommitID    string // the head commit the comments' lines belong to
	Key         string // e.g. "suggest workflow=… job=… readme=README.md"
}

func (t ReviewTarget) marker() string { return Marker("review", t.Key) }

// ReviewComment is one comment of a review, on the RIGHT side (the head's
// lines): Line, and StartLine when it spans several.
type ReviewComment struct {
	Path      string
	Line      int
	StartLine int // 0 for one line
	Body      string
}

// Review says what UpsertReview did.
type Review struct {
	ID      int64
	URL     string // html_url; "" when no review is live (nothing to suggest)
	Created bool   // a new review was posted
	// Retired counts the earlier reviews of the slot whose comments were
	// deleted and whose body now points at the new one (or says they are
	// resolved).
	Retired int
}

const reviewPermissionHint = "the token needs `pull-requests: write`; on pull requests from forks it is read-only"

// UpsertReview keeps one live review of the slot, with body and comments
// (event COMMENT). A submitted review cannot be deleted on GitHub, so a
// review whose comments changed is retired: a new one is posted first, then
// the earlier one loses its comments and its marker, and its body says it
// was superseded. A review with the same body and comments as the live one
// is not posted again. With no comments, live reviews are retired as
// resolved and nothing is posted.
func (c *Client) UpsertReview(ctx context.Context, t ReviewTarget, body string, comments []ReviewComment) (*Review, error) {
	digest := reviewDigest(body, comments)
	full := Cap(t.marker()+"\n"+Marker("review-digest", digest)+"\n"+body, MaxBodyBytes, prCapNote)
	return retryValue(ctx, c, func() (*Review, error) {
		live, err := c.findReviews(ctx, t)
		if err != nil {
			return nil, err
		}
		out := &Review{}
		var keep *github.PullRequestReview
		for _, r := range live {
			if keep == nil && len(comments) > 0 && strings.Contains(r.GetBody(), Marker("review-digest", digest)) {
				keep = r
			}
		}
		if keep != nil {
			out.ID, out.URL = keep.GetID(), keep.GetHTMLURL()
		} else if len(comments) > 0 {
			req := &github.PullRequestReviewRequest{Body: github.String(full), Event: github.String("COMMENT")}
			if t.CommitID != "" {
				req.CommitID = github.String(t.CommitID)
			}
			for _, cm := range comments {
				d := &github.DraftReviewComment{Path: github.String(cm.Path), Line: github.Int(cm.Line), Side: github.String("RIGHT"), Body: github.String(cm.Body)}
				if cm.StartLine > 0 && cm.StartLine != cm.Line {
					d.StartLine, d.StartSide = github.Int(cm.StartLine), github.String("RIGHT")
				}
				req.Comments = append(req.Comments, d)
			}
			r, _, err := c.PullRequests.CreateReview(ctx, t.Owner, t.Repo, t.Number, req)
			if err != nil {
				return nil, Classify("create review", reviewPermissionHint, err)
			}
			out.ID, out.URL, out.Created = r.GetID(), r.GetHTMLURL(), true
		}
		for _, r := range live {
			if keep != nil && r.GetID() == keep.GetID() {
				continue
			}
			if err := c.retireReview(ctx, t, r, out.URL); err != nil {
				return out, err
			}
			out.Retired++
		}
		return out, nil
	})
}

// retireReview deletes an earlier review's comments and rewrites its body
// without the slot's marker, pointing at newer (or saying it is resolved).
func (c *Client) retireReview(ctx context.Context, t ReviewTarget, r *github.PullRequestReview, newer string) error {
	opts := &github.ListOptions{PerPage: 100}
	var ids []int64
	for {
		cs, resp, err := c.PullRequests.ListReviewComments(ctx, t.Owner, t.Repo, t.Number, r.GetID(), opts)
		if err != nil {
			return Classify("list review comments", reviewPermissionHint, err)
		}
		for _, cm := range cs {
			ids = append(ids, cm.GetID())
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	for _, id := range ids {
		if _, err := c.PullRequests.DeleteComment(ctx, t.Owner, t.Repo, id); err != nil && !isNotFound(err) {
			return Classify("delete review comment", reviewPermissionHint, err)
		}
	}
	body := Marker("review-retired", t.Key) + "\nreadme2demo: these suggestions were resolved: the latest run has none for this README."
	if newer != "" {
		body = Marker("review-retired", t.Key) + fmt.Sprintf("\nreadme2demo: these suggestions were superseded by [a newer review](%s).", newer)
	}
	if _, _, err := c.PullRequests.UpdateReview(ctx, t.Owner, t.Repo, t.Number, r.GetID(), body); err != nil {
		return Classify("update review", reviewPermissionHint, err)
	}
	return nil
}

// findReviews returns the slot's live reviews (carrying its marker), oldest first.
func (c *Client) findReviews(ctx context.Context, t ReviewTarget) ([]*github.PullRequestReview, error) {
	opts := &github.ListOptions{PerPage: 100}
	var out []*github.PullRequestReview
	for {
		rs, resp, err := c.PullRequests.ListReviews(ctx, t.Owner, t.Repo, t.Number, opts)
		if err != nil {
			return nil, Classify("list reviews", reviewPermissionHint, err)
		}
		for _, r := range rs {
			if strings.Contains(r.GetBody(), t.marker()) {
				out = append(out, r)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func reviewDigest(body string, comments []ReviewComment) string {
	b, _ := json.Marshal(struct {
		Body     string
		Comments []ReviewComment
	}{body, comments})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
