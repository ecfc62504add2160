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
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/lazyre"
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
}

// Entry is one candidate of the plan: a command to run or skip, or a code
// block with no command to run. Its JSON form is stable:
//
//	{"file", "line", "command", "run", "reason", "block_line", "language"}
type Entry struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	Run     bool   `json:"run"`
	Reason  string `json:"reason"`
	// BlockLine is the README line of the block's first content line.
	BlockLine int `json:"block_line"`
	// Language is the block's language as written in lower case, "" for an
	// unlabelled or indented block.
	Language string `json:"language"`
	// Planned says, for an entry that runs, whether the README clearly
	// means it to be run (a step: its failure fails the run) or the plan
	// runs it on a guess (a probe: its failure is reported, never the
	// verdict); "" for an entry that does not run, and for a plan that
	// does not say (a step).
	Planned Planned `json:"planned,omitempty"`

	// EndLine is the last README line of the command.
	EndLine int `json:"-"`
	// Step says how to run a run entry.
	Step Step `json:"-"`
}

// Planned is how sure the plan is that a run entry is meant to be run.
type Planned string

// The two ways an entry runs.
const (
	PlannedStep  Planned = "step"
	PlannedProbe Planned = "probe"
)

// Step is how the runner runs one entry.
type Step struct {
	Timeout         time.Duration // 0: the engine's default
	ContinueOnError bool
	Background      bool
	Ready           string
	// Expect is the output the README shows after the command (check-output
	// hint); nil when the output is not checked. ExpectLine is its first
	// README line.
	Expect     []string
	ExpectLine int
	// Exit is the exit code the command must return (exit hint); nil means 0.
	Exit *int
	// Cwd is the directory, relative to the repository, to enter before the
	// entry; LeaveCwd returns to the previous directory after it.
	Cwd      string
	LeaveCwd bool
	// Setup runs, unseen, before the entry; SetupLine is the hint's block.
	Setup     string
	SetupLine int
	// WriteFile, when set, is the path the entry writes its Content to
	// instead of running Command (file hint).
	WriteFile string
	Content   string
	// LinkCheckout, when set, is the directory a clone of this repository
	// would have gone to: the runner links it to the checkout instead.
	LinkCheckout string
	// Exec, when set, is what runs instead of Command: the rest of an
	// `&&` chain whose clone of this repository was left out.
	Exec string
}

