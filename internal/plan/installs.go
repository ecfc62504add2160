package plan

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What a command installs: the tools it puts on the PATH, by package
// manager, installer script or copy into a bin directory.

// installTargetRe is a make target that installs the project one way or
// another: install-deb, install-user, install-local (not install-deps or
// install-tools, which install what the build needs).
var installTargetRe = lazyre.New(`^install-(deb|rpm|user|local|system|global|bin|binary|all|home)$`)

// installs returns the tools a simple command installs ("glow" for
// `go install github.com/charmbracelet/glow/v2@latest`), with self true when
// it installs the project itself from the checkout (`make install`,
// `make install-deb`, `pip install .`, `cargo install --path .`). ok is
// false when the command is not an install.
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
	if name == "npm" || name == "pnpm" || name == "yarn" || name == "bun" {
		// npm -g install x: options before the subcommand go after it.
		args = slices.Clone(args)
		for i := 0; i < len(args) && strings.HasPrefix(args[0], "-"); i++ {
			args = append(args[1:], args[0])
		}
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
	case "pip", "pip3", "pipx", "uv", "python", "python3", "easy_install":
		rest := args
		if name == "python" || name == "python3" {
			if len(args) >= 2 && args[0] == "setup.py" && (args[1] == "install" || args[1] == "develop") {
				return repo.Names, true, true // python setup.py install: the project from the checkout
			}
			if len(args) < 3 || args[0] != "-m" || (args[1] != "pip" && args[1] != "pipx") {
				return nil, false, false
			}
			rest = args[2:]
		}
		if name == "easy_install" {
			rest = append([]string{"install"}, args...)
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
			case strings.HasPrefix(a, "git+") && repo.isClone(strings.TrimPrefix(a, "git+")):
				tools = append(tools, repo.Names...) // the project from its repository
			default:
				tools = append(tools, pyTool(a))
			}
		}
		return tools, false, true
	case "gem", "luarocks", "cpanm", "opam", "raco", "nimble":
		if sub != "install" && !(name == "cpanm" && sub != "") {
			return nil, false, false
		}
		from := 1
		if name == "cpanm" && sub != "install" {
			from = 0
		}
		var out []string
		for _, p := range pkgs(from, map[string]bool{"-v": true, "--version": true}) {
			out = append(out, strings.ToLower(strings.ReplaceAll(path.Base(p), "::", "-")))
		}
		return out, false, true
	case "dotnet":
		if len(args) >= 3 && args[0] == "tool" && args[1] == "install" {
			return pkgs(2, map[string]bool{"--version": true}), false, true
		}
		return nil, false, false
	case "cabal", "stack":
		if sub != "install" {
			return nil, false, false
		}
		if len(pkgs(1, nil)) == 0 {
			return repo.Names, true, true
		}
		return pkgs(1, nil), false, true
	case "make":
		// install, and the targets named for a kind of install
		// (install-deb, install-user), not install-deps
		if slices.ContainsFunc(args, func(a string) bool { return a == "install" || installTargetRe.MatchString(a) }) {
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
	if i := strings.IndexAny(p, "[=<>~!;@"); i >= 0 {
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

// proseSkipped is why a prose install does not run.
const proseSkipped = "written in the README's text, not in a code block: the markdown engine runs only code blocks"

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
			if url, ok := pipesToShell(lex(m[1])); ok && (&planner{repo: repo}).urlNamesRepo(url) {
				for _, t := range repo.Names {
					out = append(out, Install{Tool: t, Line: i + 1, Command: m[1], Skipped: proseSkipped})
				}
				continue // the project's own installer
			}
			for _, s := range simples(lex(m[1])) {
				if commandPlatform(s, m[1]) != "" {
					continue
				}
				tools, _, ok := installs(s, repo)
				if !ok {
					continue
				}
				for _, t := range tools {
					out = append(out, Install{Tool: t, Line: i + 1, Command: m[1], Skipped: proseSkipped})
				}
			}
		}
	}
	return out
}

// runsOwnInstaller reports `bash eget.sh` (or sh, ./eget.sh) of a script
// an earlier command downloaded from a URL that names the project.
func (pl *planner) runsOwnInstaller(cmds []simple) bool {
	for _, s := range cmds {
		f := strings.TrimPrefix(s.name(), "./")
		if n := path.Base(s.name()); (n == "bash" || n == "sh") && len(s.args()) > 0 {
			f = strings.TrimPrefix(s.args()[0], "./")
		} else if !strings.Contains(strings.ToLower(f), "install") {
			continue // the downloaded program itself, run: not an installer
		}
		if u := pl.seen.downloads[f]; u != "" && pl.urlNamesRepo(u) {
			return true
		}
	}
	return false
}

// downloadsProject reports a download of the project's program from a URL
// that names the project into a file named as the project (wget -O
// speedtest-cli https://raw.githubusercontent.com/sivel/speedtest-cli/…),
// or of a release asset named for the project from its own releases
// (…/releases/download/v1.2/tool-linux-amd64.tar.gz, saved or piped to
// tar): the pre-built way to install it.
func (pl *planner) downloadsProject(cmds []simple) bool {
	for _, s := range cmds {
		if n := path.Base(s.name()); n != "curl" && n != "wget" {
			continue
		}
		for _, a := range s.args() {
			if m := releaseAssetRe.FindStringSubmatch(a); m != nil && pl.urlNamesRepo(a) && pl.namesProject(m[1]) {
				return true
			}
		}
	}
	for _, s := range cmds {
		n := path.Base(s.name())
		if n != "curl" && n != "wget" {
			continue
		}
		args := s.args()
		url, file := "", downloadOutput(n, args)
		for _, a := range args {
			if urlRe.MatchString(a) {
				url = a
			}
		}
		for _, o := range s.outputs {
			file = o
		}
		if url != "" && file != "" && pl.repo.is(path.Base(file)) && pl.urlNamesRepo(url) {
			return true
		}
	}
	return false
}

// releaseAssetRe is a URL of a release asset on GitHub; the group is the
// asset's file name.
var releaseAssetRe = lazyre.New(`^https://github\.com/[\w.-]+/[\w.-]+/releases/(?:latest/)?download/(?:[^/\s]+/)?([^/\s#]+)$`)

// namesProject reports a file name that starts with one of the project's
// names (shellcheck-v0.10.0.linux.x86_64.tar.xz, tool_1.2_linux.deb).
func (pl *planner) namesProject(file string) bool {
	f := strings.ToLower(file)
	for _, n := range pl.repo.Names {
		if rest, ok := strings.CutPrefix(f, strings.ToLower(n)); ok && (rest == "" || strings.IndexByte("-_.", rest[0]) >= 0) {
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

// readmeInstalls are the tools the commands of a README's shell-like
// blocks install, wherever they stand, and whether one installs the
// project itself.
func readmeInstalls(doc *readme.Doc, repo Repo) (tools map[string]bool, self bool) {
	tools = map[string]bool{}
	for _, b := range doc.Blocks {
		if b.Mode == readme.ModeNone {
			continue
		}
		for _, c := range b.Commands {
			for _, s := range simples(lex(c.Text)) {
				if commandPlatform(s, c.Text) != "" {
					continue
				}
				if ts, isSelf, ok := installs(s, repo); ok {
					for _, t := range ts {
						tools[t] = true
					}
					self = self || isSelf
				}
				for _, t := range binInstalls([]simple{s}) {
					tools[t] = true
				}
			}
		}
	}
	return tools, self
}
