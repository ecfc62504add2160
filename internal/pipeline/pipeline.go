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
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/egress/dockerproxy"
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
	"github.com/readme2demo/readme2demo/internal/timing"
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
	// ReadmeText, when set, is the README to follow instead of the file in
	// RepoDir: it is what the engine reads and what the sandbox's copy of
	// the repository holds at Readme (the fixed README a verification run
	// checks). nil reads the file.
	ReadmeText []byte
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
	// LookupHost resolves a host name (nil means the system's resolver):
	// whether the run's network reaches the internet (internetUnreached).
	LookupHost func(ctx context.Context, host string) ([]string, error)
	// Docker is the daemon to use; nil connects with sandbox.NewClient.
	Docker sandbox.Docker
	// CacheDir is where runs keep what the next run of the same image can
	// reuse (the image's command list, by image ID); "" keeps nothing.
	CacheDir string
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
	// Timings is how long each phase of the run took, measured with
	// Config.Now around the real code paths (the steps and the sandbox's
	// daemon calls); its Total is the whole of Run, cleanups included.
	Timings timing.Record
}

// ConfigError is a configuration problem found before any container
// starts; its message says what to fix.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return e.Reason }

// Run performs one run: the steps of Steps, in order. Errors before the
// agent starts — an unknown engine (engines.ErrUnknownEngine), a missing
// credential (*engines.EngineError), a bad path (*ConfigError,
// *prompt.PathError), no Docker (*sandbox.UnavailableError), no image
// (*sandbox.ImageMissingError) — come back with a nil Result and nothing
// started. Every error is a *StepError naming the step that failed, with the
// step's own message. When ctx is cancelled mid-run, the partial transcript
// is still parsed and written, and the Result comes back with an error
// wrapping ctx's error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	cfg.Progress = cmp.Or(cfg.Progress, io.Discard)
	// Progress lines quote commands, paths and messages from the
	// repository: none reaches the terminal as a control sequence.
	cfg.Progress = termtext.NewWriter(cfg.Progress)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Readme == "" || cfg.Readme == DefaultReadme {
		cfg.Readme = DefaultReadmeIn(cfg.RepoDir) // readme.md, Readme.md, … when there is no README.md
	}
	r := &run{cfg: cfg}
	start := cfg.Now()
	defer r.cleanup()
	if err := runSteps(ctx, r, steps); err != nil {
		return nil, err
	}
	done := r.timings.Start(timing.Cleanup, cfg.Now)
	r.cleanup()
	done()
	r.timings.Total = cfg.Now().Sub(start)
	r.out.Timings = r.timings
	if r.runErr != nil {
		return r.out, &StepError{Step: "sandbox", Err: fmt.Errorf("run canceled: %w", r.runErr)}
	}
	return r.out, nil
}

// A step is one stage of a run, named for errors and docs (goreleaser's
// pipeline of pipes): it reads what earlier steps left in the run and adds
// its own part.
type step struct {
	name string
	run  func(r *run, ctx context.Context) error
	// phase is the timing phase the step's time counts in; "" when the
	// step measures its own (devcontainer, sandbox) or is too small to.
	phase timing.Phase
}

// steps are a run's stages in order; docs/sandbox.md ("One run, step by
// step") names them in this order.
var steps = []step{
	{"engine", (*run).engine, timing.Prepare},     // engines.Lookup, the credentials
	{"readme", (*run).readme, timing.Prepare},     // the README path and text
	{"input", (*run).input, timing.Prepare},       // the prompt, or a keyless engine's own input
	{"settings", (*run).settings, timing.Prepare}, // image, sandbox profile, output directory
	{"docker", (*run).docker, timing.Docker},      // the daemon and the image (never pulled)
	{"devcontainer", (*run).devcontainer, ""},     // --image devcontainer: build the image
	{"setup", (*run).setup, timing.Prepare},       // the run id, redaction, progress, the clock
	{"network", (*run).network, timing.Network},   // the egress policy
	{"sandbox", (*run).sandbox, ""},               // the agent in its container, under the budget
	{"parse", (*run).parse, timing.Parse},         // the transcript into the command log
	{"enrich", (*run).enrich, timing.Parse},       // why it ended, the budget, README lines, limits, the sandbox
	{"redact", (*run).redact, timing.Parse},       // the credentials' values out of the log
	{"validate", (*run).validate, timing.Parse},   // the log against its schema (a warning)
	{"write", (*run).write, timing.Reports},       // the output directory's files
	{"summary", (*run).summary, ""},               // the closing progress lines
}