// Install is a README command that installs a tool, run or not: a command
// that fails with "not found" can then name the line that installs it.
type Install struct {
	Tool    string `json:"tool"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	// Skipped is the reason the plan skips the installing command, "" when
	// it runs.
	Skipped string `json:"skipped,omitempty"`
}

// Note is something about the README the user should know: a hint that
// was not understood.
type Note struct {
	Line int
	Text string
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
		return fmt.Sprintf("nothing to run: %s has no code block (the markdown engine runs only code blocks; steps written in prose need an AI engine)", p.File)
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
	return fmt.Sprintf("nothing to run: none of the %d code blocks of %s has a command to run on Linux (%s%s)", p.Blocks, p.File, strings.Join(parts, "; "), more)
}

// Make plans a README.
func Make(src []byte, o Options) *Plan {
	file := o.File
	if file == "" {
		file = "README.md"
	}
	doc := readme.Parse(src)
	order := o.Order
	if order == "" {
		order = doc.Order
	}
	auto := order == ""
	if auto {
		order = OrderReadme
	}
	p := &Plan{File: file, Order: order, Blocks: len(doc.Blocks)}
	for _, pr := range doc.Problems {
		p.Notes = append(p.Notes, Note{Text: "readme2demo hint: " + pr})
	}
	pl := planner{repo: o.Repo, file: file, installed: map[string]int{}, cloneDirs: map[string]bool{}, plan: p,
		images: map[string]bool{}, mentioned: map[string]bool{}, downloads: map[string]string{}, cloned: map[string]bool{}, notMade: map[string]int{},
		uses: shellWordsByLine(&doc)}
	pl.tuiOff, pl.tui = interactiveDefault(src)
	keys, cue := presentsTUI(src)
	pl.tui = pl.tui || keys
	pl.uiCue = cue
	pl.lines = codeLines(&doc)
	pl.goCode, pl.debTools = readmeFacts(&doc, o.Repo)
	var groups [][]Entry
	var install []bool
	for _, b := range doc.Blocks {
		for _, pr := range b.Hints.Problems {
			p.Notes = append(p.Notes, Note{Line: b.Line, Text: "readme2demo hint: " + pr})
		}
		es := pl.block(b)
		groups = append(groups, es)
		install = append(install, isInstallSection(b.Headings))
	}
	p.Installs = append(p.Installs, proseInstalls(src, &doc, o.Repo)...)
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
	skipDefinitionsOnly(p)
	return p
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
			for _, s := range simples(lex(e.command())) {
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

// troubleRe matches a section of fixes for problems a reader may have.
var troubleRe = lazyre.New(`(?i)\btroubleshoot(ing)?\b|\bknown (issues|problems)\b|\bFAQ\b|\bworkarounds?\b`)

// benchmarkRe is a section of performance measurements: a heading that
// starts with the word ("Benchmarks", "Benchmark results"), not a title
// that names a benchmarking tool.
var benchmarkRe = lazyre.New(`(?i)^\W*benchmark(s|ing)?\b`)

// section returns the innermost heading the block stands in (at any depth)
// that re matches, "" for none.
func section(hs []string, re *lazyre.Regexp) string {
	for i := len(hs) - 1; i >= 0; i-- {
		if re.MatchString(hs[i]) {
			return hs[i]
		}
	}
	return ""
}

// innermost is the heading a block stands right under, "" for none.
func innermost(hs []string) string {
	if len(hs) == 0 {
		return ""
	}
	return hs[len(hs)-1]
}

// upgradeRe matches a section about upgrading an installed copy.
var upgradeRe = lazyre.New(`(?i)\b(upgrad(e|ing)|updating)\b`)

// uninstallRe matches a section about removing the project.
var uninstallRe = lazyre.New(`(?i)\buninstall(ing|ation)?\b`)

var installSectionRe = lazyre.New(`(?i)\b(install(ation|ing)?|set\s*up|setting\s+up|prerequisites?|requirements|dependencies|from\s+source|build(ing)?|compil(e|ing|ation)|download(ing)?)\b`)

// isInstallSection reports a block under an install-like heading.
func isInstallSection(hs []string) bool { return section(hs, installSectionRe) != "" }

// planner holds what the plan learns while it reads the README in order.
type planner struct {
	repo      Repo
	file      string
	installed map[string]int  // tool -> README line of the run command that installs it
	cloneDirs map[string]bool // where a skipped clone of this repository would have gone
	plan      *Plan
	cloned    map[string]bool   // tools "installed" by a clone of this repository linked to the checkout
	notMade   map[string]int    // clone directories not made (the clone was an alternative), by line
	images    map[string]bool   // Docker images of this project built by a skipped command
	mentioned map[string]bool   // words of the commands that run so far
	uses      map[string][]int  // words of the README's shell lines, by line
	cwd       string            // the session's directory relative to the checkout, cwdUnknown when unknown
	tui       bool              // the README says its program is interactive by default
	tuiOff    []string          // the options that make it non-interactive
	goCode    bool              // the README shows Go code: a library, whose go get is for the reader's project
	debTools  map[string]int    // tool -> README line of its install in a section for Debian or Ubuntu
	serverUp  bool              // a command that runs started a server (in the background)
	lines     []readme.Line     // the lines of every code block, in README order
	uiCue     string            // the phrase of the README's opening that presents its program as interactive
	downloads map[string]string // file -> the URL a command that runs downloaded it from
}

// candidate is one would-be command of a block.
type candidate struct {
	text    string
	line    int
	endLine int
	shape   lineShape
	comment string // the comment lines right above it in the block
}

// otherShellLangs are languages of shells whose syntax is not bash.
var otherShellLangs = map[string]string{
	"fish": "fish", "nu": "Nushell", "nushell": "Nushell", "xonsh": "xonsh", "elvish": "Elvish",
	"tcsh": "tcsh", "csh": "csh", "powershell": "PowerShell", "ps1": "PowerShell", "pwsh": "PowerShell",
	"ps": "PowerShell", "posh": "PowerShell", "cmd": "Windows cmd", "bat": "Windows cmd", "batch": "Windows cmd",
	"dosbatch": "Windows cmd", "doscon": "Windows cmd", "winbatch": "Windows cmd", "pwsh-session": "PowerShell",
	"ps1con": "PowerShell", "nushell-session": "Nushell",
}

// textLangs are blocks of text, output or data.
var textLangs = toSet(`text txt plain plaintext output log none nohighlight no-highlight ascii raw out stdout`)

func (pl *planner) entry(b readme.Block, c candidate, run bool, reason string) Entry {
	return Entry{
		File: pl.file, Line: c.line, EndLine: c.endLine, Command: c.text, Run: run, Reason: reason,
		BlockLine: b.Line, Language: b.Lang,
	}
}

// blockEntry is the one entry of a block that has no candidate command.
func (pl *planner) blockEntry(b readme.Block, reason string) []Entry {
	return []Entry{{File: pl.file, Line: b.Line, EndLine: b.EndLine, Command: "", Run: false, Reason: reason, BlockLine: b.Line, Language: b.Lang}}
}

// block plans one code block.
func (pl *planner) block(b readme.Block) []Entry {
	if len(b.Lines) == 0 {
		return nil
	}
	h := b.Hints
	if h.File != "" {
		return []Entry{pl.fileEntry(b, h.File, fmt.Sprintf("file hint: writes the block to %s", h.File))}
	}
	if target, why := pl.namedFile(b); target != "" && !h.Skip && !h.Run {
		return []Entry{pl.fileEntry(b, target, why)}
	}
	lang := b.Lang
	label := "```" + lang + " block"
	if lang == "" {
		label = "unlabelled block"
		if b.Indented {
			label = "indented block"
		}
	}
	var cands []candidate
	base := ""
	switch {
	case b.Mode == readme.ModeConsole && lang == "" && !h.Run && !readme.IsPromptLine(firstNonComment(b.Lines)):
		// Prompts indented under a heading of text ("Usage", "Examples"):
		// a help text that shows example sessions.
		return pl.blockEntry(b, label+": a help text with example prompts, not a session")
	case b.Mode == readme.ModeConsole:
		for _, c := range b.Commands {
			cands = append(cands, candidate{text: c.Text, line: c.Line, endLine: c.EndLine, shape: shapeCommand})
		}
		base = label + ": shell prompt"
		if len(cands) == 0 {
			return pl.blockEntry(b, label+": no command after its prompts")
		}
	case readme.IsShellLang(lang) || h.Run:
		cands = pl.scriptCandidates(b.Lines)
		base = label
		if h.Run && !readme.IsShellLang(lang) {
			base = label + ": run hint"
		}
		if len(cands) == 0 {
			return pl.blockEntry(b, label+": only comments")
		}
	case otherShellLangs[lang] != "":
		if h.Platform == "linux" {
			return pl.blockEntry(b, fmt.Sprintf("%s syntax, not bash (add the run hint to run it with bash)", otherShellLangs[lang]))
		}
		what := otherShellLangs[lang]
		if strings.Contains(what, "PowerShell") || strings.Contains(what, "Windows") {
			return pl.blockEntry(b, "other platform: "+what)
		}
		return pl.blockEntry(b, fmt.Sprintf("%s syntax, not bash", what))
	case lang == "" && !h.Skip:
		cands = pl.scriptCandidates(b.Lines)
		if why := pl.notCommands(cands); why != "" {
			return pl.blockEntry(b, label+": "+why)
		}
		base = label + ": every line is a command"
		for _, c := range cands {
			if c.shape != shapeCommand {
				base = label + ": commands and their output"
				break
			}
		}
	case lang == "":
		return pl.blockEntry(b, label+": skip hint")
	case textLangs[lang] && !h.Skip:
		if cands = pl.projectLines(b); len(cands) == 0 {
			return pl.blockEntry(b, fmt.Sprintf("%s block: text, not commands", lang))
		}
		base = label + ": text, but it runs this project's program"
	case textLangs[lang]:
		return pl.blockEntry(b, fmt.Sprintf("%s block: text, not commands", lang))
	default:
		return pl.blockEntry(b, fmt.Sprintf("%s code, not shell", lang))
	}

	if h.Cwd != "" {
		// Paths in the block are relative to the hint's directory.
		saved := pl.cwd
		pl.cwd = cwdUnknown
		defer func() { pl.cwd = saved }()
	}

	// Reasons that apply to the whole block.
	skipAll := ""
	runAll := ""
	switch {
	case h.Skip:
		skipAll = "skip hint"
	case h.Platform != "":
		if name, fits := hintPlatform(h.Platform); !fits {
			skipAll = fmt.Sprintf("other platform: %s (platform hint)", name)
		}
	case uninstallRe.MatchString(strings.Join(b.Headings, " ")):
		skipAll = "uninstalls: not part of trying the README"
	case upgradeHeading(b.Headings) != "":
		skipAll = fmt.Sprintf("upgrades an earlier install (section %q): not part of trying the README", upgradeHeading(b.Headings))
	case section(b.Headings, benchmarkRe) != "":
		skipAll = fmt.Sprintf("benchmark (section %q): measures performance with tools and servers of its own, not part of trying the README", section(b.Headings, benchmarkRe))
	case troubleRe.MatchString(innermost(b.Headings)):
		skipAll = fmt.Sprintf("troubleshooting (section %q): only when that problem occurs", innermost(b.Headings))
	case troubleCueRe.MatchString(proseOnly(lastSentence(b.Before))):
		skipAll = fmt.Sprintf("troubleshooting (the text before the block: %q): only when that problem occurs", lastSentence(b.Before))
	case uninstallCueRe.MatchString(proseOnly(lastSentence(b.Before))):
		skipAll = "uninstalls or reinstalls (the text before the block): not part of trying the README"
	case blockCue(b, packagingRe) != "":
		skipAll = fmt.Sprintf("for packagers of a distribution (%q): not part of trying the README", blockCue(b, packagingRe))
	case b.Mode != readme.ModeConsole && nameList(cands):
		skipAll = "a list of program names, not commands to run"
	case b.Mode != readme.ModeConsole && argForms(cands) != "":
		skipAll = fmt.Sprintf("a reference of %s's argument forms (one argument a line, nothing for them to act on), not commands to run", argForms(cands))
	case b.Mode != readme.ModeConsole && outputIntroRe.MatchString(proseOnly(lastSentence(b.Before))):
		skipAll = fmt.Sprintf("output sample (the text before the block: %q), not commands", lastSentence(b.Before))
	case b.Mode != readme.ModeConsole && iniContent(cands):
		skipAll = "the content of a configuration file ([section] headers and key=value lines), not commands"
	case b.Mode != readme.ModeConsole && pl.optionalSettings(b, cands) != "":
		skipAll = fmt.Sprintf("optional settings of the program (%s): example values that would change what the later commands do, not a step", pl.optionalSettings(b, cands))
	case b.Mode != readme.ModeConsole && pl.settingsReference(b, cands):
		skipAll = "only sets shell variables that no command reads (not exported, so no program sees them): a reference of settings and their values, not steps"
	case blockCue(b, otherMachineRe) != "":
		skipAll = fmt.Sprintf("runs on another machine (%q): the sandbox is one machine", blockCue(b, otherMachineRe))
	default:
		if name, where := blockPlatform(b); name != "" {
			skipAll = fmt.Sprintf("other platform: %s (%s)", name, where)
		} else if sh, where := blockShell(b); sh != "" {
			skipAll = fmt.Sprintf("for %s, not bash (%s)", sh, where)
		}
	}
	if f := pl.shownFile(b); skipAll == "" && !h.Run && f != "" {
		skipAll = fmt.Sprintf("shows the repository's file %s: it is there already", f)
	}
	if skipAll == "" && !h.Run && b.Mode != readme.ModeConsole {
		if first := firstNonBlank(b.Lines); strings.HasPrefix(first, "#!") {
			skipAll = fmt.Sprintf("a script shown as an example (%s): save it as a file to run it (or add the file= or run hint)", first)
		} else if kind, target := fileTarget(b.Before); kind != "" {
			switch kind {
			case "bashrc":
				runAll = fmt.Sprintf("shell setup for %s: run in this session, as a new shell would", target)
			case "othershell":
				skipAll = fmt.Sprintf("shell setup for %s, not bash", target)
			default:
				skipAll = fmt.Sprintf("file content: the text before the block says to put it in %s (add the file= hint to write it)", target)
			}
		}
	}

	if strings.HasPrefix(runAll, "shell setup") {
		if names := pl.unusedAliases(b, cands); names != "" {
			skipAll = fmt.Sprintf("optional aliases (%s): no later command of the README uses them", names)
		}
	}

	var out []Entry
	altLine := 0 // the line of a command this block skipped as an install alternative
	altWhat := "the alternative"
	srcLine := 0   // the line of a package source (a PPA) this block adds and the plan skips
	cloneLine := 0 // the line of the clone of this repository this block skips
	inside := 0    // the line of a skipped container command that leaves the reader in the container
	for _, c := range cands {
		switch {
		case skipAll == "" && inside > 0 && c.shape == shapeCommand:
			out = append(out, pl.entry(b, c, false, fmt.Sprintf("typed inside the container that line %d starts, which is not run", inside)))
		case skipAll == "" && altLine > 0 && c.shape == shapeCommand:
			out = append(out, pl.entry(b, c, false, fmt.Sprintf("part of %s at line %d, which is not run", altWhat, altLine)))
		case skipAll == "" && srcLine > 0 && c.shape == shapeCommand && aptCommand(c.text):
			out = append(out, pl.entry(b, c, false, fmt.Sprintf("installs from the package source that line %d adds, which is not run", srcLine)))
		case skipAll == "" && cloneLine > 0 && c.shape == shapeCommand && checksOut(c.text):
			out = append(out, pl.entry(b, c, false, fmt.Sprintf("checks out another version of the clone at line %d: the run tests the checkout as it is", cloneLine)))
		case skipAll != "":
			out = append(out, pl.entry(b, c, false, skipAll))
			if c.shape == shapeCommand {
				pl.noteInstalls(c, skipAll)
			}
		case c.shape == shapeREPL:
			out = append(out, pl.entry(b, c, false, "REPL line (>>>), not shell"))
		case c.shape == shapeText:
			out = append(out, pl.entry(b, c, false, "output or text, not a command"))
		default:
			reason := base
			if runAll != "" {
				reason = runAll
			}
			e := pl.decide(b, c, reason)
			switch {
			case !e.Run && strings.HasPrefix(e.Reason, "alternative: ") && len(out) == 0:
				altLine = e.Line
			case !e.Run && strings.HasPrefix(e.Reason, "extracts ") && len(out) == 0:
				altLine, altWhat = e.Line, "the install from the archive"
			case !e.Run && strings.HasPrefix(e.Reason, "other platform: Ubuntu PPA"):
				srcLine = e.Line
			case strings.HasPrefix(e.Reason, "clones this repository"):
				cloneLine = e.Line
			case !e.Run && entersContainer(simples(lex(c.text))):
				inside = e.Line
			}
			if e.Run && (e.Step.Background || b.Hints.Background) {
				pl.serverUp = true
			}
			out = append(out, e)
		}
	}
	pl.withSkippedGoal(out)
	pl.applyHints(b, &out)
	return out
}

