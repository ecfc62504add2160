package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// driftDeps are what the drift verb reaches outside the process. The
// program's env carries them; a test gives its own in env.drift (nil means
// realDriftDeps), so drift's tests share no global and run in parallel.
type driftDeps struct {
	docker  func(ctx context.Context) (drift.Docker, string, func(), error)
	command agentcli.Commander
	// parser returns the engine whose parser reads the transcripts.
	parser func(name string) (engines.AgentEngine, error)
}

// realDriftDeps reach the Docker daemon, run programs and parse with the
// registered engines.
func realDriftDeps() driftDeps {
	return driftDeps{
		docker: func(ctx context.Context) (drift.Docker, string, func(), error) {
			cli, err := sandbox.NewClient(ctx)
			if err != nil {
				return nil, "", nil, err
			}
			gw, err := sandbox.BridgeGateway(ctx, cli)
			if err != nil {
				cli.Close()
				return nil, "", nil, err
			}
			return cli, gw, func() { cli.Close() }, nil
		},
		command: agentcli.ExecCommander,
		parser:  engines.Lookup,
	}
}

// driftOptions are the drift verb's flags.
type driftOptions struct {
	engine, version, against, out, image, cliDir, issue string
	host, install                                       bool
}

func newDriftCmd(e env) *cobra.Command {
	var o driftOptions
	cmd := &cobra.Command{
		Use:   "drift [flags]",
		Short: "check an agent CLI version against the parser with scripted scenarios (no LLM, no cost)",
		Long: fmt.Sprintf(`Checks an agent CLI version against readme2demo's transcript parser at no LLM
cost: the REAL CLI runs fixed scripted scenarios (commands that succeed, fail
with known exit codes, print huge output, edit files, print markers, and a run
killed mid-command) against a local mock LLM, in the Docker sandbox (an image
%s:<engine>-<version> is built once FROM --image) or with --host on
this machine. Each transcript is parsed and checked against what the scenario
makes true, as far as the engine's CLI states it; a table per scenario shows
every field. A CLI that states no exit codes at all is reported as such
("exit codes not stated").

"latest" asks the package registry (npm_config_registry, or
https://registry.npmjs.org/; PyPI for openhands, R2D_PYPI_URL). The openhands
driver is tested against a fake CLI only (PyPI is out of reach of this
project's CI): its results are unverified, see docs/drift.md.

Drifted scenarios' transcripts are saved as fixture candidates under
--out/fixture-candidates/; --out/drift.json says what was checked (it feeds
"readme2demo pin --fixtures DIR"). See docs/drift.md.

Exit status: 0 no drift, 1 drift (the first changed field is named),
2 bad flags or nothing could be run (no Docker, no image, no CLI).`, drift.ImageRepo),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runDrift(cmd.Context(), o, e))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.engine, "engine", engines.Default(), fmt.Sprintf("the engine whose CLI to check: %s, or %q for %s",
		strings.Join(agentcli.Engines(), ", "), drift.All, strings.Join(drift.ExpandEngines(drift.All), ", ")))
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(append(agentcli.Engines(), drift.All), cobra.ShellCompDirectiveNoFileComp))
	f.StringVar(&o.version, "cli-version", agentcli.VersionPinned, `the CLI version to check: a version, "pinned" or "latest" (the registry's newest)`)
	f.StringVar(&o.against, "against", "", `also run this version (usually "pinned") and diff the two command logs side by side`)
	addOutFlag(cmd, &o.out, "readme2demo-drift", "the directory for transcripts, command logs, fixture candidates, report.md and drift.json")
	addImageFlag(cmd, &o.image, e, "the base image a CLI version is layered on")
	f.BoolVar(&o.host, "host", false, "run the CLI on the host (installed under --cli-dir, mock on 127.0.0.1) instead of the Docker sandbox")
	f.StringVar(&o.cliDir, "cli-dir", "", "host mode: where CLI versions are installed (default $R2D_CLI_DIR or .cache/cli)")
	f.BoolVar(&o.install, "install", true, "host mode: install a missing CLI version under --cli-dir (npm; pip for PyPI CLIs)")
	f.StringVar(&o.issue, "issue", "", "on drift, open or update ONE issue per engine in OWNER/REPO (needs GITHUB_TOKEN; GITHUB_API_URL is honoured)")
	return cmd
}

