package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Sure steps and probes: the plan runs a line as a step when the README
// clearly means it to be run, and as a probe when it runs it on a guess.
// A failing step fails the run; a failing probe is reported and never
// decides the verdict.

// stepSectionRe is a heading under which a README's commands are steps a
// new user takes before anything else: installing, building, getting
// started. (Examples of use run as probes: which of them a person would
// try depends on knowledge the plan does not have.)
var stepSectionRe = lazyre.New(`(?i)\b(install(ation|ing)?|set\s*up|setting\s+up|getting\s+started|get\s+started|quick\s*-?\s*start|build(ing)?|from\s+source|compil(e|ing|ation)|download(ing)?)\b|^\W*(requirements|prerequisites|dependencies)\W*$`)

// markPlanned marks each run entry of a block as a step or a probe. A step
// is what the README clearly means to be run and what a failure of would
// mean the README is wrong: the block's run hint, a file the README names,
// set-up it asks for, and, in an install or set-up section, the commands
// that install, build or prepare (a package install, a build, a download,
// a clone linked to the checkout) when every command of the block
// resolves. Everything else the plan runs on a guess: a probe.
func (pl *planner) markPlanned(b readme.Block, es []Entry) {
	section := section(pl.sectionHeadings(b.Headings), stepSectionRe) != "" && (readme.IsShellLang(b.Lang) || b.Mode == readme.ModeConsole || b.Lang == "" && !b.Indented && pl.onlyInstalls(es))
	if section {
		for _, e := range es {
			if e.Command != "" && e.Kind == KindCommand && !pl.commandResolves(e) {
				section = false
			}
		}
	}
	installed := pl.projectInstalledBefore(b.Line) || pl.proseInstallBefore(b.Line)
	if section && installed && pl.reinstalls(es) {
		// The project is installed already: this block is another way
		// to install it, which a person takes only when the first fails.
		section = false
	}
	for i := range es {
		e := &es[i]
		if !e.Run {
			continue
		}
		fetches := pl.fetchesOrBuilds(*e)
		e.Step.Work = fetches || drivesToolchain(e.command())
		ss := simples(lex(e.command()))
		// With what `sh -c "…"` or `sudo sh -c "…"` runs: the install
		// one-liner of a script.
		x := &cmd{cmds: ss, head: ss}
		ss = append(ss, x.nested()...)
		switch {
		case e.Kind != KindCommand, b.Hints.Run:
			e.Planned = PlannedStep // a file the README names, set-up, the clone linked, the run hint
		case section && pl.prepares(ss) && !(installed && fetches && !pl.usesDownload(ss)) && !pl.usesGuessed(ss):
			// (Once the project is installed, what installs, builds or
			// fetches more belongs to another way, or is optional, but for
			// the install of what an earlier line downloaded. A file only a
			// guess made is a guess's result.)
			e.Planned = PlannedStep
		default:
			e.Planned = PlannedProbe
		}
		pl.noteFiles(ss, e.Planned)
	}
}

// noteFiles records what a run entry's command writes by how it runs: a
// step's files are sure, a probe's are guesses until a step writes them
// too.
func (pl *planner) noteFiles(ss []simple, planned Planned) {
	for _, f := range writtenBy(ss) {
		if c := cleanPath(f); planned == PlannedStep {
			pl.seen.sureFiles[c] = true
		} else {
			pl.seen.guessedFiles[c] = true
		}
	}
}

// usesGuessed reports a command that uses a file only probes wrote before
// it: the output of a guess (`pandoc … -o tool.1` run as a probe, then
// `sudo mv tool.1 …`), which a step cannot rely on.
func (pl *planner) usesGuessed(ss []simple) bool {
	if len(pl.seen.guessedFiles) == 0 {
		return false
	}
	for _, s := range ss {
		for _, f := range append(usedFiles(s), s.inputs...) {
			if c := cleanPath(f); pl.seen.guessedFiles[c] && !pl.seen.sureFiles[c] && !pl.repo.hasFile(c) {
				return true
			}
		}
	}
	return false
}

// prepares reports a command that installs, builds or fetches: what a
// new user does before using the project.
func (pl *planner) prepares(ss []simple) bool {
	for _, s := range ss {
		if pl.installsOrBuilds(s) {
			return true
		}
		switch path.Base(s.name()) {
		case "curl", "wget", "tar", "unzip", "chmod", "mv", "cp", "ln", "mkdir", "install", "dpkg", "cd", "export", "source", ".":
			return true
		}
	}
	return false
}

// commandResolves reports that the program of an entry's command resolves.
func (pl *planner) commandResolves(e Entry) bool {
	ss := simples(lex(e.command()))
	if len(ss) == 0 {
		return false
	}
	n := ss[0].name()
	return n == "" || pl.resolve(strings.TrimSpace(n)) != unresolved
}

