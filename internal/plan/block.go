package plan

import (
	"fmt"
	"path"
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

// codeLines are the lines of every code block of the README.
func codeLines(doc *readme.Doc) []readme.Line {
	var out []readme.Line
	for _, b := range doc.Blocks {
		out = append(out, b.Lines...)
	}
	return out
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

// projectLines returns the commands of a text-labelled block that run the
// project's own program: its `$ tool …` prompt lines, or, in a block with
// no prompt, its lines when every one is such a command. Authors label
// sessions "text" too; nil when the block is text.
func (pl *planner) projectLines(b readme.Block) []candidate {
	own := func(cmd string) bool {
		ss := simples(lex(cmd))
		return len(ss) > 0 && pl.repo.is(path.Base(ss[0].name())) && shapeOf(cmd) == shapeCommand
	}
	var out []candidate
	prompted := false
	for _, l := range b.Lines {
		if strings.TrimSpace(l.Text) == "" || l.Text[0] == ' ' || l.Text[0] == '\t' {
			continue
		}
		if cmd, ok := readme.CutPrompt(l.Text); ok {
			prompted = true
			if cmd = strings.TrimSpace(cmd); own(cmd) {
				out = append(out, candidate{text: cmd, line: l.Line, endLine: l.Line, shape: shapeCommand})
			}
		}
	}
	if prompted {
		return out
	}
	for _, l := range b.Lines {
		t := strings.TrimSpace(l.Text)
		if t == "" {
			continue
		}
		if !own(t) {
			return nil
		}
		out = append(out, candidate{text: t, line: l.Line, endLine: l.Line, shape: shapeCommand})
	}
	return out
}
