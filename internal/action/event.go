package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// event is the part of the triggering event payload the Action uses.
type event struct {
	Name        string // GITHUB_EVENT_NAME
	PRNumber    int    // 0 when the event is not about a pull request
	HeadSHA     string
	HeadRepo    string // full name; "" when the head repository is gone
	BaseRepo    string
	HeadIsFork  bool
	SenderLogin string
	// DefaultBranch is the repository's default branch ("" when the payload
	// does not say).
	DefaultBranch string
}

type payload struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA  string `json:"sha"`
			Repo *struct {
				FullName string `json:"full_name"`
				Fork     bool   `json:"fork"`
			} `json:"repo"`
		} `json:"head"`
		Base struct {
			Repo struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
	} `json:"pull_request"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// loadEvent reads GITHUB_EVENT_PATH. A missing path is no event (CLI mode).
func loadEvent(getenv func(string) string) (event, error) {
	ev := event{Name: getenv("GITHUB_EVENT_NAME")}
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return ev, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ev, fmt.Errorf("read event payload: %w", err)
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return ev, fmt.Errorf("decode event payload: %w", err)
	}
	ev.SenderLogin = p.Sender.Login
	ev.DefaultBranch = p.Repository.DefaultBranch
	if pr := p.PullRequest; pr != nil {
		ev.PRNumber = pr.Number
		if ev.PRNumber == 0 {
			ev.PRNumber = p.Number
		}
		ev.HeadSHA = pr.Head.SHA
		ev.BaseRepo = pr.Base.Repo.FullName
		if pr.Head.Repo != nil {
			ev.HeadRepo = pr.Head.Repo.FullName
			ev.HeadIsFork = pr.Head.Repo.Fork
		}
	}
	return ev, nil
}

// untrustedPR reports whether the run is a pull_request event whose secrets
// GitHub withholds: from a fork (or a deleted head repository), or opened
// by Dependabot.
func (e event) untrustedPR() bool {
	if e.PRNumber == 0 || !strings.HasPrefix(e.Name, "pull_request") || e.Name == "pull_request_target" {
		return false
	}
	return e.HeadIsFork || e.HeadRepo == "" || !strings.EqualFold(e.HeadRepo, e.BaseRepo) ||
		e.SenderLogin == "dependabot[bot]"
}
