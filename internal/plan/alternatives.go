package plan

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Which of several installs of a tool runs: the first that fits Linux, or
// a later recipe for Debian; the others, and the steps that only build
// toward them, are alternatives.

// readmeShowsGo reports a README that shows Go code: then `go get` of
// the module is for the reader's own project (a library).
func readmeShowsGo(doc *readme.Doc) bool {
	for _, b := range doc.Blocks {
		if b.Lang == "go" || b.Lang == "golang" {
			return true
		}
	}
	return false
}

// buildStep reports a step of a build from source: what a manual install
// does before its install command.
func buildStep(s simple) bool {
	name, args := path.Base(s.name()), s.args()
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch name {
	case "npm", "pnpm", "yarn":
		if slices.Contains(args, "-g") || slices.Contains(args, "--global") || sub == "global" {
			return false // a global install is an install, not a step of one
		}
		return sub == "" || sub == "install" || sub == "i" || sub == "ci" || sub == "run" && len(args) > 1 && args[1] == "build"
	case "make", "cmake", "meson", "ninja", "configure", "autoreconf", "bootstrap", "autogen.sh":
		return !slices.Contains(args, "install")
	case "go", "cargo":
		return sub == "build"
	case "git":
		return sub == "checkout" || sub == "submodule" || sub == "pull" || sub == "fetch"
	}
	return false
}

// npxOf returns the package an `npx PKG` command runs, "" for none.
func npxOf(cmds []simple) string {
	for _, s := range cmds {
		if s.name() == "npx" {
			if p := packageRun(s); p != "" {
				return p
			}
		}
	}
	return ""
}

// installToolRe is a sentence that presents a `go get` as the install of
// the project's program ("Install the command line tool first."), not as
// a dependency of the reader's project.
var installToolRe = lazyre.New(`(?i)\binstall\b.*\b(command[- ]line tool|tool|cli|binary|command|program|executable)\b`)

// usesLaterInstall says why the install sections should run first: a
// command outside them runs a program that no earlier command installs and
// that a later install section's command does ("line 14 uses gojq, which
// line 71 installs"); "" when none does.
func (p *Plan) usesLaterInstall(groups [][]Entry, install []bool) string {
	inInstall := map[int]bool{} // README lines of run entries under install headings
	for i, g := range groups {
		for _, e := range g {
			if install[i] && e.Run {
				inInstall[e.Line] = true
			}
		}
	}
	for i, g := range groups {
		if install[i] {
			continue
		}
		for _, e := range g {
			if !e.Run || e.Step.WriteFile != "" {
				continue
			}
			for _, s := range append(simples(lex(e.command())), substituted(e.command())...) {
				tool := strings.ToLower(path.Base(s.name()))
				first, later := 0, 0
				for _, in := range p.Installs {
					if in.Tool != tool || in.Skipped != "" {
						continue
					}
					if in.Line < e.Line && first == 0 {
						first = in.Line
					}
					if in.Line > e.Line && later == 0 && inInstall[in.Line] {
						later = in.Line
					}
				}
				if first == 0 && later > 0 {
					return fmt.Sprintf("line %d uses %s, which line %d installs", e.Line, tool, later)
				}
			}
		}
	}
	return ""
}

// installRule decides the installs: of several commands that install the
// same tool, the first that fits Linux runs and the later ones are
// alternatives (a later Debian recipe too: installOnce); an
// install in a troubleshooting section is a fix for that problem. An
// install that runs is recorded (then the command is left to runRule).
func installRule(pl *planner, x *cmd) (Entry, bool) {
	if p := npxOf(x.cmds); p != "" && pl.isInstallSection(x.b.Headings) {
		// (after an install in the same block, npx is how that block runs it)
		if l := pl.seen.installed[npmTool(p)]; l > 0 && (l < x.b.Line || l > x.b.EndLine) {
			return pl.skip(x, because(KindAlternative, "alternative: runs %s with npx, without installing it; %s line %d already installs it", p, pl.file, l).with(causeAlternative))
		}
	}
	tools, selfInstall := pl.installedBy(x)
	if e, ok := pl.installOnce(x, tools, selfInstall); ok {
		return e, true
	}
	if len(tools) == 0 {
		return pass()
	}
	// Deeper in a troubleshooting or FAQ section (a question of its own),
	// installs are fixes for that problem; other commands are examples.
	if th := section(x.b.Headings, troubleRe); th != "" {
		return pl.skip(x, because(KindOptional, "installs a fix from a troubleshooting section (%q): only when that problem occurs", th))
	}
	// A move into a bin directory of what the same block downloaded, or
	// an install of a file an earlier line that ran downloaded (`sudo
	// dpkg -i tool.deb`), is the download's next step, not another way.
	moves := len(binInstalls(x.cmds)) == len(tools)
	downloaded := pl.usesDownload(x.cmds)
	prev, all := 0, true
	for _, t := range tools {
		if l := pl.seen.installed[t]; l > 0 && !(moves && l >= x.b.Line) && !downloaded && !(selfInstall && pl.seen.cloned[t]) {
			// (The project's own installer after its clone is the clone's
			// next step, not an alternative to it.)
			prev = l
		} else {
			all = false
		}
	}
	if all && prev > 0 {
		return pl.skip(x, because(KindAlternative, "alternative: %s line %d already installs %s", pl.file, prev, listNames(tools)).with(causeAlternative))
	}
	pl.recordInstalls(x, tools, selfInstall)
	return pass()
}