// withSkippedGoal skips the commands of a block that only prepare a
// skipped step after them: fetching and bootstrapping another platform's
// package manager (`git clone …/vcpkg`, `cd vcpkg`, `./bootstrap-vcpkg.sh`
// before `./vcpkg install x`), or committing what a skipped `git push`
// would publish.
func (pl *planner) withSkippedGoal(es []Entry) {
	for i, goal := range es {
		if goal.Run || goal.Command == "" {
			continue
		}
		var prepares func(simple) bool
		switch {
		case strings.HasPrefix(goal.Reason, "other platform: "):
			prepares = func(s simple) bool {
				_, _, isClone := clone(s)
				return isClone || s.name() == "cd" || strings.HasPrefix(s.name(), "./")
			}
		case strings.HasPrefix(goal.Reason, "alternative: "):
			// The build steps of a manual install that another install
			// already covers: `npm install` before `npm install -g`.
			prepares = func(s simple) bool {
				_, _, isClone := clone(s)
				return isClone || s.name() == "cd" || buildStep(s) || pkgIndexUpdate(s) && sameManager(s, goal.Command)
			}
		case strings.HasPrefix(goal.Reason, "publishes or logs in (git push"):
			prepares = func(s simple) bool {
				args := s.args()
				return s.name() == "git" && len(args) > 0 && (args[0] == "add" || args[0] == "commit" || args[0] == "tag")
			}
		default:
			continue
		}
		for j := i - 1; j >= 0; j-- {
			e := &es[j]
			if !e.Run {
				continue
			}
			ss := simples(lex(e.Command))
			all := len(ss) > 0
			for _, s := range ss {
				all = all && prepares(s)
			}
			if !all || e.Step.WriteFile != "" || e.Step.LinkCheckout != "" {
				break
			}
			e.Run = false
			e.Reason = fmt.Sprintf("prepares line %d, which is not run (%s)", goal.Line, goal.Reason)
		}
	}
}

// applyHints sets the block's hints on its run entries, and joins a
// background block into one entry.
func (pl *planner) applyHints(b readme.Block, es *[]Entry) {
	h := b.Hints
	var run []int
	for i, e := range *es {
		if e.Run {
			run = append(run, i)
		}
	}
	if len(run) == 0 {
		return
	}
	if h.Background {
		first := &(*es)[run[0]]
		shown := make([]string, 0, len(run))
		execs := make([]string, 0, len(run))
		for _, i := range run {
			shown = append(shown, (*es)[i].Command)
			execs = append(execs, (*es)[i].command())
		}
		first.Command = strings.Join(shown, "\n")
		if e := strings.Join(execs, "\n"); e != first.Command {
			first.Step.Exec = e
		}
		first.EndLine = (*es)[run[len(run)-1]].EndLine
		first.Reason += ": background hint"
		var keep []Entry
		for i, e := range *es {
			if !e.Run || i == run[0] {
				keep = append(keep, e)
			}
		}
		*es = keep
		run = run[:1] // the entries before it were not run, so it keeps its index
	}
	for _, i := range run {
		s := &(*es)[i].Step
		s.Timeout, s.ContinueOnError, s.Background, s.Ready = h.Timeout, h.ContinueOnError, h.Background || s.Background, h.Ready
	}
	firstStep := &(*es)[run[0]].Step
	lastStep := &(*es)[run[len(run)-1]].Step
	if h.Cwd != "" {
		firstStep.Cwd = h.Cwd
		lastStep.LeaveCwd = true
	}
	if h.Setup != "" {
		firstStep.Setup, firstStep.SetupLine = h.Setup, b.Line
	}
	if h.Exit != nil {
		lastStep.Exit = h.Exit
	}
	if h.CheckOutput && b.Mode == readme.ModeConsole {
		for _, i := range run {
			e := &(*es)[i]
			for _, c := range b.Commands {
				if c.Line == e.Line {
					e.Step.Expect = make([]string, 0, len(c.Output))
					for _, o := range c.Output {
						e.Step.Expect = append(e.Step.Expect, o.Text)
					}
					e.Step.ExpectLine = e.EndLine + 1
					if len(c.Output) > 0 {
						e.Step.ExpectLine = c.Output[0].Line
					}
				}
			}
		}
	}
}

// command is what the runner runs for the entry.
func (e Entry) command() string {
	if e.Step.Exec != "" {
		return e.Step.Exec
	}
	return e.Command
}

