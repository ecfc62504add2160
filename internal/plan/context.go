package plan

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What the text around a block says about its commands: that they are
// interactive, for packagers, for a second machine; and what a block's
// lines are when they are not a script: a help text, a list of program
// names, sentences.

var (
	// interactiveCueRe is a heading or sentence that presents a command as
	// interactive: "Interactive", "an interactive menu", "Prompt for
	// input", "fuzzy matching", "Use `tab` … `enter` to confirm".
	// "Non-interactive" is not one.
	interactiveCueRe = lazyre.New(`(?i)(^|[^-\w])interactive(ly)?\b|\bprompts? (for|the user|you)\b|\bprompting (for|the user|you)\b|\bmenu\b|\bTUI\b|\bfuzzy\b|\bscroll(s|ing)? through\b|\b(use|press|hit|type) ` + "`?" + `(tab|enter|return|arrow|ctrl|space|esc)\b|\bselect (a|an|one|multiple|from)\b|\bpick (a|an|one|from)\b`)
	// packagingRe is a heading or sentence addressed to people who package
	// the project for a distribution.
	packagingRe = lazyre.New(`(?i)\bpackag(ing|ers?)\b[^.]{0,60}\b(distribution|distro)s?\b|\b(for|distribution|distro) packagers\b|\bpackaging\b[^.]{0,40}\bfor (a |your )?(linux )?(distribution|distro)`)
	// otherMachineRe is a sentence that moves to another computer.
	otherMachineRe = lazyre.New(`(?i)\bon (another|a different|the other|a second|the remote|a remote|the receiving|the sending) (computer|machine|host|server|device|pc|laptop)\b`)
	// uninstallCueRe is a sentence about removing or reinstalling the
	// project.
	uninstallCueRe = lazyre.New(`(?i)\b(un|re)install(ing|ation)?\b`)
)

