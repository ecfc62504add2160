package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/prompt"
	"github.com/readme2demo/readme2demo/internal/repofs"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// runOptions are the run verb's flags.
type runOptions struct {
	engine, readme, image, model, out, replayLog, order string
	maxTurns                                            int
	timings                                             bool
	maxCost                                             float64
	timeout                                             time.Duration
	net                                                 networkFlags
	box                                                 sandboxFlags
}

func newRunCmd(e env) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [flags] [REPO_DIR]",
		Short: "run an agent against a repository's README in a fresh container and write command_log.json",
		Long: `Copies REPO_DIR (default: the current directory) into a fresh, locked-down
container, asks the agent to follow its README as a new user would, and writes
command_log.json (every command with its output and exit code, the outcome
and the cost), the raw transcript, the agent's stderr and the prompt to --out,
with report.md, report.html (the whole run on one offline page with a demo
player), demo.cast (asciicast v2), demo.sh (the successful path) and,
when the agent edited the README, readme.diff (a note instead when it changed
too much to diff). The checkout itself is only read, and never through a
symlink that leaves it. Progress goes to standard error, one line per command
the agent runs, with terminal control characters shown, never sent.
--timings adds, after the run, one line per phase of the run (create,
copy-in, the commands, copy-out, parse, reports, …) with its milliseconds
and its share of the whole (docs/benchmarks.md).

Credentials come from the environment: claude-code needs ANTHROPIC_API_KEY or
CLAUDE_CODE_OAUTH_TOKEN; the keyless markdown engine (runs the README
commands a careful person would run on Linux, exactly those "readme2demo
plan" lists) and replay engine (re-runs --replay-log) need none.
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
--image devcontainer runs in the image the repository's
.devcontainer/devcontainer.json names, with the agent CLI copied in.

Exit status: 0 success, 1 failed (or interrupted), 3 blocked,
2 bad flags or configuration (nothing was started).`,
		Args: atMostOneRepo,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo := "."
			if len(args) == 1 {
				repo = args[0]
			}
			return exitWith(runRun(cmd.Context(), o, repo, e))
		},
	}
	f := cmd.Flags()
	addEngineFlag(cmd, &o.engine, engines.Default(), "the agent engine: "+strings.Join(engines.Names(), ", "))
	f.StringVar(&o.readme, "readme", pipeline.DefaultReadme, "the README to follow, relative to REPO_DIR: a regular file inside the repository (not a symlink leading out of it, not a hard link), at most "+repofs.Size(pipeline.MaxReadmeBytes)+"; by default the README GitHub shows on the repository's page: in .github, then REPO_DIR itself, then docs, README.md or else readme.md, Readme.md, README.markdown, README, README.rst or README.adoc (reStructuredText and AsciiDoc READMEs are read in their own format)")
	addImageFlag(cmd, &o.image, e, `the sandbox image, or "devcontainer": the image the repository's .devcontainer/devcontainer.json names, with the agent CLI copied in from the default image`)
	f.IntVar(&o.maxTurns, "max-turns", 0, "the agent's turn limit (0: the engine's default)")
	f.Float64Var(&o.maxCost, "max-cost-usd", 0, "the agent's cost cap in US dollars, where the engine supports one (0: none)")
	f.DurationVar(&o.timeout, "timeout", sandbox.DefaultTimeout, "stop the agent after this long")
	f.StringVar(&o.model, "model", "", "the model to ask the agent for (default: the agent's own)")
	addOutFlag(cmd, &o.out, "readme2demo-out", "the directory for command_log.json, the transcript, report.md and the demo files")
	f.StringVar(&o.replayLog, "replay-log", "", "the earlier command_log.json the replay engine re-runs")
	f.StringVar(&o.order, "order", "", "the markdown engine's run order: readme (README order) or install-first (the README's install sections first); default: the README's order hint, else readme, or install-first when a command uses a program that only a later install section installs")
	f.BoolVar(&o.timings, "timings", false, "print, after the run, how long each phase took (create, copy-in, the commands, copy-out, parse, reports, …): one line per phase with milliseconds and share of the total, on standard error")
	addNetworkFlags(cmd, &o.net)
	addSandboxFlags(cmd, &o.box)
	return cmd
}