// Exec is the shell text the runner evaluates for a run entry: the
// README's command, or what stands in for it (see Step). linkTarget is the
// checkout's path in the sandbox, for Step.LinkCheckout.
func (e Entry) Exec(linkTarget string) string {
	switch {
	case e.Step.WriteFile != "":
		return heredoc(e.Step.WriteFile, e.Step.Content)
	case e.Step.LinkCheckout != "":
		d := dirWord(e.Step.LinkCheckout)
		link := fmt.Sprintf(`mkdir -p -- "$(dirname -- %s)" && ln -sfn -- %s %s`, d, shellQuote(linkTarget), d)
		if e.Step.Exec != "" {
			link += " && " + e.Step.Exec
		}
		return link
	}
	return e.command()
}

// dirWord quotes a directory as the README wrote it for the shell:
// variables still expand, ~/ still means the home directory.
func dirWord(d string) string {
	if rest, ok := strings.CutPrefix(d, "~/"); ok {
		return `"$HOME"/` + dirWord(rest)
	}
	if strings.ContainsAny(d, "\"`\\") {
		return shellQuote(d)
	}
	return `"` + d + `"`
}

// heredoc writes content to path with a here-document whose delimiter the
// content does not contain.
func heredoc(p, content string) string {
	delim := "README2DEMO_EOF"
	for i := 1; strings.Contains(content, delim); i++ {
		delim = fmt.Sprintf("README2DEMO_EOF_%d", i)
	}
	q := shellQuote(p)
	mk := ""
	if d := path.Dir(p); d != "." && d != "/" {
		mk = fmt.Sprintf("mkdir -p -- %s && ", shellQuote(d))
	}
	return fmt.Sprintf("%scat > %s <<'%s'\n%s\n%s", mk, q, delim, content, delim)
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./~+@%:=", r))
	}) < 0 && !strings.HasPrefix(s, "~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var (
	// fileNameCommentRe is a comment line holding only a file name:
	// "// index.js", "# app/main.py", "<!-- index.html -->".
	fileNameCommentRe = lazyre.New(`^\s*(?://|#|--|;|/\*|<!--)\s*((?:\./)?[\w.][\w./-]*)\s*(?:\*/|-->)?\s*$`)
	// createFileRe is a sentence that asks the reader to create a file.
	createFileRe = lazyre.New(`(?i)\b(create|creating|save|saving|put|write|add|update|edit|make|paste)\b`)
	// saveAsCommentRe is a first line like "# save this as app.py".
	saveAsCommentRe = lazyre.New(`(?i)^\s*(?:#|//|--|;|/\*)\s*(?:save (?:this |it )?(?:as|to|in)|file(?:name)?:?|in)\s+` + "`?" + `([\w.][\w./-]*\.[A-Za-z0-9]+)` + "`?" + `\.?\s*(?:\*/)?\s*$`)
)

// namedFile returns the file a block is the content of, when the README
// names exactly one ("Create a file `main.py` with:", or a first line
// "# save this as app.py"), with the reason; "" otherwise. A person writes
// such a file before running the commands that use it.
func (pl *planner) namedFile(b readme.Block) (string, string) {
	if b.Mode == readme.ModeConsole || otherShellLangs[b.Lang] != "" {
		return "", ""
	}
	if len(b.Lines) > 0 {
		if m := saveAsCommentRe.FindStringSubmatch(b.Lines[0].Text); m != nil && looksLikeFile(m[1]) {
			if pl.repo.hasFile(strings.TrimPrefix(m[1], "./")) {
				return "", "" // the repository's own file, shown (see shownFile)
			}
			return m[1], fmt.Sprintf("file content: its first line says to save it as %s, so it is written there, as a person would", m[1])
		}
		// A first line that is only a file's name ("// index.js"), for a
		// file the repository lacks, no earlier command made and a later
		// command uses (`node index.js`).
		if m := fileNameCommentRe.FindStringSubmatch(b.Lines[0].Text); m != nil && looksLikeFile(m[1]) {
			f := strings.TrimPrefix(m[1], "./")
			if !pl.repo.hasFile(f) && !pl.mentioned[f] && pl.usedAfter(f, b.EndLine) > 0 {
				return f, fmt.Sprintf("file content: its first line names %s, which line %d uses, so it is written there, as a person would", f, pl.usedAfter(f, b.EndLine))
			}
		}
	}
	sentence := lastSentence(b.Before)
	if sentence == "" || !createFileRe.MatchString(sentence) {
		return "", ""
	}
	var names []string
	for _, m := range codeSpanRe.FindAllStringSubmatch(sentence, -1) {
		if looksLikeFile(m[1]) && extRe.MatchString(m[1]) && !strings.HasPrefix(m[1], "/") {
			names = append(names, m[1])
		}
	}
	if len(names) != 1 || (readme.IsShellLang(b.Lang) && rcFileRe.MatchString(names[0])) {
		return "", ""
	}
	return names[0], fmt.Sprintf("file content: the text before the block says to put it in %s, so it is written there, as a person would", names[0])
}

// usedAfter returns the first README line after line whose shell command
// names file as a word (`node index.js`, `./run.sh`), 0 when none does.
func (pl *planner) usedAfter(file string, line int) int {
	for _, u := range pl.uses[file] {
		if u > line {
			return u
		}
	}
	return 0
}

// shellWordsByLine indexes the words of the README's shell lines, for
// usedAfter: word (without quotes and a leading ./) to the lines using it.
func shellWordsByLine(doc *readme.Doc) map[string][]int {
	out := map[string][]int{}
	for _, b := range doc.Blocks {
		if !b.Shell {
			continue
		}
		for _, l := range b.Lines {
			t, ok := readme.CutPrompt(l.Text)
			if !ok {
				t = l.Text
			}
			for _, w := range lex(t) {
				if w.op == "" && w.text != "" {
					k := strings.TrimPrefix(w.text, "./")
					out[k] = append(out[k], l.Line)
				}
			}
		}
	}
	return out
}

// shownFile returns the repository file a block shows, by a first line
// naming it ("# file: examples/math.inc"), "" for none.
func (pl *planner) shownFile(b readme.Block) string {
	if len(b.Lines) == 0 || b.Mode == readme.ModeConsole {
		return ""
	}
	for _, re := range []*lazyre.Regexp{saveAsCommentRe, fileNameCommentRe} {
		if m := re.FindStringSubmatch(b.Lines[0].Text); m != nil {
			if f := strings.TrimPrefix(m[1], "./"); pl.repo.hasFile(f) {
				return f
			}
		}
	}
	return ""
}

// fileEntry is the entry that writes a block to a file.
func (pl *planner) fileEntry(b readme.Block, target, reason string) Entry {
	lines := make([]string, len(b.Lines))
	for i, l := range b.Lines {
		lines[i] = l.Text
	}
	content := strings.Join(lines, "\n")
	e := Entry{
		File: pl.file, Line: b.Line, EndLine: b.EndLine, Run: !b.Hints.Skip, BlockLine: b.Line, Language: b.Lang,
		Reason: reason,
	}
	if b.Hints.Skip {
		e.Reason = "skip hint"
	}
	e.Step.WriteFile, e.Step.Content = target, content
	e.Command = heredoc(target, content)
	pl.mentioned[strings.TrimPrefix(target, "./")] = true
	pl.mentioned[path.Base(target)] = true
	e.Step.Timeout, e.Step.ContinueOnError = b.Hints.Timeout, b.Hints.ContinueOnError
	if b.Hints.Cwd != "" {
		e.Step.Cwd, e.Step.LeaveCwd = b.Hints.Cwd, true
	}
	if b.Hints.Setup != "" {
		e.Step.Setup, e.Step.SetupLine = b.Hints.Setup, b.Line
	}
	return e
}

// firstNonComment is the first line that is neither blank nor a # comment.
func firstNonComment(ls []readme.Line) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l.Text); t != "" && !strings.HasPrefix(t, "# ") && t != "#" {
			return l.Text
		}
	}
	return ""
}

func firstNonBlank(ls []readme.Line) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l.Text); t != "" {
			return t
		}
	}
	return ""
}

