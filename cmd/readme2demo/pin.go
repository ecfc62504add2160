package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/ghpull"
	"github.com/readme2demo/readme2demo/internal/pinbump"
)

func init() {
	verbs["pin"] = verb{summary: "move an agent CLI's pin everywhere it lives (and open the bump pull request)", run: runPin}
}

func runPin(ctx context.Context, args []string, e env) int {
	fs := newFlagSet("pin", e)
	engine := fs.String("engine", "", "the engine whose CLI pin moves: "+strings.Join(agentcli.Engines(), ", "))
	version := fs.String("version", "", `the version to pin, or "latest" (the registry's newest)`)
	root := fs.String("root", ".", "the repository checkout to edit")
	fixtures := fs.String("fixtures", "", "a readme2demo drift output directory whose drift.json shows --version without drift: its transcripts are added as fixtures with golden command logs")
	pr := fs.String("pull-request", "", "push the bump to the branch readme2demo/pin-<engine> of OWNER/REPO and open or update its ONE pull request (needs GITHUB_TOKEN; GITHUB_API_URL is honoured)")
	base := fs.String("base", "main", "the branch the pull request goes into")
	parent := fs.String("parent", "", "the commit the checkout is at, which the bump commit goes on top of (default $GITHUB_SHA, else the head of --base)")
	check := fs.Bool("check", false, "only check that every copy of every pin agrees with internal/agentcli/pins.go")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, `Usage: readme2demo pin --engine E --version V [--fixtures DRIFT_OUT] [--pull-request OWNER/REPO]
       readme2demo pin --check

Moves an agent CLI's pin in every place it lives: internal/agentcli/pins.go (the
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

Exit status: 0 done (or already pinned), 1 --check found copies that disagree,
2 bad flags, a version drift did not verify, or a failed edit or GitHub call.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(e.stderr, "readme2demo pin: unexpected argument %q (see --help)\n", fs.Arg(0))
		return exitUsage
	}
	if *parent == "" {
		*parent = e.getenv("GITHUB_SHA")
	}
	if *check {
		if err := pinbump.Check(*root); err != nil {
			fmt.Fprintf(e.stderr, "readme2demo pin: the pins disagree:\n%v\n", err)
			return exitFailed
		}
		fmt.Fprintln(e.stdout, "every copy of every pin agrees with internal/agentcli/pins.go")
		return exitOK
	}
	cli, err := agentcli.Lookup(*engine)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: --engine: %v\n", err)
		return exitUsage
	}
	var owner, repo, token string
	if *pr != "" {
		var ok bool
		owner, repo, ok = strings.Cut(*pr, "/")
		if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
			fmt.Fprintf(e.stderr, "readme2demo pin: --pull-request wants OWNER/REPO, got %q\n", *pr)
			return exitUsage
		}
		if token = e.getenv("GITHUB_TOKEN"); token == "" {
			fmt.Fprintln(e.stderr, "readme2demo pin: --pull-request needs GITHUB_TOKEN in the environment")
			return exitUsage
		}
	}
	v := *version
	if v == "latest" {
		if v, err = agentcli.RegistriesFromEnv(e.getenv).Latest(ctx, cli); err != nil {
			fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
			return exitUsage
		}
	}
	if !agentcli.ValidVersion(v) {
		fmt.Fprintf(e.stderr, "readme2demo pin: --version wants a version like 1.2.3 or \"latest\", got %q\n", *version)
		return exitUsage
	}
	b, err := pinbump.Local(*root, cli.Engine, v, *fixtures)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitUsage
	}
	if b.From == b.To {
		fmt.Fprintf(e.stdout, "%s is already pinned to %s: nothing to do\n", cli.Engine, b.To)
		return exitOK
	}
	fmt.Fprintf(e.stdout, "%s: pin %s -> %s\n", cli.Engine, b.From, b.To)
	for _, f := range b.Changed {
		fmt.Fprintf(e.stdout, "  pin     %s\n", f)
	}
	for _, f := range b.Fixtures {
		fmt.Fprintf(e.stdout, "  fixture %s\n", f)
	}
	if *pr == "" {
		if len(b.Fixtures) == 0 {
			fmt.Fprintln(e.stdout, "next: capture fixtures of the new version and review the goldens (docs/drift.md)")
		}
		return exitOK
	}
	svc, err := ghpull.New(ghpull.Config{APIURL: e.getenv("GITHUB_API_URL"), Token: token})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitUsage
	}
	var runURL string
	if server, r, id := e.getenv("GITHUB_SERVER_URL"), e.getenv("GITHUB_REPOSITORY"), e.getenv("GITHUB_RUN_ID"); server != "" && r != "" && id != "" {
		runURL = fmt.Sprintf("%s/%s/actions/runs/%s", server, r, id)
	}
	res, err := pinbump.OpenPR(ctx, svc, ghpull.Target{Owner: owner, Repo: repo, Base: *base}, *root, *parent, b, runURL)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo pin: %v\n", err)
		return exitUsage
	}
	verb := "updated"
	if res.Created {
		verb = "opened"
	}
	fmt.Fprintf(e.stdout, "%s pull request #%d %s (branch %s at %s)\n", verb, res.Number, res.URL, pinbump.Branch(cli.Engine), res.Commit)
	return exitOK
}
