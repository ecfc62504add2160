// Package action is the readme2demo GitHub Action (cmd/action is its
// main): it reads the Action's inputs (INPUT_* variables), masks every
// secret, runs the shared pipeline (engine → sandbox → parse → redact →
// command_log.json), then sets the step outputs, writes the job summary,
// annotates failed README commands, keeps one PR comment up to date, and
// exits by the fail-on policy.
//
// Run outside Actions (no GITHUB_OUTPUT / GITHUB_STEP_SUMMARY) it is a CLI:
// it prints the report to stdout and never touches the Actions files.
package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sethvargo/go-githubactions"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/release/pull"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/secrets"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// maxAnnotations bounds the error annotations per run (GitHub shows ten
// per step anyway).
const maxAnnotations = 10

// pipelineFunc runs the shared pipeline; tests inject a fake.
type pipelineFunc func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error)

// app holds what the Action needs from outside, so tests can swap it.
type app struct {
	pipeline   pipelineFunc
	httpClient *http.Client
	sleep      ghapi.Sleeper
	docker     func(ctx context.Context) (pull.Docker, func(), error)
}

func defaultApp() *app {
	return &app{pipeline: pipeline.Run, httpClient: http.DefaultClient, sleep: ghapi.Sleep, docker: dockerClient}
}

// step is one invocation: the Actions toolkit plus what it learned so far.
type step struct {
	gh      *githubactions.Action
	getenv  func(string) string
	stdout  io.Writer
	stderr  io.Writer
	actions bool // running inside GitHub Actions
	red     *redact.Redactor
}

// Run runs the Action with the world passed in and returns its exit status
// (internal/exitcode).
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return defaultApp().run(ctx, args, getenv, stdout, stderr)
}

func (a *app) run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	s := &step{
		gh:      githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(stdout)),
		getenv:  getenv,
		stdout:  stdout,
		stderr:  stderr,
		actions: getenv("GITHUB_ACTIONS") == "true",
	}
	// Secrets first: nothing may be printed before the masks are registered
	// (internal/secrets decides which values are secret; each multi-line
	// value also comes split into its lines, as the runner masks line by line).
	secretValues := secrets.Values(getenv, nil)
	if s.actions {
		for _, v := range secretValues {
			s.gh.AddMask(v)
		}
	}
	s.red = redact.New(secretValues)

	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help":
			fmt.Fprint(stdout, usageText)
			return exitcode.OK
		case modeValidate, modePullImage:
			if len(args) == 1 {
				return a.runMode(ctx, s, args[0])
			}
		}
		s.errorf("unexpected arguments %q: the Action reads its inputs from INPUT_* variables (see --help)", args)
		return exitcode.Usage
	}

	cfg, ev, code, proceed := s.check(true)
	if !proceed {
		return code
	}
	if cfg.Devcontainer && cfg.Image == "" {
		s.errorf("input image: devcontainer needs the base image the agent CLI comes from (INPUT_BASE_IMAGE, set by action.yml)")
		s.setOutputs(map[string]string{"outcome": "error"})
		return exitcode.Usage
	}

	res, err := a.pipeline(ctx, pipeline.Config{
		Engine: cfg.Engine, Readme: cfg.Readme, RepoDir: cfg.WorkDir, Image: cfg.Image, Devcontainer: cfg.Devcontainer,
		Limits:  engines.Limits{MaxTurns: cfg.MaxTurns, MaxCostUSD: cfg.MaxCostUSD, Timeout: cfg.Timeout, Model: cfg.Model},
		Network: cfg.Network, AllowHosts: cfg.AllowHosts, Order: cfg.Order, OutDir: cfg.OutDir,
		Sandbox: cfg.Sandbox, Resources: cfg.Resources,
		Getenv: pipelineEnv(getenv), Progress: stderr,
	})
	if err != nil && res != nil && res.Log != nil {
		// Cancelled mid-run: the partial log is still worth reporting.
		s.warningf("readme2demo: %s; reporting what the agent did until then", s.red.String(err.Error()))
		err = nil
	}
	if err != nil || res == nil || res.Log == nil {
		if err == nil {
			err = errors.New("run pipeline: no command log")
		}
		msg := s.red.String(err.Error())
		s.errorf("readme2demo could not run: %s", msg)
		s.setOutputs(map[string]string{"outcome": "error"})
		s.summary(fmt.Sprintf("## readme2demo: 💥 the run did not complete\n\n%s\n", report.Text(msg)))
		return exitcode.Failed
	}
	// The pipeline redacted already; this is defence in depth (README
	// commands keep their text but for forwarded values).
	log := redact.Copy(res.Log, s.red)

	ropts := report.Options{
		Readme:       filepath.ToSlash(cfg.Readme),
		RunURL:       ghapi.RunURL(getenv),
		ArtifactName: cfg.ArtifactName,
		BlobURL:      blobURL(getenv, ev, cfg.WorkDir),
		ReadmeDiff:   readDiff(res.ReadmeDiff),
		Redact:       s.red.String,
		RedactValues: s.red.Values,
	}
	outputs := outputsFor(log, res.CommandLog)
	ropts.Fix, outputs["fix-url"] = a.fix(ctx, s, fixJob{cfg: cfg, ev: ev, log: log, res: res, diff: ropts.ReadmeDiff,
		readme: repoPath(getenv("GITHUB_WORKSPACE"), cfg.WorkDir, cfg.Readme), diffPath: path.Clean(filepath.ToSlash(cfg.Readme))})
	s.annotate(log, cfg)
	if s.actions || getenv("GITHUB_STEP_SUMMARY") != "" {
		s.summary(report.Render(log, ropts))
	} else {
		fmt.Fprint(stdout, report.Render(log, ropts))
	}

	code, why := cfg.FailOn.verdict(log)
	if res.NotUnderstood != nil {
		// Parser drift: the log says little about the README, so the run
		// fails whatever fail-on says.
		code, why = exitcode.Failed, s.red.String(res.NotUnderstood.Error())
	}
	outputs["comment-url"] = a.comment(ctx, s, cfg, ev, log, ropts, log.Outcome != commandlog.OutcomeSuccess)
	s.setOutputs(outputs)
	if code != exitcode.OK {
		s.errorf("readme2demo: %s (outcome %s; fail-on: %s)", why, log.Outcome, cfg.FailOn)
	} else {
		s.noticef("readme2demo: %s", strings.TrimSpace(report.Verdict(log)))
	}
	return code
}

