package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
)

const readPermissionHint = "the token needs `contents: read` and `pull-requests: read`"

// PRFileDiff returns the unified diff a pull request makes to path (a
// "--- a/path" / "+++ b/path" header and GitHub's patch), or an empty,
// non-nil diff when the pull request does not change path. A file GitHub
// gives no patch for (binary, or too large) is treated as unchanged.
func (c *Client) PRFileDiff(ctx context.Context, owner, repo string, number int, path string) ([]byte, error) {
	return retryValue(ctx, c, func() ([]byte, error) {
		opts := &github.ListOptions{PerPage: 100}
		for {
			files, resp, err := c.PullRequests.ListFiles(ctx, owner, repo, number, opts)
			if err != nil {
				return nil, Classify("list pull request files", readPermissionHint, err)
			}
			for _, f := range files {
				if f.GetFilename() != path || f.GetPatch() == "" {
					continue
				}
				to := "b/" + path
				if f.GetStatus() == "removed" {
					to = "/dev/null"
				}
				return []byte(fmt.Sprintf("--- a/%s\n+++ %s\n%s\n", path, to, f.GetPatch())), nil
			}
			if resp == nil || resp.NextPage == 0 {
				return []byte{}, nil
			}
			opts.Page = resp.NextPage
		}
	})
}

// FileAt returns the content of path at ref (a commit sha or branch).
func (c *Client) FileAt(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	return retryValue(ctx, c, func() ([]byte, error) {
		f, _, _, err := c.Repositories.GetContents(ctx, owner, repo, path, &github.RepositoryContentGetOptions{Ref: ref})
		if err != nil {
			return nil, Classify("get "+path+" at "+ref, readPermissionHint, err)
		}
		if f == nil {
			return nil, fmt.Errorf("get %s at %s: not a file", path, ref)
		}
		s, err := f.GetContent()
		if err != nil {
			return nil, fmt.Errorf("decode %s at %s: %w", path, ref, err)
		}
		return []byte(s), nil
	})
}
