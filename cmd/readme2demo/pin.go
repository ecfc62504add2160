package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/pinbump"
)

// pinOptions are the pin verb's flags.
type pinOptions struct {
	engine, version, root, fixtures, pr, base, parent string
	check                                             bool
}

func newPinCmd(e env) *cobra.Command {
	var o pinOptions
	cmd := &cobra.Command{
		Use:   "pin --engine E --version V [--fixtures DRIFT_OUT] [--pull-request OWNER/REPO]",
		Short: "move an agent CLI's pin everywhere it lives (and open the bump pull request)",
		Long: `Moves an agent CLI's pin in every place it lives: internal/agentcli/pins.go (the
one home of each pin) and its copies (the images/base Dockerfile build arg,
.ci/run, action.yml, scripts/build-test-image.sh, the README and the engine
docs). With --fixtures, the transcripts of a drift run that checked the version
and found no drift are added under testdata/fixtures/<engine>/ with their golden
command logs under testdata/golden/<engine>/ (a drifted or unchecked version is
refused, and nothing is changed). With --pull-request, the changed files are
committed on top of --parent on the branch readme2demo/pin-<engine> and the
engine's one bump pull request is opened or updated (found by a hidden marker),
its body carrying the drift report. The scheduled drift workflow runs this
after a check without drift; see docs/drift.md.

"readme2demo pin --check" only checks that every copy of every pin agrees.

Exit status: 0 done (or already pinned), 1 --check found copies that disagree,
2 bad flags, a version drift did not verify, or a failed edit or GitHub call.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runPin(cmd.Context(), o, e))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.engine, "engine", "", "the engine whose CLI pin moves: "+strings.Join(agentcli.Engines(), ", "))
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(agentcli.Engines(), cobra.ShellCompDirectiveNoFileComp))
	f.StringVar(&o.version, "version", "", `the version to pin, or "latest" (the registry's newest)`)
	f.StringVar(&o.root, "root", ".", "the repository checkout to edit")
	f.StringVar(&o.fixtures, "fixtures", "", "a readme2demo drift output directory whose drift.json shows --version without drift: its transcripts are added as fixtures with golden command logs")
	f.StringVar(&o.pr, "pull-request", "", "push the bump to the branch readme2demo/pin-<engine> of OWNER/REPO and open or update its ONE pull request (needs GITHUB_TOKEN; GITHUB_API_URL is honoured)")
	f.StringVar(&o.base, "base", "main", "the branch the pull request goes into")
	f.StringVar(&o.parent, "parent", "", "the commit the checkout is at, which the bump commit goes on top of (default $GITHUB_SHA, else the head of --base)")
	f.BoolVar(&o.check, "check", false, "only check that every copy of every pin agrees with internal/agentcli/pins.go")
	return cmd
}

func runPin(ctx context.Context, o pinOptions, e env) int {
	if o.check {
		if err := pinbump.Check(o.root); err != nil {
			fmt.Fprintf(e.stderr, "readme2demo pin: the pins disagree:\n%v\n", err)
			return exitcode.Failed
		}
		fmt.Fprintln(e.stdout, "every copy of every pin agrees with internal/agentcli/pins.go")
		return exitcode.OK
	}
	cli, err := agentcli.Lookup(o.engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: --engine: %v\n", err)
		return exitcode.Usage
	}
	var owner, repo, token string
	if o.pr != "" {
		var ok bool
		owner, repo, ok = strings.Cut(o.pr, "/")
		if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
			fmt.Fprintf(e.stderr, "readme2demo pin: --pull-request wants OWNER/REPO, got %q\n", o.pr)
			return exitcode.Usage
		}
		if token = e.getenv("GITHUB_TOKEN"); token == "" {
			fmt.Fprintln(e.stderr, "readme2demo pin: --pull-request needs GITHUB_TOKEN in the environment")
			return exitcode.Usage
		}
	}
	v := o.version
	if v == agentcli.VersionLatest {
		if v, err = agentcli.RegistriesFromEnv(e.getenv).Latest(ctx, cli); err != nil {
			fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
			return exitcode.Usage
		}
	}
	if !agentcli.ValidVersion(v) {
		fmt.Fprintf(e.stderr, "readme2demo pin: --version wants a version like 1.2.3 or \"latest\", got %q\n", o.version)
		return exitcode.Usage
	}
	b, err := pinbump.Local(o.root, cli.Engine, v, o.fixtures)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitcode.Usage
	}
	if b.From == b.To {
		fmt.Fprintf(e.stdout, "%s is already pinned to %s: nothing to do\n", cli.Engine, b.To)
		return exitcode.OK
	}
	fmt.Fprintf(e.stdout, "%s: pin %s -> %s\n", cli.Engine, b.From, b.To)
	for _, f := range b.Changed {
		fmt.Fprintf(e.stdout, "  pin     %s\n", f)
	}
	for _, f := range b.Fixtures {
		fmt.Fprintf(e.stdout, "  fixture %s\n", f)
	}
	if o.pr == "" {
		if len(b.Fixtures) == 0 {
			fmt.Fprintln(e.stdout, "next: capture fixtures of the new version and review the goldens (docs/drift.md)")
		}
		return exitcode.OK
	}
	svc, err := ghapi.New(ghapi.Config{APIURL: e.getenv("GITHUB_API_URL"), Token: token})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitcode.Usage
	}
	parent := cmp.Or(o.parent, e.getenv("GITHUB_SHA"))
	res, err := pinbump.OpenPR(ctx, svc, ghapi.PRTarget{Owner: owner, Repo: repo, Base: o.base}, o.root, parent, b, ghapi.RunURL(e.getenv))
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitcode.Usage
	}
	verb := "updated"
	if res.Created {
		verb = "opened"
	}
	fmt.Fprintf(e.stdout, "%s pull request #%d %s (branch %s at %s)\n", verb, res.Number, res.URL, pinbump.Branch(cli.Engine), res.Commit)
	return exitcode.OK
}
