package plan

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Rules found on fresh batch 6 (hexyl, sd, dive, jid, xq, tldr, icdiff,
// yank, pfetch, hr): Docker anywhere in a command, the commands typed inside
// a container, a settings reference of shell variables nothing reads, a
// README that presents its program as a terminal UI, another version
// control system's commands, and a block the text presents as output.

// containerTools run containers; the sandbox has no container engine.
var containerTools = map[string]string{
	"docker": "Docker", "docker-compose": "Docker Compose", "podman": "Podman", "podman-compose": "Podman",
	"nerdctl": "nerdctl", "colima": "Colima", "lima": "Lima",
}

// usesContainers names the container engine a command needs: its program,
// or one it runs in $( … ) or an alias it defines ("" for none).
func usesContainers(cmds []simple) string {
	for _, s := range cmds {
		if t := containerTools[path.Base(s.name())]; t != "" {
			return t
		}
		for _, w := range s.values() {
			inner := ""
			switch {
			case strings.Contains(w, "$("):
				inner = w[strings.Index(w, "$(")+2:]
			case s.name() == "alias" && strings.Contains(w, "="):
				_, inner, _ = strings.Cut(w, "=")
			default:
				continue
			}
			for _, in := range simples(lex(strings.TrimSuffix(inner, ")"))) {
				if t := containerTools[path.Base(in.name())]; t != "" {
					return t
				}
			}
		}
	}
	return ""
}

// entersContainer reports a container command that leaves the reader
// typing inside the container: `docker run -it IMAGE` or `docker compose
// run SERVICE` with no command after the image or service, or one that is a
// shell (`docker exec -it C bash`).
func entersContainer(cmds []simple) bool {
	for _, s := range cmds {
		if containerTools[path.Base(s.name())] == "" {
			continue
		}
		args := s.args()
		compose := strings.HasSuffix(path.Base(s.name()), "-compose")
		if len(args) > 0 && args[0] == "compose" {
			args, compose = args[1:], true
		}
		if len(args) == 0 || args[0] != "run" && args[0] != "exec" {
			continue
		}
		tty := compose
		i := 1
		for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			switch args[i] {
			case "-it", "-ti", "-t", "--tty":
				tty = true
			}
			if dockerValueOpts[args[i]] {
				i++
			}
		}
		if !tty || i >= len(args) {
			continue
		}
		rest := args[i+1:]
		if len(rest) == 0 && args[0] == "run" || len(rest) > 0 && (rest[0] == "sh" || rest[0] == "bash" || rest[0] == "/bin/sh" || rest[0] == "/bin/bash" || rest[0] == "ash") {
			return true
		}
	}
	return false
}

// settingsReference reports a block whose every command only sets shell
// variables (not exported, so no program sees them) that no command of the
// block or after it reads: a list of settings and their values, written as
// assignments (`PF_INFO="ascii title"`, `PF_COLOR=1`).
func (pl *planner) settingsReference(b readme.Block, cands []candidate) bool {
	names := map[string]bool{}
	n := 0
	for _, c := range cands {
		if c.shape != shapeCommand {
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) != 1 || len(ss[0].argv) > 0 || len(ss[0].assign) == 0 {
			return false
		}
		for _, a := range ss[0].assign {
			name, _, _ := strings.Cut(a, "=")
			names[name] = true
		}
		n++
	}
	if n < 2 {
		return false
	}
	for name := range names {
		re := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(name) + `\b`)
		for _, l := range pl.lines {
			if l.Line >= b.Line && re.MatchString(l.Text) {
				return false
			}
		}
	}
	return true
}