// StepError is a run's error with the name of the step it came from. Its
// message is the step's own error's: each already says what failed and
// what to fix, and a prefix would change what users read; Step is for
// callers and tests (errors.As).
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Err.Error() }

func (e *StepError) Unwrap() error { return e.Err }

// runSteps performs steps in order and stops at the first error, wrapped
// in a *StepError with the step's name.
func runSteps(ctx context.Context, r *run, steps []step) error {
	for _, s := range steps {
		done := func() {}
		if s.phase != "" {
			done = r.timings.Start(s.phase, r.cfg.Now)
		}
		err := s.run(r, ctx)
		done()
		if err != nil {
			return &StepError{Step: s.name, Err: err}
		}
	}
	return nil
}

// run is one run's state, filled in by its steps.
type run struct {
	cfg      Config
	cleanups []func() // run by cleanup, last first
	timings  timing.Record

	eng        engines.AgentEngine
	env        map[string]string // the engine's resolved credentials
	readmeText []byte
	promptText string
	meterBin   string
	d          sandbox.Docker

	imageID           string // the sandbox image's ID ("" when unknown)
	runID             string
	readmeInContainer string
	secretValues      []string
	red               *redact.Redactor
	start             time.Time
	prog              *progress
	timeout           time.Duration
	netw              *agentNetwork
	bud               *budget

	res    *sandbox.Result
	runErr error // the sandbox's error when the run was cancelled
	log    *commandlog.Log

	session       []byte
	notUnderstood *engines.NotUnderstoodError
	out           *Result
}

// onExit registers f to run when Run returns, after every step.
func (r *run) onExit(f func()) { r.cleanups = append(r.cleanups, f) }

// cleanup runs the cleanups once, last first.
func (r *run) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.cleanups = nil
}

func (r *run) engine(context.Context) error {
	eng, err := engines.Lookup(r.cfg.Engine)
	if err != nil {
		return err
	}
	env, err := eng.ResolveEnv(r.cfg.Getenv)
	if err != nil {
		return err
	}
	r.eng, r.env = eng, env
	return nil
}

func (r *run) readme(context.Context) error {
	// The README path's own checks (relative, inside) come first: they
	// say what is wrong with the flag.
	if _, err := prompt.Render(r.cfg.Readme, r.cfg.Limits); err != nil {
		return err
	}
	readmeText, err := ReadReadme(r.cfg.RepoDir, r.cfg.Readme)
	if err != nil {
		return err
	}
	if r.cfg.ReadmeText != nil {
		if len(r.cfg.ReadmeText) > MaxReadmeBytes {
			return &ConfigError{fmt.Sprintf("README %s: the given text is larger than the %s readme2demo reads", r.cfg.Readme, repofs.Size(MaxReadmeBytes))}
		}
		readmeText = r.cfg.ReadmeText
	}
	r.readmeText = readmeText
	return nil
}

func (r *run) input(context.Context) error {
	promptText, err := input(r.eng, r.cfg, r.readmeText, nil)
	if err != nil {
		return err
	}
	r.promptText = promptText
	return nil
}

func (r *run) settings(context.Context) error {
	cfg := &r.cfg
	if cfg.Image == "" {
		return &ConfigError{"no sandbox image given"}
	}
	cfg.Sandbox = cmp.Or(cfg.Sandbox, sandbox.DefaultProfile)
	if err := sandbox.CheckProfile(cfg.Sandbox); err != nil {
		return &ConfigError{err.Error() + " (--sandbox, Action input `sandbox`)"}
	}
	if cfg.Sandbox == sandbox.ProfileStrict {
		// The strict profile's disk meter runs this binary in a container.
		var err error
		if r.meterBin, err = dockerproxy.ResolveBinary(cfg.EgressBinary, cfg.Getenv); err != nil {
			return &ConfigError{"--sandbox strict: " + err.Error()}
		}
	}
	if cfg.OutDir == "" {
		return &ConfigError{"no output directory given"}
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return &ConfigError{fmt.Sprintf("create output directory: %v", err)}
	}
	return nil
}

func (r *run) docker(ctx context.Context) error {
	d := r.cfg.Docker
	if d == nil {
		cli, err := sandbox.NewClient(ctx)
		if err != nil {
			return err
		}
		r.onExit(func() { cli.Close() })
		d = cli
	} else if err := sandbox.Check(ctx, d); err != nil {
		return err
	}
	id, err := sandbox.ImageID(ctx, d, r.cfg.Image)
	if err != nil {
		return err
	}
	r.d, r.imageID = d, id
	return nil
}