// scriptCandidates splits a script block into would-be commands: a line
// shaped like a command starts one, which runs on while it is incomplete
// (readme.Scanner); other lines are text candidates of their own; comment
// lines are kept as the context of the command below them.
func (pl *planner) scriptCandidates(ls []readme.Line) []candidate {
	cands := scriptCandidates(ls)
	markHelpText(cands, ls)
	for i, c := range cands {
		if c.shape == shapeCommand && c.endLine == c.line && pl.isProse(stripComment(c.text)) {
			cands[i].shape = shapeText
		}
	}
	return cands
}

func scriptCandidates(ls []readme.Line) []candidate {
	var out []candidate
	var cur *candidate
	var sc readme.Scanner
	comment, lastWasComment := "", false
	for _, l := range ls {
		if cur != nil {
			cur.text += "\n" + l.Text
			cur.endLine = l.Line
			sc.Feed(l.Text)
			if sc.Complete() {
				cur.text = strings.TrimSpace(cur.text)
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		t := strings.TrimSpace(l.Text)
		switch {
		case t == "":
			comment, lastWasComment = "", false
			continue
		case strings.HasPrefix(t, "#"):
			if lastWasComment {
				comment += "\n" + t
			} else {
				comment = t
			}
			lastWasComment = true
			continue
		}
		lastWasComment = false
		shape := shapeOf(l.Text)
		c := candidate{text: t, line: l.Line, endLine: l.Line, shape: shape, comment: comment}
		if shape != shapeCommand {
			out = append(out, c)
			continue
		}
		sc = readme.Scanner{}
		sc.Feed(l.Text)
		c.text = l.Text
		if sc.Complete() {
			c.text = strings.TrimSpace(c.text)
			out = append(out, c)
			continue
		}
		cur = &c
	}
	if cur != nil {
		cur.text = strings.TrimSpace(cur.text)
		out = append(out, *cur)
	}
	return out
}

// notCommands says why an unlabelled block is not a block of commands, ""
// when every line is one and at least one starts with a known command.
func (pl *planner) notCommands(cands []candidate) string {
	if len(cands) == 0 {
		return "no commands"
	}
	known, firstKnown, texts := false, false, 0
	for i, c := range cands {
		if c.shape != shapeCommand {
			texts++
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) > 0 {
			n := ss[0].name()
			if knownCommands[path.Base(n)] || platformTools[path.Base(n)] != "" || pl.repo.is(path.Base(n)) || pl.installed[strings.ToLower(path.Base(n))] > 0 ||
				strings.HasPrefix(n, "./") || strings.HasPrefix(n, "$") {
				known = true
				firstKnown = firstKnown || i == 0
			}
		}
	}
	// Text lines may be the output of the commands above them: a block
	// that starts with a command the plan knows and has at least as many
	// commands as lines of text (`spark 1 5 22` over `▁▂█`).
	if texts > 0 && !(firstKnown && len(cands)-texts >= texts) {
		for _, c := range cands {
			if c.shape != shapeCommand {
				return fmt.Sprintf("line %d is not a command (%s)", c.line, firstLine(c.text))
			}
		}
	}
	if !known {
		return fmt.Sprintf("no line starts with a command it knows (%s); add the run hint to run it", firstLine(cands[0].text))
	}
	return ""
}

// jsonBodyRe is a line of a JSON object: "key": value.
var jsonBodyRe = lazyre.New(`(?m)^\s*"[^"]+"\s*:\s*\S`)

// compoundRe finds what makes a command's later lines a body rather than
// more arguments: a here-document, a function, a loop or condition.
var compoundRe = lazyre.New(`<<|^\s*(if|for|while|until|case|select|function)\b|^\s*[\w:.-]+\s*\(\)|[{(]\s*$`)

// firstLineOf is a command's first line, backslash continuations joined.
func firstLineOf(s string) string {
	first, _, _ := strings.Cut(strings.ReplaceAll(s, "\\\n", " "), "\n")
	return first
}

// firstLine is a command's first line, with " …" when there are more.
func firstLine(s string) string {
	if first, _, more := strings.Cut(s, "\n"); more {
		return first + " …"
	}
	return s
}

// blockPlatform names the other platform a block is for, from its hint,
// its headings (innermost first), or the last sentence before it; "" when
// it fits Linux or says nothing.
func blockPlatform(b readme.Block) (name, where string) {
	for i := len(b.Headings) - 1; i >= 0; i-- {
		h := proseOnly(b.Headings[i])
		if n, fits, named := textPlatform(h); named {
			if fits && platformCount(h) > 1 {
				// A section for several platforms ("Windows, Debian,
				// Fedora instructions"): the label before the block says
				// which one it is.
				if s := lastSentence(b.Before); s != "" && len(s) <= 80 {
					if n, fits, named := textPlatform(proseOnly(s)); named && !fits {
						return n, "the text before the block"
					}
				}
			}
			if fits {
				return "", ""
			}
			return n, fmt.Sprintf("section %q", b.Headings[i])
		}
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 {
		if n, fits, named := textPlatform(proseOnly(s)); named && !fits {
			return n, "the text before the block"
		}
	}
	return "", ""
}

var (
	linkTargetRe = lazyre.New(`\]\([^)]*\)|<https?://[^>]*>|https?://\S+`)
	otherShellRe = lazyre.New(`(?i)\b(zsh|fish|nushell|powershell|xonsh|elvish|tcsh|csh|oh-my-zsh)\b|\.zshrc|config\.fish`)
	bashWordRe   = lazyre.New(`(?i)\bbash\b|\.bashrc|\bposix\b|\bsh\b`)
)

// plainText drops link targets and bare URLs from Markdown text, which
// would otherwise name platforms ("?arch=x86_64") that the prose does not.
func plainText(s string) string {
	if !strings.Contains(s, "](") && !strings.Contains(s, "http") { // in every match; most texts have neither
		return s
	}
	return linkTargetRe.ReplaceAllString(s, "]")
}

// proseOnly also drops code spans: `--arch` is a flag, not a platform.
func proseOnly(s string) string { return codeSpanRe.ReplaceAllString(plainText(s), " ") }

// blockShell names the other shell (zsh, fish, …) a block is for, by its
// innermost heading or the sentence before it, "" when none or when bash is
// named too.
func blockShell(b readme.Block) (string, string) {
	for i := len(b.Headings) - 1; i >= 0; i-- {
		h := plainText(b.Headings[i])
		if m := otherShellRe.FindString(h); m != "" && !bashWordRe.MatchString(h) {
			return m, fmt.Sprintf("section %q", b.Headings[i])
		}
		if bashWordRe.MatchString(h) {
			return "", ""
		}
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 {
		if m := otherShellRe.FindString(s); m != "" && !bashWordRe.MatchString(s) {
			return m, "the text before the block"
		}
	}
	return "", ""
}

// lastSentence returns the last sentence of a paragraph, without link
// targets.
func lastSentence(s string) string {
	s = strings.TrimSpace(plainText(s))
	for _, sep := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(s, sep); i >= 0 {
			s = s[i+len(sep):]
		}
	}
	return s
}

var (
	fileIntroRe = lazyre.New(`(?i)\b(save[ds]?|saving)\b[^.]{0,40}\bas\b|\b(create|creating|write|add|adding|put|paste|place|append|insert)\b[^.]{0,60}\b(file|script|\.?bashrc|\.?zshrc|\.?profile|\.env\w*|rc)\b|\b(in|into|to) (a|the|your|this) (new |following |config(uration)? |shell |startup |rc |env )?file\b|\bfile (named|called)\b|\bwith (the following|this) contents?\b|\b(following|this|these lines|it) (to|in|into) (your|the)\b[^.]{0,40}\b(file|rc|profile|config)\b|\b(add|append|put|paste|place|insert)\b[^.]{0,60}\b(to|in|into) (your|the) ` + "`?" + `~/\.\w|\b(below|following) is (a|an|the)\b[^.]{0,40}\bfile\b|\b(example|sample)\b[^.]{0,30}\bfile\b\s*:?\s*$`)
	notFileRe   = lazyre.New(`(?i)\b(run|execute|download|install|type|enter)\b`)
	codeSpanRe  = lazyre.New("`([^`]+)`")
	bashrcRe    = lazyre.New(`(?i)\.?bashrc|\.bash_profile|~/\.profile|\bbash\b`)
	otherRcRe   = lazyre.New(`(?i)\.?zshrc|\bzsh\b|config\.fish|\bfish\b|\bnushell\b|\bpowershell\b|\$profile|\bcsh\b|\btcsh\b|\bxonsh\b|\belvish\b`)
	shellCfgRe  = lazyre.New(`(?i)\bshell('s)? (config(uration)?|startup|rc|profile|init)|\brc file|\b(startup|profile) file|\bshell config`)
	pathLikeRe  = lazyre.New(`^[~./]?[\w.-]*[./][\w./-]*$|^[A-Z][\w-]*file$|^\.[\w.-]+$`)
	rcFileRe    = lazyre.New(`(?i)rc$|profile$`) // a shell startup file's name
)

// fileTarget reads the sentence before a block: when it presents the block
// as a file's content it returns the kind ("bashrc" for bash's startup
// files, "othershell" for another shell's, "file" otherwise) and the
// target as written.
func fileTarget(before string) (kind, target string) {
	before = plainText(before)
	if before == "" || !fileIntroRe.MatchString(before) {
		return "", ""
	}
	if notFileRe.MatchString(lastSentence(before)) && !regexp.MustCompile(`(?i)\bsave|\bfile (named|called)|bashrc|zshrc|profile`).MatchString(before) {
		return "", ""
	}
	target = "a file"
	for _, m := range codeSpanRe.FindAllStringSubmatch(before, -1) {
		if pathLikeRe.MatchString(m[1]) {
			target = m[1]
		}
	}
	switch {
	case otherRcRe.MatchString(before) && !bashrcRe.MatchString(before):
		m := otherRcRe.FindString(before)
		return "othershell", m
	case bashrcRe.MatchString(before) && (shellCfgRe.MatchString(before) || regexp.MustCompile(`(?i)bashrc|bash_profile|\.profile`).MatchString(before)):
		return "bashrc", rcTarget(before, "~/.bashrc")
	case shellCfgRe.MatchString(before) && !otherRcRe.MatchString(before):
		return "bashrc", rcTarget(before, "the shell's startup file")
	}
	if target == "a file" && !regexp.MustCompile(`(?i)\bfile\b|\bsave`).MatchString(before) {
		return "", ""
	}
	return "file", target
}

// rcTarget names the startup file a sentence points at: its code span
// that is one (`~/.bashrc`), else def.
func rcTarget(before, def string) string {
	for _, m := range codeSpanRe.FindAllStringSubmatch(before, -1) {
		if rcFileRe.MatchString(m[1]) {
			return m[1]
		}
	}
	return def
}

// noteInstalls records what a skipped command would have installed.
func (pl *planner) noteInstalls(c candidate, skipped string) {
	for _, s := range simples(lex(c.text)) {
		if tools, _, ok := installs(s, pl.repo); ok {
			for _, t := range tools {
				pl.plan.Installs = append(pl.plan.Installs, Install{Tool: t, Line: c.line, Command: firstLine(c.text), Skipped: skipped})
			}
		}
	}
}

// decide judges one command-shaped candidate.
func (pl *planner) decide(b readme.Block, c candidate, base string) Entry {
	skip := func(reason string) Entry {
		pl.noteInstalls(c, reason)
		return pl.entry(b, c, false, reason)
	}
	if jsonBodyRe.MatchString(c.text) && strings.HasPrefix(strings.TrimSpace(c.text), "{") {
		return pl.entry(b, c, false, "JSON data, not a command")
	}
	ws := lex(c.text)
	cmds := simples(ws)
	if len(cmds) == 0 {
		return pl.entry(b, c, false, "no command")
	}
	if b.Hints.Platform != "linux" {
		for _, s := range cmds {
			if p := commandPlatform(s, c.text); p != "" {
				return skip("other platform: " + p)
			}
		}
	}
	// Arguments are judged on the command's first line: the rest of a
	// function, loop or here-document is its body, not its arguments.
	head := cmds
	if strings.Contains(c.text, "\n") && compoundRe.MatchString(c.text) {
		head = simples(lex(firstLineOf(c.text)))
	}
	funcDef := len(head) > 0 && (head[0].name() == "function" || funcDefRe.MatchString(head[0].name()))
	if tc := trailingComment(firstLineOf(c.text)); tc != "" && b.Hints.Platform == "" {
		if n, _, named := textPlatform(tc); named && n != "" {
			return skip(fmt.Sprintf("other platform: %s (the comment on its line)", n))
		}
	}
	if p := positionalRe.FindString(quotedSingleRe.ReplaceAllString(c.text, "''")); p != "" && !funcDef && !strings.Contains(c.text, "()") {
		return skip(fmt.Sprintf("uses a script's arguments (%s): the content of a script, not a command to run", strings.TrimLeft(p, " \t\"=(")))
	}
	if c.comment != "" && b.Hints.Platform == "" {
		if n, _, named := textPlatform(c.comment); named && n != "" {
			return skip(fmt.Sprintf("other platform: %s (the comment above it)", n))
		}
		if m := otherShellRe.FindString(c.comment); m != "" && !bashWordRe.MatchString(c.comment) {
			return skip(fmt.Sprintf("for %s, not bash (the comment above it)", m))
		}
	}
	for _, s := range cmds {
		if img := pl.ownImage(s); img != "" {
			return skip(fmt.Sprintf("runs this project's Docker image %s: an alternative way to run it (the sandbox has no Docker)", img))
		}
		if tag, ok := pl.ownBuild(s); ok {
			if tag != "" {
				pl.images[strings.ToLower(tag)] = true
			}
			return skip("builds this project's Docker image: an alternative way to run it (the sandbox has no Docker)")
		}
	}
	if v := pl.otherVCSCommand(cmds); v != "" {
		return skip(fmt.Sprintf("works in a %s working copy: the checkout under test is not one", v))
	}
	// A clone of this repository, maybe with the cd into it, maybe followed
	// by more.
	if url, dir, ok := clone(cmds[0]); ok && pl.repo.isClone(url) {
		name, _ := repoOfURL(url)
		target := dir
		if target == "" {
			target = name
		}
		if dir != "" && dir != "." && !pl.repo.is(path.Base(dir)) && !strings.HasPrefix(dir, "-") {
			if deb := pl.laterDebianInstall(pl.repo.Names, c.line); deb > 0 && !debianBlock(b) {
				pl.notMade[strings.TrimSuffix(dir, "/")] = c.line
				return skip(fmt.Sprintf("alternative: %s line %d installs %s with the instructions for Debian/Ubuntu, this platform", pl.file, deb, strings.Join(pl.repo.Names, ", ")))
			}
			if prev := pl.installedAny(pl.repo.Names); prev > 0 {
				pl.notMade[strings.TrimSuffix(dir, "/")] = c.line
				return skip(fmt.Sprintf("alternative: %s line %d already installs %s", pl.file, prev, strings.Join(pl.repo.Names, ", ")))
			}
			for _, t := range pl.repo.Names {
				if pl.installed[t] == 0 {
					pl.installed[t] = c.line
					pl.cloned[t] = true
				}
			}
			pl.mentioned[strings.TrimSuffix(strings.TrimPrefix(dir, "~/"), "/")] = true
			e := pl.entry(b, c, true, fmt.Sprintf("clones this repository into %s: that directory is linked to the checkout under test instead", dir))
			e.Step.LinkCheckout = dir
			e.Step.Exec = chainRest(c.text, cmds, func(simple) bool { return false })
			return e
		}
		rest := chainRest(c.text, cmds, func(s simple) bool { return pl.isCdInto(s, target) })
		pl.cloneDirs[strings.TrimSuffix(target, "/")] = true
		if rest == "" {
			return pl.entry(b, c, false, "clones this repository: the run starts in its checkout")
		}
		e := pl.entry(b, c, true, "clones this repository: the run starts in its checkout, so only the rest of the line runs")
		e.Step.Exec = rest
		return e
	}
	// In README order: the reason names the first clone the command uses.
	dirs := slices.SortedFunc(maps.Keys(pl.notMade), func(a, b string) int {
		return cmp.Or(pl.notMade[a]-pl.notMade[b], strings.Compare(a, b))
	})
	for _, d := range dirs {
		if strings.Contains(c.text, d+"/") || strings.HasSuffix(strings.TrimSpace(firstLineOf(c.text)), " "+d) {
			return skip(fmt.Sprintf("uses %s, which the clone at line %d (not run) would have made", d, pl.notMade[d]))
		}
	}
	if len(cmds) == 1 && cmds[0].name() == "cd" {
		if args := cmds[0].args(); len(args) == 1 {
			d := strings.TrimSuffix(args[0], "/")
			first := strings.SplitN(d, "/", 2)[0]
			if pl.cloneDirs[d] || pl.repo.FilesKnown() && pl.repo.is(first) && !pl.repo.hasFile(d) && !pl.mentioned[first] {
				return skip("enters the clone of this repository: the run already starts in its checkout")
			}
		}
	}
	for _, s := range cmds {
		if what, ok := selfAdd(s, pl.repo); ok && !(s.name() == "go" && (installToolRe.MatchString(lastSentence(b.Before)) || !pl.goCode && isInstallSection(b.Headings))) {
			return skip(fmt.Sprintf("adds this project (%s) to the reader's own project: the checkout is the project itself", what))
		}
		if what := publishes(s); what != "" {
			return skip(fmt.Sprintf("publishes or logs in (%s): not part of trying the README", what))
		}
	}
	if host := remoteClient(cmds); host != "" {
		return skip(fmt.Sprintf("connects to %s: a service outside the sandbox", host))
	}
	if svc := needsAccount(cmds); svc != "" {
		return skip(fmt.Sprintf("needs a %s account: the sandbox has no login", svc))
	}
	if uninstalls(cmds, pl.repo.is) {
		return skip("uninstalls or reinstalls: not part of trying the README")
	}
	if prog := interactive(head); prog != "" && !funcDef {
		return skip(fmt.Sprintf("interactive: %s needs a terminal", prog))
	}
	if !funcDef && !cmds[len(cmds)-1].onlyInfo() && pl.usesProject(c.text) && blockCue(b, interactiveCueRe) != "" {
		return skip(fmt.Sprintf("interactive: the text presents it so (%q), and nobody is at the terminal", blockCue(b, interactiveCueRe)))
	}
	if !funcDef && pl.startsTUI(cmds) {
		off := ""
		if len(pl.tuiOff) > 0 {
			off = " without " + strings.Join(pl.tuiOff, " or ")
		}
		return skip(fmt.Sprintf("interactive: the README says the program is interactive by default, and this runs it on the terminal%s", off))
	}
	if pl.uiCue != "" && !funcDef && pl.opensUI(cmds) {
		return skip(fmt.Sprintf("interactive: the README presents the program so (%q), and this opens it on the terminal with nobody at it", pl.uiCue))
	}
	if sh := forShell(head); sh != "" {
		return skip(fmt.Sprintf("for %s, not bash", sh))
	}
	if m := otherRcWriteRe.FindString(c.text); m != "" {
		return skip(fmt.Sprintf("for another shell: it writes to %s", strings.TrimSpace(strings.TrimLeft(m, ">"))))
	}
	if n := path.Base(head[0].name()); exampleProgs[n] && !pl.mentioned[n] && pl.installed[n] == 0 && !pl.repo.is(n) {
		return skip(fmt.Sprintf("example program %s: the reader's own, not one this README makes", n))
	}
	if sh := shellNames[path.Base(head[0].name())]; sh != "" && len(head[0].args()) > 0 && pl.installed[path.Base(head[0].name())] == 0 {
		return skip(fmt.Sprintf("runs it with %s, another shell (the README tries it with bash too, or the sandbox has no %s)", sh, sh))
	}
	if what := follows(cmds); what != "" {
		return skip(fmt.Sprintf("runs until interrupted (%s)", what))
	}
	if t := usesContainers(cmds); t != "" {
		return skip(fmt.Sprintf("needs %s: the sandbox has no container engine", t))
	}
	ph, synopsis := rawPlaceholder(c.text)
	if ph == "" {
		ph, synopsis = placeholder(ws)
	}
	if ph != "" {
		if k := angleRe.FindString(ph); k != "" && keyRe.MatchString(k) {
			return skip(fmt.Sprintf("key press %s: shows an interactive completion, not a command to run", k))
		}
		if synopsis {
			return skip(fmt.Sprintf("usage synopsis (%s), not a command to run", ph))
		}
		return skip(fmt.Sprintf("placeholder %s: a value to fill in", ph))
	}
	if a := pl.exampleArg(head); a != "" && !funcDef && !inLineData(c.text, a) {
		return skip(fmt.Sprintf("example argument %s: an illustration, not a value for this run", a))
	}
	if f := pl.missingArchive(head); f != "" && !funcDef {
		return skip(fmt.Sprintf("extracts %s, which no earlier command downloads (a download the text describes)", f))
	}
	if f := pl.missingFile(head); f != "" && !funcDef && !inLineData(c.text, f) {
		return skip(fmt.Sprintf("refers to %s, which is not in the repository and which no earlier command creates: an example, not a step", f))
	}
	if u := localURL(cmds); u != "" && !pl.serverUp && server(cmds) == "" {
		return skip(fmt.Sprintf("needs a server at %s, and no earlier command starts one", u))
	}
	if p := npxOf(cmds); p != "" && isInstallSection(b.Headings) {
		if l := pl.installed[npmTool(p)]; l > 0 {
			return skip(fmt.Sprintf("alternative: runs %s with npx, without installing it; %s line %d already installs it", p, pl.file, l))
		}
	}
	// Installs: the first that fits Linux runs, later alternatives do not.
	var tools []string
	selfInstall := false
	for _, s := range cmds {
		ts, self, ok := installs(s, pl.repo)
		if ok {
			tools = append(tools, ts...)
			selfInstall = selfInstall || self
		}
	}
	tools = append(tools, binInstalls(cmds)...)
	for _, s := range cmds[1:] {
		if url, _, ok := clone(s); ok && pl.repo.isClone(url) {
			tools = append(tools, pl.repo.Names...) // a manual install from a clone
		}
	}
	if url, ok := pipesToShell(ws); ok && pl.urlNamesRepo(url) {
		tools = append(tools, pl.repo.Names...) // the project's own installer
	}
	if pl.runsOwnInstaller(cmds) {
		tools = append(tools, pl.repo.Names...) // the project's installer, downloaded first
	}
	// Deeper in a troubleshooting or FAQ section (a question of its own),
	// installs are fixes for that problem; other commands are examples.
	if th := section(b.Headings, troubleRe); len(tools) > 0 && th != "" {
		return skip(fmt.Sprintf("installs a fix from a troubleshooting section (%q): only when that problem occurs", th))
	}
	if len(tools) > 0 {
		prev, all := 0, true
		for _, t := range tools {
			if l := pl.installed[t]; l > 0 && !(selfInstall && pl.cloned[t]) {
				// (The project's own installer after its clone is the
				// clone's next step, not an alternative to it.)
				prev = l
			} else {
				all = false
			}
		}
		if all && prev > 0 {
			return skip(fmt.Sprintf("alternative: %s line %d already installs %s", pl.file, prev, strings.Join(tools, ", ")))
		}
		if deb := pl.laterDebianInstall(tools, c.line); deb > 0 && !debianBlock(b) {
			return skip(fmt.Sprintf("alternative: %s line %d installs %s with the instructions for Debian/Ubuntu, this platform", pl.file, deb, strings.Join(tools, ", ")))
		}
		for _, t := range tools {
			if pl.installed[t] == 0 {
				pl.installed[t] = c.line
			}
			pl.plan.Installs = append(pl.plan.Installs, Install{Tool: t, Line: c.line, Command: firstLine(c.text)})
		}
	}
	pl.remember(ws)
	pl.noteDownloads(cmds)
	pl.follow(cmds)
	e := pl.entry(b, c, true, base)
	text := c.text
	if _, ok := pipesToShell(ws); ok && e.Step.Exec == "" {
		// curl URL | sh: bash's status is the shell's, 0 when curl fed it
		// nothing; a person sees curl's error.
		e.Step.Exec = "(set -o pipefail\n" + c.text + "\n)"
		e.Reason += ": with pipefail, so a download that fails fails the step"
	}
	if y := assumeYes(cmds, c.text); y != "" && e.Step.Exec == "" {
		text = y
		e.Step.Exec = y
		e.Reason += ": with -y, as a person answers apt's question (the sandbox has no terminal)"
	}
	if what := needsRoot(cmds); what != "" {
		e.Step.Exec = asRoot(text)
		e.Reason += fmt.Sprintf(": run with sudo, as a person would (%s needs root, and the README leaves sudo out)", what)
	}
	if what := server(cmds); what != "" && !b.Hints.Background && b.Hints.Timeout == 0 {
		e.Reason += fmt.Sprintf(": starts a server (%s), so it runs in the background", what)
		e.Step.Background = true
	}
	return e
}

// remember notes the words of a command that runs: a file it names (a
// redirection target, an -o argument, a directory it makes) exists for the
// commands after it.
func (pl *planner) remember(ws []word) {
	input, cmdPos := false, true
	for _, w := range ws {
		if w.op != "" {
			input = w.op == "<"
			cmdPos = w.op[0] != '<' && w.op[0] != '>'
			continue
		}
		if input {
			input = false // what it reads, it does not create
			continue
		}
		if cmdPos && !isAssignment(w.text) {
			cmdPos = false // a command's name is not a file it makes
			continue
		}
		if w.text != "" {
			pl.mentioned[strings.TrimSuffix(strings.TrimPrefix(w.text, "./"), "/")] = true
			if url, _, _ := strings.Cut(w.text, "?"); urlRe.MatchString(url) {
				name, _ := repoOfURL(url)
				pl.mentioned[name] = true
			}
		}
	}
}

// installedAny returns the README line that installed one of the tools,
// 0 when none was.
func (pl *planner) installedAny(tools []string) int {
	for _, t := range tools {
		if l := pl.installed[t]; l > 0 {
			return l
		}
	}
	return 0
}

// urlWordSepRe separates the words of a URL.
var urlWordSepRe = lazyre.New(`[^A-Za-z0-9_-]+`)

// urlNamesRepo reports a URL that names the project: its owner/name, or
// one of its names as a word of the URL (https://pyenv.run).
func (pl *planner) urlNamesRepo(url string) bool {
	u := strings.ToLower(url)
	for _, s := range pl.repo.Slugs {
		if strings.Contains(u, "/"+s+"/") {
			return true
		}
	}
	for _, w := range urlWordSepRe.Split(u, -1) {
		if w != "" && pl.repo.is(w) {
			return true
		}
		// A file named for the project with a word before or after it:
		// install-xq, hr-installer.
		if parts := strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' }); len(parts) == 2 && (parts[0] == "install" || parts[0] == "get" || parts[1] == "install" || parts[1] == "installer") {
			if pl.repo.is(parts[0]) || pl.repo.is(parts[1]) {
				return true
			}
		}
		// A host or file named after the project: getcroc.com, install-tool.sh.
		for _, n := range pl.repo.Names {
			if len(n) >= 4 && len(w) <= len(n)+8 && strings.Contains(w, n) {
				return true
			}
		}
	}
	return false
}

// isCdInto reports `cd DIR` into the clone's directory.
func (pl *planner) isCdInto(s simple, dir string) bool {
	if s.name() != "cd" {
		return false
	}
	args := s.args()
	return len(args) == 1 && strings.TrimSuffix(args[0], "/") == strings.TrimSuffix(dir, "/")
}

// ownImage returns the image of a `docker run` (or podman) of this
// project's own image, "" otherwise.
func (pl *planner) ownImage(s simple) string {
	if n := s.name(); n != "docker" && n != "podman" {
		return ""
	}
	args := s.args()
	if len(args) == 0 || args[0] != "run" {
		return ""
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if dockerValueOpts[a] {
				i++
			}
			continue
		}
		img := strings.ToLower(a)
		if pl.images[img] {
			return a
		}
		ref, _, _ := strings.Cut(img, ":")
		if i := strings.LastIndexByte(ref, '@'); i > 0 {
			ref = ref[:i]
		}
		if pl.repo.is(path.Base(ref)) || pl.images[ref] || slices.ContainsFunc(pl.repo.Slugs, func(sl string) bool { return strings.HasSuffix(ref, sl) }) {
			return a
		}
		return ""
	}
	return ""
}

// ownBuild reports `docker build .` (the project's own Dockerfile) and the
// tag it gives the image.
func (pl *planner) ownBuild(s simple) (string, bool) {
	if n := s.name(); n != "docker" && n != "podman" {
		return "", false
	}
	args := s.args()
	if len(args) > 0 && args[0] == "buildx" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] != "build" {
		return "", false
	}
	tag, ctx := "", ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-t" || a == "--tag":
			if i+1 < len(args) {
				tag = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--tag="):
			tag = strings.TrimPrefix(a, "--tag=")
		case a == "-f" || a == "--file" || a == "--build-arg" || a == "--target" || a == "--platform":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			ctx = a
		}
	}
	if ctx == "." || ctx == "./" {
		return tag, true
	}
	return "", false
}

