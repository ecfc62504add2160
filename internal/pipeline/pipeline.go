// Package pipeline is one readme2demo run, shared by the CLI and the GitHub
// Action: engine lookup → credentials (ResolveEnv) → prompt → sandbox →
// ParseTranscript → README line mapping → redaction → command_log.json,
// transcript and stderr in an output directory.
//
// It is a library: the environment, the progress writer, the clock and the
// Docker client come in through Config, and it returns the command log
// rather than printing verdicts or exit codes.
package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/htmlreport"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/prompt"
	"github.com/readme2demo/readme2demo/internal/readme"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/repoconfig"
	"github.com/readme2demo/readme2demo/internal/repofs"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/secrets"
	"github.com/readme2demo/readme2demo/internal/termtext"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// DefaultReadme is the README followed when Config.Readme is empty.
const DefaultReadme = "README.md"

// MaxReadmeBytes is the largest README readme2demo reads on the host: the
// repository's before the run (a larger one is a configuration error) and
// the one the agent left (a larger one is reported as changed too much to
// diff). It keeps the host's memory bounded whatever a README or a
// command writes.
const MaxReadmeBytes = textdiff.MaxBytes

// The files a run writes in its output directory.
const (
	CommandLogFile = "command_log.json"
	TranscriptFile = "transcript.jsonl"
	StderrFile     = "transcript.stderr"
	PromptFile     = "prompt.md"
	// ReadmeDiffFile holds the agent's README edits as a unified diff; it is
	// written only when the README changed.
	ReadmeDiffFile = "readme.diff"
	ReportFile     = "report.md"
	DemoCastFile   = "demo.cast"
	DemoScriptFile = "demo.sh"
)

// Config is one run's configuration.
type Config struct {
	Engine  string // engines.Lookup name
	RepoDir string // the repository on the host; only read
	Readme  string // path relative to RepoDir; "" means DefaultReadme
	Image   string // the sandbox image (with Devcontainer: the base the agent CLI is copied from)
	// Devcontainer builds the sandbox image from the repository's
	// .devcontainer/devcontainer.json image with the agent CLI layered on
	// (internal/devcontainer): `--image devcontainer`.
	Devcontainer bool
	Limits       engines.Limits // Timeout 0 means sandbox.DefaultTimeout
	OutDir       string         // created if missing
	RunID        string         // "" means a random id
	// PriorLog is an earlier command_log.json, for engines that re-run one
	// (replay); nil otherwise.
	PriorLog []byte
	// Order is the markdown engine's run order (plan.OrderReadme or
	// plan.OrderInstallFirst); "" takes the README's order hint.
	Order string

	// Sandbox settings beyond the defaults. Sandbox is the profile
	// (sandbox.ProfileDev or ProfileStrict; "" means the default, dev);
	// Resources' zero values take the profile's defaults (sandbox.Resources:
	// memory, CPUs, processes, the disk cap).
	Sandbox     string
	NetworkMode string
	ExtraHosts  []string
	Resources   sandbox.Resources
	// Network is the egress policy (network.go): NetworkOpen, NetworkNone or
	// NetworkAllowlist; "" leaves the sandbox's NetworkMode as given.
	// AllowHosts are the hosts allowlist adds to the engine's API (exact
	// names, *.suffix, IP literals, optional :port). EgressBinary is the
	// Linux executable run as the proxy ("" means R2D_EGRESS_BINARY, else
	// this executable).
	Network      string
	AllowHosts   []string
	EgressBinary string

	Getenv   func(string) string // the host environment (credentials)
	Progress io.Writer           // human progress lines; nil discards them
	Now      func() time.Time    // nil means time.Now
	// Docker is the daemon to use; nil connects with sandbox.NewClient.
	Docker sandbox.Docker
}

// Result is what a run produced.
type Result struct {
	RunID string
	Log   *commandlog.Log
	// Paths of the files written in OutDir. ReadmeDiff is "" when the agent
	// left the README as it was.
	CommandLog, Transcript, Stderr, Prompt               string
	Session                                              string // "" when the engine's CLI left no session file
	ReadmeDiff, Report, DemoCast, DemoScript, HTMLReport string
	AgentExitCode                                        *int // nil when killed or unknown
	TimedOut, Canceled                                   bool
	// NotUnderstood is set when the engine did not understand the
	// transcript (parser drift); the log's outcome is then failed.
	NotUnderstood *engines.NotUnderstoodError
}