func (r *run) devcontainer(ctx context.Context) error {
	cfg := &r.cfg
	if !cfg.Devcontainer {
		return nil
	}
	defer r.timings.Start(timing.Devcontainer, cfg.Now)()
	b, ok := r.d.(imageBuilder)
	if !ok {
		return &ConfigError{"--image devcontainer needs a Docker client that builds images"}
	}
	img, _, err := devcontainer.Build(ctx, devcontainerBuilder{b}, cfg.RepoDir, cfg.Image, r.eng.Name(), cfg.Progress)
	if err != nil {
		var de *devcontainer.Error
		if errors.As(err, &de) {
			return &ConfigError{de.Error()}
		}
		return err
	}
	cfg.Image = img
	// The built image's own ID, for what runs keep by image (the cache
	// only: the sandbox reports an image it cannot find).
	r.imageID, _ = sandbox.ImageID(ctx, r.d, img)
	return nil
}

// imageBuilder is a Docker client that also builds images.
type imageBuilder interface {
	sandbox.Docker
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

// devcontainerBuilder is an imageBuilder as devcontainer.Builder.
type devcontainerBuilder struct{ imageBuilder }

func (b devcontainerBuilder) ImageInspect(ctx context.Context, ref string) (image.InspectResponse, error) {
	return b.imageBuilder.ImageInspect(ctx, ref)
}

// setup begins the run proper: its id, the redactor of the credentials'
// values, the progress printer, and the clock that the progress stamps, the
// timeout and the egress proxy's deadline count from. It comes after
// devcontainer, not first: the clock must not count an image build, and
// the first progress line names the image that step built.
func (r *run) setup(context.Context) error {
	cfg := r.cfg
	r.readmeInContainer = path.Join(engines.WorkspaceContainerPath, path.Clean(cfg.Readme))
	r.secretValues = secrets.Values(cfg.Getenv, r.env)
	r.red = redact.New(r.secretValues)
	r.start = cfg.Now()
	r.prog = newProgress(r.eng, cfg.Progress, r.red, r.start, cfg.Now)
	r.runID = cfg.RunID
	if r.runID == "" {
		r.runID = sandbox.NewRunID()
	}
	r.timeout = cfg.Limits.Timeout
	if r.timeout <= 0 {
		r.timeout = sandbox.DefaultTimeout
	}
	fmt.Fprintf(cfg.Progress, "run %s: %s in %s, following %s\n", r.runID, r.eng.Name(), cfg.Image, cfg.Readme)
	fmt.Fprintf(cfg.Progress, "%s\n", describeSandbox(cfg.Sandbox, cfg.Resources))
	return nil
}

// network sets up the egress policy (network.go).
func (r *run) network(ctx context.Context) error {
	cfg := r.cfg
	netw, err := setupNetwork(ctx, r.d, cfg, r.eng, r.env, r.runID, r.start.Add(r.timeout+sandbox.Grace+time.Minute), r.red, r.prog.note)
	r.onExit(func() {
		if err := netw.close(); err != nil {
			fmt.Fprintf(cfg.Progress, "warning: %v\n", err)
		}
	})
	if err != nil {
		return err
	}
	if cfg.Network != "" {
		r.prog.note("%s", netw.describe())
		if w := netw.keyWarning(); w != "" {
			fmt.Fprintf(cfg.Progress, "%s\n", w)
		}
	}
	r.netw = netw
	return nil
}

func (r *run) sandbox(ctx context.Context) error {
	cfg, eng, netw, prog := r.cfg, r.eng, r.netw, r.prog
	parent := ctx
	ctx, bud := withBudget(ctx, cfg.Limits.MaxCostUSD, prog.printf)
	prog.onLog = bud.observe
	r.bud = bud
	var prepare func(context.Context, sandbox.ReadFile) ([]sandbox.File, error)
	if _, ok := eng.(engines.InputPreparer); ok {
		cache := programsCache{cfg.CacheDir}
		prepare = func(ctx context.Context, read sandbox.ReadFile) ([]sandbox.File, error) {
			return r.inputFromImage(ctx, cache.reader(r.imageID, read))
		}
	}

	files := []sandbox.File{{Path: engines.PromptContainerPath, Data: []byte(r.promptText)}}
	if cfg.ReadmeText != nil {
		files = append(files, sandbox.File{Path: r.readmeInContainer, Data: r.readmeText})
	}
	res, runErr := sandbox.Run(ctx, r.d, sandbox.Spec{
		Image:          cfg.Image,
		RunID:          r.runID,
		RepoDir:        cfg.RepoDir,
		Workdir:        engines.WorkspaceContainerPath,
		Files:          files,
		Prepare:        prepare,
		Command:        netw.command(eng.BuildCommand(cfg.Limits)),
		Env:            withEnv(netw.env, repoconfig.GitEnv()),
		Timeout:        cfg.Limits.Timeout,
		Profile:        cfg.Sandbox,
		Resources:      cfg.Resources,
		MeterBinary:    r.meterBin,
		NetworkMode:    netw.mode,
		ExtraHosts:     cfg.ExtraHosts,
		TranscriptPath: engines.TranscriptContainerPath,
		StderrPath:     engines.StderrContainerPath,
		Collect:        append([]string{r.readmeInContainer}, sessionCollect(eng)...),
		CollectLimits:  map[string]int64{r.readmeInContainer: MaxReadmeBytes},
		// A README left as it was needs no copy out.
		CollectKnown: map[string][]byte{r.readmeInContainer: r.readmeText},
		OnTranscript: prog.feed,
		Now:          cfg.Now,
	})
	for _, sp := range res.Phases.Spans {
		r.timings.Add(sp.Phase, sp.Took)
	}
	runErr = bud.settle(parent, res, runErr)
	if runErr != nil && !res.Canceled {
		return fmt.Errorf("run sandbox: %w", runErr)
	}
	if res.RemoveErr != nil {
		// The run's results are whole: the log is written all the same.
		prog.note("warning: a container of this run is left behind (%s); the next run's sweep removes it, or: docker rm -f $(docker ps -aq --filter label=%s=%s)", r.red.String(res.RemoveErr.Error()), sandbox.LabelRunID, r.runID)
	}
	if err := netw.check(res); err != nil {
		return err
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
	r.res, r.runErr = res, runErr
	return nil
}

// parse turns the transcript into the command log: the engine's parser,
// its session file merged in, and the check that the parser understood
// the transcript (a drifted format fails the run, said here).
func (r *run) parse(context.Context) error {
	cfg, eng, res := r.cfg, r.eng, r.res
	log, err := eng.ParseTranscript(bytes.NewReader(res.Transcript))
	if err != nil {
		return errors.Join(r.runErr, fmt.Errorf("parse transcript: %w", err))
	}
	r.session = mergeSession(eng, log, res.Collected, cfg.Progress)
	r.notUnderstood = checkUnderstood(eng, log, res.Transcript)
	if r.notUnderstood != nil {
		fmt.Fprintf(cfg.Progress, "error: %v\n", r.notUnderstood)
	}
	r.log = log
	return nil
}

// enrich adds to the log what the transcript cannot say: why the run ended
// (a timeout, a cancellation), the cost cap, the README line of each
// command, the limits that explain a failure, the sandbox it ran in and
// the repository's agent configuration findings.
func (r *run) enrich(ctx context.Context) error {
	cfg, log, res, netw := r.cfg, r.log, r.res, r.netw
	_, keyless := r.eng.(engines.InputPreparer)
	explain(log, res, cfg.Limits.Timeout, keyless)
	r.bud.enforce(log)
	readme.Map(log, cfg.Readme, r.readmeText)
	policy := cfg.Network
	if policy == "" {
		policy = networkOf(netw.mode)
	}
	sig := signals(res, policy, r.timeout, netw.deniedHosts())
	sig.SourcesUnreached = sourcesUnreached(log)
	sig.InternetUnreached = internetUnreached(ctx, log, sig, r.cfg.LookupHost)
	nameLimits(log, res, sig, keyless, r.red)
	log.Sandbox = sandboxRecord(cfg.Image, policy, res)
	log.Sandbox.KeysInContainer, log.Sandbox.KeysWhy = netw.inContainer, netw.why
	log.RepoFindings = repoFindings(res.RepoConfig)
	return nil
}

// redact takes the credentials' values out of the log. README commands
// are public: redaction never rewrites one into a different command (the
// replay engine would run that).
func (r *run) redact(context.Context) error {
	redact.Log(r.log, r.red, string(r.readmeText))
	return nil
}

// validate checks the log against its schema; a problem is a warning, and
// the log is written all the same.
func (r *run) validate(context.Context) error {
	if err := commandlog.Validate(r.log); err != nil {
		fmt.Fprintf(r.cfg.Progress, "warning: %v\n", err)
	}
	return nil
}

func (r *run) write(context.Context) error {
	cfg, log, res, red, runErr := r.cfg, r.log, r.res, r.red, r.runErr
	out := &Result{
		RunID: r.runID, Log: log, AgentExitCode: res.ExitCode, TimedOut: res.TimedOut, Canceled: res.Canceled,
		NotUnderstood: r.notUnderstood,
		CommandLog:    filepath.Join(cfg.OutDir, CommandLogFile),
		Transcript:    filepath.Join(cfg.OutDir, TranscriptFile),
		Stderr:        filepath.Join(cfg.OutDir, StderrFile),
		Prompt:        filepath.Join(cfg.OutDir, PromptFile),
	}
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, log); err != nil {
		return errors.Join(runErr, fmt.Errorf("encode command log: %w", err))
	}
	files := []outFile{
		{out.CommandLog, buf.Bytes()},
		{out.Transcript, []byte(red.String(string(res.Transcript)))},
		{out.Stderr, []byte(red.String(string(res.Stderr)))},
		{out.Prompt, []byte(r.promptText)},
	}
	if r.session != nil {
		out.Session = filepath.Join(cfg.OutDir, SessionFile)
		files = append(files, outFile{out.Session, []byte(red.String(string(r.session)))})
	}
	// What people read: the agent's README edits, the report and the demo.
	diff := readmeDiff(cfg.Readme, r.readmeText, r.readmeInContainer, res, red)
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
			return errors.Join(runErr, fmt.Errorf("write %s: %w", filepath.Base(f.path), err))
		}
	}
	cast, script, err := demo.WriteFiles(cfg.OutDir, log, demo.Options{Source: CommandLogFile, Secrets: r.secretValues})
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("write demo: %w", err))
	}
	out.DemoCast, out.DemoScript = cast, script
	out.HTMLReport, err = htmlreport.WriteFile(cfg.OutDir, log, htmlreport.Options{
		Readme: cfg.Readme, Source: CommandLogFile, ReadmeDiff: diff, Secrets: r.secretValues, Redact: red.String, RedactValues: red.Values,
	})
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("write html report: %w", err))
	}
	r.out = out
	return nil
}

