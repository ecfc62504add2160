package ghapi

import (
	"fmt"
	"strings"
)

// RunURL is the URL of the workflow run (and its attempt, past the first)
// this process runs in, from the runner's GITHUB_* variables; "" outside
// Actions. The one home of that URL: the PR comment, the fix pull request,
// the drift issue and the pin pull request all link it.
func RunURL(getenv func(string) string) string {
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	u := fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimSuffix(server, "/"), repo, id)
	if a := getenv("GITHUB_RUN_ATTEMPT"); a != "" && a != "1" {
		u += "/attempts/" + a
	}
	return u
}