func runRun(ctx context.Context, o runOptions, repo string, e env) int {
	policy, hosts, err := o.net.resolve(o.engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v\n", err)
		return exitcode.Usage
	}
	if o.order != "" && !slices.Contains(plan.Orders, o.order) {
		fmt.Fprintf(e.stderr, "readme2demo run: --order %q: use %s\n", o.order, strings.Join(plan.Orders, " or "))
		return exitcode.Usage
	}
	if o.timeout <= 0 || o.maxTurns < 0 || o.maxCost < 0 {
		fmt.Fprintln(e.stderr, "readme2demo run: --timeout must be positive, --max-turns and --max-cost-usd not negative")
		return exitcode.Usage
	}

	box, err := o.box.resolve()
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %v\n", err)
		return exitcode.Usage
	}
	image, devcontainerImage := o.image, o.image == devcontainer.ImageFlag
	if devcontainerImage {
		// The agent CLI comes from the default image (or R2D_IMAGE).
		image = defaultImage
		if v := e.getenv("R2D_IMAGE"); v != "" && v != devcontainer.ImageFlag {
			image = v
		}
	}

	var prior []byte
	if o.replayLog != "" {
		b, err := os.ReadFile(o.replayLog)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo run: read --replay-log: %v\n", err)
			return exitcode.Usage
		}
		prior = b
	}
	progress := &prefixWriter{w: e.stderr, prefix: "readme2demo: "}
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine:       o.engine,
		RepoDir:      repo,
		Readme:       o.readme,
		Image:        image,
		Devcontainer: devcontainerImage,
		Sandbox:      o.box.profile,
		Resources:    box,
		Limits:       engines.Limits{MaxTurns: o.maxTurns, MaxCostUSD: o.maxCost, Timeout: o.timeout, Model: o.model},
		OutDir:       o.out,
		PriorLog:     prior,
		Order:        o.order,
		Network:      policy,
		AllowHosts:   hosts,
		Getenv:       e.getenv,
		Progress:     progress,
		Now:          time.Now,
		CacheDir:     cacheDir(e.getenv),
	})
	if res == nil {
		// Errors can quote repository paths and commands: shown, never
		// sent to the terminal as control sequences.
		fmt.Fprintf(e.stderr, "readme2demo run: %s\n", termtext.Visible(err.Error()))
		if isConfigError(err) {
			return exitcode.Usage
		}
		return exitcode.Failed
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo run: %s (partial results written)\n", termtext.Visible(err.Error()))
	}
	fmt.Fprintf(e.stderr, "readme2demo: wrote %s\n", res.CommandLog)
	fmt.Fprintf(e.stderr, "readme2demo: report %s (open %s in a browser), demo %s (asciinema play) and %s\n", res.Report, res.HTMLReport, res.DemoCast, res.DemoScript)
	if res.ReadmeDiff != "" {
		fmt.Fprintf(e.stderr, "readme2demo: the agent's README edits: %s\n", res.ReadmeDiff)
	}
	if o.timings {
		fmt.Fprintf(progress, "where the time went:\n%s", res.Timings.Format())
	}
	if res.Canceled {
		return exitcode.Failed
	}
	switch res.Log.Outcome {
	case commandlog.OutcomeSuccess:
		return exitcode.OK
	case commandlog.OutcomeBlocked:
		return exitcode.Blocked
	default:
		return exitcode.Failed
	}
}

// cacheDir is readme2demo's directory in the user's cache
// ($XDG_CACHE_HOME, else $HOME/.cache); "" when neither is set.
func cacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "readme2demo")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "readme2demo")
	}
	return ""
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
