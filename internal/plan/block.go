package plan

import (
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

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

// block plans one code block: a file the README names is written; other
// blocks are split into candidates (or decided whole: text, another
// language), the block rules may decide for all of them, and each
// command-shaped candidate is judged by the command rules.
func (pl *planner) block(b readme.Block) []Entry {
	if len(b.Lines) == 0 {
		return nil
	}
	if e, ok := pl.fileBlock(b); ok {
		if e.Run {
			e.Planned = PlannedStep
		}
		return []Entry{e}
	}
	cands, base, whole := pl.candidates(b)
	if whole != nil {
		return pl.blockEntry(b, *whole)
	}
	if b.Hints.Cwd != "" {
		// Paths in the block are relative to the hint's directory.
		saved := pl.seen.cwd
		pl.seen.cwd = cwdUnknown
		defer func() { pl.seen.cwd = saved }()
	}
	var all *Decision
	switch {
	case b.Hints.Run:
		// The run hint: every command of the block runs, as a step,
		// whatever the rules would say (but another platform's hint).
		if name, fits := hintPlatform(b.Hints.Platform); !fits {
			d := otherPlatform("%s (platform hint)", name)
			all = &d
		}
	default:
		all = pl.blockDecision(b, cands)
		if all != nil && all.Kind.Runs() {
			base, all = *all, nil
		}
	}
	out := pl.judge(b, cands, base, all)
	pl.withSkippedGoal(out)
	pl.applyHints(b, &out)
	pl.markPlanned(b, out)
	return out
}

// fileBlock is the entry of a block that is the content of a file the
// README names (the file hint, or its text), which is written there.
func (pl *planner) fileBlock(b readme.Block) (Entry, bool) {
	h := b.Hints
	if h.File != "" {
		return pl.fileEntry(b, h.File, because(KindWriteFile, "file hint: writes the block to %s", h.File)), true
	}
	if target, why := pl.namedFile(b); target != "" && !h.Skip && !h.Run {
		return pl.fileEntry(b, target, why), true
	}
	return Entry{}, false
}

// candidates splits a block into its would-be commands, with the decision
// its commands get when nothing else decides (base); whole is set instead
// when the block has no candidate: text, output, another language.
func (pl *planner) candidates(b readme.Block) (cands []candidate, base Decision, whole *Decision) {
	h, lang := b.Hints, b.Lang
	label := "```" + lang + " block"
	if lang == "" {
		label = "unlabelled block"
		if b.Indented {
			label = "indented block"
		}
	}
	decided := func(k Kind, format string, a ...any) ([]candidate, Decision, *Decision) {
		d := because(k, format, a...)
		return nil, Decision{}, &d
	}
	switch {
	case b.Mode == readme.ModeConsole && lang == "" && !h.Run && !readme.IsPromptLine(firstNonComment(b.Lines)):
		// Prompts indented under a heading of text ("Usage", "Examples"):
		// a help text that shows example sessions.
		return decided(KindText, "%s: a help text with example prompts, not a session", label)
	case b.Mode == readme.ModeConsole:
		for _, c := range b.Commands {
			cands = append(cands, candidate{text: c.Text, line: c.Line, endLine: c.EndLine, shape: shapeCommand})
		}
		if len(cands) == 0 {
			return decided(KindOutput, "%s: no command after its prompts", label)
		}
		return cands, because(KindCommand, "%s: shell prompt", label), nil
	case readme.IsShellLang(lang) || h.Run:
		cands = pl.scriptCandidates(b.Lines)
		if len(cands) == 0 {
			return decided(KindText, "%s: only comments", label)
		}
		if h.Run {
			for i := range cands {
				cands[i].shape = shapeCommand // the hint says every line is one
			}
			return cands, because(KindCommand, "%s: run hint", label), nil
		}
		return cands, because(KindCommand, "%s", label), nil
	case otherShellLangs[lang] != "":
		what := otherShellLangs[lang]
		switch {
		case h.Platform == "linux":
			return decided(KindOtherShell, "%s syntax, not bash (add the run hint to run it with bash)", what)
		case strings.Contains(what, "PowerShell") || strings.Contains(what, "Windows"):
			d := otherPlatform("%s", what)
			return nil, Decision{}, &d
		}
		return decided(KindOtherShell, "%s syntax, not bash", what)
	case lang == "" && !h.Skip:
		cands = pl.scriptCandidates(b.Lines)
		if why := pl.notCommands(cands); why != "" {
			return decided(KindText, "%s: %s", label, why)
		}
		for _, c := range cands {
			if c.shape != shapeCommand {
				return cands, because(KindCommand, "%s: commands and their output", label), nil
			}
		}
		return cands, because(KindCommand, "%s: every line is a command", label), nil
	case lang == "":
		return decided(KindHint, "%s: skip hint", label)
	case textLangs[lang] && !h.Skip:
		if cands = pl.projectLines(b); len(cands) > 0 {
			return cands, because(KindCommand, "%s: text, but it runs this project's program", label), nil
		}
		return decided(KindText, "%s block: text, not commands", lang)
	case textLangs[lang]:
		return decided(KindText, "%s block: text, not commands", lang)
	}
	return decided(KindOtherLanguage, "%s code, not shell", lang)
}

// judge decides each candidate of a block: all is the block rules'
// decision for every one of them (nil when they decided nothing); a
// command-shaped candidate is otherwise judged by the command rules, in
// the light of what the block's earlier commands were (a skipped install
// takes the rest of its block with it, a skipped container the lines typed
// inside it).
func (pl *planner) judge(b readme.Block, cands []candidate, base Decision, all *Decision) []Entry {
	var out []Entry
	var with *Decision // what the block's later commands go with
	srcLine, cloneLine := 0, 0
	for _, c := range cands {
		switch {
		case all != nil:
			out = append(out, pl.entry(b, c, *all))
			if c.shape == shapeCommand {
				pl.noteInstalls(c, all.Reason)
			}
		case c.shape == shapeREPL:
			out = append(out, pl.entry(b, c, because(KindText, "REPL line (>>>), not shell")))
		case c.shape == shapeText:
			out = append(out, pl.entry(b, c, because(KindOutput, "output or text, not a command")))
		case with != nil:
			out = append(out, pl.entry(b, c, *with))
		case srcLine > 0 && aptCommand(c.text):
			out = append(out, pl.entry(b, c, because(KindOtherPlatform, "installs from the package source that line %d adds, which is not run", srcLine)))
		case cloneLine > 0 && checksOut(c.text):
			out = append(out, pl.entry(b, c, because(KindCloneOfSelf, "checks out another version of the clone at line %d: the run tests the checkout as it is", cloneLine)))
		case b.Hints.Run:
			out = append(out, pl.runHinted(b, c, base))
		default:
			e := pl.decide(b, c, base)
			switch {
			case !e.Run && e.cause&causeAlternative != 0 && len(out) == 0:
				d := because(KindAlternative, "part of the alternative at line %d, which is not run", e.Line)
				with = &d
			case !e.Run && e.cause&causeArchive != 0 && len(out) == 0:
				d := because(KindMissingInput, "part of the install from the archive at line %d, which is not run", e.Line)
				with = &d
			case !e.Run && (e.Kind == KindPlaceholder || e.Kind == KindMissingInput) && len(out) == 0 && downloads(c.text):
				// A download of a release the reader picks (vx.x.x) opens
				// the block: what follows unpacks and installs it.
				d := because(KindMissingInput, "part of the install from the download at line %d, which is not run", e.Line)
				with = &d
			case !e.Run && e.cause&causePackageSource != 0:
				srcLine = e.Line
			case e.cause&causeClone != 0:
				cloneLine = e.Line
			case !e.Run && (e.Kind == KindPlaceholder || e.Kind == KindMissingInput) && changesDir(c.text):
				d := because(KindMissingInput, "runs in the directory that line %d enters, which is not run", e.Line)
				with = &d
			case !e.Run && entersContainer(simples(lex(c.text))):
				d := because(KindContainer, "typed inside the container that line %d starts, which is not run", e.Line)
				with = &d
			}
			if e.Run && (e.Step.Background || b.Hints.Background) {
				pl.seen.serverUp = true
			}
			out = append(out, e)
		}
	}
	return out
}

// containerSetup are the programs that only put files in place.
var containerSetup = map[string]bool{"cd": true, "cp": true, "mv": true, "mkdir": true, "touch": true, "chmod": true, "ln": true}

// withSkippedGoal skips the commands of a block that only prepare a
// skipped step after them: fetching and bootstrapping another platform's
// package manager (`git clone …/vcpkg`, `cd vcpkg`, `./bootstrap-vcpkg.sh`
// before `./vcpkg install x`), the files a skipped container reads, the
// directory made and entered for a skipped clone of this repository, or
// committing what a skipped `git push` would publish.
func (pl *planner) withSkippedGoal(es []Entry) {
	pl.assignsForSkipped(es)
	for i, goal := range es {
		if goal.Run || goal.Command == "" {
			continue
		}
		var prepares func(simple) bool
		switch {
		case goal.cause&causeOtherPlatform != 0:
			prepares = func(s simple) bool {
				_, _, isClone := clone(s)
				return isClone || s.name() == "cd" || strings.HasPrefix(s.name(), "./")
			}
		case goal.cause&causeAlternative != 0:
			// The build steps of a manual install that another install
			// already covers: `npm install` before `npm install -g`.
			prepares = func(s simple) bool {
				_, _, isClone := clone(s)
				return isClone || s.name() == "cd" || buildStep(s) || pkgIndexUpdate(s) && sameManager(s, goal.Command)
			}
		case goal.Kind == KindContainer:
			// The files a container reads, made just before it starts
			// (`cp .env.example .env`, `mkdir data`, `cd deploy`): with the
			// container not run, they check nothing.
			prepares = func(s simple) bool {
				_, _, isClone := clone(s)
				return isClone || containerSetup[s.name()]
			}
		case goal.Kind == KindCloneOfSelf:
			// The place made for a clone the run does not need (`mkdir -p
			// $GOPATH/src/x && cd $GOPATH/src/x` before it): entered, it
			// would take the later lines out of the checkout.
			prepares = func(s simple) bool { return s.name() == "cd" || s.name() == "mkdir" }
		case goal.cause&causeGitPush != 0:
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
			e.setDecision(because(KindPrepares, "prepares line %d, which is not run (%s)", goal.Line, goal.Reason))
		}
	}
}

// assignsForSkipped skips a line that only sets variables
// (`V=$(make version)`, `export V=1`) when a skipped line of the block uses
// them and no line of the block that runs does: it prepares what is not
// run, and its own failure would fail the run. Later lines that use the
// variables are skipped in turn (unsetVariable).
func (pl *planner) assignsForSkipped(es []Entry) {
	for i, goal := range es {
		if goal.Run || goal.Command == "" {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			e := &es[j]
			vars := onlyAssigns(e.Command)
			if !e.Run || len(vars) == 0 || !usesAny(goal.Command, vars) {
				continue
			}
			used := false
			for _, o := range es[j+1:] {
				used = used || o.Run && usesAny(o.Command, vars)
			}
			if used {
				continue
			}
			e.setDecision(because(KindPrepares, "sets %s only for line %d, which is not run (%s)", strings.Join(vars, ", "), goal.Line, goal.Reason))
			for _, v := range vars {
				pl.markUnset(v, e.Line)
			}
		}
	}
}

// onlyAssigns returns the variables a command only sets (`V=$(make
// version)`, `export V=1 W=2`), nil when it does anything else.
func onlyAssigns(command string) []string {
	ss := simples(lex(command))
	for _, s := range ss {
		if n := s.name(); n == "" && len(s.assign) == 0 || n != "" && (n != "export" || len(s.args()) == 0) {
			return nil
		}
	}
	var vars []string
	for _, a := range assignments(ss) {
		name, _, ok := strings.Cut(a, "=")
		if !ok {
			return nil // `export NAME`: it sets nothing
		}
		vars = append(vars, name)
	}
	return vars
}

// usesAny reports a command that uses one of the variables.
func usesAny(command string, vars []string) bool {
	return slices.ContainsFunc(usedVars(command), func(v string) bool { return slices.Contains(vars, v) })
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
