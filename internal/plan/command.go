package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

// cmd is one command-shaped candidate as the command rules see it.
type cmd struct {
	b    readme.Block
	c    candidate
	ws   []word
	cmds []simple
	// head are the simple commands of its first line when it is a
	// function, loop or here-document: their arguments are its arguments,
	// the rest is its body.
	head    []simple
	funcDef bool // it defines a function
}

// commandRule is one named rule over a command: it returns the entry it
// decides and true, or false to leave the command to the next rule.
type commandRule struct {
	name   string
	decide func(pl *planner, x *cmd) (Entry, bool)
}

// commandRules are tried in order on each command-shaped candidate; the
// first that decides wins, and a command no rule skips runs (runRule).
// They are defined by topic: text.go, platforms.go, containers.go,
// repo.go, services.go, interactive.go, placeholders.go, inputs.go,
// installs.go.
var commandRules = []commandRule{
	{"json-data", jsonData},
	{"no-command", func(pl *planner, x *cmd) (Entry, bool) {
		return pl.entry(x.b, x.c, because(KindText, "no command")), len(x.cmds) == 0
	}},
	{"other-platform-tool", platformTool},
	{"platform-comment", platformComment},
	{"script-arguments", scriptArguments},
	{"comment-above", commentAbove},
	{"own-docker-image", ownDockerImage},
	{"other-vcs", otherVCSRule},
	{"clone-of-self", cloneOfSelf},
	{"in-skipped-clone", inSkippedClone},
	{"cd-into-clone", cdIntoClone},
	{"library-use-or-publish", libraryUseOrPublish},
	{"remote-client", remoteClientRule},
	{"needs-account", needsAccountRule},
	{"uninstalls", uninstallsRule},
	{"interactive", interactiveRule},
	{"reads-stdin", stdinRule},
	{"other-shell", otherShellRule},
	{"example-program", exampleProgram},
	{"server", serverRule},
	{"runs-until-stopped", runsUntilStopped},
	{"completion", completionRule},
	{"optional-comment", optionalRule},
	{"container", containerRule},
	{"placeholder", placeholderRule},
	{"unset-variable", unsetVariable},
	{"missing-input", missingInput},
	{"made-by-skipped", madeBySkipped},
	{"unknown-program", unknownProgram},
	{"plugin-subcommand", pluginSubcommand},
	{"looked-up-program", lookedUpProgram},
	{"install", installRule},
}

// decide judges one command-shaped candidate: the first command rule that
// decides, else it runs (runRule) with base as its reason.
func (pl *planner) decide(b readme.Block, c candidate, base Decision) Entry {
	if rest, ok := strings.CutPrefix(c.text, "[sudo] "); ok && !strings.Contains(rest, "\n") {
		// "[sudo] npm install -g tool": sudo where the reader needs it,
		// as a person runs it.
		c.text = "sudo " + rest
		e := pl.decide(b, c, base)
		e.Command = "[sudo] " + rest
		if e.Run && e.Step.Exec == "" {
			e.Step.Exec = asRoot(rest)
		}
		return e
	}
	x := &cmd{b: b, c: c, ws: lex(c.text)}
	x.cmds = simples(x.ws)
	// Arguments are judged on the command's first line: the rest of a
	// function, loop or here-document is its body, not its arguments.
	x.head = x.cmds
	if strings.Contains(c.text, "\n") && compoundRe.MatchString(c.text) {
		x.head = simples(lex(firstLineOf(c.text)))
	}
	x.funcDef = len(x.head) > 0 && (x.head[0].name() == "function" || funcDefRe.MatchString(x.head[0].name())) ||
		definesFuncRe.MatchString(strings.TrimSpace(firstLineOf(c.text)))
	for _, r := range commandRules {
		if e, ok := r.decide(pl, x); ok {
			return e
		}
	}
	return pl.runRule(x, base)
}

// runHinted runs a command of a block with the run hint: no rule skips
// it; what it installs is recorded.
func (pl *planner) runHinted(b readme.Block, c candidate, base Decision) Entry {
	x := &cmd{b: b, c: c, ws: lex(c.text)}
	x.cmds = simples(x.ws)
	if len(x.cmds) > 0 {
		tools, self := pl.installedBy(x)
		pl.recordInstalls(x, tools, self)
	}
	return pl.runRule(x, base)
}

// skip is the entry that skips the command; what it would have installed
// is noted, so that a later "not found" can name it, and the variables it
// would have set are noted as not set.
func (pl *planner) skip(x *cmd, d Decision) (Entry, bool) {
	pl.noteInstalls(x.c, d.Reason)
	pl.noteUnmade(x)
	for _, a := range assignments(x.cmds) {
		if name, _, ok := strings.Cut(a, "="); ok {
			pl.markUnset(name, x.c.line)
		}
	}
	return pl.entry(x.b, x.c, d), true
}

// sessionVars are variables every shell session has: a skipped line that
// sets one (`export PATH=$PATH:$GOPATH/bin`) leaves it set.
var sessionVars = toSet(`PATH HOME USER LOGNAME SHELL PWD OLDPWD LANG TERM HOSTNAME`)

// markUnset notes that a variable only the skipped line sets is not set
// (unsetVariable skips its later users).
func (pl *planner) markUnset(name string, line int) {
	if pl.seen.unset[name] == 0 && !sessionVars[name] {
		pl.seen.unset[name] = line
	}
}