func runDrift(ctx context.Context, o driftOptions, e env) int {
	deps := realDriftDeps()
	if e.drift != nil {
		deps = *e.drift
	}
	if o.engine == drift.All && (!isKeyword(o.version) || (o.against != "" && !isKeyword(o.against))) {
		fmt.Fprintln(e.stderr, `readme2demo drift: --engine all takes --cli-version and --against "pinned" or "latest" only (a version number belongs to one CLI)`)
		return exitcode.Usage
	}
	var owner, repo string
	if o.issue != "" {
		var ok bool
		owner, repo, ok = strings.Cut(o.issue, "/")
		if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
			fmt.Fprintf(e.stderr, "readme2demo drift: --issue wants OWNER/REPO, got %q\n", o.issue)
			return exitcode.Usage
		}
		if e.getenv("GITHUB_TOKEN") == "" {
			fmt.Fprintln(e.stderr, "readme2demo drift: --issue needs GITHUB_TOKEN in the environment")
			return exitcode.Usage
		}
	}
	if o.cliDir == "" {
		o.cliDir = agentcli.CLIDir(e.getenv, ".")
	}
	if abs, err := filepath.Abs(o.cliDir); err == nil {
		o.cliDir = abs
	}
	opts := drift.Options{
		Version: o.version, Against: o.against, OutDir: o.out,
		Image: o.image, Host: o.host, CLIDir: o.cliDir, Install: o.install,
		Run: deps.command, Registries: agentcli.RegistriesFromEnv(e.getenv), Parser: deps.parser,
		Progress: e.stderr,
	}
	if !o.host {
		d, gw, closeFn, err := deps.docker(ctx)
		if err != nil {
			fmt.Fprintf(e.stderr, "readme2demo drift: %v (or use --host)\n", err)
			return exitcode.Usage
		}
		defer closeFn()
		opts.Docker, opts.Gateway = d, gw
	}
	checks, err := drift.RunChecks(ctx, opts, drift.ExpandEngines(o.engine))
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo drift: %v\n", err)
	}
	drifted, notRun := false, errors.Is(err, context.Canceled)
	for _, c := range checks {
		if c.Err != nil {
			fmt.Fprintf(e.stderr, "readme2demo drift: %v\n", c.Err)
		}
		if c.Outcome == nil { // not checked (c.Err says why)
			notRun = true
			continue
		}
		res := c.Outcome
		res.Write(e.stdout)
		if !res.Drifted() {
			continue
		}
		drifted = true
		for _, r := range []*drift.Report{res.Report, res.Against} {
			if r != nil && r.Drifted() {
				fmt.Fprintf(e.stderr, "readme2demo drift: %s %s: %s\n", r.Engine, r.Version, r.FirstLine())
			}
		}
		if o.out != "" {
			fmt.Fprintf(e.stderr, "readme2demo drift: fixture candidates under %s\n", filepath.Join(o.out, "fixture-candidates"))
		}
		if o.issue != "" {
			if err := openDriftIssue(ctx, e, owner, repo, res); err != nil {
				fmt.Fprintf(e.stderr, "readme2demo drift: %v\n", err)
			}
		}
	}
	switch {
	case drifted: // drift outranks an engine that could not run
		return exitcode.Failed
	case notRun:
		return exitcode.Usage
	}
	return exitcode.OK
}

func isKeyword(v string) bool {
	return v == agentcli.VersionPinned || v == agentcli.VersionLatest || v == ""
}

// openDriftIssue opens or updates the one drift issue of the engine.
func openDriftIssue(ctx context.Context, e env, owner, repo string, res *drift.Outcome) error {
	svc, err := ghapi.New(ghapi.Config{APIURL: e.getenv("GITHUB_API_URL"), Token: e.getenv("GITHUB_TOKEN")})
	if err != nil {
		return fmt.Errorf("open drift issue: %w", err)
	}
	is, err := drift.OpenIssue(ctx, svc, owner, repo, res, ghapi.RunURL(e.getenv))
	if err != nil {
		return err
	}
	verb := "updated"
	if is.Created {
		verb = "opened"
	}
	fmt.Fprintf(e.stderr, "readme2demo drift: %s issue #%d %s\n", verb, is.Number, is.URL)
	return nil
}