// check validates the inputs and the engine's credential, the same way for
// the run and for the validate mode that runs before any image is pulled or
// built. proceed is false when the run must stop: code is then its exit
// status (usage errors, or 0 after a fork PR without credentials was
// skipped; the skip's notice, summary and outputs are written only when
// report is set: the validate mode leaves them to the run).
func (s *step) check(report bool) (cfg config, ev event, code int, proceed bool) {
	cfg, err := parseConfig(newInputReader(s.getenv), s.getenv)
	if err != nil {
		for _, e := range unjoin(err) {
			s.errorf("%v", e)
		}
		s.setOutputs(map[string]string{"outcome": "error"})
		return cfg, ev, exitcode.Usage, false
	}
	eng, err := engines.Lookup(cfg.Engine)
	if err != nil {
		s.errorf("input engine: %v", err)
		s.setOutputs(map[string]string{"outcome": "error"})
		return cfg, ev, exitcode.Usage, false
	}
	ev, err = loadEvent(s.getenv)
	if err != nil && report {
		s.warningf("%v", err)
	}
	if _, err := eng.ResolveEnv(s.getenv); err != nil {
		var ee *engines.EngineError
		if errors.As(err, &ee) && ev.untrustedPR() {
			if !report {
				return cfg, ev, exitcode.OK, false
			}
			return cfg, ev, s.skipForFork(cfg, ee), false
		}
		s.errorf("%v. Pass the credential as the Action's input (for example `anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}`)", err)
		s.setOutputs(map[string]string{"outcome": "error"})
		return cfg, ev, exitcode.Usage, false
	}
	return cfg, ev, exitcode.OK, true
}

// skipForFork ends a pull_request run from a fork neutrally: GitHub does
// not pass secrets to such runs, so there is nothing to run the agent with.
func (s *step) skipForFork(cfg config, ee *engines.EngineError) int {
	why := fmt.Sprintf("skipped: GitHub does not pass secrets to pull_request runs from forks (or Dependabot), so the %s engine has no credential (%s).", cfg.Engine, ee.Var)
	how := "To check this PR safely, a maintainer can push its branch to this repository (or re-run the workflow after review with `workflow_dispatch`), " +
		"or use the keyless `engine: markdown`. Never switch to `pull_request_target` with a checkout of the PR head: that runs untrusted code with your secrets."
	s.noticef("readme2demo %s %s", why, how)
	s.setOutputs(map[string]string{"outcome": "skipped", "adjusted": "false", "cost-usd": "", "turns": "", "duration-ms": "",
		"commands": "0", "failed-commands": "0", "command-log": "", "comment-url": "", "fix-url": ""})
	s.summary(fmt.Sprintf("## readme2demo: ⏭️ skipped\n\n%s\n\n%s\n", why, how))
	return exitcode.OK
}

