package plan

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
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

// clone reports a `git clone` (or `gh repo clone`) and the URL and target
// directory it names ("" when it uses the default).
func clone(s simple) (url, dir string, ok bool) {
	args := s.args()
	switch {
	case s.name() == "git" && len(args) > 0 && args[0] == "clone":
		args = args[1:]
	case s.name() == "gh" && len(args) > 1 && args[0] == "repo" && args[1] == "clone":
		args = args[2:]
	default:
		return "", "", false
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			switch a {
			case "-b", "--branch", "--depth", "-o", "--origin", "-c", "--config", "--reference", "--separate-git-dir", "-j", "--jobs", "--filter":
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return "", "", false
	}
	url = pos[0]
	if len(pos) > 1 {
		dir = pos[1]
	}
	return url, dir, true
}

// repoOfURL returns the last path element of a clone URL without .git:
// "fzf" for https://github.com/junegunn/fzf.git, and the owner/name pair.
func repoOfURL(u string) (name, ownerName string) {
	u = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(u), "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at := strings.IndexByte(u, '@'); at >= 0 {
		if c := strings.IndexByte(u[at:], ':'); c >= 0 {
			u = u[:at+c] + "/" + u[at+c+1:] // git@github.com:owner/name
		}
	}
	parts := strings.Split(u, "/")
	name = strings.ToLower(parts[len(parts)-1])
	if len(parts) >= 2 {
		ownerName = strings.ToLower(parts[len(parts)-2] + "/" + parts[len(parts)-1])
	}
	return name, ownerName
}

// selfAdd reports a command that adds this project as a dependency of the
// reader's own project: `npm install express`, `yarn add express`,
// `go get github.com/joho/godotenv`, `cargo add serde`.
func selfAdd(s simple, repo Repo) (string, bool) {
	name, args := s.name(), s.args()
	if len(args) < 2 {
		return "", false
	}
	sub := args[0]
	var cands []string
	switch name {
	case "npm", "pnpm", "bun", "yarn", "deno":
		if sub != "install" && sub != "i" && sub != "add" {
			return "", false
		}
		for _, a := range args[1:] {
			if a == "-g" || a == "--global" {
				return "", false
			}
			if !strings.HasPrefix(a, "-") {
				cands = append(cands, a)
			}
		}
		for _, c := range cands {
			c = strings.TrimPrefix(strings.TrimPrefix(c, "npm:"), "jsr:")
			if repo.is(npmTool(c)) || repo.isPackage(c) {
				return c, true
			}
		}
	case "go":
		if sub != "get" {
			return "", false
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			p, _, _ := strings.Cut(a, "@")
			if repo.isModule(p) {
				return a, true
			}
		}
	case "cargo", "composer", "dotnet":
		if !(name == "cargo" && sub == "add" || name == "composer" && sub == "require" || name == "dotnet" && sub == "add") {
			return "", false
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") || a == "package" {
				continue
			}
			if repo.is(path.Base(a)) {
				return a, true
			}
		}
	}
	return "", false
}

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
	case "python", "python3", "node", "irb", "ghci", "iex", "julia", "lua", "deno", "bun", "R", "php", "sqlite3", "psql", "mysql", "redis-cli", "mongo", "mongosh", "clj", "sbt", "erl", "ocaml", "racket", "scala":
		if len(args) == 0 || (name == "deno" || name == "bun") && args[0] == "repl" || (name == "php" && args[0] == "-a") || (name == "python" || name == "python3") && len(args) == 1 && args[0] == "-i" {
			return name + " (a REPL)"
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

// publishes names what a command publishes or logs in to, "" for none.
var publishRe = lazyre.New(`^(npm (publish|login|adduser|unpublish|deprecate)|yarn (publish|login|npm publish)|pnpm publish|cargo (publish|login|yank|owner)|gem (push|signin|yank)|twine upload|git push|docker (login|push)|podman (login|push)|gh auth login|gh release (create|upload|delete)|heroku (login|create)|vercel( --prod| deploy)?$|netlify deploy|fly (deploy|launch|auth)|flyctl (deploy|launch|auth)|firebase (login|deploy)|aws configure|gcloud (auth|init)|az login|poetry publish|hatch publish|flit publish|mvn deploy|gradle publish|dotnet nuget push|goreleaser release)\b`)

func publishes(s simple) string { return publishRe.FindString(s.line()) }
