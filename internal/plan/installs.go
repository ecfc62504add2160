package plan

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// installs returns the tools a simple command installs ("glow" for
// `go install github.com/charmbracelet/glow/v2@latest`), with self true when
// it installs the project itself from the checkout (`make install`,
// `pip install .`, `cargo install --path .`). ok is false when the command
// is not an install.
func installs(s simple, repo Repo) (tools []string, self, ok bool) {
	name, args := s.name(), s.args()
	pkgs := func(from int, skipVal map[string]bool) []string {
		var out []string
		for i := from; i < len(args); i++ {
			a := args[i]
			if strings.HasPrefix(a, "-") {
				if skipVal[a] && i+1 < len(args) {
					i++
				}
				continue
			}
			out = append(out, a)
		}
		return out
	}
	if name == "cargo" && len(args) > 0 && strings.HasPrefix(args[0], "+") {
		args = args[1:] // cargo +nightly install x: the toolchain first
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch name {
	case "go":
		if sub != "install" && sub != "get" {
			return nil, false, false
		}
		goVals := map[string]bool{"-tags": true, "-ldflags": true, "-gcflags": true, "-o": true, "-C": true, "-modfile": true, "-p": true, "-mod": true}
		if ps := pkgs(1, goVals); len(ps) == 0 && sub == "install" {
			return repo.Names, true, true // go install: the module in the current directory
		}
		for _, p := range pkgs(1, goVals) {
			if p == "." || strings.HasPrefix(p, "./") {
				return repo.Names, true, true
			}
			if base, _, _ := strings.Cut(p, "@"); strings.HasSuffix(base, "/...") {
				tools = append(tools, repo.Names...)
				continue
			}
			tools = append(tools, goTool(p))
		}
		return tools, false, true
	case "cargo":
		if sub != "install" && sub != "binstall" {
			return nil, false, false
		}
		for i, a := range args {
			if (a == "--path" && i+1 < len(args)) || a == "--git" {
				return repo.Names, true, true
			}
		}
		return pkgs(1, map[string]bool{"--version": true, "--root": true, "--features": true, "--bin": true, "--target": true, "-F": true}), false, true
	case "npm", "pnpm", "yarn", "bun":
		global := slices.ContainsFunc(args, func(a string) bool { return a == "-g" || a == "--global" || a == "global" })
		if !global || (sub != "install" && sub != "i" && sub != "add" && sub != "global") {
			return nil, false, false
		}
		from := 1
		if sub == "global" {
			from = 2
		}
		if len(pkgs(from, nil)) == 0 {
			return repo.Names, true, true // npm install -g: the package in the current directory
		}
		for _, p := range pkgs(from, nil) {
			if p == "." {
				return repo.Names, true, true
			}
			tools = append(tools, npmTool(p))
		}
		return tools, false, true
	case "pip", "pip3", "pipx", "uv", "python", "python3":
		rest := args
		if name == "python" || name == "python3" {
			if len(args) < 3 || args[0] != "-m" || (args[1] != "pip" && args[1] != "pipx") {
				return nil, false, false
			}
			rest = args[2:]
		}
		if name == "uv" {
			if len(rest) >= 2 && (rest[0] == "tool" || rest[0] == "pip") {
				rest = rest[1:]
			} else {
				return nil, false, false
			}
		}
		if len(rest) == 0 || rest[0] != "install" {
			return nil, false, false
		}
		for i := 1; i < len(rest); i++ {
			a := rest[i]
			switch {
			case a == "-r" || a == "--requirement" || a == "-c" || a == "--index-url" || a == "-i" || a == "--target" || a == "-t":
				i++
			case a == "-e" || a == "--editable":
			case strings.HasPrefix(a, "-"):
			case a == "." || strings.HasPrefix(a, ".[") || strings.HasPrefix(a, "./"):
				return repo.Names, true, true
			default:
				tools = append(tools, pyTool(a))
			}
		}
		return tools, false, true
	case "gem":
		if sub != "install" {
			return nil, false, false
		}
		return pkgs(1, map[string]bool{"-v": true, "--version": true}), false, true
	case "make":
		if slices.Contains(args, "install") {
			return repo.Names, true, true
		}
		return nil, false, false
	case "cmake":
		if sub == "--install" {
			return repo.Names, true, true
		}
		return nil, false, false
	case "apt", "apt-get", "aptitude":
		if sub != "install" {
			return nil, false, false
		}
		for _, p := range pkgs(1, map[string]bool{"-t": true, "-o": true}) {
			tools = append(tools, debTool(p))
		}
		return tools, false, true
	case "dpkg":
		if sub != "-i" && sub != "--install" {
			return nil, false, false
		}
		for _, p := range pkgs(1, nil) {
			tools = append(tools, debTool(p))
		}
		return tools, false, true
	case "brew", "port", "choco", "cinst", "scoop", "snap", "apk", "xbps-install", "eopkg", "pkg", "pkgin", "pkg_add", "emerge", "flatpak", "conda", "mamba", "zypper", "dnf", "yum":
		if name == "apk" && sub != "add" || name != "apk" && name != "xbps-install" && name != "emerge" && name != "pkg_add" && sub != "install" && sub != "in" {
			return nil, false, false
		}
		from := 1
		if name == "xbps-install" || name == "emerge" || name == "pkg_add" {
			from = 0
		}
		return pkgs(from, map[string]bool{"-c": true, "--channel": true, "--cask": false}), false, true
	case "pacman", "yay", "paru":
		for _, a := range args {
			if strings.HasPrefix(a, "-S") {
				return pkgs(0, nil), false, true
			}
		}
		return nil, false, false
	case "winget":
		if sub != "install" {
			return nil, false, false
		}
		for _, p := range pkgs(1, map[string]bool{"--id": false, "-e": false, "--source": true, "-s": true}) {
			if i := strings.LastIndexByte(p, '.'); i >= 0 {
				p = p[i+1:]
			}
			tools = append(tools, strings.ToLower(p))
		}
		return tools, false, true
	case "nix-env", "nix":
		return pkgs(1, nil), false, sub == "-i" || sub == "-iA" || sub == "profile"
	}
	base := path.Base(name)
	if (base == "install" && name != "install") || base == "install.sh" || strings.HasPrefix(base, "install-") || base == "setup.sh" {
		return repo.Names, true, true // ./install, ~/.fzf/install: the project's installer
	}
	return nil, false, false
}

// debTool is the package a .deb file or apt argument installs:
// ripgrep_14.1.1-1_amd64.deb is ripgrep.
func debTool(p string) string {
	if strings.HasSuffix(p, ".deb") {
		p = path.Base(p)
		p, _, _ = strings.Cut(p, "_")
	}
	p, _, _ = strings.Cut(p, "=")
	return strings.ToLower(p)
}

// goTool is the binary `go install PATH@VERSION` makes.
func goTool(p string) string {
	p, _, _ = strings.Cut(p, "@")
	p = strings.TrimSuffix(p, "/...")
	b := path.Base(p)
	if regexp.MustCompile(`^v[0-9]+$`).MatchString(b) {
		b = path.Base(path.Dir(p))
	}
	return strings.ToLower(b)
}

// npmTool is the package name without scope or version.
func npmTool(p string) string {
	if strings.HasPrefix(p, "@") {
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[i+1:]
		}
	}
	p, _, _ = strings.Cut(p, "@")
	return strings.ToLower(p)
}