func outputsFor(l *commandlog.Log, logPath string) map[string]string {
	o := map[string]string{
		"outcome":         string(l.Outcome),
		"adjusted":        strconv.FormatBool(l.Adjusted),
		"cost-usd":        "",
		"turns":           "",
		"duration-ms":     "",
		"commands":        strconv.Itoa(len(l.Commands)),
		"failed-commands": strconv.Itoa(len(l.Failed())),
		"command-log":     logPath,
	}
	if l.CostUSD != nil {
		o["cost-usd"] = strconv.FormatFloat(*l.CostUSD, 'f', -1, 64)
	}
	if l.Turns != nil {
		o["turns"] = strconv.Itoa(*l.Turns)
	}
	if l.DurationMS != nil {
		o["duration-ms"] = strconv.FormatInt(*l.DurationMS, 10)
	}
	return o
}

// annotate puts an error annotation on each failed command, at its README
// line when the pipeline located it there.
func (s *step) annotate(l *commandlog.Log, cfg config) {
	failed := l.Failed()
	for i, c := range failed {
		if i == maxAnnotations {
			s.errorf("readme2demo: %d more commands failed; see the job summary", len(failed)-maxAnnotations)
			break
		}
		exit := "failed"
		if c.ExitCode != nil {
			exit = fmt.Sprintf("exited %d", *c.ExitCode)
		}
		msg := fmt.Sprintf("README command %s: %s", exit, oneLine(s.red.String(c.Command), 300))
		fields := map[string]string{"title": "readme2demo - command failed"}
		if c.Source != nil {
			// Drawn visibly too: a path holding a hidden character then
			// names no file, and the annotation stands without one.
			fields["file"] = termtext.Visible(repoPath(s.getenv("GITHUB_WORKSPACE"), cfg.WorkDir, c.Source.File))
			fields["line"] = strconv.Itoa(c.Source.Line)
		}
		if s.actions {
			s.gh.WithFieldsMap(fields).Errorf("%s", msg)
		} else if c.Source != nil {
			fmt.Fprintf(s.stderr, "error: %s:%d: %s\n", fields["file"], c.Source.Line, msg)
		} else {
			fmt.Fprintf(s.stderr, "error: %s\n", msg)
		}
	}
}