// ConfigError is a configuration problem found before any container
// starts; its message says what to fix.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return e.Reason }

// Run performs one run. Errors before the agent starts — an unknown engine
// (engines.ErrUnknownEngine), a missing credential (*engines.EngineError), a
// bad path (*ConfigError, *prompt.PathError), no Docker
// (*sandbox.UnavailableError), no image (*sandbox.ImageMissingError) — come
// back with a nil Result and nothing started. When ctx is cancelled
// mid-run, the partial transcript is still parsed and written, and the
// Result comes back with an error wrapping ctx's error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	// Progress lines quote commands, paths and messages from the
	// repository: none reaches the terminal as a control sequence.
	cfg.Progress = termtext.NewWriter(cfg.Progress)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Readme == "" || cfg.Readme == DefaultReadme {
		cfg.Readme = DefaultReadmeIn(cfg.RepoDir) // readme.md, Readme.md, … when there is no README.md
	}
	eng, err := engines.Lookup(cfg.Engine)
	if err != nil {
		return nil, err
	}
	env, err := eng.ResolveEnv(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	// The README path's own checks (relative, inside) come first: they
	// say what is wrong with the flag.
	if _, err := prompt.Render(cfg.Readme, cfg.Limits); err != nil {
		return nil, err
	}
	readmeText, err := ReadReadme(cfg.RepoDir, cfg.Readme)
	if err != nil {
		return nil, err
	}
	promptText, err := input(eng, cfg, readmeText)
	if err != nil {
		return nil, err
	}
	if cfg.Image == "" {
		return nil, &ConfigError{"no sandbox image given"}
	}
	if cfg.Sandbox == "" {
		cfg.Sandbox = sandbox.DefaultProfile
	}
	if err := sandbox.CheckProfile(cfg.Sandbox); err != nil {
		return nil, &ConfigError{err.Error() + " (--sandbox, Action input `sandbox`)"}
	}
	meterBin := ""
	if cfg.Sandbox == sandbox.ProfileStrict {
		// The strict profile's disk meter runs this binary in a container.
		if meterBin, err = egress.ResolveBinary(cfg.EgressBinary, cfg.Getenv); err != nil {
			return nil, &ConfigError{"--sandbox strict: " + err.Error()}
		}
	}
	if cfg.OutDir == "" {
		return nil, &ConfigError{"no output directory given"}
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, &ConfigError{fmt.Sprintf("create output directory: %v", err)}
	}
	d := cfg.Docker
	if d == nil {
		cli, err := sandbox.NewClient(ctx)
		if err != nil {
			return nil, err
		}
		defer cli.Close()
		d = cli
	} else if err := sandbox.Check(ctx, d); err != nil {
		return nil, err
	}
	if err := sandbox.CheckImage(ctx, d, cfg.Image); err != nil {
		return nil, err
	}
	if cfg.Devcontainer {
		b, ok := d.(devcontainer.Builder)
		if !ok {
			return nil, &ConfigError{"--image devcontainer needs a Docker client that builds images"}
		}
		img, _, err := devcontainer.Build(ctx, b, cfg.RepoDir, cfg.Image, eng.Name(), cfg.Progress)
		if err != nil {
			var de *devcontainer.Error
			if errors.As(err, &de) {
				return nil, &ConfigError{de.Error()}
			}
			return nil, err
		}
		cfg.Image = img
	}

	readmeInContainer := path.Join(engines.WorkspaceContainerPath, path.Clean(cfg.Readme))
	secretValues := secrets.Values(cfg.Getenv, env)
	red := redact.New(secretValues)
	start := cfg.Now()
	prog := newProgress(eng, cfg.Progress, red, start, cfg.Now)
	runID := cfg.RunID
	if runID == "" {
		runID = sandbox.NewRunID()
	}
	fmt.Fprintf(cfg.Progress, "run %s: %s in %s, following %s\n", runID, eng.Name(), cfg.Image, cfg.Readme)
	fmt.Fprintf(cfg.Progress, "%s\n", describeSandbox(cfg.Sandbox, cfg.Resources))

	timeout := cfg.Limits.Timeout
	if timeout <= 0 {
		timeout = sandbox.DefaultTimeout
	}
	netw, err := setupNetwork(ctx, d, cfg, eng, env, runID, start.Add(timeout+sandbox.Grace+time.Minute), red, prog.note)
	defer func() {
		if err := netw.close(); err != nil {
			fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
		}
	}()
	if err != nil {
		return nil, err
	}
	if cfg.Network != "" {
		prog.note("%s", netw.describe())
	}
	parent := ctx
	ctx, bud := withBudget(ctx, cfg.Limits.MaxCostUSD, prog.printf)
	prog.onLog = bud.observe

	res, runErr := sandbox.Run(ctx, d, sandbox.Spec{
		Image:          cfg.Image,
		RunID:          runID,
		RepoDir:        cfg.RepoDir,
		Workdir:        engines.WorkspaceContainerPath,
		Files:          []sandbox.File{{Path: engines.PromptContainerPath, Data: []byte(promptText)}},
		Command:        netw.command(eng.BuildCommand(cfg.Limits)),
		Env:            withEnv(netw.env, repoconfig.GitEnv()),
		Timeout:        cfg.Limits.Timeout,
		Profile:        cfg.Sandbox,
		Resources:      cfg.Resources,
		MeterBinary:    meterBin,
		NetworkMode:    netw.mode,
		ExtraHosts:     cfg.ExtraHosts,
		TranscriptPath: engines.TranscriptContainerPath,
		StderrPath:     engines.StderrContainerPath,
		Collect:        append([]string{readmeInContainer}, sessionCollect(eng)...),
		CollectLimits:  map[string]int64{readmeInContainer: MaxReadmeBytes},
		OnTranscript:   prog.feed,
		Now:            cfg.Now,
	})
	runErr = bud.settle(parent, res, runErr)
	if runErr != nil && !res.Canceled {
		return nil, fmt.Errorf("run sandbox: %w", runErr)
	}
	if err := netw.check(res); err != nil {
		return nil, err
	}
	_, keyless := eng.(engines.InputPreparer)
	for _, f := range res.RepoConfig {
		if keyless && f.Action == repoconfig.Flag {
			// Listed like every flagged path (SECURITY.md), without the
			// agent's threat: nothing reads them in a keyless run.
			fmt.Fprintf(cfg.Progress, "repository config flag: %s (kept; instructions for AI agents, which a keyless run does not read)\n", f.Path)
			continue
		}
		fmt.Fprintf(cfg.Progress, "repository config %s: %s (%s)\n", f.Action, f.Path, f.Reason)
	}

	log, err := eng.ParseTranscript(bytes.NewReader(res.Transcript))
	if err != nil {
		return nil, errors.Join(runErr, fmt.Errorf("parse transcript: %w", err))
	}
	session := mergeSession(eng, log, res.Collected, cfg.Progress)
	notUnderstood := checkUnderstood(eng, log, res.Transcript)
	explain(log, res, cfg.Limits.Timeout)
	if notUnderstood != nil {
		fmt.Fprintf(cfg.Progress, "error: %v\n", notUnderstood)
	}
	bud.enforce(log)
	readme.Map(log, cfg.Readme, readmeText)
	policy := cfg.Network
	if policy == "" {
		policy = networkOf(netw.mode)
	}
	nameLimits(log, res, signals(res, policy, timeout, netw.deniedHosts()), keyless, red)
	log.Sandbox = sandboxRecord(cfg.Image, policy, res)
	log.RepoFindings = repoFindings(res.RepoConfig)
	// README commands are public: redaction never rewrites one into a
	// different command (the replay engine would run that).
	redact.Log(log, red, string(readmeText))
	if err := commandlog.Validate(log); err != nil {
		fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
	}

	out := &Result{
		RunID: runID, Log: log, AgentExitCode: res.ExitCode, TimedOut: res.TimedOut, Canceled: res.Canceled,
		NotUnderstood: notUnderstood,
		CommandLog:    filepath.Join(cfg.OutDir, CommandLogFile),
		Transcript:    filepath.Join(cfg.OutDir, TranscriptFile),
		Stderr:        filepath.Join(cfg.OutDir, StderrFile),
		Prompt:        filepath.Join(cfg.OutDir, PromptFile),
	}
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, log); err != nil {
		return nil, errors.Join(runErr, fmt.Errorf("encode command log: %w", err))
	}
	files := []outFile{
		{out.CommandLog, buf.Bytes()},
		{out.Transcript, []byte(red.String(string(res.Transcript)))},
		{out.Stderr, []byte(red.String(string(res.Stderr)))},
		{out.Prompt, []byte(promptText)},
	}
	if session != nil {
		out.Session = filepath.Join(cfg.OutDir, SessionFile)
		files = append(files, outFile{out.Session, []byte(red.String(string(session)))})
	}
	// What people read: the agent's README edits, the report and the demo.
	diff := readmeDiff(cfg.Readme, readmeText, readmeInContainer, res, red)
	if strings.HasPrefix(diff, "#") {
		fmt.Fprintf(cfg.Progress, "%s", diff)
	}
	if diff != "" {
		out.ReadmeDiff = filepath.Join(cfg.OutDir, ReadmeDiffFile)
		files = append(files, outFile{out.ReadmeDiff, []byte(diff)})
	}
	out.Report = filepath.Join(cfg.OutDir, ReportFile)
	rep := report.Render(log, report.Options{Readme: cfg.Readme, ReadmeDiff: diff, Redact: red.String, RedactValues: red.Values})
	files = append(files, outFile{out.Report, []byte(rep)})
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return nil, errors.Join(runErr, fmt.Errorf("write %s: %w", filepath.Base(f.path), err))
		}
	}
	cast, script, err := demo.WriteFiles(cfg.OutDir, log, demo.Options{Source: CommandLogFile, Secrets: secretValues})
	if err != nil {
		return nil, errors.Join(runErr, fmt.Errorf("write demo: %w", err))
	}
	out.DemoCast, out.DemoScript = cast, script
	out.HTMLReport, err = htmlreport.WriteFile(cfg.OutDir, log, htmlreport.Options{
		Readme: cfg.Readme, Source: CommandLogFile, ReadmeDiff: diff, Secrets: secretValues, Redact: red.String, RedactValues: red.Values,
	})
	if err != nil {
		return nil, errors.Join(runErr, fmt.Errorf("write html report: %w", err))
	}
	prog.summary(log, res, cfg.Now().Sub(start))
	if s := netw.deniedSummary(); s != "" {
		prog.note("egress refused: %s", red.String(s))
	}
	if runErr != nil {
		return out, fmt.Errorf("run canceled: %w", runErr)
	}
	return out, nil
}

