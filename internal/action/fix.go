package action

// The `fix` input: what becomes of the README edit the agent made to follow
// the README (readme.diff).
//
//   - suggest (the default on pull requests): one review of suggested
//     changes on the pull request (internal/suggest computes it against the
//     head's README and the pull request's diff, fetched from the API); the
//     changes GitHub would refuse as suggestions go to the PR comment as
//     patches.
//   - pull-request (schedules, pushes to the default branch): the edit,
//     verified in a fresh sandbox (verify.go), on a branch of readme2demo's
//     own, as one pull request kept up to date.
//
// Failing to post is a warning, never a failed check; the edit then stays
// in the job summary.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/suggest"
)

// fixMode is the mode in force for this event: the input, or its default.
func fixMode(cfg config, ev event) string {
	if cfg.Fix != "" {
		return cfg.Fix
	}
	if ev.PRNumber != 0 {
		return fixSuggest
	}
	return fixOff
}

// fixJob is what the fix step needs from the run.
type fixJob struct {
	cfg  config
	ev   event
	log  *commandlog.Log
	res  *pipeline.Result
	diff string // readme.diff, redacted by the pipeline
	// readme is the README's path in the repository; diffPath its name in
	// readme.diff (relative to the working directory).
	readme, diffPath string
}

// fix turns the README edit into suggestions or a fix pull request, as the
// `fix` input says, and returns what the report shows of it (nil: the
// report shows the diff as before) and the URL of what was posted.
func (a *app) fix(ctx context.Context, s *step, j fixJob) (*report.Fix, string) {
	mode := fixMode(j.cfg, j.ev)
	if mode == fixOff || strings.TrimSpace(j.diff) == "" || strings.HasPrefix(j.diff, "#") {
		return nil, ""
	}
	switch {
	case mode == fixSuggest && j.ev.PRNumber == 0:
		s.noticef("readme2demo: fix: suggest needs a pull request event; this %s run keeps the README edit in the job summary", cmp.Or(j.ev.Name, "local"))
		return nil, ""
	case mode == fixPullRequest && j.ev.PRNumber != 0:
		s.noticef("readme2demo: fix: pull-request runs on schedules and pushes to the default branch; on a pull request use fix: suggest")
		return nil, ""
	case mode == fixSuggest:
		return a.suggestFix(ctx, s, j)
	}
	return a.pullRequestFix(ctx, s, j)
}

// client is the GitHub client for the token, or nil after a warning.
func (a *app) client(s *step, cfg config, what string) (*ghapi.Client, string, string) {
	if cfg.GitHubToken == "" {
		s.warningf("readme2demo: no github-token, so no %s", what)
		return nil, "", ""
	}
	owner, repo, ok := strings.Cut(s.getenv("GITHUB_REPOSITORY"), "/")
	if !ok {
		s.warningf("readme2demo: GITHUB_REPOSITORY is not owner/repo, so no %s", what)
		return nil, "", ""
	}
	svc, err := ghapi.New(ghapi.Config{APIURL: cmp.Or(s.getenv("GITHUB_API_URL"), "https://api.github.com"),
		Token: cfg.GitHubToken, HTTPClient: a.httpClient, Sleep: a.sleep})
	if err != nil {
		s.warningf("readme2demo: %s: %v", what, err)
		return nil, "", ""
	}
	return svc, owner, repo
}

