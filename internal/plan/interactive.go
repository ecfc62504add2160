package plan

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Interactive programs: what needs a person at a terminal (servers and
// what never ends by itself are in servers.go).

// editors are the editors and pagers a command may hand files to (xargs
// vim, fd -x nvim).
var editors = toSet(`vim vi nvim nano emacs less`)

// interactive names the program a command starts that needs a terminal,
// "" when it needs none.
func interactive(cmds []simple) string {
	if len(cmds) == 0 {
		return ""
	}
	// A fuzzy finder needs the terminal wherever it stands in a pipeline.
	for _, s := range cmds {
		switch n := path.Base(s.name()); n {
		case "fzf", "sk", "peco", "fzy":
			filter := slices.ContainsFunc(s.args(), func(a string) bool { return a == "-f" || strings.HasPrefix(a, "--filter") })
			if !filter {
				return n
			}
		case "tmux":
			// Every tmux command but a detached new session or the version
			// needs a tmux server, with a terminal.
			if args := s.args(); !slices.Contains(args, "-d") && !slices.Contains(args, "-V") {
				return n
			}
		case "xargs":
			for _, a := range s.args() {
				if editors[path.Base(a)] {
					return path.Base(a)
				}
			}
		}
	}
	// Otherwise the last command of a pipeline is the one on the terminal,
	// unless it only prints its version or help.
	s := cmds[len(cmds)-1]
	name, args := path.Base(s.name()), s.args()
	if s.onlyInfo() {
		return ""
	}
	for i, a := range args {
		if (a == "-x" || a == "-X" || a == "--exec" || a == "--exec-batch") && i+1 < len(args) && editors[path.Base(args[i+1])] {
			return path.Base(args[i+1])
		}
	}
	if len(args) > 0 && args[0] == "edit" && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--") }) {
		return name + " edit (an editor)" // pet edit, npm edit x, kubectl edit deploy/x
	}
	if opensREPL(s, len(cmds) > 1 && cmds[len(cmds)-2].piped) {
		return name + " (a REPL)"
	}
	if g := generator(name, args); g != "" {
		return g + " (a project generator, which asks its questions on the terminal)"
	}
	switch name {
	case "$EDITOR", "${EDITOR}", "$VISUAL", "${VISUAL}":
		return "an editor (" + name + ")"
	case "vim", "vi", "nvim", "nano", "emacs", "hx", "helix", "micro", "kak", "pico", "joe", "mg", "less", "more", "most", "top", "htop", "btop", "atop", "man",
		"mc", "ranger", "nnn", "tig", "lazygit", "ncdu", "screen", "watch":
		return name
	case "tmux":
		if len(args) == 0 || args[0] == "new" || args[0] == "new-session" || args[0] == "attach" || args[0] == "a" {
			return name
		}
	case "openssl":
		// `openssl req` asks for the certificate's names on the terminal
		// unless -subj gives them or -batch takes the defaults.
		if len(args) > 0 && args[0] == "req" && !slices.Contains(args, "-subj") && !slices.Contains(args, "-batch") && !slices.Contains(args, "-x509toreq") && (slices.Contains(args, "-new") || slices.Contains(args, "-newkey")) {
			return "openssl req (it asks for the certificate's names; -subj gives them)"
		}
	case "crontab":
		if slices.Contains(args, "-e") {
			return "crontab -e (an editor)"
		}
	case "ssh", "mosh", "telnet", "ftp", "sftp":
		pos := 0
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				pos++
			}
		}
		if pos <= 1 {
			return name
		}
	}
	return ""
}

