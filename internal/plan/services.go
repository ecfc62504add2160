package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Commands that need something outside the sandbox or the README's purpose:
// hosted accounts, publishing, remote hosts, uninstalls, another VCS, and
// adding the project to the reader's own.

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

// remoteClient names the host a network client (nc, telnet) connects to
// when it is not this machine, "" otherwise.
func remoteClient(cmds []simple) string {
	for _, s := range cmds {
		switch path.Base(s.name()) {
		case "nc", "netcat", "ncat", "telnet":
		case "ssh", "mosh", "sftp":
			// ssh to any host but this machine: keys and a host key to
			// accept that nobody has (this machine: see localURL).
			if host := sshHost(s.args()); host != "" && !localHostRe.MatchString(host) {
				return host
			}
			continue
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

// publishes names what a command publishes or logs in to, "" for none.
var publishRe = lazyre.New(`^(npm (publish|login|adduser|unpublish|deprecate)|yarn (publish|login|npm publish)|pnpm publish|cargo (publish|login|yank|owner)|gem (push|signin|yank)|twine upload|git push|docker (login|push)|podman (login|push)|gh auth login|gh release (create|upload|delete)|heroku (login|create)|vercel( --prod| deploy)?$|netlify deploy|fly (deploy|launch|auth)|flyctl (deploy|launch|auth)|firebase (login|deploy)|aws configure|gcloud (auth|init)|az login|poetry publish|hatch publish|flit publish|mvn deploy|gradle publish|dotnet nuget push|goreleaser release)\b`)

func publishes(s simple) string {
	if what := publishRe.FindString(s.line()); what != "" {
		return what
	}
	if what := releaseRunRe.FindString(s.line()); what != "" && !slices.ContainsFunc(s.args(), func(a string) bool { return previewFlags[a] }) {
		return strings.TrimSpace(what)
	}
	return ""
}

// releaseRunRe is a run of a release tool, which versions, tags, pushes
// and publishes the package it runs in (release-it, np, semantic-release,
// lerna publish), directly or through npx; or of a package script named
// for releasing or deploying (`npm run release`).
var releaseRunRe = lazyre.New(`^(?:(?:npx|bunx|pnpm dlx|pnpm exec|yarn dlx|yarn exec) )?(?:release-it|np|semantic-release|standard-version|commit-and-tag-version|lerna (?:publish|version)|changeset publish|release-please)(?: |$)|` +
	`^(?:npm run|pnpm run|pnpm|yarn run|yarn|bun run) (?:release|publish|deploy)(?::\S+)?(?: |$)`)

// previewFlags are the options with which a release tool only says what
// it would do.
var previewFlags = toSet(`--help -h --version -v -V --dry-run -d --preview`)

// uninstalls reports a command that removes or reinstalls something: `make
// uninstall`, `npm uninstall -g x`, `pip uninstall x`, or the project's own
// program's `uninstall` (own reports the project's names).
func uninstalls(cmds []simple, own func(string) bool) bool {
	for _, s := range cmds {
		args := s.args()
		for i, a := range args {
			switch a {
			case "--uninstall":
				if own(path.Base(s.name())) {
					return true // the project's own program undoing its set-up
				}
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

// otherVCSRule skips another version control system's commands outside
// its working copy.
func otherVCSRule(pl *planner, x *cmd) (Entry, bool) {
	if v := pl.otherVCSCommand(x.cmds); v != "" {
		return pl.skip(x, because(KindMaintenance, "works in a %s working copy: the checkout under test is not one", v))
	}
	return pass()
}

// libraryUseOrPublish skips adding this project to the reader's own
// project (`npm install express` in express's README) and publishing or
// logging in. A `go get` of the module presented as the install of its
// tool is an install, not a library use, and so is an npm install of the
// project whose block then runs it (`npx dbmate --help`).
func libraryUseOrPublish(pl *planner, x *cmd) (Entry, bool) {
	for _, s := range x.cmds {
		what, self := selfAdd(s, pl.repo)
		if self && blockRunsPackage(x.b, x.c.line, what) {
			continue // the README's way to get its own tool
		}
		if self && !(s.name() == "go" && (installToolRe.MatchString(lastSentence(x.b.Before)) || !pl.readme.goCode && pl.isInstallSection(x.b.Headings))) {
			return pl.skip(x, because(KindLibraryUse, "adds this project (%s) to the reader's own project: the checkout is the project itself", what))
		}
		if what := devDependencies(s); what != "" {
			return pl.skip(x, because(KindLibraryUse, "adds development dependencies (%s) to the reader's own project: run here it would rewrite the checkout's package.json", what))
		}
		if what := publishes(s); what != "" {
			d := because(KindNeedsAccount, "publishes or logs in (%s): not part of trying the README", what)
			if strings.HasPrefix(what, "git push") {
				d = d.with(causeGitPush)
			}
			return pl.skip(x, d)
		}
	}
	return pass()
}

// blockRunsPackage reports a block whose command after README line `after`
// runs the program of the npm package pkg (`npx dbmate --help` after
// `npm install --save-dev dbmate`): then the install is the way the README
// gets its tool, not the project added to the reader's own as a library.
func blockRunsPackage(b readme.Block, after int, pkg string) bool {
	for _, c := range b.Commands {
		if c.Line <= after {
			continue
		}
		for _, s := range simples(lex(c.Text)) {
			if p := packageRun(s); p != "" && npmTool(p) == npmTool(pkg) {
				return true
			}
		}
	}
	return false
}

// packageRun is the npm package a package runner runs (`npx PKG`,
// `pnpm exec PKG`, `yarn dlx PKG`, `npm exec PKG`), "" for none.
func packageRun(s simple) string {
	if i := packageRunAt(s); i > 0 {
		return s.argv[i].text
	}
	return ""
}

// packageRunAt is the index in s.argv of the package a package runner
// runs, 0 for none.
func packageRunAt(s simple) int {
	from := 1
	switch path.Base(s.name()) {
	case "npx", "bunx", "pnpx":
	case "npm", "pnpm", "yarn", "bun":
		if len(s.argv) < 2 || s.argv[1].text != "exec" && s.argv[1].text != "dlx" && s.argv[1].text != "x" {
			return 0
		}
		from = 2
	default:
		return 0
	}
	for i := from; i < len(s.argv); i++ {
		if !strings.HasPrefix(s.argv[i].text, "-") {
			return i
		}
	}
	return 0
}

// packageCommand is the command a package runner runs: `npx
// @acme/tool@latest deck.md` runs `tool deck.md`; ok is false for others.
func packageCommand(s simple) (simple, bool) {
	i := packageRunAt(s)
	if i == 0 {
		return s, false
	}
	tool := npmTool(s.argv[i].text)
	inner := s
	inner.argv = append([]word{{text: tool, bare: tool}}, s.argv[i+1:]...)
	return inner, true
}

// remoteClientRule skips a connection to a host outside the sandbox.
func remoteClientRule(pl *planner, x *cmd) (Entry, bool) {
	if host := remoteClient(x.cmds); host != "" {
		return pl.skip(x, because(KindRemote, "connects to %s: a service outside the sandbox", host))
	}
	return pass()
}

// needsAccountRule skips a command of a hosted service's tool.
func needsAccountRule(pl *planner, x *cmd) (Entry, bool) {
	if svc := needsAccount(x.cmds); svc != "" {
		return pl.skip(x, because(KindNeedsAccount, "needs a %s account: the sandbox has no login", svc))
	}
	return pass()
}

// uninstallsRule skips removing or reinstalling.
func uninstallsRule(pl *planner, x *cmd) (Entry, bool) {
	if uninstalls(x.cmds, pl.repo.is) {
		return pl.skip(x, because(KindMaintenance, "uninstalls or reinstalls: not part of trying the README"))
	}
	return pass()
}

// selfAdd reports a command that adds this project as a dependency of the
// reader's own project: `npm install express`, `yarn add express`,
// `go get github.com/joho/godotenv`, `cargo add serde`.
func selfAdd(s simple, repo Repo) (string, bool) {
	name, args := s.name(), s.args()
	if len(args) < 2 {
		return "", false
	}
	if name == "git" && args[0] == "submodule" && args[1] == "add" {
		for _, a := range args[2:] {
			if !strings.HasPrefix(a, "-") && repo.isClone(a) {
				return a, true // added to the reader's repository as a submodule
			}
		}
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
	case "uv", "poetry", "pdm", "rye", "pipenv":
		if sub != "add" && !(name == "pipenv" && sub == "install") {
			return "", false
		}
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") && (repo.is(pyTool(a)) || repo.isPackage(pyTool(a))) {
				return a, true // a dependency of the reader's Python project
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

// devDependencies returns the packages a JavaScript package manager adds
// as development dependencies of the project in the current directory
// (`npm install --save-dev @babel/preset-env`, `yarn add --dev
// babel-jest`, `pnpm add -D typescript`), "" for another command. A README
// shows them for the reader's own project; the project itself is
// selfAdd's.
func devDependencies(s simple) string {
	name, args := path.Base(s.name()), s.args()
	if len(args) < 2 || !(name == "npm" || name == "pnpm" || name == "yarn" || name == "bun") ||
		args[0] != "install" && args[0] != "i" && args[0] != "add" {
		return ""
	}
	dev := false
	var pkgs []string
	for _, a := range args[1:] {
		switch {
		case a == "--save-dev" || a == "-D" || a == "--dev" || name == "bun" && a == "-d":
			dev = true
		case a == "-g" || a == "--global":
			return ""
		case !strings.HasPrefix(a, "-"):
			pkgs = append(pkgs, a)
		}
	}
	if !dev || len(pkgs) == 0 {
		return ""
	}
	return strings.Join(pkgs, " ")
}

// sshHost is the host an ssh command names, "" for none.
func sshHost(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if len(a) == 2 && strings.Contains("bcDEeFIiJLlmOoPpQRSWw", a[1:]) {
				i++ // an option with a value
			}
			continue
		}
		return a[strings.IndexByte(a, '@')+1:]
	}
	return ""
}