// suggestFix posts the review of suggestions (or retires an earlier one).
func (a *app) suggestFix(ctx context.Context, s *step, j fixJob) (*report.Fix, string) {
	svc, owner, repo := a.client(s, j.cfg, "review of suggested README changes")
	if svc == nil {
		return nil, ""
	}
	in := suggest.Input{Readme: j.readme, DiffPath: j.diffPath, ReadmeDiff: []byte(j.diff), Log: j.log, Redact: s.red.String}
	prDiff, err := svc.PRFileDiff(ctx, owner, repo, j.ev.PRNumber, j.readme)
	if err != nil {
		s.warningf("readme2demo: could not read the pull request's diff (%s); the README edit is shown as patches", s.red.String(err.Error()))
	} else {
		in.PRDiff = prDiff
	}
	// The head's README: the checkout is the merge commit, whose README may
	// differ; suggest places changes by content either way.
	if j.ev.HeadSHA != "" {
		in.Head, err = svc.FileAt(ctx, owner, repo, j.readme, j.ev.HeadSHA)
		if err != nil {
			s.warningf("readme2demo: could not read %s at the pull request's head (%s); using the checkout's", j.readme, s.red.String(err.Error()))
		}
	}
	if in.Head == nil {
		in.Head, _ = pipeline.ReadReadme(j.cfg.WorkDir, j.cfg.Readme)
	}
	rv, err := suggest.Compute(in)
	if err != nil {
		s.warningf("readme2demo: suggestions: %s", s.red.String(err.Error()))
		return nil, ""
	}
	fix := &report.Fix{}
	var comments []ghapi.ReviewComment
	for _, c := range rv.Comments {
		if s.red.String(c.Body) != c.Body {
			// A value the redactor knows (the pipeline missed it): never
			// posted as a suggestion.
			fix.Patches = append(fix.Patches, report.Patch{Path: c.Path, StartLine: cmp.Or(c.StartLine, c.Line), EndLine: c.Line,
				Reason: suggest.KindUnsafeText.Reason(c.Path)})
			continue
		}
		comments = append(comments, ghapi.ReviewComment{Path: c.Path, Line: c.Line, StartLine: c.StartLine, Body: c.Body})
	}
	for _, p := range rv.OutsideDiff {
		fix.Patches = append(fix.Patches, report.Patch{Path: p.Path, StartLine: p.StartLine, EndLine: p.EndLine, Patch: p.Patch, Reason: p.Reason})
	}
	key := "suggest " + slotKey(s, j.cfg)
	r, err := svc.UpsertReview(ctx, ghapi.ReviewTarget{Owner: owner, Repo: repo, Number: j.ev.PRNumber, CommitID: j.ev.HeadSHA, Key: key},
		suggest.ReviewBody(rv, j.readme), comments)
	var pe *ghapi.PermissionError
	switch {
	case errors.As(err, &pe):
		s.warningf("readme2demo: could not post the review of suggested README changes: %s. Give the job `permissions: pull-requests: write`; the edit is in the job summary.", s.red.String(pe.Error()))
		return &report.Fix{Note: "The suggestions could not be posted (the token lacks `pull-requests: write`); the agent's edit is below."}, ""
	case err != nil:
		s.warningf("readme2demo: could not post the review of suggested README changes: %s", s.red.String(err.Error()))
		return &report.Fix{Note: "The suggestions could not be posted; the agent's edit is below."}, ""
	}
	fix.ReviewURL, fix.Suggestions = r.URL, len(comments)
	return fix, r.URL
}

// slotKey names the run's slot within a pull request or repository:
// workflow, job, engine and README, as the comment's.
func slotKey(s *step, cfg config) string {
	return fmt.Sprintf("workflow=%s job=%s engine=%s readme=%s", s.getenv("GITHUB_WORKFLOW"), s.getenv("GITHUB_JOB"), cfg.Engine,
		repoPath(s.getenv("GITHUB_WORKSPACE"), cfg.WorkDir, cfg.Readme))
}

// noPR is why the pull-request mode opened no pull request.
type noPR int

// The reasons.
const (
	noPRBlocked noPR = iota + 1
	noPROtherFiles
	noPRWorkflow
	noPRRedacted
	noPRDoesNotApply
	noPRNotDefaultBranch
	noPRVerifyFailed
	noPRVerifyError
)

func (n noPR) text(detail string) string {
	switch n {
	case noPRBlocked:
		return "No fix pull request: the run was blocked, so the edit is not a fix."
	case noPROtherFiles:
		return "No fix pull request: the agent's edit touches files other than the README (" + detail + "); readme2demo proposes README edits only."
	case noPRWorkflow:
		return "No fix pull request: the edit touches a workflow (" + detail + "); readme2demo never proposes workflow changes."
	case noPRRedacted:
		return "No fix pull request: the edit holds a value redaction removed; apply it by hand."
	case noPRDoesNotApply:
		return "No fix pull request: the edit does not apply to the README the run followed (" + detail + ")."
	case noPRNotDefaultBranch:
		return "No fix pull request: this run is not on the default branch (" + detail + ")."
	case noPRVerifyFailed:
		return "No fix pull request: the verification failed: the fixed README's changed steps did not pass in a fresh sandbox."
	case noPRVerifyError:
		return "No fix pull request: the verification could not run (" + detail + ")."
	}
	return ""
}