// outFile is one file the run writes in its output directory.
type outFile struct {
	path string
	data []byte
}

// input is what the agent gets at PromptContainerPath: the rendered prompt,
// or what a keyless engine prepares from the README (engines.InputPreparer).
func input(eng engines.AgentEngine, cfg Config, readmeText []byte) (string, error) {
	// The prompt's path checks apply to every engine.
	text, err := prompt.Render(cfg.Readme, cfg.Limits)
	if err != nil {
		return "", err
	}
	prep, ok := eng.(engines.InputPreparer)
	if !ok {
		return text, nil
	}
	if cfg.Order != "" && !slices.Contains(plan.Orders, cfg.Order) {
		return "", &ConfigError{fmt.Sprintf("order %q: use %s", cfg.Order, strings.Join(plan.Orders, " or "))}
	}
	b, err := prep.PrepareInput(engines.RunInput{
		ReadmeName: path.Clean(cfg.Readme), Readme: readmeText, CommandLog: cfg.PriorLog, Limits: cfg.Limits,
		Repo: plan.RepoFromDir(cfg.RepoDir, cfg.Getenv("GITHUB_REPOSITORY")), Order: cfg.Order,
	})
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ReadReadme makes sure the repository and its README exist and returns
// the README's text, read through repofs: never through a symlink out of
// the repository, never a hard link, FIFO or device, never more than
// MaxReadmeBytes. Its errors are *ConfigError saying what to fix. Every
// host-side reader of a repository's README uses it.
func ReadReadme(dir, readmePath string) ([]byte, error) {
	if dir == "" {
		return nil, &ConfigError{"no repository directory given"}
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, &ConfigError{fmt.Sprintf("repository directory %s: not a readable directory", dir)}
	}
	text, err := repofs.ReadFile(dir, readmePath, MaxReadmeBytes)
	var re *repofs.Error
	var tl *repofs.TooLargeError
	switch {
	case err == nil:
		return text, nil
	case errors.As(err, &tl):
		return nil, &ConfigError{fmt.Sprintf("README %s: %d bytes, larger than the %s readme2demo reads; point --readme at a smaller file", readmePath, tl.Size, repofs.Size(tl.Max))}
	case errors.As(err, &re) && re.Reason == "not found":
		return nil, &ConfigError{fmt.Sprintf("README %s not found in %s: pass --readme with its path relative to the repository", readmePath, dir)}
	case errors.As(err, &re):
		return nil, &ConfigError{fmt.Sprintf("README %s: %s (readme2demo reads only regular files inside the repository)", readmePath, re.Reason)}
	}
	return nil, &ConfigError{fmt.Sprintf("README %s: cannot be read: %v", readmePath, err)}
}

// readmeDiff is the unified diff of the agent's README edits (redacted),
// "" when there were none, or a one-line note starting with "#" when the
// README changed too much to diff or grew past MaxReadmeBytes.
func readmeDiff(name string, before []byte, inContainer string, res *sandbox.Result, red *redact.Redactor) string {
	clean := path.Clean(name)
	after, ok := res.Collected[inContainer]
	if !ok {
		for _, err := range res.CopyErrors {
			if errors.Is(err, sandbox.ErrTooLarge) {
				return fmt.Sprintf("# %s changed too much to diff: the agent left it larger than %s\n", clean, repofs.Size(MaxReadmeBytes))
			}
		}
		return ""
	}
	d, err := textdiff.Unified("a/"+clean, "b/"+clean, string(before), string(after))
	var tl *textdiff.TooLargeError
	if errors.As(err, &tl) {
		return "# " + red.String(tl.Error()) + "\n"
	}
	if err != nil {
		return ""
	}
	return red.String(d)
}

// repoFindings turns the sandbox's repository findings into the log's.
func repoFindings(fs []repoconfig.Finding) []commandlog.RepoFinding {
	var out []commandlog.RepoFinding
	for _, f := range fs {
		out = append(out, commandlog.RepoFinding{Path: f.Path, Action: f.Action.String(), Reason: f.Reason})
	}
	return out
}

// withEnv returns env with extra added (extra does not override).
func withEnv(env, extra map[string]string) map[string]string {
	out := make(map[string]string, len(env)+len(extra))
	for k, v := range extra {
		out[k] = v
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// explain says why a run ended when the transcript cannot: the timeout, a
// cancellation, an agent that died before writing anything.
func explain(l *commandlog.Log, res *sandbox.Result, timeout time.Duration) {
	if timeout <= 0 {
		timeout = sandbox.DefaultTimeout
	}
	switch {
	case res.TimedOut:
		l.OutcomeReason = fmt.Sprintf("timed out after %s: the agent was stopped; raise the limit with --timeout (Action input `timeout-minutes`) if the README needs longer", timeout)
	case res.Canceled:
		l.OutcomeReason = "canceled: the run was interrupted and the agent stopped"
	case len(res.Transcript) == 0 && res.ExitCode != nil && *res.ExitCode != 0 && l.OutcomeReason == "":
		l.OutcomeReason = fmt.Sprintf("the agent exited with code %d without writing a transcript: see %s", *res.ExitCode, StderrFile)
	}
}
