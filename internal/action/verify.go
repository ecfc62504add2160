package action

// Verification of a README fix before the fix pull request is opened: the
// fixed README's changed steps run again in a fresh sandbox.
//
//  1. The keyless markdown engine runs the fixed README (the same plan as
//     `readme2demo plan`, in one session, so the steps before a changed one
//     set it up as a reader would). The changed steps are the planned
//     commands on lines the edit wrote. Verified when each ran and passed;
//     not verified when one failed.
//  2. When that cannot decide (no changed line holds a command the plan
//     runs, or an earlier step failed before a changed one was reached),
//     the replay engine re-runs the agent's successful path with the fixed
//     README in place. Verified when it succeeds.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/suggest"
)

// verify runs the fixed README's changed steps again; its error is a run
// that could not happen (no Docker, no image), not a failed step.
func (a *app) verify(ctx context.Context, s *step, j fixJob, fixed *suggest.Fixed) (*report.Verification, error) {
	p := plan.Make(fixed.Text, plan.Options{File: j.diffPath, Repo: plan.RepoFromDir(j.cfg.WorkDir, s.getenv("GITHUB_REPOSITORY")), Order: j.cfg.Order})
	var changed []plan.Entry
	var skipped []report.VerifiedStep
	for _, e := range p.Entries {
		if e.Command == "" || !touches(fixed.Changed, e.Line, max(e.EndLine, e.Line)) {
			continue
		}
		if e.Run {
			changed = append(changed, e)
		} else {
			skipped = append(skipped, report.VerifiedStep{File: e.File, Line: e.Line, Command: e.Command, Result: report.StepSkipped, Detail: e.Reason})
		}
	}
	if len(changed) > 0 {
		l, err := a.verifyRun(ctx, s, j, fixed, engines.MarkdownName, nil)
		if err != nil {
			return nil, err
		}
		steps, failed, unreached := stepResults(l, j.diffPath, changed)
		if failed || !unreached {
			return &report.Verification{Method: report.MethodMarkdown, Passed: !failed, Steps: append(steps, skipped...), Ran: len(l.Commands)}, nil
		}
	}
	prior, err := os.ReadFile(j.res.CommandLog)
	if err != nil {
		return nil, fmt.Errorf("read command log: %w", err)
	}
	l, err := a.verifyRun(ctx, s, j, fixed, engines.ReplayName, prior)
	if err != nil {
		return nil, err
	}
	steps, _, _ := stepResults(l, j.diffPath, changed)
	var ran []report.VerifiedStep
	for _, st := range steps {
		if st.Result != report.StepNotReached {
			ran = append(ran, st)
		}
	}
	return &report.Verification{Method: report.MethodReplay, Passed: l.Outcome == commandlog.OutcomeSuccess, Steps: append(ran, skipped...), Ran: len(l.Commands)}, nil
}

// verifyRun is one run of the pipeline with the fixed README, in a fresh
// sandbox, with the run's own image, sandbox and network settings.
func (a *app) verifyRun(ctx context.Context, s *step, j fixJob, fixed *suggest.Fixed, engine string, prior []byte) (*commandlog.Log, error) {
	fmt.Fprintf(s.stderr, "readme2demo: verifying the README fix with the %s engine\n", engine)
	res, err := a.pipeline(ctx, pipeline.Config{
		Engine: engine, Readme: j.cfg.Readme, ReadmeText: fixed.Text, RepoDir: j.cfg.WorkDir, PriorLog: prior,
		Image: j.cfg.Image, Devcontainer: j.cfg.Devcontainer,
		Limits:  engines.Limits{Timeout: j.cfg.Timeout},
		Network: j.cfg.Network, AllowHosts: j.cfg.AllowHosts, Order: j.cfg.Order,
		OutDir:  filepath.Join(j.cfg.OutDir, "verify-"+engine),
		Sandbox: j.cfg.Sandbox, Resources: j.cfg.Resources,
		Getenv: pipelineEnv(s.getenv), Progress: s.stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("verify with %s: %s", engine, s.red.String(err.Error()))
	}
	if res == nil || res.Log == nil {
		return nil, fmt.Errorf("verify with %s: no command log", engine)
	}
	return res.Log, nil
}

// touches reports whether lines start..end meet one of the changed ranges.
func touches(changed []suggest.Lines, start, end int) bool {
	for _, c := range changed {
		if start <= c.End && end >= c.Start {
			return true
		}
	}
	return false
}

// stepResults finds each changed entry's command in l by its README line:
// passed, failed, or not reached.
func stepResults(l *commandlog.Log, file string, changed []plan.Entry) (steps []report.VerifiedStep, failed, unreached bool) {
	for _, e := range changed {
		st := report.VerifiedStep{File: e.File, Line: e.Line, Command: e.Command, Result: report.StepNotReached}
		for _, c := range l.Commands {
			if c.Source == nil || c.Source.File != file || c.Source.Line != e.Line {
				continue
			}
			st.Command = c.Command
			if c.Status == commandlog.StatusOK {
				st.Result = report.StepPassed
			} else {
				st.Result = report.StepFailed
				if c.ExitCode != nil {
					st.Detail = fmt.Sprintf("exit %d", *c.ExitCode)
				}
			}
		}
		switch st.Result {
		case report.StepFailed:
			failed = true
		case report.StepNotReached:
			unreached = true
		}
		steps = append(steps, st)
	}
	return steps, failed, unreached
}