// pullRequestFix verifies the edit and opens or updates the fix pull request.
func (a *app) pullRequestFix(ctx context.Context, s *step, j fixJob) (*report.Fix, string) {
	no := func(n noPR, detail string) (*report.Fix, string) {
		msg := n.text(s.red.String(detail))
		s.noticef("readme2demo: %s", msg)
		return &report.Fix{Note: msg}, ""
	}
	if j.log.Outcome == commandlog.OutcomeBlocked {
		return no(noPRBlocked, "")
	}
	files, err := suggest.Files([]byte(j.diff))
	if err != nil {
		return no(noPRDoesNotApply, err.Error())
	}
	for _, f := range files {
		if p := repoPath(s.getenv("GITHUB_WORKSPACE"), j.cfg.WorkDir, f); strings.HasPrefix(p, ".github/workflows/") || strings.HasPrefix(j.readme, ".github/workflows/") {
			return no(noPRWorkflow, f)
		}
	}
	if others := slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f == j.diffPath }); len(others) > 0 {
		return no(noPROtherFiles, strings.Join(others, ", "))
	}
	if redact.ContainsMarker(j.diff) {
		return no(noPRRedacted, "")
	}
	base := cmp.Or(j.ev.DefaultBranch, s.getenv("GITHUB_REF_NAME"))
	if ref := s.getenv("GITHUB_REF_NAME"); ref != "" && base != "" && ref != base {
		return no(noPRNotDefaultBranch, ref)
	}
	before, err := pipeline.ReadReadme(j.cfg.WorkDir, j.cfg.Readme)
	if err != nil {
		return no(noPRDoesNotApply, err.Error())
	}
	fixed, err := suggest.Apply(j.diffPath, before, []byte(j.diff))
	if err != nil {
		return no(noPRDoesNotApply, err.Error())
	}
	v, err := a.verify(ctx, s, j, fixed)
	if err != nil {
		return no(noPRVerifyError, err.Error())
	}
	if !v.Passed {
		f, url := no(noPRVerifyFailed, "")
		f.Verification = v
		return f, url
	}
	svc, owner, repo := a.client(s, j.cfg, "fix pull request")
	if svc == nil {
		return &report.Fix{Note: "No fix pull request: no usable github-token; the verified edit is below.", Verification: v}, ""
	}
	if base == "" {
		base = "main"
	}
	body := report.FixPR(j.log, report.FixPROptions{Readme: j.readme, Diff: j.diff, Verification: v, RunURL: ghapi.RunURL(s.getenv), Redact: s.red.String})
	pr, err := svc.UpsertPR(ctx, ghapi.PRTarget{Owner: owner, Repo: repo, Base: base, Branch: j.cfg.FixBranch, Key: "fix-readme readme=" + j.readme},
		ghapi.Change{Message: "README: the fix readme2demo's agent found and verified (machine-made)\n\n" + strings.Join(fixTexts(j.log, s.red), "\n"),
			Files: []ghapi.File{{Path: j.readme, Content: fixed.Text}}, Parent: s.getenv("GITHUB_SHA")},
		"readme2demo: fix "+j.readme+" (verified)", body)
	var pe *ghapi.PermissionError
	switch {
	case errors.As(err, &pe):
		s.warningf("readme2demo: could not open the fix pull request: %s. Give the job `permissions: contents: write, pull-requests: write` "+
			"(and allow GitHub Actions to create pull requests in the repository settings); the verified edit is in the job summary.", s.red.String(pe.Error()))
		return &report.Fix{Note: "No fix pull request: the token lacks `contents: write` and `pull-requests: write`; the verified edit is below.", Verification: v}, ""
	case err != nil:
		s.warningf("readme2demo: could not open the fix pull request: %s", s.red.String(err.Error()))
		return &report.Fix{Note: "No fix pull request: GitHub refused it; the verified edit is below.", Verification: v}, ""
	}
	s.noticef("readme2demo: fix pull request %s", pr.URL)
	return &report.Fix{PRURL: pr.URL, PRCreated: pr.Created, Verification: v}, pr.URL
}

// fixTexts are the log's FIX texts, redacted, as "FIX: …" lines.
func fixTexts(l *commandlog.Log, red *redact.Redactor) []string {
	var out []string
	for _, m := range l.Markers {
		if m.Kind == commandlog.MarkerFix {
			out = append(out, "FIX: "+oneLine(red.String(m.Text), 300))
		}
	}
	return out
}
