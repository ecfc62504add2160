package plan

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

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
