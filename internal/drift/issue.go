package drift

import (
	"context"
	"fmt"

	"github.com/readme2demo/readme2demo/internal/ghapi"
)

// IssueKey is the hidden-marker slot of an engine's drift issue.
func IssueKey(engine string) string { return "drift " + engine }

// OpenIssue opens or updates the ONE open drift issue of o's engine (found
// by its hidden marker) with the engine's report; runURL, when set, links
// the workflow run whose artifact holds the transcripts.
func OpenIssue(ctx context.Context, gh *ghapi.Client, owner, repo string, o *Outcome, runURL string) (*ghapi.Issue, error) {
	body := Markdown(o)
	if runURL != "" {
		body += fmt.Sprintf("\nWorkflow run (transcripts and fixture candidates in its artifact): %s\n", runURL)
	}
	rep := o.Report
	if !rep.Drifted() && o.Against != nil {
		rep = o.Against
	}
	title := fmt.Sprintf("Agent CLI drift: %s %s", rep.Engine, rep.Version)
	is, err := gh.UpsertIssue(ctx, ghapi.IssueTarget{Owner: owner, Repo: repo, Key: IssueKey(o.Engine)}, title, body, nil)
	if err != nil {
		return nil, fmt.Errorf("open drift issue: %w", err)
	}
	return is, nil
}