func (r *run) summary(context.Context) error {
	r.prog.summary(r.log, r.res, r.cfg.Now().Sub(r.start))
	if s := r.netw.deniedSummary(); s != "" {
		r.prog.note("egress refused: %s", r.red.String(s))
	}
	return nil
}

// outFile is one file the run writes in its output directory.
type outFile struct {
	path string
	data []byte
}

// input is what the agent gets at PromptContainerPath: the rendered prompt,
// or what a keyless engine prepares from the README (engines.InputPreparer)
// and the image's command list (nil: the default image's).
func input(eng engines.AgentEngine, cfg Config, readmeText []byte, programs map[string]bool) (string, error) {
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
		Repo: plan.RepoFromDir(cfg.RepoDir, cfg.Getenv("GITHUB_REPOSITORY")), Order: cfg.Order, Programs: programs,
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
	maps.Copy(out, extra)
	maps.Copy(out, env)
	return out
}

// explain says why a run ended when the transcript cannot: the timeout, a
// cancellation, an agent that died before writing anything. keyless says
// that the keyless runner ran the commands, not an agent.
func explain(l *commandlog.Log, res *sandbox.Result, timeout time.Duration, keyless bool) {
	if timeout <= 0 {
		timeout = sandbox.DefaultTimeout
	}
	switch {
	case res.TimedOut && keyless:
		l.OutcomeReason = fmt.Sprintf("the run's time limit (%s, wall clock, for the whole README) ended the run%s; raise it with --timeout (Action input `timeout-minutes`) if the README needs longer",
			timeout, lastRan(l))
	case res.TimedOut:
		l.OutcomeReason = fmt.Sprintf("timed out after %s: the agent was stopped; raise the limit with --timeout (Action input `timeout-minutes`) if the README needs longer", timeout)
	case res.Canceled:
		l.OutcomeReason = "canceled: the run was interrupted and the agent stopped"
	case len(res.Transcript) == 0 && res.ExitCode != nil && *res.ExitCode != 0 && l.OutcomeReason == "":
		l.OutcomeReason = fmt.Sprintf("the agent exited with code %d without writing a transcript: see %s", *res.ExitCode, StderrFile)
	}
}
