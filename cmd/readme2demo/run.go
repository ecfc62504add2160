package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/prompt"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

func init() {
	verbs["run"] = verb{summary: "run an agent against a repository's README in a fresh container and write command_log.json", run: runRun}
}

// defaultImage is the sandbox image unless --image or R2D_IMAGE names
// another (build it from images/base).
const defaultImage = "readme2demo-base"

func runRun(ctx context.Context, args []string, e env) int {
	fs := newFlagSet("run", e)
	image := defaultImage
	if v := e.getenv("R2D_IMAGE"); v != "" {
		image = v
	}
	engine := fs.String("engine", engines.ClaudeCodeName, "the agent engine: "+strings.Join(engines.Names(), ", "))
	readmePath := fs.String("readme", pipeline.DefaultReadme, "the README to follow, relative to REPO_DIR")
	fs.StringVar(&image, "image", image, "the sandbox image (default from R2D_IMAGE when set), or \"devcontainer\": the image the repository's .devcontainer/devcontainer.json names, with the agent CLI copied in from the default image")
	profile := fs.String("sandbox", sandbox.DefaultProfile, "the sandbox profile: \"dev\" (like a developer's machine or a GitHub runner: passwordless sudo, the root file system, /tmp and caches writable on disk in the container's own layer, CI=true) or \"strict\" (no capabilities, no sudo, read-only root file system, 512 MiB tmpfs /tmp); docs/sandbox.md")
	disk := fs.String("disk", "10g", "cap on everything the run writes, as bytes or with k/m/g/t: the run stops when it is passed, and no single file may be larger")
	memory := fs.String("memory", "4g", "the sandbox's memory (no swap): the out-of-memory killer ends a command past it")
	cpus := fs.String("cpus", "", "CPUs the sandbox may use, e.g. 2 or 1.5 (default: 2, at most the host's)")
	pids := fs.Int64("pids", 0, "processes and threads the sandbox may run (default: 4096 under dev, 512 under strict)")
	maxTurns := fs.Int("max-turns", 0, "the agent's turn limit (0: the engine's default)")
	maxCost := fs.Float64("max-cost-usd", 0, "the agent's cost cap in US dollars, where the engine supports one (0: none)")
	timeout := fs.Duration("timeout", sandbox.DefaultTimeout, "stop the agent after this long")
	model := fs.String("model", "", "the model to ask the agent for (default: the agent's own)")
	out := fs.String("out", "readme2demo-out", "the directory for command_log.json, the transcript, report.md and the demo files")
	priorLog := fs.String("replay-log", "", "the earlier command_log.json the replay engine re-runs")
	network := fs.String("network", "", `the agent's network: "allowlist" (an internal network whose only way out is an egress proxy that allows the engine's API and the --allow-host hosts, and holds the API key), "open" (alias "bridge"), or "none". Default: allowlist for engines that use an API key, open for the keyless engines`)
	var allowHosts hostList
	fs.Var(&allowHosts, "allow-host", "a host the agent may reach under --network allowlist: a name, *.suffix or IP address, with an optional :port (repeat it, or separate hosts with commas)")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: readme2demo run [flags] [REPO_DIR]

Copies REPO_DIR (default: the current directory) into a fresh, locked-down
container, asks the agent to follow its README as a new user would, and writes
command_log.json (every command with its output and exit code, the outcome
and the cost), the raw transcript, the agent's stderr and the prompt to --out,
with report.md, report.html (the whole run on one offline page with a demo
player), demo.cast (asciicast v2), demo.sh (the successful path) and,
when the agent edited the README, readme.diff. The checkout itself is only
read. Progress goes to standard error, one line
per command the agent runs.

Credentials come from the environment: claude-code needs ANTHROPIC_API_KEY or
CLAUDE_CODE_OAUTH_TOKEN; the keyless markdown engine (runs the README's
code blocks as written) and replay engine (re-runs --replay-log) need none.
Under --network allowlist (the default for engines with a key) the agent
sits on an internal network whose only way out is an egress proxy: it
reaches the engine's API, through the proxy, which adds the key (claude-code,
codex, gemini: the agent only ever sees a placeholder), and the hosts given
with --allow-host; a self-test checks this before the agent starts. The
proxy is this binary, run in a second container; on macOS or Windows set
R2D_EGRESS_BINARY to a Linux build (docs/egress.md).

The sandbox (--sandbox): "dev", the default, behaves like a GitHub-hosted
runner: the agent user has passwordless sudo, the root file system is the
container's own throw-away layer, /tmp and the build caches are on disk,
CI=true; Go, Python (pip, venv) and Rust are installed. "strict" has no
capabilities, no sudo and a read-only root file system. Both: default
seccomp, no host path, no Docker socket, and limits on disk (--disk, the
whole writable space: the run stops when it is passed), memory, CPUs and
processes. A command that fails because of a limit is marked with the
limit and what to change, rather than blamed on the README (docs/sandbox.md).