// pass leaves the command to the next rule.
func pass() (Entry, bool) { return Entry{}, false }

// runRule is the last rule: the command runs, as a person would run it
// (with pipefail for an installer piped to a shell, -y for apt, sudo where
// the README leaves it out, in the background for a server).
func (pl *planner) runRule(x *cmd, base Decision) Entry {
	pl.remember(x.ws)
	pl.define(x.c.text)
	for _, a := range assignments(x.cmds) {
		if name, _, ok := strings.Cut(a, "="); ok {
			delete(pl.seen.unset, name)
		}
	}
	for _, s := range x.cmds {
		// A script of the repository that runs (./models/download.sh) may
		// make files beside it.
		if n := strings.TrimPrefix(s.script(), "./"); strings.Contains(n, "/") && pl.inRepo(n) {
			pl.seen.mentioned[strings.SplitN(n, "/", 2)[0]] = true
		}
	}
	for _, s := range x.cmds {
		if configureGenerators[path.Base(s.script())] {
			pl.seen.configureMade = true
		}
		switch {
		case configures(s):
			pl.seen.configured = true
		case buildsProject(s):
			pl.seen.built = true
		}
	}
	gen := pl.proseGenerator(x.b, x.head)
	pl.seen.configureMade = pl.seen.configureMade || gen != ""
	pl.noteDownloads(x.cmds)
	pl.follow(x.cmds)
	e := pl.entry(x.b, x.c, base)
	if gen != "" && e.Step.Setup == "" {
		// What the text says to run first on a checkout: ./configure is
		// generated.
		e.Step.Setup, e.Step.SetupLine = gen, x.b.Line
		e.Reason += reasonf(": with `%s` first, as the text before the block says (the checkout has no ./configure)", gen)
	}
	text := x.c.text
	if _, ok := pipesToShell(x.ws); ok && e.Step.Exec == "" {
		// curl URL | sh: bash's status is the shell's, 0 when curl fed it
		// nothing; a person sees curl's error.
		e.Step.Exec = "(set -o pipefail\n" + x.c.text + "\n)"
		e.Reason += reasonf(": with pipefail, so a download that fails fails the step")
	}
	if y := assumeYes(x.cmds, x.c.text); y != "" && e.Step.Exec == "" {
		text = y
		e.Step.Exec = y
		e.Reason += reasonf(": with -y, as a person answers apt's question (the sandbox has no terminal)")
	}
	if what := needsRoot(x.cmds); what != "" && (what != "make install" || !pl.installsForUser()) {
		e.Step.Exec = asRoot(text)
		e.Reason += reasonf(": run with sudo, as a person would (%s needs root, and the README leaves sudo out)", what)
	}
	return e
}

// jsonData is a line of a JSON object in a shell block.
func jsonData(pl *planner, x *cmd) (Entry, bool) {
	if jsonBodyRe.MatchString(x.c.text) && strings.HasPrefix(strings.TrimSpace(x.c.text), "{") {
		return pl.entry(x.b, x.c, because(KindText, "JSON data, not a command")), true
	}
	return pass()
}

// scriptArguments is a line that uses a script's arguments ($1, "$@"):
// the content of a script, not a command.
func scriptArguments(pl *planner, x *cmd) (Entry, bool) {
	p := positionalRe.FindString(quotedSingleRe.ReplaceAllString(x.c.text, "''"))
	if p == "" || x.funcDef || strings.Contains(x.c.text, "()") {
		return pass()
	}
	return pl.skip(x, because(KindFileContent, "uses a script's arguments (%s): the content of a script, not a command to run", strings.TrimLeft(p, " \t\"=(")))
}

// packageManagers are the programs whose packageVerbs take package names.
var packageManagers = toSet(`npm pnpm yarn bun pip pip3 pipx uv gem cargo apt apt-get brew dnf yum apk`)

// remember notes the words of a command that runs: a file it names (a
// redirection target, an -o argument, a directory it makes) exists for the
// commands after it.
func (pl *planner) remember(ws []word) {
	input, cmdPos := false, true
	name, verb := "", "" // the program and its first operand
	for _, w := range ws {
		if w.op != "" {
			input = w.op == "<"
			cmdPos = w.op[0] != '<' && w.op[0] != '>'
			if cmdPos {
				name, verb = "", ""
			}
			continue
		}
		if input {
			input = false // what it reads, it does not create
			continue
		}
		if cmdPos && !isAssignment(w.text) {
			cmdPos = false // a command's name is not a file it makes
			if w.text != "sudo" {
				name = path.Base(w.text)
			} else {
				cmdPos = true
			}
			continue
		}
		if !strings.HasPrefix(w.text, "-") && verb == "" {
			verb = w.text
		} else if packageManagers[name] && packageVerbs[verb] && !strings.HasPrefix(w.text, "-") &&
			!strings.ContainsAny(w.text, "/~") && !strings.HasPrefix(w.text, ".") {
			continue // a package it installs names no file (`npm install -g forever`)
		}
		if w.text != "" {
			pl.seen.mentioned[strings.TrimSuffix(strings.TrimPrefix(w.text, "./"), "/")] = true
			if url, _, _ := strings.Cut(w.text, "?"); urlRe.MatchString(url) {
				name, _ := repoOfURL(url)
				pl.seen.mentioned[name] = true
			}
		}
	}
}