// codeLines are the lines of every code block of the README.
func codeLines(doc *readme.Doc) []readme.Line {
	var out []readme.Line
	for _, b := range doc.Blocks {
		out = append(out, b.Lines...)
	}
	return out
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

// otherVCS are version control systems other than git, by program; the
// file that marks a working copy of each.
var otherVCS = map[string][2]string{
	"svn": {"Subversion", ".svn"}, "hg": {"Mercurial", ".hg"}, "bzr": {"Bazaar", ".bzr"},
	"fossil": {"Fossil", ".fslckout"}, "darcs": {"Darcs", "_darcs"},
}

// otherVCSCommand names the version control system a command works in when
// the checkout is not a working copy of it (a clone or checkout of
// something else is fine).
func (pl *planner) otherVCSCommand(cmds []simple) string {
	for _, s := range cmds {
		v, ok := otherVCS[path.Base(s.name())]
		if !ok {
			continue
		}
		args := s.args()
		if len(args) > 0 && (args[0] == "clone" || args[0] == "checkout" || args[0] == "co" || args[0] == "init" || args[0] == "--version" || args[0] == "version") {
			continue
		}
		if pl.repo.FilesKnown() && pl.repo.hasFile(v[1]) {
			continue
		}
		return v[0]
	}
	return ""
}

// outputIntroRe is the sentence before a block that presents it as what a
// command prints: "and get something like:", "Output should look
// something like".
var outputIntroRe = lazyre.New(`(?i)\b(get|gets|see|prints?|outputs?|generates?|shows?|returns?|displays?)\b[^.]{0,30}\bsomething like\s*(this|the following|below)?\s*:?\s*$|\boutput (should|will|would) look\b[^.]*$`)

// iniSectionRe is an INI or TOML section header line.
var iniSectionRe = lazyre.New(`^\s*\[[A-Za-z0-9_. "-]+\]\s*$`)

// iniContent reports a block in the shape of an INI file: a [section]
// header, and no command but bare assignments (`extdiff=`).
func iniContent(cands []candidate) bool {
	header := false
	for _, c := range cands {
		if c.shape != shapeCommand {
			header = header || iniSectionRe.MatchString(c.text)
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) != 1 || len(ss[0].argv) > 0 {
			return false
		}
	}
	return header
}

// proseInstalls are the install commands the README gives only in its
// text, as inline code outside any code block ("Install through cargo with
// `cargo install sd`"): the plan does not run them, but a command that
// then fails with "not found" can name them.
func proseInstalls(src []byte, doc *readme.Doc, repo Repo) []Install {
	inBlock := map[int]bool{}
	for _, b := range doc.Blocks {
		for l := b.Line - 1; l <= b.EndLine+1; l++ {
			inBlock[l] = true
		}
	}
	var out []Install
	for i, l := range strings.Split(string(src), "\n") {
		if inBlock[i+1] || !strings.Contains(l, "`") {
			continue
		}
		for _, m := range codeSpanRe.FindAllStringSubmatch(l, -1) {
			for _, s := range simples(lex(m[1])) {
				if commandPlatform(s, m[1]) != "" {
					continue
				}
				tools, _, ok := installs(s, repo)
				if !ok {
					continue
				}
				for _, t := range tools {
					out = append(out, Install{Tool: t, Line: i + 1, Command: m[1],
						Skipped: "written in the README's text, not in a code block: the markdown engine runs only code blocks"})
				}
			}
		}
	}
	return out
}

// slugRe is an owner/name pair: a GitHub repository (zyedidia/micro) or an
// os/arch pair (darwin/amd64), with no file extension.
var slugRe = lazyre.New(`^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w-]*$`)

// slugArg reports an argument that names a repository, not a file: an
// owner/name whose owner is no directory of the checkout and that no
// earlier command made.
func (pl *planner) slugArg(a string) bool {
	if !slugRe.MatchString(a) {
		return false
	}
	owner := strings.SplitN(a, "/", 2)[0]
	return !pl.inRepo(owner) && !pl.mentioned[owner] && !generatedRe.MatchString(owner)
}

// tomlBinNames are the names of a Cargo.toml's [[bin]] targets: the
// programs a crate builds (dua-cli builds dua).
func tomlBinNames(b []byte) []string {
	var out []string
	for _, l := range tomlTables(b, "[[bin]]") {
		if m := tomlNameRe.FindStringSubmatch(l); m != nil {
			out = append(out, strings.ToLower(m[1]))
		}
	}
	return out
}

// tomlTables returns the lines (trimmed) of the tables of a TOML file
// with one of the headers.
func tomlTables(b []byte, headers ...string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "[") {
			in = slices.Contains(headers, l)
		} else if in {
			out = append(out, l)
		}
	}
	return out
}

// pkgIndexUpdate reports `apt update`, `apt-get update`, `brew update`:
// the refresh before an install, part of it.
func pkgIndexUpdate(s simple) bool {
	switch path.Base(s.name()) {
	case "apt", "apt-get", "aptitude", "brew", "port", "dnf", "yum", "zypper", "pacman":
		args := s.args()
		return len(args) > 0 && (args[0] == "update" || args[0] == "selfupdate" || args[0] == "refresh")
	}
	return false
}

// sameManager reports that the command text runs the package manager s
// runs (apt and apt-get count as one).
func sameManager(s simple, text string) bool {
	norm := func(n string) string {
		n = path.Base(n)
		if n == "apt-get" || n == "aptitude" {
			return "apt"
		}
		return n
	}
	for _, g := range simples(lex(text)) {
		if norm(g.name()) == norm(s.name()) {
			return true
		}
	}
	return false
}

// troubleCueRe is a sentence that introduces a fix for a problem the
// reader may have: "If you are experiencing issues with tldr, …".
var troubleCueRe = lazyre.New(`(?i)\bif you(?:'re| are)? (?:experienc\w*|encounter\w*|run into|hit|see|get|have|face|facing|having)\b[^.]{0,60}\b(issues?|problems?|errors?|troubles?)\b`)

