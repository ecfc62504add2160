package plan

import (
	"path"
	"regexp"
	"strings"

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
	interactiveCueRe = regexp.MustCompile(`(?i)(^|[^-\w])interactive(ly)?\b|\bprompts? (for|the user|you)\b|\bprompting (for|the user|you)\b|\bmenu\b|\bTUI\b|\bfuzzy\b|\bscroll(s|ing)? through\b|\b(use|press|hit|type) ` + "`?" + `(tab|enter|return|arrow|ctrl|space|esc)\b|\bselect (a|an|one|multiple|from)\b|\bpick (a|an|one|from)\b`)
	// packagingRe is a heading or sentence addressed to people who package
	// the project for a distribution.
	packagingRe = regexp.MustCompile(`(?i)\bpackag(ing|ers?)\b[^.]{0,60}\b(distribution|distro)s?\b|\b(for|distribution|distro) packagers\b|\bpackaging\b[^.]{0,40}\bfor (a |your )?(linux )?(distribution|distro)`)
	// otherMachineRe is a sentence that moves to another computer.
	otherMachineRe = regexp.MustCompile(`(?i)\bon (another|a different|the other|a second|the remote|a remote|the receiving|the sending) (computer|machine|host|server|device|pc|laptop)\b`)
	// uninstallCueRe is a sentence about removing or reinstalling the
	// project.
	uninstallCueRe = regexp.MustCompile(`(?i)\b(un|re)install(ing|ation)?\b`)
)

// blockCue returns the innermost heading or the last sentence before the
// block that matches re, "" when none does.
func blockCue(b readme.Block, re *regexp.Regexp) string {
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
		for _, w := range s.argv {
			if i := strings.Index(w.text, "$("); i >= 0 && pl.usesProject(strings.TrimSuffix(w.text[i+2:], ")")) {
				return true
			}
		}
	}
	for _, a := range assignmentValues(text) {
		if i := strings.Index(a, "$("); i >= 0 && pl.usesProject(strings.TrimSuffix(a[i+2:], ")")) {
			return true
		}
	}
	return false
}

// assignmentValues are the values of a command's NAME=value words.
func assignmentValues(text string) []string {
	var out []string
	for _, s := range simples(lex(text)) {
		for _, a := range s.assign {
			_, v, _ := strings.Cut(a, "=")
			out = append(out, v)
		}
	}
	return out
}

// onlyInfo reports a command that only prints its version or help.
func onlyInfo(cmds []simple) bool {
	if len(cmds) == 0 {
		return false
	}
	for _, a := range cmds[len(cmds)-1].args() {
		switch a {
		case "--version", "-V", "--help", "-h", "version", "help":
			return true
		}
	}
	return false
}

// functionWords are words of sentences that commands do not have as
// arguments.
var functionWords = toSet(`a an the of to for by in on with from your this that these those is are was were
and or per all every each into when if its their you it be can will should which`)

var proseWordRe = regexp.MustCompile(`^[a-z][a-z'’-]*[,.;:]?$`)

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
}

// needsAccount names the hosted service a command needs an account of,
// "" for none: `heroku config:set …`, `gh pr list`. Printing the version
// or the help needs none.
func needsAccount(cmds []simple) string {
	for _, s := range cmds {
		svc := accountTools[path.Base(s.name())]
		if svc == "" {
			continue
		}
		if onlyInfo([]simple{s}) || len(s.args()) == 0 {
			continue
		}
		return svc
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