// dockerValueOpts are docker run options that take a separate value.
var dockerValueOpts = toSet(`-v --volume -e --env -p --publish -w --workdir --name -u --user --network --net --entrypoint
--mount -l --label --env-file --platform -h --hostname --add-host --cpus -m --memory --device --restart --pull
--cap-add --cap-drop --security-opt`)

// chainRest returns the part of an `a && b && c` line after its first
// command and any directly following commands for which skipAlso holds; ""
// when nothing is left or the line is not such a chain.
func chainRest(text string, cmds []simple, skipAlso func(simple) bool) string {
	parts := splitAndAnd(text)
	if len(parts) < 2 || len(parts) != len(cmds) {
		return ""
	}
	i := 1
	for i < len(cmds) && skipAlso(cmds[i]) {
		i++
	}
	if i >= len(parts) {
		return ""
	}
	return strings.Join(parts[i:], " && ")
}

// splitAndAnd cuts a command at top-level && (outside quotes); it returns
// nil when the command holds another operator (;, |, ||, newlines) at top
// level, since then its parts do not map one to one to simple commands.
func splitAndAnd(s string) []string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	var out []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
			continue
		}
		switch {
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '&' && i+1 < len(s) && s[i+1] == '&':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			i++
		case c == ';' || c == '|' || c == '\n' || c == '&' || c == '(' || c == '`' || c == '$':
			return nil
		default:
			cur.WriteByte(c)
		}
	}
	out = append(out, strings.TrimSpace(cur.String()))
	return out
}