Exit status: 0 success, 1 failed (or interrupted), 3 blocked,
2 bad flags or configuration (nothing was started).

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	repo := "."
	switch fs.NArg() {
	case 0:
	case 1:
		repo = fs.Arg(0)
	default:
		fmt.Fprintln(e.stderr, "readme2demo run: give at most one repository directory (see --help)")
		return exitUsage
	}
	policy, err := networkPolicy(*network, *engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v\n", err)
		return exitUsage
	}
	hosts, err := egress.ParseHosts(allowHosts...)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: --allow-host: %v\n", err)
		return exitUsage
	}
	if len(hosts) > 0 && policy != pipeline.NetworkAllowlist {
		fmt.Fprintf(e.stderr, "readme2demo run: --allow-host needs --network allowlist (the network is %s)\n", policy)
		return exitUsage
	}
	if *timeout <= 0 || *maxTurns < 0 || *maxCost < 0 {
		fmt.Fprintln(e.stderr, "readme2demo run: --timeout must be positive, --max-turns and --max-cost-usd not negative")
		return exitUsage
	}
	box, err := sandboxFlags(*profile, *disk, *memory, *cpus, *pids)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v\n", err)
		return exitUsage
	}
	devcontainerImage := image == devcontainer.ImageFlag
	if devcontainerImage {
		// The agent CLI comes from the default image (or R2D_IMAGE).
		image = defaultImage
		if v := e.getenv("R2D_IMAGE"); v != "" && v != devcontainer.ImageFlag {
			image = v
		}
	}

	var prior []byte
	if *priorLog != "" {
		b, err := os.ReadFile(*priorLog)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo run: read --replay-log: %v\n", err)
			return exitUsage
		}
		prior = b
	}
	progress := &prefixWriter{w: e.stderr, prefix: "readme2demo: "}
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine:       *engine,
		RepoDir:      repo,
		Readme:       *readmePath,
		Image:        image,
		Devcontainer: devcontainerImage,
		Sandbox:      *profile,
		Resources:    box,
		Limits:       engines.Limits{MaxTurns: *maxTurns, MaxCostUSD: *maxCost, Timeout: *timeout, Model: *model},
		OutDir:       *out,
		PriorLog:     prior,
		Network:      policy,
		AllowHosts:   hosts,
		Getenv:       e.getenv,
		Progress:     progress,
		Now:          time.Now,
	})
	if res == nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v\n", err)
		if isConfigError(err) {
			return exitUsage
		}
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v (partial results written)\n", err)
	}
	fmt.Fprintf(e.stderr, "readme2demo: wrote %s\n", res.CommandLog)
	fmt.Fprintf(e.stderr, "readme2demo: report %s (open %s in a browser), demo %s (asciinema play) and %s\n", res.Report, res.HTMLReport, res.DemoCast, res.DemoScript)
	if res.ReadmeDiff != "" {
		fmt.Fprintf(e.stderr, "readme2demo: the agent's README edits: %s\n", res.ReadmeDiff)
	}
	if res.Canceled {
		return exitFailed
	}
	switch res.Log.Outcome {
	case commandlog.OutcomeSuccess:
		return exitOK
	case commandlog.OutcomeBlocked:
		return exitBlocked
	default:
		return exitFailed
	}
}

// prefixWriter prefixes each line written to it.
type prefixWriter struct {
	w      interface{ Write([]byte) (int, error) }
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	lines := strings.SplitAfter(string(b), "\n")
	var sb strings.Builder
	for _, l := range lines {
		if l != "" {
			sb.WriteString(p.prefix + l)
		}
	}
	if _, err := p.w.Write([]byte(sb.String())); err != nil {
		return 0, err
	}
	return len(b), nil
}

// isConfigError reports the errors found before anything started, which the
// user fixes by changing flags, environment or setup.
func isConfigError(err error) bool {
	var (
		engErr  *engines.EngineError
		cfgErr  *pipeline.ConfigError
		pathErr *prompt.PathError
		unavail *sandbox.UnavailableError
		noImage *sandbox.ImageMissingError
		boxErr  *sandbox.ConfigError
	)
	return errors.Is(err, engines.ErrUnknownEngine) || errors.As(err, &engErr) || errors.As(err, &cfgErr) ||
		errors.As(err, &pathErr) || errors.As(err, &unavail) || errors.As(err, &noImage) || errors.As(err, &boxErr)
}

// sandboxFlags checks --sandbox and reads --disk, --memory, --cpus and
// --pids into the sandbox's resources.
func sandboxFlags(profile, disk, memory, cpus string, pids int64) (sandbox.Resources, error) {
	var r sandbox.Resources
	if err := sandbox.CheckProfile(profile); err != nil {
		return r, fmt.Errorf("--sandbox: %s", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	var err error
	if r.Disk, err = sandbox.ParseSize(disk); err != nil {
		return r, fmt.Errorf("--disk: %v", err)
	}
	if r.Memory, err = sandbox.ParseSize(memory); err != nil {
		return r, fmt.Errorf("--memory: %v", err)
	}
	if cpus != "" {
		if r.NanoCPUs, err = sandbox.ParseCPUs(cpus); err != nil {
			return r, fmt.Errorf("--cpus: %v", err)
		}
	}
	if pids < 0 {
		return r, fmt.Errorf("--pids: %d is negative", pids)
	}
	r.PidsLimit = pids
	return r, nil
}

// hostList collects repeated --allow-host flags.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(v string) error {
	*h = append(*h, v)
	return nil
}

// networkPolicy maps --network to the pipeline's policy: "bridge" is the
// old name of open, and no flag means pipeline.DefaultNetwork.
func networkPolicy(flagValue, engine string) (string, error) {
	switch flagValue {
	case "":
		return pipeline.DefaultNetwork(engine), nil
	case "bridge":
		return pipeline.NetworkOpen, nil
	}
	for _, m := range pipeline.NetworkModes {
		if flagValue == m {
			return m, nil
		}
	}
	return "", fmt.Errorf("--network %q: use %s (bridge is open)", flagValue, strings.Join(pipeline.NetworkModes, ", "))
}