// pyTool is the distribution name without extras or version.
func pyTool(p string) string {
	p = strings.Trim(p, `'"`)
	if i := strings.IndexAny(p, "[=<>~!;"); i >= 0 {
		p = p[:i]
	}
	return strings.ToLower(p)
}

// pipesToShell reports `curl … | sh` and `wget -O- … | bash` installers,
// with the URL they fetch.
func pipesToShell(ws []word) (string, bool) {
	sawFetch, url := false, ""
	for i, w := range ws {
		if w.op == "|" && sawFetch && i+1 < len(ws) {
			next := simples(ws[i+1:])
			if len(next) > 0 {
				switch path.Base(next[0].name()) {
				case "sh", "bash", "zsh", "dash":
					return url, true
				}
			}
		}
		if w.op != "" {
			continue
		}
		if w.text == "curl" || w.text == "wget" {
			sawFetch = true
		}
		if sawFetch && urlRe.MatchString(w.text) && url == "" {
			url = w.text
		}
	}
	return "", false
}

// binTargetRe is a file put in a bin directory: /usr/local/bin/yq.
var binTargetRe = lazyre.New(`(^|/)bin/([\w.+-]+)$`)

// binInstalls names the tools a command puts in a bin directory by hand:
// `mv yq_linux /usr/local/bin/yq`, `wget -O /usr/local/bin/yq URL`,
// `install x -D -t /usr/local/bin/` (the file's own name).
func binInstalls(cmds []simple) []string {
	var out []string
	for _, s := range cmds {
		args := s.args()
		switch path.Base(s.name()) {
		case "mv", "cp", "install":
			if len(args) == 0 {
				continue
			}
			dest := args[len(args)-1]
			for i, a := range args {
				if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
					dest = args[i+1] + "/"
				}
			}
			if m := binTargetRe.FindStringSubmatch(dest); m != nil {
				out = append(out, strings.ToLower(m[2]))
			} else if strings.HasSuffix(dest, "/bin/") || strings.HasSuffix(dest, "/bin") {
				for _, a := range args {
					if !strings.HasPrefix(a, "-") && a != dest && !strings.HasSuffix(a, "/bin/") && !strings.HasSuffix(a, "/bin") {
						out = append(out, strings.ToLower(path.Base(a)))
						break
					}
				}
			}
		case "wget", "curl":
			for _, o := range s.outputs {
				if m := binTargetRe.FindStringSubmatch(o); m != nil {
					out = append(out, strings.ToLower(m[2]))
				}
			}
			for i, a := range args {
				if (a == "-O" || a == "-o" || a == "--output" || a == "--output-document") && i+1 < len(args) {
					if m := binTargetRe.FindStringSubmatch(args[i+1]); m != nil {
						out = append(out, strings.ToLower(m[2]))
					}
				}
			}
		}
	}
	return out
}