// recordInstalls records what a command that runs installs, so that a
// later install of the same tool is an alternative and a "not found" can
// name the line. After a clone of this repository, its installer (`make
// install`, `pip install .`) is what installs the project.
func (pl *planner) recordInstalls(x *cmd, tools []string, selfInstall bool) {
	pl.seen.selfInstall = pl.seen.selfInstall || selfInstall
	for _, t := range tools {
		if pl.seen.installed[t] == 0 || selfInstall && pl.seen.cloned[t] {
			pl.seen.installed[t], pl.seen.cloned[t] = x.c.line, false
		}
		pl.plan.Installs = append(pl.plan.Installs, Install{Tool: t, Line: x.c.line, Command: firstLine(x.c.text)})
	}
}

// installedBy returns the tools a command installs, with selfInstall when
// it installs the project from the checkout (`make install`).
func (pl *planner) installedBy(x *cmd) (tools []string, selfInstall bool) {
	for _, s := range x.cmds {
		if ts, self, ok := installs(s, pl.repo); ok {
			tools = append(tools, ts...)
			selfInstall = selfInstall || self
		}
	}
	tools = append(tools, binInstalls(x.cmds)...)
	for _, s := range x.cmds {
		if what, self := selfAdd(s, pl.repo); self && blockRunsPackage(x.b, x.c.line, what) {
			tools = append(tools, pl.repo.Names...) // the project's package, run with npx
		}
	}
	for _, s := range x.cmds[1:] {
		if url, _, ok := clone(s); ok && pl.repo.isClone(url) {
			tools = append(tools, pl.repo.Names...) // a manual install from a clone
		}
	}
	if url, ok := pipesToShell(x.ws); ok && pl.urlNamesRepo(url) {
		tools = append(tools, pl.repo.Names...) // the project's own installer
	}
	if pl.runsOwnInstaller(x.cmds) {
		tools = append(tools, pl.repo.Names...) // the project's installer, downloaded first
	}
	if pl.downloadsProject(x.cmds) {
		tools = append(tools, pl.repo.Names...) // the project's program, downloaded
	}
	var unique []string
	for _, t := range tools {
		if !slices.Contains(unique, t) {
			unique = append(unique, t)
		}
	}
	return unique, selfInstall
}

// installedAny returns the README line that installed one of the tools,
// 0 when none was.
func (pl *planner) installedAny(tools []string) int {
	for _, t := range tools {
		if l := pl.seen.installed[t]; l > 0 {
			return l
		}
	}
	return 0
}

// installedAll reports tools that earlier lines all installed.
func (pl *planner) installedAll(tools []string) bool {
	for _, t := range tools {
		if pl.seen.installed[t] == 0 {
			return false
		}
	}
	return len(tools) > 0
}

// checksOut reports `git checkout REF` or `git switch REF`: a version of
// the clone.
func checksOut(text string) bool {
	for _, s := range simples(lex(text)) {
		if args := s.args(); s.name() == "git" && len(args) > 1 && (args[0] == "checkout" || args[0] == "switch") && args[1] != "-b" && args[1] != "-c" {
			return true
		}
	}
	return false
}

