package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

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

func publishes(s simple) string { return publishRe.FindString(s.line()) }

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
