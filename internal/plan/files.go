package plan

import (
	"path"
	"regexp"
	"strings"
)

// Commands that run until they are stopped, and servers.

// follows names a command that runs until interrupted (tail -f), "" for
// others.
func follows(cmds []simple) string {
	for _, s := range cmds {
		name, args := path.Base(s.name()), s.args()
		switch name {
		case "tail", "journalctl", "less":
			for _, a := range args {
				if a == "-f" || a == "-F" || a == "--follow" || strings.HasPrefix(a, "--follow=") {
					return name + " " + a
				}
			}
		case "docker", "podman", "kubectl":
			if len(args) > 0 && args[0] == "logs" {
				for _, a := range args {
					if a == "-f" || a == "--follow" {
						return name + " logs " + a
					}
				}
			}
		case "yes":
			return "yes"
		}
	}
	return ""
}

// serverRe matches commands that start a server or a watcher and do not
// return: `npm start`, `python -m http.server`, `hugo server`.
var serverRe = regexp.MustCompile(`^(npm (start|run (dev|serve|start|watch))|yarn (start|dev|serve)|pnpm (start|dev)|bun (run )?(dev|start)|python3? -m http\.server|php -S|(bundle exec )?(rails|jekyll|middleman) (s|server|serve)|hugo server|mkdocs serve|flask run|uvicorn|gunicorn|http-server|live-server|serve|nodemon|npx (http-server|serve|live-server|nodemon)|docker(-| )compose up|python3? manage\.py runserver|mvn spring-boot:run|\./mvnw spring-boot:run|gradle bootRun|\./gradlew bootRun|cargo watch|air|deno task (dev|start))\b`)

// server names a command that starts a server and keeps running, "" for
// others. A `-d` (detached) compose is not one.
func server(cmds []simple) string {
	if len(cmds) == 0 {
		return ""
	}
	s := cmds[len(cmds)-1]
	line := s.name()
	for _, a := range s.args() {
		line += " " + a
		if a == "-d" || a == "--detach" || a == "--help" || a == "-h" || a == "--version" {
			return ""
		}
	}
	return serverRe.FindString(line)
}

// notFileCommands take arguments that are not input files (package names,
// targets, branch names, outputs) or create what they name.
var notFileCommands = toSet(`
git gh npm npx yarn pnpm bun pip pip3 pipx uv poetry go cargo rustup gem bundle brew apt apt-get dpkg
docker podman kubectl helm curl wget ssh scp rsync make cmake ninja meson mkdir touch cp mv ln rm rmdir
echo printf export unset alias cd pushd kill pkill chmod chown tar unzip zip install sudo mise asdf nvm
n rbenv pyenv sdk conda mamba open xdg-open man which type command help complete source . eval exec
test [ [[ set shopt git-lfs hub mvn gradle ./mvnw ./gradlew dotnet composer nix nix-env snap systemctl
service ping dig host nslookup whois ssh-keygen gpg openssl code vim vi nvim nano emacs less more
`)

var (
	fileArgRe = regexp.MustCompile(`^(\./)?[\w][\w.+-]*(/[\w.+-]+)*/?$`)
	extRe     = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,5}$`)
	domainRe  = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|sh|cc|in|me|co|app|xyz|tld|local)(/|$)`)
	versionRe = regexp.MustCompile(`^v?\d+(\.\d+)+`)
)

// missingFile returns the first argument of a command that names a file
// of the repository that does not exist, when the plan knows the
// repository's files and no earlier command named it; "" otherwise.
func (pl *planner) missingFile(cmds []simple) string {
	if !pl.repo.FilesKnown() {
		return ""
	}
	for _, s := range cmds {
		name := s.name()
		if notFileCommands[name] || notFileCommands[path.Base(name)] {
			continue
		}
		args := s.args()
		for i, a := range args {
			if i > 0 && (args[i-1] == "-o" || args[i-1] == "--output" || args[i-1] == "--out" || args[i-1] == "-O") {
				continue
			}
			if !looksLikeFile(a) {
				continue
			}
			clean := strings.TrimSuffix(strings.TrimPrefix(a, "./"), "/")
			if pl.repo.hasFile(clean) || pl.mentioned[clean] || pl.mentioned[path.Base(clean)] || pl.mentioned[strings.SplitN(clean, "/", 2)[0]] {
				continue
			}
			return a
		}
		// The command itself: ./bin/tool, scripts/x.sh.
		if strings.HasPrefix(name, "./") && looksLikeFile(name) {
			clean := strings.TrimPrefix(name, "./")
			if !pl.repo.hasFile(clean) && !pl.mentioned[clean] && !pl.mentioned[strings.SplitN(clean, "/", 2)[0]] && !pl.mentioned[path.Base(clean)] {
				return name
			}
		}
	}
	return ""
}

// looksLikeFile reports an argument shaped like a relative file path with
// an extension or a directory part: server.js, app/server.js, ./x.
func looksLikeFile(a string) bool {
	if a == "" || a == "." || a == ".." || strings.HasPrefix(a, "-") || !fileArgRe.MatchString(a) ||
		domainRe.MatchString(a) || versionRe.MatchString(a) || strings.Contains(a, "...") {
		return false
	}
	return strings.Contains(strings.TrimPrefix(a, "./"), "/") || extRe.MatchString(a) || strings.HasPrefix(a, "./")
}