// generator names a project generator that asks for the new project's
// name and options (`npm create hono@latest`, `npx create-react-app`,
// `cargo generate`, `deno run -A jsr:@fresh/init`), "" for other commands
// and for one told to take its defaults (-y, --yes, cargo generate's
// --name).
func generator(name string, args []string) string {
	if slices.Contains(args, "-y") || slices.Contains(args, "--yes") || slices.Contains(args, "--defaults") {
		return ""
	}
	switch name {
	case "npm", "pnpm", "yarn", "bun":
		if len(args) > 1 && (args[0] == "create" || args[0] == "init" && !strings.HasPrefix(args[1], "-")) {
			return name + " " + args[0]
		}
	case "npx", "pnpx", "bunx":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				if strings.HasPrefix(npmTool(a), "create-") {
					return name + " " + npmTool(a)
				}
				break
			}
		}
	case "cargo":
		if len(args) > 0 && args[0] == "generate" && !slices.ContainsFunc(args, func(a string) bool { return a == "--name" || strings.HasPrefix(a, "--name=") }) {
			return "cargo generate"
		}
	case "deno":
		for _, a := range args {
			if strings.HasPrefix(a, "jsr:@") && strings.HasSuffix(a, "/init") || strings.HasPrefix(a, "npm:create-") {
				return "deno run " + a
			}
		}
	}
	return ""
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
	if !pl.readme.tui {
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
			for _, f := range pl.readme.tuiOff {
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

// keyBindingsHeadingRe and interactiveIntroRe are a README presenting its program as a terminal
// UI: a section of its key bindings, or an opening that says it works
// interactively or shows a selection interface.
var (
	// (A top-level section: "### Keys" under "Interactive mode" is about
	// one mode of the program.)
	keyBindingsHeadingRe = lazyre.New(`(?im)^#{1,2}\s*(key\s*-?bindings?|keymaps?|key\s+maps?|keyboard\s+shortcuts)\s*$`)
	interactiveIntroRe   = lazyre.New(`(?i)(^|[^-\w])interactive(ly)?\b( (terminal|shell|session|mode|use))?|\b(selection|terminal|text|console|curses) (user )?interface\b|\bTUI\b|\bterminal UI\b`)
)

// introText is the README's prose before its first code block or second
// section, at most a few paragraphs: where a project says what it is.
func introText(src []byte) string {
	s := string(src)
	if i := strings.Index(s, "```"); i >= 0 {
		s = s[:i]
	}
	lines, sections := strings.Split(s, "\n"), 0
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			sections++
			if sections == 2 {
				s = strings.Join(lines[:i], "\n")
				break
			}
		}
	}
	if len(s) > 3000 {
		s = s[:3000]
	}
	return s
}

// presentsTUI says how a README presents its program as a terminal UI:
// keys is true when it has a section of key bindings (every run of the
// program opens the UI); cue is the phrase of its opening that says it
// works interactively (runs that feed it input, or give it no argument,
// open the UI; `n lts` of an "interactive" version manager does not).
func presentsTUI(src []byte) (keys bool, cue string) {
	// Every match starts a line with # or ## and, after white space, "key".
	for rest := src; len(rest) > 0 && !keys; _, rest, _ = bytes.Cut(rest, []byte("\n")) {
		if h, ok := bytes.CutPrefix(rest, []byte("#")); ok {
			h = bytes.TrimLeft(bytes.TrimPrefix(h, []byte("#")), " \t\n\f\r")
			keys = bytes.HasPrefix(bytes.ToLower(h[:min(5, len(h))]), []byte("key"))
		}
	}
	if keys && keyBindingsHeadingRe.Match(src) {
		return true, ""
	}
	// "an interactive terminal", "interactive mode" speak of the terminal
	// or of one mode among others, not of the program. (Most openings have
	// none of the words every match has.)
	intro := introText(src)
	if low := strings.ToLower(intro); !strings.Contains(low, "interactive") && !strings.Contains(low, "interface") && !strings.Contains(low, "tui") && !strings.Contains(low, "terminal ui") {
		return false, ""
	}
	for _, m := range interactiveIntroRe.FindAllStringSubmatch(plainText(intro), -1) {
		if m[3] == "" {
			return false, strings.TrimSpace(strings.TrimLeft(m[0], " -("))
		}
	}
	return false, ""
}

