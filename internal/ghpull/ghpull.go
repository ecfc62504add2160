// Package ghpull keeps ONE open pull request per slot up to date through the
// GitHub REST API (go-github): it commits a set of files on top of a base
// commit with the git data API (blobs, a tree, a commit), points the slot's
// branch at that commit (creating the branch, or moving it with force: the
// branch belongs to the slot), and opens the pull request or, when one is
// already open, updates its title and body. The pull request is found by a
// hidden marker in its body (an HTML comment naming the slot), the technique
// internal/ghcomment uses for the PR comment. A commit whose tree and parent
// equal the branch's head is not made again.
//
// Requests go through internal/ghapi's retrying transport; a whole upsert is
// retried on 5xx and rate limits (it finds before it writes, so nothing is
// opened twice). A 403 or 404 is a *PermissionError.
package ghpull

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/readme2demo/readme2demo/internal/ghapi"
)

// MaxBodyBytes caps a pull request body, marker included (GitHub allows
// 65,536 characters).
const MaxBodyBytes = ghapi.MaxBodyBytes

// Marker returns the hidden marker for a slot key; "--", ">" and newlines in
// the key are replaced so it cannot end the comment early.
func Marker(key string) string { return ghapi.Marker("pr", key) }

// Target names the slot: the repository, the base branch the pull request
// goes into, the branch that carries the change, and the marker key.
type Target struct {
	Owner, Repo string
	Base        string // e.g. "main"
	Branch      string // e.g. "readme2demo/pin-codex"
	Key         string // e.g. "pin codex"
}

// File is one file of the change, at its full new content.
type File struct {
	Path       string // slash-separated, relative to the repository root
	Content    []byte
	Executable bool
}

// Change is the commit the branch gets.
type Change struct {
	Message string
	Files   []File
	// Parent is the commit the change goes on top of; "" means the head of
	// Target.Base. Pass the commit the files were computed from.
	Parent string
}

// PR says what Upsert did.
type PR struct {
	Number  int
	URL     string // html_url
	Created bool   // a new pull request was opened
	Commit  string // the branch head
	Pushed  bool   // the branch moved to a new commit
}

// PermissionError is a 403 or 404: the token lacks contents or pull
// requests write, or the repository does not allow Actions to open pull
// requests.
type PermissionError = ghapi.PermissionError

const permissionHint = "the token needs `contents: write` and `pull-requests: write`; with GITHUB_TOKEN, also allow GitHub Actions to create pull requests in the repository settings"

// Config configures the service; see ghapi.Config.
type Config = ghapi.Config

// Service opens and updates the pull requests.
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

// Upsert commits change on the slot's branch and makes the slot's open pull
// request have title and body (the marker is prepended), opening it when
// none is open.
func (s *Service) Upsert(ctx context.Context, t Target, change Change, title, body string) (*PR, error) {
	if t.Owner == "" || t.Repo == "" || t.Base == "" || t.Branch == "" || t.Key == "" {
		return nil, errors.New("upsert pull request: owner, repo, base, branch and key are required")
	}
	if len(change.Files) == 0 {
		return nil, errors.New("upsert pull request: the change has no files")
	}
	var pr *PR
	err := s.client.Retry(ctx, func() error {
		commit, pushed, err := s.push(ctx, t, change)
		if err != nil {
			return err
		}
		pr, err = s.upsertPR(ctx, t, title, Cap(Marker(t.Key)+"\n"+body))
		if pr != nil {
			pr.Commit, pr.Pushed = commit, pushed
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return pr, nil
}

// push makes the branch point at a commit holding change on top of its
// parent, and says whether it moved.
func (s *Service) push(ctx context.Context, t Target, change Change) (string, bool, error) {
	git := s.client.Git
	parent := change.Parent
	if parent == "" {
		ref, _, err := git.GetRef(ctx, t.Owner, t.Repo, "heads/"+t.Base)
		if err != nil {
			return "", false, classify("get base branch "+t.Base, err)
		}
		parent = ref.GetObject().GetSHA()
	}
	base, _, err := git.GetCommit(ctx, t.Owner, t.Repo, parent)
	if err != nil {
		return "", false, classify("get commit "+parent, err)
	}
	var entries []*github.TreeEntry
	for _, f := range change.Files {
		blob, _, err := git.CreateBlob(ctx, t.Owner, t.Repo, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(f.Content)),
			Encoding: github.String("base64"),
		})
		if err != nil {
			return "", false, classify("create blob "+f.Path, err)
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
		return "", false, classify("create tree", err)
	}
	branchRef := "heads/" + t.Branch
	existing, _, err := git.GetRef(ctx, t.Owner, t.Repo, branchRef)
	if err != nil && !isNotFound(err) {
		return "", false, classify("get branch "+t.Branch, err)
	}
	exists := err == nil && existing != nil
	if exists {
		head, _, err := git.GetCommit(ctx, t.Owner, t.Repo, existing.GetObject().GetSHA())
		if err != nil {
			return "", false, classify("get commit "+existing.GetObject().GetSHA(), err)
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
		return "", false, classify("create commit", err)
	}
	ref := &github.Reference{Ref: github.String("refs/" + branchRef), Object: &github.GitObject{SHA: commit.SHA}}
	if exists {
		_, _, err = git.UpdateRef(ctx, t.Owner, t.Repo, ref, true)
	} else {
		_, _, err = git.CreateRef(ctx, t.Owner, t.Repo, ref)
	}
	if err != nil {
		return "", false, classify("update branch "+t.Branch, err)
	}
	return commit.GetSHA(), true, nil
}

func (s *Service) upsertPR(ctx context.Context, t Target, title, body string) (*PR, error) {
	existing, err := s.Find(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		pr, _, err := s.client.PullRequests.Edit(ctx, t.Owner, t.Repo, existing.GetNumber(),
			&github.PullRequest{Title: github.String(title), Body: github.String(body)})
		if err != nil {
			return nil, classify("edit pull request", err)
		}
		return &PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}, nil
	}
	pr, _, err := s.client.PullRequests.Create(ctx, t.Owner, t.Repo, &github.NewPullRequest{
		Title: github.String(title), Body: github.String(body),
		Head: github.String(t.Branch), Base: github.String(t.Base),
		MaintainerCanModify: github.Bool(true),
	})
	if err != nil {
		return nil, classify("open pull request", err)
	}
	return &PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL(), Created: true}, nil
}

// Find returns the oldest open pull request whose body carries the slot's
// marker, searching every page, or nil.
func (s *Service) Find(ctx context.Context, t Target) (*github.PullRequest, error) {
	marker := Marker(t.Key)
	opts := &github.PullRequestListOptions{State: "open", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := s.client.PullRequests.List(ctx, t.Owner, t.Repo, opts)
		if err != nil {
			return nil, classify("list pull requests", err)
		}
		for _, pr := range page {
			if strings.Contains(pr.GetBody(), marker) {
				return pr, nil
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
	return ghapi.Cap(body, MaxBodyBytes, "\n\n… (cut to fit GitHub's size limit; the full report is in the workflow artifact)\n")
}

func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

func classify(op string, err error) error { return ghapi.Classify(op, permissionHint, err) }