// noteDownloads records the files that curl -o and wget -O save, with
// their URL.
func (pl *planner) noteDownloads(cmds []simple) {
	for _, s := range cmds {
		n := path.Base(s.name())
		if n != "curl" && n != "wget" {
			continue
		}
		args := s.args()
		url, file := "", ""
		for i, a := range args {
			switch {
			case urlRe.MatchString(a):
				url = a
			case (a == "-o" || a == "--output" || n == "wget" && (a == "-O" || a == "--output-document")) && i+1 < len(args):
				file = args[i+1]
			}
		}
		if url != "" && file == "" && (n == "wget" || slices.Contains(args, "-O") || slices.Contains(args, "--remote-name")) {
			file = path.Base(strings.SplitN(url, "?", 2)[0])
		}
		if url != "" && file != "" {
			pl.downloads[strings.TrimPrefix(file, "./")] = url
		}
	}
}

// runsOwnInstaller reports `bash eget.sh` (or sh, ./eget.sh) of a script
// an earlier command downloaded from a URL that names the project.
func (pl *planner) runsOwnInstaller(cmds []simple) bool {
	for _, s := range cmds {
		f := strings.TrimPrefix(s.name(), "./")
		if n := path.Base(s.name()); (n == "bash" || n == "sh") && len(s.args()) > 0 {
			f = strings.TrimPrefix(s.args()[0], "./")
		}
		if u := pl.downloads[f]; u != "" && pl.urlNamesRepo(u) {
			return true
		}
	}
	return false
}

// Batch 8 (walk, xh, rich-cli, fff, jj, pageres-cli).

var (
	// settingsHeadingRe is a section of options for the program.
	settingsHeadingRe = lazyre.New(`(?i)\b(configur\w*|customi[sz]\w*|settings?|options|preferences|key\s*-?bindings?|themes?|colou?rs?)\b`)
	// optionalCueRe is a sentence that offers a setting rather than
	// requiring it.
	optionalCueRe = lazyre.New(`(?i)\byou can (set|change|configure|customi[sz]e|override|toggle|specify|define)\b|\boptional(ly)?\b|\byou only need to\b|\bwithout any of these\b|\benvironment variable\b[^.]*\b(can be used|is used|used)\b`)
	// userPrefVars are a user's own preferences, never a step.
	userPrefVars = map[string]bool{"EDITOR": true, "VISUAL": true, "PAGER": true, "BROWSER": true}
)

// optionalSettings names the project's settings a block only exports, in
// a section of options or after a sentence that offers them ("You can
// configure … by setting environment variables"): FFF_COL1=2,
// TLDR_LANGUAGE="es", WALK_REMOVE_CMD=trash. Values chosen as examples
// change what the later commands do; "" when the block is not that. Only
// variables named after the project (and EDITOR-like preferences) count:
// a setting of another tool may be a step.
func (pl *planner) optionalSettings(b readme.Block, cands []candidate) string {
	if !settingsHeadingRe.MatchString(plainText(innermost(b.Headings))) && !optionalCueRe.MatchString(proseOnly(lastSentence(b.Before))) {
		return ""
	}
	var prefixes []string
	for _, n := range pl.repo.Names {
		prefixes = append(prefixes, strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(n))+"_")
	}
	var names []string
	for _, c := range cands {
		if c.shape != shapeCommand {
			continue
		}
		for _, s := range simples(lex(c.text)) {
			var assigns []string
			switch {
			case len(s.argv) == 0:
				assigns = s.assign
			case s.name() == "export" && len(s.assign) == 0:
				assigns = s.args()
			default:
				return ""
			}
			for _, a := range assigns {
				name, _, ok := strings.Cut(a, "=")
				if !ok || !isAssignment(a) {
					return ""
				}
				own := userPrefVars[name]
				for _, p := range prefixes {
					own = own || strings.HasPrefix(name, p)
				}
				if !own {
					return ""
				}
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return strings.Join(names, ", ")
}

// tomlScriptNames are the programs a pyproject.toml installs: the keys of
// [project.scripts] and [tool.poetry.scripts] (rich-cli installs rich).
func tomlScriptNames(b []byte) []string {
	var out []string
	for _, l := range tomlTables(b, "[project.scripts]", "[tool.poetry.scripts]") {
		if k, _, ok := strings.Cut(l, "="); ok {
			if k = strings.Trim(strings.TrimSpace(k), `"'`); k != "" && !strings.HasPrefix(k, "#") {
				out = append(out, strings.ToLower(k))
			}
		}
	}
	return out
}
