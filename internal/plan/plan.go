// Package plan decides, for the keyless markdown engine, which commands of
// a README to run and which to skip, and says why in words: what a careful
// person trying the README on Linux would run. `readme2demo plan` prints
// it; the markdown engine runs exactly its run entries, in its order, and
// reports its skipped entries.
//
// The rules (docs/engines/markdown.md has each with an example):
//   - shell blocks (```sh, bash, shell, zsh, ksh, console, …) and
//     unlabelled or indented blocks whose every line is a command, or that
//     carry shell prompts, are candidates; other languages are not;
//   - lines of a shell block that are output, data or prose (a capital
//     letter, a digit, punctuation, "word:" first) are not commands;
//     REPL lines (>>>) neither;
//   - commands with placeholders (<your-token>, YOUR_API_KEY,
//     path/to/file, [dark|light], an ALL-CAPS argument) or usage syntax
//     ([options], FILE...) are skipped;
//   - other platforms are skipped: by tool (brew, port, choco, scoop,
//     winget, pacman, yum/dnf, zypper, snap, mise, 0install, …), by syntax
//     (PowerShell), by the section heading, the sentence before the block
//     or the comment above the command (macOS, Windows, Arch, Fedora, …);
//     the platform hint overrides;
//   - of several commands that install the same tool, the first that fits
//     Linux runs and the others are skipped as alternatives;
//   - `git clone` of the repository under test and the `cd` into the clone
//     are skipped (the run starts in its checkout); a clone into another
//     directory (~/.fzf) links that directory to the checkout instead;
//     `npm install <this package>` and `go get <this module>`, meant for the
//     reader's own project, are skipped; so are `docker run` of the
//     project's own image, any command that needs a container engine
//     (and the lines typed inside a container it would enter), publishing
//     and logging in, another VCS's commands outside its working copy, and
//     interactive programs that need a terminal (also the project's own
//     when its README presents it as a terminal UI);
//   - blocks that only set unexported variables nothing reads (a settings
//     reference), INI-shaped blocks and output the text introduces are
//     not commands;
//   - a block presented as the content of a file ("save this as …", a
//     shebang script) is not run, except shell setup for ~/.bashrc, which
//     is run in the session as a new shell would;
//   - the hints (skip, run, platform, file, cwd, setup, exit, check-output,
//     timeout, continue-on-error, background) override or extend all this.
//
// Make is pure: README bytes and options in, a Plan out. RepoFromDir is the
// one function here that reads files (the checkout's manifests).
package plan