// debianRe names this platform's own distributions specifically (not
// "Linux" in general).
var debianRe = lazyre.New(`(?i)\b(debian|ubuntu|apt|apt-get|\.deb)\b`)

// readmeFacts learns what the plan needs to know of the whole README before
// it reads it in order: whether it shows Go code (then `go get` of the
// module is for the reader's project), and which tools a section written
// for Debian or Ubuntu installs with more than a bare `apt install tool`
// (that recipe wins over an earlier generic install of the same tool, as a
// person on Debian would choose it).
func readmeFacts(doc *readme.Doc, repo Repo) (goCode bool, debTools map[string]int) {
	debTools = map[string]int{}
	for _, b := range doc.Blocks {
		if b.Lang == "go" || b.Lang == "golang" {
			goCode = true
		}
		if !b.Shell || !debianBlock(b) {
			continue
		}
		found := map[string]int{}
		steps, pkgs := 0, 0
		for _, l := range b.Lines {
			t, ok := readme.CutPrompt(l.Text)
			if !ok {
				t = l.Text
			}
			if strings.HasPrefix(strings.TrimSpace(t), "#") || strings.TrimSpace(t) == "" {
				continue
			}
			for _, s := range simples(lex(t)) {
				steps++
				ts, _, ok := installs(s, repo)
				if url, _, isClone := clone(s); isClone && repo.isClone(url) {
					ts, ok = repo.Names, true
				}
				if ok {
					for _, tool := range ts {
						pkgs++
						if found[tool] == 0 {
							found[tool] = l.Line
						}
					}
				}
			}
		}
		// A bare `apt install tool` is the same install as a generic one;
		// the Debian recipe wins when it does more: adds the package
		// source, installs what the tool needs.
		if steps < 2 && pkgs < 2 {
			continue
		}
		for tool, l := range found {
			if debTools[tool] == 0 {
				debTools[tool] = l
			}
		}
	}
	return goCode, debTools
}

// debianBlock reports a block written for Debian or Ubuntu: the sentence
// right before it, its first comment, or its innermost heading names them
// (and no other platform).
func debianBlock(b readme.Block) bool {
	texts := []string{lastSentence(b.Before), innermost(b.Headings)}
	if first := firstNonBlank(b.Lines); strings.HasPrefix(first, "#") && !strings.HasPrefix(first, "#!") {
		texts = append([]string{first}, texts...)
	}
	for _, t := range texts {
		t = proseOnly(t)
		if t == "" || len(t) > 200 {
			continue
		}
		if _, fits, named := textPlatform(t); named {
			return fits && debianRe.MatchString(t) && platformCount(t) == 1
		}
	}
	return false
}

// laterDebianInstall returns the README line after line of the Debian or
// Ubuntu section that installs all of tools, 0 when there is none.
func (pl *planner) laterDebianInstall(tools []string, line int) int {
	last := 0
	for _, t := range tools {
		l := pl.debTools[t]
		if l <= line {
			return 0
		}
		last = max(last, l)
	}
	return last
}

// buildStep reports a step of a build from source: what a manual install
// does before its install command.
func buildStep(s simple) bool {
	name, args := path.Base(s.name()), s.args()
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch name {
	case "npm", "pnpm", "yarn":
		return sub == "" || sub == "install" || sub == "i" || sub == "ci" || sub == "run" && len(args) > 1 && args[1] == "build"
	case "make", "cmake", "meson", "ninja", "configure", "autoreconf", "bootstrap", "autogen.sh":
		return !slices.Contains(args, "install")
	case "go", "cargo":
		return sub == "build"
	case "git":
		return sub == "checkout" || sub == "submodule" || sub == "pull" || sub == "fetch"
	}
	return false
}

// aptCommand reports an apt or apt-get command (update or install).
func aptCommand(text string) bool {
	for _, s := range simples(lex(text)) {
		if n := s.name(); n == "apt" || n == "apt-get" || n == "aptitude" {
			return true
		}
	}
	return false
}

// checksOut reports `git checkout REF` or `git switch REF`: a version of
// the clone.
func checksOut(text string) bool {
	for _, s := range simples(lex(text)) {
		if args := s.args(); s.name() == "git" && len(args) > 1 && (args[0] == "checkout" || args[0] == "switch") && args[1] != "-b" && args[1] != "-c" {
			return true
		}
	}
	return false
}

// npxOf returns the package an `npx PKG` command runs, "" for none.
func npxOf(cmds []simple) string {
	for _, s := range cmds {
		if s.name() != "npx" {
			continue
		}
		for _, a := range s.args() {
			if !strings.HasPrefix(a, "-") {
				return a
			}
		}
	}
	return ""
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
