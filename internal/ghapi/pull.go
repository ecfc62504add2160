package ghapi

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// PRTarget names the slot: the repository, the base branch the pull request
// goes into, the branch that carries the change, and the marker key.
type PRTarget struct {
	Owner, Repo string
	Base        string // e.g. "main"
	Branch      string // e.g. "readme2demo/pin-codex"
	Key         string // e.g. "pin codex"
}

func (t PRTarget) marker() string { return Marker("pr", t.Key) }

// File is one file of a Change, at its full new content.
type File struct {
	Path       string // slash-separated, relative to the repository root
	Content    []byte
	Executable bool
}

// Change is the commit the pull request's branch gets.
type Change struct {
	Message string
	Files   []File
	// Parent is the commit the change goes on top of; "" means the head of
	// PRTarget.Base. Pass the commit the files were computed from.
	Parent string
}

// PR says what UpsertPR did.
type PR struct {
	Number  int
	URL     string // html_url
	Created bool   // a new pull request was opened
	Commit  string // the branch head
	Pushed  bool   // the branch moved to a new commit
}

const prPermissionHint = "the token needs `contents: write` and `pull-requests: write`; with GITHUB_TOKEN, also allow GitHub Actions to create pull requests in the repository settings"

const prCapNote = "\n\n… (cut to fit GitHub's size limit; the full report is in the workflow artifact)\n"

// UpsertPR commits change on the slot's branch and makes the slot's open pull
// request have title and body (the marker is prepended), opening it when
// none is open.
func (c *Client) UpsertPR(ctx context.Context, t PRTarget, change Change, title, body string) (*PR, error) {
	if t.Owner == "" || t.Repo == "" || t.Base == "" || t.Branch == "" || t.Key == "" {
		return nil, errors.New("upsert pull request: owner, repo, base, branch and key are required")
	}
	if len(change.Files) == 0 {
		return nil, errors.New("upsert pull request: the change has no files")
	}
	return retryValue(ctx, c, func() (*PR, error) {
		commit, pushed, err := c.push(ctx, t, change)
		if err != nil {
			return nil, err
		}
		pr, err := c.openOrEditPR(ctx, t, title, Cap(t.marker()+"\n"+body, MaxBodyBytes, prCapNote))
		if pr != nil {
			pr.Commit, pr.Pushed = commit, pushed
		}
		return pr, err
	})
}

// push makes the branch point at a commit holding change on top of its
// parent, and says whether it moved.
func (c *Client) push(ctx context.Context, t PRTarget, change Change) (string, bool, error) {
	git := c.Git
	parent := change.Parent
	if parent == "" {
		ref, _, err := git.GetRef(ctx, t.Owner, t.Repo, "heads/"+t.Base)
		if err != nil {
			return "", false, Classify("get base branch "+t.Base, prPermissionHint, err)
		}
		parent = ref.GetObject().GetSHA()
	}
	base, _, err := git.GetCommit(ctx, t.Owner, t.Repo, parent)
	if err != nil {
		return "", false, Classify("get commit "+parent, prPermissionHint, err)
	}
	var entries []*github.TreeEntry
	for _, f := range change.Files {
		blob, _, err := git.CreateBlob(ctx, t.Owner, t.Repo, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(f.Content)),
			Encoding: github.String("base64"),
		})
		if err != nil {
			return "", false, Classify("create blob "+f.Path, prPermissionHint, err)
		}
		mode := "100644"
		if f.Executable {
			mode = "100755"
		}
		entries = append(entries, &github.TreeEntry{Path: github.String(f.Path), Mode: github.String(mode),
			Type: github.String("blob"), SHA: blob.SHA})
	}
	tree, _, err := git.CreateTree(ctx, t.Owner, t.Repo, base.GetTree().GetSHA(), entries)
	if err != nil {
		return "", false, Classify("create tree", prPermissionHint, err)
	}
	branchRef := "heads/" + t.Branch
	existing, _, err := git.GetRef(ctx, t.Owner, t.Repo, branchRef)
	if err != nil && !isNotFound(err) {
		return "", false, Classify("get branch "+t.Branch, prPermissionHint, err)
	}
	exists := err == nil && existing != nil
	if exists {
		head, _, err := git.GetCommit(ctx, t.Owner, t.Repo, existing.GetObject().GetSHA())
		if err != nil {
			return "", false, Classify("get commit "+existing.GetObject().GetSHA(), prPermissionHint, err)
		}
		if head.GetTree().GetSHA() == tree.GetSHA() && len(head.Parents) == 1 && head.Parents[0].GetSHA() == parent {
			return head.GetSHA(), false, nil // already there
		}
	}
	commit, _, err := git.CreateCommit(ctx, t.Owner, t.Repo, &github.Commit{
		Message: github.String(change.Message),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(parent)}},
	}, nil)
	if err != nil {
		return "", false, Classify("create commit", prPermissionHint, err)
	}
	ref := &github.Reference{Ref: github.String("refs/" + branchRef), Object: &github.GitObject{SHA: commit.SHA}}
	if exists {
		_, _, err = git.UpdateRef(ctx, t.Owner, t.Repo, ref, true)
	} else {
		_, _, err = git.CreateRef(ctx, t.Owner, t.Repo, ref)
	}
	if err != nil {
		return "", false, Classify("update branch "+t.Branch, prPermissionHint, err)
	}
	return commit.GetSHA(), true, nil
}

func (c *Client) openOrEditPR(ctx context.Context, t PRTarget, title, body string) (*PR, error) {
	existing, err := c.FindPR(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		pr, _, err := c.PullRequests.Edit(ctx, t.Owner, t.Repo, existing.GetNumber(),
			&github.PullRequest{Title: github.String(title), Body: github.String(body)})
		if err != nil {
			return nil, Classify("edit pull request", prPermissionHint, err)
		}
		return &PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}, nil
	}
	pr, _, err := c.PullRequests.Create(ctx, t.Owner, t.Repo, &github.NewPullRequest{
		Title: github.String(title), Body: github.String(body),
		Head: github.String(t.Branch), Base: github.String(t.Base),
		MaintainerCanModify: github.Bool(true),
	})
	if err != nil {
		return nil, Classify("open pull request", prPermissionHint, err)
	}
	return &PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL(), Created: true}, nil
}

// FindPR returns the oldest open pull request whose body carries the slot's
// marker, searching every page, or nil.
func (c *Client) FindPR(ctx context.Context, t PRTarget) (*github.PullRequest, error) {
	opts := &github.PullRequestListOptions{State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100}}
	return findMarked(t.marker(), "list pull requests", prPermissionHint, func(page int) ([]*github.PullRequest, *github.Response, error) {
		opts.Page = page
		return c.PullRequests.List(ctx, t.Owner, t.Repo, opts)
	}, nil)
}

func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}