// repoPath turns a README-relative file into the repository-relative path
// annotations need.
func repoPath(workspace, workDir, file string) string {
	p := filepath.Join(workDir, file)
	if workspace != "" {
		if rel, err := filepath.Rel(workspace, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// oneLine folds s onto one line of at most n bytes (and "…"), control and
// hidden characters drawn visibly first (termtext.Visible), cut on a
// character boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(termtext.Visible(s)), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func blobURL(getenv func(string) string, ev event, workDir string) string {
	server, repo := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY")
	sha := ev.HeadSHA
	if sha == "" {
		sha = getenv("GITHUB_SHA")
	}
	if ev.HeadRepo != "" {
		repo = ev.HeadRepo
	}
	if server == "" || repo == "" || sha == "" {
		return ""
	}
	dir := repoPath(getenv("GITHUB_WORKSPACE"), workDir, ".")
	prefix := fmt.Sprintf("%s/%s/blob/%s/", strings.TrimSuffix(server, "/"), repo, sha)
	if dir != "." {
		prefix += dir + "/"
	}
	return prefix
}

// readDiff reads the pipeline's README diff, at most 1 MiB of it.
func readDiff(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// comment keeps the PR comment up to date and returns its URL ("" when
// none). Failing to comment is a warning, never a failed check.
func (a *app) comment(ctx context.Context, s *step, cfg config, ev event, l *commandlog.Log, ropts report.Options, failing bool) string {
	if cfg.Comment == commentNever || ev.PRNumber == 0 {
		return ""
	}
	if cfg.GitHubToken == "" {
		s.warningf("readme2demo: no github-token, so no PR comment")
		return ""
	}
	owner, repo, ok := strings.Cut(s.getenv("GITHUB_REPOSITORY"), "/")
	if !ok {
		s.warningf("readme2demo: GITHUB_REPOSITORY is not owner/repo, so no PR comment")
		return ""
	}
	svc, err := ghapi.New(ghapi.Config{APIURL: cmp.Or(s.getenv("GITHUB_API_URL"), "https://api.github.com"),
		Token: cfg.GitHubToken, HTTPClient: a.httpClient, Sleep: a.sleep})
	if err != nil {
		s.warningf("readme2demo: PR comment: %v", err)
		return ""
	}
	ropts.MaxBytes = report.CommentMaxBytes
	body := report.Render(l, ropts)
	key := fmt.Sprintf("workflow=%s job=%s engine=%s readme=%s", s.getenv("GITHUB_WORKFLOW"), s.getenv("GITHUB_JOB"), cfg.Engine,
		repoPath(s.getenv("GITHUB_WORKSPACE"), cfg.WorkDir, cfg.Readme))
	// on-failure: post when failing; when passing, only update an earlier
	// comment (so a fixed README does not leave a stale failure behind).
	create := cfg.Comment == commentAlways || failing
	res, err := svc.UpsertComment(ctx, ghapi.CommentTarget{Owner: owner, Repo: repo, Number: ev.PRNumber, Key: key}, body, create)
	var pe *ghapi.PermissionError
	switch {
	case errors.Is(err, ghapi.ErrNoComment):
		return ""
	case errors.As(err, &pe):
		s.warningf("readme2demo: could not comment on the PR: %s. Give the job `permissions: pull-requests: write`; on pull requests from forks the token is read-only, so read the job summary instead.", s.red.String(pe.Error()))
		return ""
	case err != nil:
		s.warningf("readme2demo: could not comment on the PR: %s", s.red.String(err.Error()))
		return ""
	}
	return res.URL
}

// --- Actions output, guarded for CLI mode --------------------------------

// fileCommand runs one of go-githubactions' file commands, which panic
// when their file variable is unset or unwritable, and turns a panic into a
// warning.
func (s *step) fileCommand(envVar string, f func()) {
	if s.getenv(envVar) == "" {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.stderr, "readme2demo: warning: write %s: %v\n", envVar, r)
		}
	}()
	f()
}

func (s *step) setOutputs(o map[string]string) {
	if s.getenv("GITHUB_OUTPUT") == "" {
		if !s.actions {
			for _, k := range slices.Sorted(maps.Keys(o)) {
				fmt.Fprintf(s.stderr, "readme2demo: output %s=%s\n", k, o[k])
			}
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(o)) {
		s.fileCommand("GITHUB_OUTPUT", func() { s.gh.SetOutput(k, o[k]) })
	}
}

func (s *step) summary(md string) {
	s.fileCommand("GITHUB_STEP_SUMMARY", func() { s.gh.AddStepSummary(md) })
}

// errorf, warningf and noticef print a message whose arguments may quote
// the repository (paths, commands): control characters are shown, never
// sent to a terminal or the job log.
func (s *step) errorf(format string, a ...any) { s.say(s.gh.Errorf, "error: ", format, a...) }

func (s *step) warningf(format string, a ...any) { s.say(s.gh.Warningf, "warning: ", format, a...) }

func (s *step) noticef(format string, a ...any) { s.say(s.gh.Noticef, "", format, a...) }

// say prints a message as an annotation in Actions, else on stderr after prefix.
func (s *step) say(annotate func(string, ...any), prefix, format string, a ...any) {
	msg := termtext.Visible(fmt.Sprintf(format, a...))
	if s.actions {
		annotate("%s", msg)
		return
	}
	fmt.Fprintf(s.stderr, "%s%s\n", prefix, msg)
}

// unjoin splits an errors.Join error into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

const usageText = `readme2demo Action entry point.

Reads the Action's inputs from INPUT_* variables (engine, readme,
working-directory, model, max-turns, max-cost-usd, timeout-minutes, image,
network, comment, fix, fix-branch, fail-on, github-token, artifact-name,
output-dir) and the engine's credentials from ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN,
LLM_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY. Outside GitHub Actions it
prints the report to stdout and the outputs to stderr.

Exit status: 0 passed or skipped, 1 failed (by fail-on), 2 bad inputs,
3 blocked (by fail-on).

Setup modes (action.yml runs them before the run):
  validate     check the inputs and the engine's credentials, nothing else;
               sets the output proceed (false: a fork PR without credentials,
               which the run reports as skipped). Exit 2 on bad inputs.
  pull-image   pull the engine's released sandbox image by digest, from the
               sandbox-images.json named by R2D_RELEASE_MANIFEST; sets the
               output image (NAME@sha256:DIGEST). Exit 1 when it fails.
`