import (
	"fmt"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// The run orders.
const (
	OrderReadme       = "readme"        // README order (the default)
	OrderInstallFirst = "install-first" // the install sections first, then the rest
)

// Orders are the accepted values of --order and the order hint.
var Orders = []string{OrderReadme, OrderInstallFirst}

// Options adjust a plan. The zero value plans README.md in README order
// with nothing known about the repository.
type Options struct {
	// File is the README's path relative to the repository, as entries
	// name it; "" means README.md.
	File string
	// Repo is what is known about the repository under test.
	Repo Repo
	// Order is OrderReadme or OrderInstallFirst; "" takes the README's
	// order hint, else README order.
	Order string
	// Programs are the commands the sandbox image knows (ParsePrograms of
	// the list the image records); nil means DefaultPrograms.
	Programs map[string]bool
}

// Plan is the decision for one README.
type Plan struct {
	File  string
	Order string
	// Entries are in run order: README order, or the install sections
	// first under OrderInstallFirst.
	Entries  []Entry
	Notes    []Note
	Installs []Install
	// Blocks is the number of code blocks in the README.
	Blocks int
	// Uninstalled is the project's own program that lines that run start
	// with while no line that runs installs or builds the project (its
	// install is in prose, a table or a link): those lines can only find
	// it where the image has it. Zero when there is none.
	Uninstalled Uninstalled
	// Prerequisites are the names the README's text gives for what a
	// build needs (prerequisites): a build that stops for one of them
	// met what the README asked for in words.
	Prerequisites []string
	// CompilersTooOld are the C and C++ compilers the README's text asks
	// for at a version the image lacks (compilersTooOld): a build that
	// stops at a compile error met what the README asked for in words.
	CompilersTooOld []string
}

// Uninstalled names the project's program that nothing the plan runs
// installs, and the first line that runs it.
type Uninstalled struct {
	Program string
	Line    int
}

// Run returns the entries to run, in order.
func (p *Plan) Run() []Entry {
	var out []Entry
	for _, e := range p.Entries {
		if e.Run {
			out = append(out, e)
		}
	}
	return out
}

// maxListed caps the blocks NothingToRun lists.
const maxListed = 12

// NothingToRun explains an empty plan: which code blocks there were and
// why none of their commands runs. "" when the plan runs something.
func (p *Plan) NothingToRun() string {
	if len(p.Run()) > 0 {
		return ""
	}
	if p.Blocks == 0 {
		return fmt.Sprintf("%s: %s has no code block (the markdown engine runs only code blocks; steps written in prose need an AI engine)", commandlog.NothingToRun, p.File)
	}
	var parts []string
	seen := map[int]bool{}
	for _, e := range p.Entries {
		if seen[e.BlockLine] {
			continue
		}
		seen[e.BlockLine] = true
		if len(parts) < maxListed {
			parts = append(parts, fmt.Sprintf("line %d: %s", e.BlockLine, e.Reason))
		}
	}
	more := ""
	if len(seen) > len(parts) {
		more = fmt.Sprintf("; and %d more", len(seen)-len(parts))
	}
	return fmt.Sprintf("%s: none of the %d code blocks of %s has a command to run on Linux (%s%s)", commandlog.NothingToRun, p.Blocks, p.File, strings.Join(parts, "; "), more)
}

// SandboxLacks returns, for a plan that runs nothing, the first line it
// skipped because it needs what the sandbox lacks (a container engine, a
// cluster, a GPU or another device): such a README cannot be checked here,
// which says nothing about whether it works. ok is false when the plan
// runs something or no such line decided it.
func (p *Plan) SandboxLacks() (e Entry, ok bool) {
	if len(p.Run()) > 0 {
		return Entry{}, false
	}
	for _, e := range p.Entries {
		if e.Kind == KindContainer || e.cause&causeSandboxLacks != 0 || e.Command != "" && usesContainers(simples(lex(e.Command))) != "" {
			return e, true
		}
	}
	return Entry{}, false
}

// Make plans a README.
func Make(src []byte, o Options) *Plan {
	file := o.File
	if file == "" {
		file = "README.md"
	}
	doc := readme.ParseFile(file, src)
	order := o.Order
	if order == "" {
		order = doc.Order
	}
	auto := order == ""
	if auto {
		order = OrderReadme
	}
	programs := o.Programs
	if programs == nil {
		programs = DefaultPrograms()
	}
	p := &Plan{File: file, Order: order, Blocks: len(doc.Blocks), Prerequisites: prerequisites(src, &doc), CompilersTooOld: compilersTooOld(src, &doc, programs)}
	for _, pr := range doc.Problems {
		p.Notes = append(p.Notes, Note{Text: "readme2demo hint: " + pr})
	}
	pl := planner{repo: o.Repo, file: file, plan: p, programs: programs, readme: learnReadme(src, &doc, o.Repo), seen: newSession()}
	var groups [][]Entry
	var install []bool
	for _, b := range doc.Blocks {
		for _, pr := range b.Hints.Problems {
			p.Notes = append(p.Notes, Note{Line: b.Line, Text: "readme2demo hint: " + pr})
		}
		es := pl.block(b)
		groups = append(groups, es)
		install = append(install, pl.isInstallSection(b.Headings) && !pl.onlyRunsProject(es))
	}
	p.Installs = append(p.Installs, pl.readme.proseInstalls...)
	if auto {
		if why := p.usesLaterInstall(groups, install); why != "" {
			order, p.Order = OrderInstallFirst, OrderInstallFirst
			p.Notes = append(p.Notes, Note{Text: "order install-first: " + why + " (--order readme keeps README order)"})
		}
	}
	if order == OrderInstallFirst {
		for i, g := range groups {
			if install[i] {
				p.Entries = append(p.Entries, g...)
			}
		}
		for i, g := range groups {
			if !install[i] {
				p.Entries = append(p.Entries, g...)
			}
		}
	} else {
		for _, g := range groups {
			p.Entries = append(p.Entries, g...)
		}
	}
	writesForNothing(p)
	skipDefinitionsOnly(p)
	for _, c := range p.CompilersTooOld {
		p.Notes = append(p.Notes, Note{Text: "the README's text asks for " + c + ": a build that stops at a compile error is blocked, not failed"})
	}
	if p.Uninstalled = pl.uninstalled(); p.Uninstalled.Program != "" {
		p.Notes = append(p.Notes, Note{Line: p.Uninstalled.Line, Text: fmt.Sprintf("the commands from line %d on run %s, the project's own program, "+
			"which no line the plan runs installs (the README installs it in words, a table, a link or a line the plan skips): where it is not found, "+
			"the run is blocked, not failed", p.Uninstalled.Line, p.Uninstalled.Program)})
	}
	return p
}

// planner is one plan in the making: what the whole README says, learned
// before the rules run, and what the commands that run so far did.
type planner struct {
	repo     Repo
	file     string
	plan     *Plan
	programs map[string]bool // the commands the sandbox image knows
	readme   readmeFacts
	seen     session
}

// readmeFacts is what the plan learns of the whole README before it reads
// it in order.
type readmeFacts struct {
	uses   map[string][]int // words of the README's shell lines, by line
	lines  []readme.Line    // the lines of every code block, in README order
	tui    bool             // the README says its program is interactive by default
	tuiOff []string         // the options that make it non-interactive
	uiCue  string           // the phrase of the README's opening that presents its program as interactive
	goCode bool             // the README shows Go code: a library, whose go get is for the reader's project
	// installs are the tools some command of the README installs, in any
	// section (install-first order may run it first); selfInstall says
	// one installs the project from the checkout.
	installs    map[string]bool
	selfInstall bool
	// server is the phrase of the README's opening that presents the
	// project as a server ("" for none); cluster says it presents it as a
	// tool for Kubernetes.
	server  string
	cluster bool
	device  string // the hardware the opening says the project works with ("Android devices")
	// zshProject is the phrase of the opening that presents the project
	// as made for zsh ("a theme for Zsh"): its zsh blocks are zsh's.
	zshProject string
	// filters are the programs some shell line of the README pipes into
	// with no file argument (`curl … | bat`): they read standard input.
	filters map[string]bool
	// proseInstalls are the installs the README gives only in its text.
	proseInstalls []Install
}

// session is what the commands that run so far did, in README order.
type session struct {
	installed map[string]int  // tool -> README line of the run command that installs it
	cloned    map[string]bool // tools "installed" by a clone of this repository linked to the checkout
	cloneDirs map[string]bool // where a skipped clone of this repository would have gone
	notMade   map[string]int  // clone directories not made (the clone was an alternative), by line
	unmade    map[string]int  // files only skipped lines would have written, by the line of the first
	images    map[string]bool // Docker images of this project built by a skipped command
	mentioned map[string]bool // words of the commands that run so far
	// sureFiles and guessedFiles are the files the steps and the probes so
	// far wrote (writtenBy).
	sureFiles, guessedFiles map[string]bool
	defined                 map[string]bool   // functions and aliases the commands that run so far define
	unset                   map[string]int    // variables only skipped lines set, by the line of the first
	downloads               map[string]string // file -> the URL a command that runs downloaded it from
	cwd                     string            // the session's directory relative to the checkout, cwdUnknown when unknown
	cloneSub                bool              // a cd into a directory of the clone of this repository ran: the session is below the checkout's top
	serverUp                bool              // a command that runs started a server (in the background)
	selfInstall             bool              // a command that runs installs the project from the checkout
	configured              bool              // a command that runs generated a Makefile (./configure, cmake)
	configureMade           bool              // a command that runs generated ./configure (autogen.sh, autoreconf)
	built                   bool              // a command that runs built something (make, cargo build, …)
	// projectLine is the line of the first command that installs or
	// builds the project, projectSection the headings of its section.
	projectLine      int
	projectSection   string
	projectBlock     int    // the line of its block
	projectBuild     string // the build program of a first way that builds in the checkout
	projectBuildText string // and its command
	// nextBuild is the build after a first way that configures (make
	// after ./configure), nextBuildText its command.
	nextBuild, nextBuildText string
	projectInstalled         bool // what that build made was installed from the checkout
}

func newSession() session {
	return session{installed: map[string]int{}, cloned: map[string]bool{}, cloneDirs: map[string]bool{}, notMade: map[string]int{}, unmade: map[string]int{},
		images: map[string]bool{}, mentioned: map[string]bool{}, sureFiles: map[string]bool{}, guessedFiles: map[string]bool{}, defined: map[string]bool{}, unset: map[string]int{}, downloads: map[string]string{}}
}

// learnReadme learns what the plan needs to know of the whole README.
func learnReadme(src []byte, doc *readme.Doc, repo Repo) readmeFacts {
	f := readmeFacts{uses: shellWordsByLine(doc), lines: codeLines(doc)}
	f.tuiOff, f.tui = interactiveDefault(src)
	keys, cue := presentsTUI(src)
	f.tui, f.uiCue = f.tui || keys, cue
	f.goCode = readmeShowsGo(doc)
	f.installs, f.selfInstall = readmeInstalls(doc, repo)
	f.server = presentsServer(src)
	intro := introText(src)
	f.cluster = clusterIntroRe.MatchString(intro)
	f.device = presentsDevice(intro)
	f.zshProject = zshProjectRe.FindString(plainText(intro))
	f.filters = pipeFilters(doc)
	f.proseInstalls = proseInstalls(src, doc, repo)
	return f
}

// candidate is one would-be command of a block.
type candidate struct {
	text    string
	line    int
	endLine int
	shape   lineShape
	comment string // the comment lines right above it in the block
}

func (pl *planner) entry(b readme.Block, c candidate, d Decision) Entry {
	e := Entry{File: pl.file, Line: c.line, EndLine: c.endLine, Command: c.text, BlockLine: b.Line, Language: b.Lang}
	e.setDecision(d)
	return e
}

// blockEntry is the one entry of a block that has no candidate command.
func (pl *planner) blockEntry(b readme.Block, d Decision) []Entry {
	e := Entry{File: pl.file, Line: b.Line, EndLine: b.EndLine, BlockLine: b.Line, Language: b.Lang}
	e.setDecision(d)
	return []Entry{e}
}