// blockCue returns the innermost heading or the last sentence before the
// block that matches re, "" when none does.
func blockCue(b readme.Block, re *lazyre.Regexp) string {
	if h := innermost(b.Headings); re.MatchString(plainText(h)) {
		return h
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 && re.MatchString(s) {
		return s
	}
	return ""
}

// usesProject reports a command that runs one of the project's own
// programs anywhere in it (in a pipeline, in $( … )), or `git X` for a
// project named git-X.
func (pl *planner) usesProject(text string) bool {
	for _, s := range simples(lex(text)) {
		name, args := path.Base(s.name()), s.args()
		if pl.repo.is(name) || name == "git" && len(args) > 0 && pl.repo.is("git-"+args[0]) {
			return true
		}
		for _, w := range s.values() {
			if i := strings.Index(w, "$("); i >= 0 && pl.usesProject(strings.TrimSuffix(w[i+2:], ")")) {
				return true
			}
		}
	}
	return false
}

// functionWords are words of sentences that commands do not have as
// arguments.
var functionWords = toSet(`a an the of to for by in on with from your this that these those is are was were
and or per all every each into when if its their you it be can will should which`)

var proseWordRe = lazyre.New(`^[a-z][a-z'’-]*[,.;:]?$`)

// isProse reports a line that is a sentence rather than a command: three
// or more lower-case words with no option, path, quote or operator, one of
// them after the first a function word ("give a detailed list of git
// stats"), and a first word that is no command the plan knows.
func (pl *planner) isProse(line string) bool {
	ws := strings.Fields(strings.TrimSpace(line))
	if len(ws) < 3 {
		return false
	}
	first := ws[0]
	if knownCommands[first] || shellWords[first] || platformTools[first] != "" || pl.repo.is(first) || pl.installed[first] > 0 {
		return false
	}
	fn := false
	for i, w := range ws {
		if !proseWordRe.MatchString(w) {
			return false
		}
		if i > 0 && functionWords[strings.TrimRight(w, ",.;:")] {
			fn = true
		}
	}
	return fn
}

// nameList reports a block whose lines are each one bare program name
// (awk, basename, cat, …): a list of requirements, not commands.
func nameList(cands []candidate) bool {
	if len(cands) < 3 {
		return false
	}
	for _, c := range cands {
		t := strings.TrimSpace(stripComment(c.text))
		if c.shape != shapeCommand || strings.ContainsAny(t, " \t\n") || !commandNameRe.MatchString(t) {
			return false
		}
	}
	return true
}

// markHelpText turns into text the command-shaped lines of a block that
// are indented under a line of text: the descriptions of a help text's
// options ("-T, --detailed-git-stats" over "    give a detailed list").
func markHelpText(cands []candidate, lines []readme.Line) {
	indent := map[int]int{}
	for _, l := range lines {
		indent[l.Line] = len(l.Text) - len(strings.TrimLeft(l.Text, " \t"))
	}
	minIndent := -1
	for _, c := range cands {
		if i := indent[c.line]; minIndent < 0 || i < minIndent {
			minIndent = i
		}
	}
	for i := 1; i < len(cands); i++ {
		c, prev := &cands[i], cands[i-1]
		if c.shape == shapeCommand && prev.shape == shapeText && prev.endLine == c.line-1 &&
			indent[c.line] > minIndent && indent[c.line] >= indent[prev.line] && c.endLine == c.line {
			c.shape = shapeText
		}
	}
}

// accountRe names tools whose commands act on an account of a hosted
// service: they need a login the sandbox does not have.
var accountTools = map[string]string{
	"heroku": "Heroku", "vercel": "Vercel", "netlify": "Netlify", "fly": "Fly.io", "flyctl": "Fly.io",
	"firebase": "Firebase", "wrangler": "Cloudflare", "railway": "Railway", "doctl": "DigitalOcean",
	"gh": "GitHub", "aws": "AWS", "gcloud": "Google Cloud", "az": "Azure", "supabase": "Supabase",
	"surge": "Surge", "render": "Render", "disco": "Disco", "ngrok": "ngrok",
	"claude": "Anthropic (Claude Code)", "codex": "OpenAI (Codex)", "gemini": "Google (Gemini CLI)",
}

// needsAccount names the hosted service a command needs an account of,
// "" for none: `heroku config:set …`, `gh pr list`. Printing the version
// or the help needs none.
func needsAccount(cmds []simple) string {
	for _, s := range cmds {
		if svc := accountTools[path.Base(s.name())]; svc != "" && !s.onlyInfo() && len(s.args()) > 0 {
			return svc
		}
	}
	return ""
}

// uninstalls reports a command that removes or reinstalls something: `make
// uninstall`, `npm uninstall -g x`, `pip uninstall x`, or the project's own
// program's `uninstall` (own reports the project's names).
func uninstalls(cmds []simple, own func(string) bool) bool {
	for _, s := range cmds {
		args := s.args()
		for i, a := range args {
			switch a {
			case "uninstall", "reinstall", "remove", "purge", "autoremove":
				switch n := path.Base(s.name()); n {
				case "make", "npm", "pnpm", "yarn", "pip", "pip3", "pipx", "cargo", "gem", "apt", "apt-get", "dpkg", "brew", "snap", "uv":
					return true
				default:
					if i == 0 && a != "remove" && own(n) {
						return true
					}
				}
			}
		}
	}
	return false
}

var (
	// interactiveDefaultRe is a README saying its program is interactive
	// unless told otherwise: "three modes: interactive (default), …".
	interactiveDefaultRe = lazyre.New(`(?i)\binteractive( mode)? \((the )?default\)|\binteractive (mode )?by default\b|\bdefaults? to (the )?interactive\b`)
	// nonInteractiveFlagRe is a documented option that turns it off, with
	// its short form when the README gives one ("-n, --non-interactive").
	nonInteractiveFlagRe = lazyre.New(`(?:(-[A-Za-z]),\s+)?(--non-?interactive|--no-interactive|-noninteractive)\b`)
)

// interactiveDefault returns the options that make the project's program
// non-interactive when the README says it is interactive by default or
// documents such an option; ok is false otherwise.
func interactiveDefault(src []byte) (flags []string, ok bool) {
	// Both expressions need the word (the first, one of the option's
	// spellings); most READMEs lack it, and a plain search is far cheaper
	// than either scan. No match of the second spans lines.
	lower := bytes.ToLower(src)
	if !bytes.Contains(lower, []byte("interactive")) {
		return nil, false
	}
	if bytes.Contains(src, []byte("-noninteractive")) || bytes.Contains(src, []byte("-non-interactive")) || bytes.Contains(src, []byte("-no-interactive")) {
		for _, m := range nonInteractiveFlagRe.FindAllSubmatch(src, -1) {
			for _, f := range m[1:] {
				if len(f) > 0 {
					flags = append(flags, string(f))
				}
			}
		}
	}
	srcLines := bytes.Split(src, []byte("\n"))
	for i, l := range bytes.Split(lower, []byte("\n")) {
		if bytes.Contains(l, []byte("interactive")) && interactiveDefaultRe.Match(srcLines[i]) {
			return flags, true
		}
	}
	return flags, len(flags) > 0
}

// startsTUI reports a command that runs the project's program on the
// terminal when the README says the program is interactive by default: not
// with a non-interactive option, its output piped or redirected, or only
// its version or help.
func (pl *planner) startsTUI(cmds []simple) bool {
	if !pl.tui {
		return false
	}
	for _, s := range cmds {
		if !pl.repo.is(path.Base(s.name())) {
			continue
		}
		args := s.args()
		if slices.Contains(args, "--interactive") || slices.Contains(args, "-interactive") {
			return true
		}
		if s.piped || s.redirected || s.onlyInfo() {
			return false
		}
		for _, a := range args {
			for _, f := range pl.tuiOff {
				if a == f || strings.HasPrefix(a, f+"=") ||
					len(f) == 2 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(f[1])) {
					return false
				}
			}
		}
		return true
	}
	return false
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

// cwdUnknown is planner.cwd when the session's directory is not known: a
// directory of the checkout that the repository does not have (one a build
// made), or above the checkout.
const cwdUnknown = "\x00"

// follow tracks the session's directory through the `cd` commands that run,
// so that later commands' files are looked up where they run.
func (pl *planner) follow(cmds []simple) {
	for _, s := range cmds {
		if s.name() != "cd" && s.name() != "pushd" {
			continue
		}
		args := s.args()
		switch {
		case pl.cwd == cwdUnknown:
		case len(args) != 1 || strings.HasPrefix(args[0], "/") || strings.HasPrefix(args[0], "~") || strings.HasPrefix(args[0], "$") || args[0] == "-":
			// Out of the checkout: later examples are still judged against
			// its files, as a reader reads them.
			pl.cwd = ""
		default:
			d := path.Clean(path.Join(pl.cwd, args[0]))
			switch {
			case d == ".":
				pl.cwd = ""
			case strings.HasPrefix(d, ".."):
				pl.cwd = cwdUnknown
			case pl.repo.hasFile(d):
				pl.cwd = d
			default:
				pl.cwd = cwdUnknown // a directory an earlier command made
			}
		}
	}
}

// inRepo reports a path (relative to the session's directory) the
// repository has; true when the directory is not known.
func (pl *planner) inRepo(p string) bool {
	if pl.cwd == cwdUnknown {
		return true
	}
	return pl.repo.hasFile(path.Clean(path.Join(pl.cwd, p)))
}

// remoteClient names the host a network client (nc, telnet) connects to
// when it is not this machine, "" otherwise.
func remoteClient(cmds []simple) string {
	for _, s := range cmds {
		switch path.Base(s.name()) {
		case "nc", "netcat", "ncat", "telnet":
		default:
			continue
		}
		for _, a := range s.args() {
			if strings.HasPrefix(a, "-") {
				if a == "-l" || strings.Contains(a, "l") && len(a) > 1 && a[1] != '-' {
					return "" // listening: a server here
				}
				continue
			}
			switch a {
			case "localhost", "127.0.0.1", "::1", "0.0.0.0", "0":
				return ""
			}
			return a
		}
	}
	return ""
}

// otherRcWriteRe is a redirection into another shell's startup file.
var otherRcWriteRe = lazyre.New(`>>?\s*\S*(\.zshrc|\.zshenv|\.zprofile|config\.fish|\.tcshrc|\.cshrc)\b`)

// exampleProgs are program names READMEs use for the reader's own program.
var exampleProgs = toSet(`foo bar baz my-cli mycli my-app myapp my-tool mytool my-program myprogram my-command your-app`)

// needsRoot names what in a command needs root when the README leaves out
// sudo: every part of it is a system package step (`apt install x`,
// `apt-get update`, `dpkg -i x.deb`) or a system-wide `make install`; ""
// when any part has sudo or needs no root.
func needsRoot(cmds []simple) string {
	what := ""
	for _, s := range cmds {
		if s.sudo {
			return ""
		}
		args := s.args()
		switch n := s.name(); n {
		case "apt", "apt-get", "aptitude":
			if len(args) == 0 {
				return ""
			}
			switch args[0] {
			case "install", "update", "upgrade", "remove", "purge", "autoremove", "dist-upgrade", "full-upgrade", "build-dep":
			default:
				return ""
			}
			what = n + " " + args[0]
		case "dpkg":
			if len(args) == 0 || args[0] != "-i" && args[0] != "--install" && args[0] != "-r" {
				return ""
			}
			what = "dpkg " + args[0]
		case "make":
			install := false
			for _, a := range args {
				if a == "install" {
					install = true
				}
				if strings.HasPrefix(a, "DESTDIR=") || strings.HasPrefix(a, "PREFIX=~") || strings.HasPrefix(a, "PREFIX=$HOME") ||
					strings.HasPrefix(a, "prefix=~") || strings.HasPrefix(a, "prefix=$HOME") {
					return "" // an install into the reader's own directories
				}
			}
			if !install {
				return ""
			}
			what = "make install"
		default:
			return ""
		}
	}
	return what
}

// asRoot is what runs for a README command that needs root without sudo:
// the command through sudo when the sandbox user has passwordless sudo,
// else the command as written (root already, or no sudo: it then fails
// as it would for the reader).
func asRoot(text string) string {
	return "if [ \"$(id -u)\" != 0 ] && sudo -n true 2>/dev/null; then sudo env \"PATH=$PATH\" bash -c " + shellQuote(text) + "; else\n" + text + "\nfi"
}

// aptAsks are the apt verbs that ask for confirmation; aptVerbRe finds
// them in a command line.
var (
	aptAsks   = toSet(aptAskVerbs)
	aptVerbRe = lazyre.New(`\b(apt|apt-get|aptitude) (` + strings.ReplaceAll(aptAskVerbs, " ", "|") + `)\b`)
)

const aptAskVerbs = "install upgrade remove purge autoremove dist-upgrade full-upgrade build-dep reinstall"

// assumeYes returns an apt step with -y added when it asks for
// confirmation and the README leaves -y out: a person at the prompt
// answers yes; the sandbox has no terminal. "" when it is not such a step.
func assumeYes(cmds []simple, text string) string {
	if len(cmds) > 1 && !strings.Contains(text, "\n") && !strings.ContainsAny(text, "|;><#\"'`$") {
		// A chain (`sudo apt update && sudo apt install x y`): -y after
		// each apt verb that asks.
		changed := false
		out := aptVerbRe.ReplaceAllStringFunc(text, func(m string) string {
			changed = true
			return m + " -y"
		})
		for _, s := range cmds {
			for _, a := range s.args() {
				if a == "-y" || a == "--yes" || a == "--assume-yes" || a == "-qq" {
					return ""
				}
			}
		}
		if changed {
			return out
		}
		return ""
	}
	if len(cmds) != 1 || strings.Contains(text, "\n") || strings.ContainsAny(text, "|;&><#") {
		return ""
	}
	s := cmds[0]
	switch s.name() {
	case "apt", "apt-get", "aptitude":
	default:
		return ""
	}
	args := s.args()
	if len(args) == 0 || !aptAsks[args[0]] {
		return ""
	}
	for _, a := range args {
		switch a {
		case "-y", "--yes", "--assume-yes", "-qq":
			return ""
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'y') {
			return ""
		}
	}
	return strings.TrimSpace(text) + " -y"
}