// listNames lists names for a reason: the first three, and how many more
// (a project's names can be dozens of its commands).
func listNames(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// fileInstallers are programs that install a file they are given (not a
// package by its name, as pip's speedtest-cli is).
var fileInstallers = toSet(`dpkg apt apt-get rpm install cp mv ln tar unzip chmod`)

// usesDownload reports a command that installs a file an earlier line
// that ran downloaded (and that it does not download again itself).
func (pl *planner) usesDownload(cmds []simple) bool {
	again := writtenBy(cmds)
	for _, s := range cmds {
		if !fileInstallers[path.Base(s.name())] {
			continue
		}
		for _, a := range s.args() {
			if f := strings.TrimPrefix(a, "./"); pl.seen.downloads[f] != "" && !slices.ContainsFunc(again, func(w string) bool { return strings.TrimPrefix(w, "./") == f }) {
				return true
			}
		}
	}
	return false
}

// installOnce skips a second way of installing or building the project: a
// person installs it once, the first way that fits Linux, and the other
// sections (from source, a .deb, a lighter build) are alternatives. Steps
// of one section (build, then install) are one way.
func (pl *planner) installOnce(x *cmd, tools []string, selfInstall bool) (Entry, bool) {
	project := selfInstall
	for _, t := range tools {
		project = project || pl.repo.is(t)
	}
	build := ""
	for _, s := range x.cmds {
		if buildsProject(s) && build == "" {
			build = buildKey(s)
		}
	}
	first := pl.seen.projectLine
	switch {
	case build != "" && first > 0 && configureStage(pl.seen.projectBuild) && !configureStage(build) && pl.seen.nextBuild == "":
		// The build after the configure that came first, in a section of
		// its own ("Configuration", then "Building"): that way's next step.
		pl.seen.nextBuild, pl.seen.nextBuildText = build, x.c.text
		return Entry{}, false
	case build != "" && first > 0 && !project && (build == pl.seen.projectBuild && x.c.text != pl.seen.projectBuildText ||
		build == pl.seen.nextBuild && x.c.text != pl.seen.nextBuildText):
		// The same build again, with other options: a variant of it.
		e, _ := pl.skip(x, because(KindAlternative, "alternative: another build of the project (line %d builds it with %s already)", first, build).with(causeAlternative))
		return e, true
	case first == 0 && (project || build != ""):
		pl.seen.projectLine, pl.seen.projectSection, pl.seen.projectBuild, pl.seen.projectBuildText = x.c.line, strings.Join(x.b.Headings, "\x00"), build, x.c.text
		pl.seen.projectBlock = x.b.Line
		return Entry{}, false
	case !project && (build == "" || !pl.isInstallSection(x.b.Headings)):
		return Entry{}, false
	}
	section := strings.Join(x.b.Headings, "\x00")
	switch {
	case section == pl.seen.projectSection && project && build == "" && !selfInstall && pl.seen.projectBuild == "" &&
		x.b.Line != pl.seen.projectBlock && len(binInstalls(x.cmds)) == 0 && !pl.installedAll(tools):
		// A second install of the project in another block of the same
		// section (apt install, then "or just" go install): another way.
		// (When it only installs what is installed, installRule says so.)
	case section == pl.seen.projectSection:
		return Entry{}, false // the steps of one way
	case selfInstall && pl.seen.projectBuild != "" && !pl.seen.projectInstalled:
		// Installing what the build made, from the checkout: the build's
		// next step.
		pl.seen.projectInstalled = true
		return Entry{}, false
	}
	e, _ := pl.skip(x, because(KindAlternative, "alternative: %s line %d already installs or builds the project", pl.file, first).with(causeAlternative))
	return e, true
}

// configureStage reports a build key (buildKey) of a step that prepares a
// build rather than builds: ./configure, autogen.sh, cmake's configure
// (`cmake -B build`, `cmake ..`), meson setup.
func configureStage(key string) bool {
	name, arg, _ := strings.Cut(key, " ")
	switch name {
	case "configure", "autogen.sh", "autoreconf", "bootstrap.sh", "configure.py":
		return true
	case "cmake":
		return arg != "--build" && arg != "--install"
	case "meson":
		return arg == "setup" || arg != "compile" && arg != "install" && arg != "test"
	}
	return false
}

// buildKey names a build command by the step it is (cmake configures,
// cmake --build builds): the same key twice is the same build again.
func buildKey(s simple) string {
	name := path.Base(s.name())
	if name == "make" || name == "gmake" {
		return name
	}
	for _, a := range s.args() {
		if !strings.HasPrefix(a, "-") || a == "--build" || a == "--install" {
			return name + " " + a
		}
	}
	return name
}

// buildsProject reports a command that builds the project in its
// checkout (not its tests): make, go build, cargo build, cmake, …
func buildsProject(s simple) bool {
	name, args := path.Base(s.name()), s.args()
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch name {
	case "make", "gmake":
		return sub == "" || sub == "all" || sub == "build" || sub == "release" || strings.HasPrefix(sub, "-j") || strings.Contains(sub, "=")
	case "go", "cargo", "dotnet", "swift", "zig", "stack", "cabal", "dune", "mix", "sbt", "lein":
		return sub == "build"
	case "cmake", "meson", "ninja", "configure", "autoreconf", "bootstrap.sh", "autogen.sh", "configure.py", "bootstrap.py", "build.py", "build.sh", "bazel", "bazelisk", "scons", "premake5", "xmake":
		return true
	case "npm", "pnpm", "yarn":
		return sub == "run" && len(args) > 1 && args[1] == "build" || sub == "build"
	case "mvn", "mvnw", "gradle", "gradlew":
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "package" || a == "install" || a == "build" || a == "assemble" || a == "installDist"
		})
	}
	return false
}