// WriteText prints a plan for people: one line per candidate, grouped by
// code block, and a summary.
func WriteText(w io.Writer, p *Plan) error {
	var b strings.Builder
	run := len(p.Run())
	cmds := 0
	for _, e := range p.Entries {
		if e.Command != "" {
			cmds++
		}
	}
	fmt.Fprintf(&b, "%s: %d of %d candidate commands run, %d code blocks, order %s\n", p.File, run, cmds, p.Blocks, p.Order)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n.Text) // the text names the hint's line
	}
	last := -1
	for _, e := range p.Entries {
		if e.BlockLine != last {
			last = e.BlockLine
			lang := e.Language
			if lang == "" {
				lang = "unlabelled"
			}
			fmt.Fprintf(&b, "\nblock at line %d (%s)\n", e.BlockLine, lang)
		}
		verdict := "skip"
		if e.Run {
			verdict = "run "
		}
		cmd := firstLine(e.Command)
		if cmd == "" {
			cmd = "(no command)"
		}
		fmt.Fprintf(&b, "  %s %4d  %s\n         %s\n", verdict, e.Line, cmd, e.Reason)
	}
	if why := p.NothingToRun(); why != "" {
		fmt.Fprintf(&b, "\n%s\n", why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the entries as a JSON array (the stable form).
func WriteJSON(w io.Writer, p *Plan) error {
	es := p.Entries
	if es == nil {
		es = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(es)
}