// opensUI reports a run of the project's program that would open the UI a
// README's opening presents: fed by a pipe or a file (what it lets the
// reader pick from, wherever its choice goes: `ps ux | yank | xargs
// kill`), or with no argument and its output on the terminal.
func (pl *planner) opensUI(cmds []simple) bool {
	for i, s := range cmds {
		if !pl.repo.is(path.Base(s.name())) || s.onlyInfo() {
			continue
		}
		if i > 0 && cmds[i-1].piped || len(s.inputs) > 0 {
			return true
		}
		if len(s.args()) == 0 && !s.piped && !s.redirected {
			return true
		}
	}
	return false
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

// interactiveRule skips what needs a person at a terminal: a program that
// needs one (an editor, a pager, a fuzzy finder, a REPL), the project's
// program where the text or the README presents it as interactive.
func interactiveRule(pl *planner, x *cmd) (Entry, bool) {
	if x.funcDef {
		return pass()
	}
	if prog := interactive(x.head); prog != "" {
		return pl.skip(x, because(KindInteractive, "interactive: %s needs a terminal", prog))
	}
	if s := x.head[len(x.head)-1]; pl.repo.is(path.Base(s.name())) && !strings.Contains(s.name(), "/") && len(s.args()) == 1 && s.args()[0] == "configure" && !s.piped && !s.redirected {
		return pl.skip(x, because(KindInteractive, "interactive: %s configure asks its questions or opens the configuration in an editor, and nobody is at the terminal", s.name()))
	}
	if q := askedInOutput(x.b, x.c.line); q != "" && assumeYes(x.cmds, x.c.text) == "" {
		return pl.skip(x, because(KindInteractive, "interactive: the output the README shows has it ask at the terminal (%q), and nobody is there to answer", q))
	}
	if m := monitorView(x.head, pl.programs); m != "" {
		return pl.skip(x, because(KindInteractive, "interactive: %s opens a full-screen monitor, which runs until it is stopped and needs a terminal", m))
	}
	if !x.cmds[len(x.cmds)-1].onlyInfo() && pl.usesProject(x.c.text) && blockCue(x.b, interactiveCueRe) != "" {
		return pl.skip(x, because(KindInteractive, "interactive: the text presents it so (%q), and nobody is at the terminal", blockCue(x.b, interactiveCueRe)))
	}
	if pl.startsTUI(x.cmds) {
		off := ""
		if len(pl.readme.tuiOff) > 0 {
			off = " without " + strings.Join(pl.readme.tuiOff, " or ")
		}
		return pl.skip(x, because(KindInteractive, "interactive: the README says the program is interactive by default, and this runs it on the terminal%s", off))
	}
	if pl.readme.uiCue != "" && pl.opensUI(x.cmds) {
		return pl.skip(x, because(KindInteractive, "interactive: the README presents the program so (%q), and this opens it on the terminal with nobody at it", pl.readme.uiCue))
	}
	return pass()
}

// monitorSubcommands are the subcommands by which a tool opens a
// full-screen live view of what it manages: `pm2 monit`, `tool dashboard`.
var monitorSubcommands = toSet(`monit monitor dash dashboard`)

// monitorView names a monitor subcommand of a program the system does not
// have (`ls monitor`, `cat dashboard` name files), "" for others.
func monitorView(cmds []simple, programs map[string]bool) string {
	for _, s := range cmds {
		if args := s.args(); len(args) > 0 && monitorSubcommands[args[0]] && !programs[path.Base(s.name())] {
			return path.Base(s.name()) + " " + args[0]
		}
	}
	return ""
}

// completionRule skips setting up shell completion: an optional
// convenience (`tool completion bash > …`, `source <(tool completions)`).
func completionRule(pl *planner, x *cmd) (Entry, bool) {
	for _, s := range x.cmds {
		for _, w := range s.values() {
			if w == "completion" || w == "completions" || strings.HasPrefix(w, "--completion") || strings.HasPrefix(w, "--generate-completion") ||
				strings.Contains(w, "bash_completion") || strings.Contains(w, "bash-completion") {
				return pl.skip(x, because(KindOptional, "sets up shell completion: an optional convenience, not part of trying the README"))
			}
		}
	}
	return pass()
}

// optionalCommentRe is a comment that marks what follows as optional:
// `make verify  # (optional)`, `# Optional: create a symlink`.
var optionalCommentRe = lazyre.New(`(?im)^#*\s*[(\[]?\s*optional(ly)?\b`)

// optionalRule skips a command the README's comment calls optional: a
// person trying the README leaves it out, and its failure would say
// nothing about the README's steps.
func optionalRule(pl *planner, x *cmd) (Entry, bool) {
	for _, c := range []string{trailingComment(firstLineOf(x.c.text)), x.c.comment} {
		if m := optionalCommentRe.FindString(c); m != "" {
			return pl.skip(x, because(KindOptional, "optional: the comment says so (%q), and a person trying the README leaves it out", strings.TrimSpace(c)))
		}
	}
	return pass()
}

// answeredPromptRe is an output line that shows a program asking at the
// terminal and the answer typed: inquirer's and prompts' questions (`?
// Project name: demo`, `✔ Pick a template › react`), a named prompt with
// what was typed after it (`Command> echo Hello`), a yes/no question.
var answeredPromptRe = lazyre.New(`^(\? \S.*|[✔✖] .*(›|…) .*|[A-Z][A-Za-z ]{1,30}> \S.*|.*(?i:\((y/n|yes/no)\)|\[(y/n|yes/no)\]).*)$`)

// askedInOutput returns the first line of the output that a console block
// shows after its command at line, when that line shows the program asking
// at the terminal; "" for none.
func askedInOutput(b readme.Block, line int) string {
	for _, c := range b.Commands {
		if c.Line != line {
			continue
		}
		for _, o := range c.Output {
			if t := strings.TrimSpace(o.Text); answeredPromptRe.MatchString(t) {
				return t
			}
		}
	}
	return ""
}