// projectInstalledBefore reports that a command before the line installed
// the project (not a clone, which is the checkout itself).
func (pl *planner) projectInstalledBefore(line int) bool {
	for _, n := range pl.repo.Names {
		if l := pl.seen.installed[n]; l > 0 && l < line && !pl.seen.cloned[n] {
			return true
		}
	}
	return false
}

// proseInstallBefore reports that the README's text, before the line,
// gives the project's own installer (`curl … | bash` in a sentence): the
// README's first way, which the plan cannot run, so the ways in code
// blocks after it are other ways. (A package manager's install in a
// sentence is most often the one the next block shows.)
func (pl *planner) proseInstallBefore(line int) bool {
	for _, in := range pl.readme.proseInstalls {
		if _, piped := pipesToShell(lex(in.Command)); piped && in.Line < line && pl.repo.is(in.Tool) {
			return true
		}
	}
	return false
}

// reinstalls reports a block, after the project was installed, that
// installs it again: one whose install runs, or whose install was skipped
// as another way, so that the block's other lines (a version variable, a
// chmod of what the skipped download writes) belong to that other way.
func (pl *planner) reinstalls(es []Entry) bool {
	for _, e := range es {
		if !e.Run && e.cause&causeAlternative != 0 {
			return true // its install was skipped as another way: the rest goes with it
		}
		if !e.Run || e.Command == "" {
			continue
		}
		x := &cmd{ws: lex(e.command())}
		if x.cmds = simples(x.ws); len(x.cmds) == 0 {
			continue
		}
		tools, self := pl.installedBy(x)
		if (self || slices.ContainsFunc(tools, pl.repo.is)) && !pl.usesDownload(x.cmds) {
			return true // (installing what an earlier line downloaded is that way's next step)
		}
	}
	return false
}

// fetchesOrBuilds reports a command that installs a tool, builds, updates
// a package index, or fetches (a clone, a script piped to a shell).
func (pl *planner) fetchesOrBuilds(e Entry) bool {
	x := &cmd{ws: lex(e.command())}
	x.cmds = simples(x.ws)
	if _, ok := pipesToShell(x.ws); ok {
		return true
	}
	if tools, _ := pl.installedBy(x); len(tools) > 0 {
		return true
	}
	for _, s := range x.cmds {
		if _, _, clones := clone(s); clones || pl.installsOrBuilds(s) {
			return true
		}
	}
	return false
}

// installsOrBuilds reports a program that installs a tool, builds, or
// updates a package index.
func (pl *planner) installsOrBuilds(s simple) bool {
	_, _, ok := installs(s, pl.repo)
	return ok || buildsProject(s) || buildStep(s) || pkgIndexUpdate(s)
}

// toolchainDrivers are programs that compile, test, fetch or package: a
// command of theirs can take minutes for a good reason (`cargo build`, `npm
// test` runs a suite, `npx` fetches a package). Interpreters are not
// among them: `node server.js` is as likely to wait for ever as to work.
var toolchainDrivers = toSet(`make gmake cmake ctest ninja meson bazel bazelisk scons go cargo rustc rustup
gcc g++ cc c++ clang clang++ javac mvn mvnw gradle gradlew sbt lein kotlinc dotnet swift zig stack
cabal ghc dune opam mix rebar3 gleam nimble shards flutter npm npx yarn pnpm bun tsc webpack pip pip3
pipx uv uvx poetry pdm hatch tox nox pytest gem bundle bundler rake rspec composer cpanm luarocks
bats pre-commit apt apt-get dpkg git curl wget tar unzip`)

// runsProgram are the subcommands of a driver that run what it built or
// serve it, rather than build: `go run`, `npm start`, `yarn dev`.
var runsProgram = toSet(`run start serve dev watch preview exec`)

// scriptRunners run a manifest's scripts by name: `npm run build`.
var scriptRunners = toSet(`npm yarn pnpm bun`)

// drivesToolchain reports a command one of whose programs is a
// toolchain driver at work: not running what it built (`cargo run`, `npm
// start`, `npm run dev`), but `npm run build` is work.
func drivesToolchain(text string) bool {
	for _, s := range simples(lex(text)) {
		name, args := path.Base(s.name()), s.args()
		switch {
		case !toolchainDrivers[name]:
		case len(args) == 0 || !runsProgram[args[0]]:
			return true
		case args[0] == "run" && scriptRunners[name] && len(args) > 1 && !runsProgram[args[1]]:
			return true
		}
	}
	return false
}

// onlyInstalls reports entries whose commands that run all install or
// build something.
func (pl *planner) onlyInstalls(es []Entry) bool {
	runs := false
	for _, e := range es {
		if !e.Run {
			continue
		}
		for _, s := range simples(lex(e.command())) {
			if !pl.installsOrBuilds(s) {
				return false
			}
		}
		runs = true
	}
	return runs
}
