package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
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
			if !s.piped { // `yes | installer`, `yes | head`: the reader ends it
				return "yes"
			}
		}
	}
	return ""
}

// serverRe matches commands that start a server or a watcher and do not
// return: `npm start`, `python -m http.server`, `hugo server`.
var serverRe = lazyre.New(`^(npm (start|run (dev|serve|start|watch))|yarn (start|dev|serve)|pnpm (start|dev)|bun (run )?(dev|start)|python3? -m http\.server|php -S|(bundle exec )?(rails|jekyll|middleman) (s|server|serve)|hugo server|mkdocs serve|flask run|uvicorn|gunicorn|http-server|live-server|serve|nodemon|npx (http-server|serve|live-server|nodemon)|docker(-| )compose up|python3? manage\.py runserver|mvn spring-boot:run|\./mvnw spring-boot:run|gradle bootRun|\./gradlew bootRun|cargo watch|air|deno task (dev|start))\b|^(npx )?[a-z][\w.-]*-server(\s|$)`)

// server names a command that starts a server and keeps running, "" for
// others. A `-d` (detached) compose is not one.
func server(cmds []simple) string {
	if len(cmds) == 0 {
		return ""
	}
	s := cmds[len(cmds)-1]
	for _, a := range s.args() {
		if a == "-d" || a == "--detach" || a == "--help" || a == "-h" || a == "--version" {
			return ""
		}
	}
	if m := serverRe.FindString(s.line()); m != "" {
		return m
	}
	// `tool serve`, `tool server`: a program's subcommand that serves.
	if args := s.args(); len(args) > 0 && (args[0] == "serve" || args[0] == "server") && !shellWords[s.name()] {
		return s.name() + " " + args[0]
	}
	return ""
}

// patternOpts take a value that is an output or a pattern, not an input.
var patternOpts = toSet(`-o --output --out -O -g --glob -e --extension -name -iname --include --exclude -E -t --type`)

// outputOptRe names long options whose value is a file the command writes:
// --report-path, --output-file, --log-dir.
var outputOptRe = lazyre.New(`^--[\w-]*(out|output|report|log|cache|save|dest|target|export|write)[\w-]*$`)

// notFileCommands take arguments that are not input files (package names,
// targets, branch names, outputs) or create what they name.
var notFileCommands = toSet(`
git gh npm npx yarn pnpm bun pip pip3 pipx uv poetry go cargo rustup gem bundle brew apt apt-get
docker podman kubectl helm curl wget ssh scp rsync make cmake ninja meson mkdir touch cp mv ln rm rmdir
echo printf export unset alias cd pushd kill pkill chmod chown tar unzip zip sudo mise asdf
sdk conda mamba open xdg-open man which type command help complete eval exec
test [ [[ set shopt sqlite3 duckdb git-lfs hub mvn gradle ./mvnw ./gradlew dotnet composer nix nix-env snap systemctl
service ping dig host nslookup whois ssh-keygen gpg openssl code vim vi nvim nano emacs less more
`)

var (
	fileArgRe = lazyre.New(`^(\./)?\.?[\w][\w.+-]*(/[\w.+-]+)*/?$`)
	// extRe is a file name extension people give files (not deps.get).
	extRe    = lazyre.New(`(?i)\.(md|markdown|rst|txt|json|jsonl|ya?ml|toml|ini|cfg|conf|env|lock|csv|tsv|xml|html?|css|s[ac]ss|js|mjs|cjs|jsx|tsx?|vue|svelte|py|ipynb|rb|go|mod|sum|rs|c|h|cc|cpp|hpp|cxx|java|kt|kts|scala|swift|dart|php|pl|lua|r|ex|exs|erl|hs|ml|sh|bash|zsh|fish|ps1|bats|sql|db|sqlite|log|png|jpe?g|gif|svg|webp|pdf|zip|tar|gz|tgz|bz2|xz|7z|deb|rpm|whl|gem|jar|war|apk|dmg|exe|msi|proto|graphql|tf|hcl|nix|patch|diff|pem|crt|key|pub|age|asc|gpg|mp4|mp3|wav|iso|img|bin|so|a|o|wasm|dockerfile|gradle|properties|in|am|ac|m4|cmake|mk)$`)
	domainRe = lazyre.New(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|sh|cc|in|me|co|app|xyz|tld|local|gov|edu)/`)
	// generatedRe names what builds and configure steps make: ./configure
	// (autoreconf), Makefile, target/, build/, dist/, bin/ …
	generatedRe = lazyre.New(`^(configure|Makefile|config\.status|(target|build|_build|dist|out|bin|obj|release|debug|node_modules|\.venv|venv|vendor|pkg)(/.*)?)$`)
	versionRe   = lazyre.New(`^v?\d+(\.\d+)+`)
)

// missingFile returns the first argument of a command that names a file
// of the repository that does not exist, when the plan knows the
// repository's files and no earlier command named it; "" otherwise.
func (pl *planner) missingFile(cmds []simple) string {
	if !pl.repo.FilesKnown() {
		return ""
	}
	for _, s := range cmds {
		for _, f := range s.inputs { // the files it reads through `<`
			if looksLikeFile(f) {
				clean := strings.TrimSuffix(strings.TrimPrefix(f, "./"), "/")
				if !generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.mentioned[clean] && !pl.mentioned[path.Base(clean)] {
					return f
				}
			}
		}
	}
	var earlier []string // words of the chain's earlier commands
	madeEarlier := func(d string) bool {
		for _, w := range earlier {
			// An archive extracts to its stem: rcm-1.3.4.tar.gz makes rcm-1.3.4.
			if b := path.Base(w); b == d || strings.HasPrefix(b, d+".") {
				return true
			}
		}
		return false
	}
	for i, s := range cmds {
		if i > 0 {
			earlier = append(earlier, cmds[i-1].args()...)
		}
		for _, a := range s.assign {
			// FOO_PATH=./.env.local: a file the command will read.
			_, v, _ := strings.Cut(a, "=")
			v = strings.Trim(v, `"'`)
			if clean := strings.TrimSuffix(strings.TrimPrefix(v, "./"), "/"); strings.HasPrefix(v, "./") && looksLikeFile(v) &&
				!generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.mentioned[clean] && !pl.mentioned[path.Base(clean)] {
				return v
			}
		}
		name := s.name()
		if (name == "cd" || name == "pushd") && len(s.argv) == 2 {
			// cd into a directory of the README's example project.
			d := strings.TrimSuffix(strings.TrimPrefix(s.argv[1].text, "./"), "/")
			if fileArgRe.MatchString(d) && !strings.Contains(d, "..") && d != "." && !generatedRe.MatchString(d) &&
				!pl.inRepo(d) && !pl.mentioned[d] && !pl.mentioned[strings.SplitN(d, "/", 2)[0]] && !pl.cloneDirs[d] && !madeEarlier(d) {
				return d
			}
			continue
		}
		if notFileCommands[name] || notFileCommands[path.Base(name)] {
			continue
		}
		args := s.args()
		if len(args) > 0 && packageVerbs[args[0]] {
			continue // `clib install clibs/ms`: package names, not files
		}
		for i, a := range args {
			if i > 0 && patternOpts[args[i-1]] {
				continue // an output to make, or a pattern to match, not a file to read
			}
			if i > 0 && outputOptRe.MatchString(args[i-1]) {
				continue // the value of an option that names what the command writes
			}
			if !looksLikeFile(a) || pl.slugArg(a) {
				continue
			}
			clean := strings.TrimSuffix(strings.TrimPrefix(a, "./"), "/")
			if generatedRe.MatchString(clean) || pl.inRepo(clean) || pl.mentioned[clean] || pl.mentioned[path.Base(clean)] || pl.mentioned[strings.SplitN(clean, "/", 2)[0]] {
				continue
			}
			return a
		}
		// The command itself: ./bin/tool, scripts/x.sh, or a script by its
		// name (test-script.sh), which is on no PATH unless it is here.
		if (strings.HasPrefix(name, "./") || !strings.Contains(name, "/") && scriptExtRe.MatchString(name) && pl.installed[name] == 0) && looksLikeFile(name) {
			clean := strings.TrimPrefix(name, "./")
			if !generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.mentioned[clean] && !pl.mentioned[strings.SplitN(clean, "/", 2)[0]] && !pl.mentioned[path.Base(clean)] {
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
	return strings.Contains(strings.TrimPrefix(a, "./"), "/") || extRe.MatchString(a) || strings.HasPrefix(a, "./") || dotFileRe.MatchString(a)
}

// packageVerbs are subcommands whose arguments name packages.
var packageVerbs = toSet(`install i add get remove uninstall update upgrade up`)

// scriptExtRe is a script's file name.
var scriptExtRe = lazyre.New(`\.(sh|bash|py|rb|pl|js|mjs|ts)$`)

// dotFileRe is an env or rc file with a suffix: .env.local, .eslintrc.json
// (not .a.b, a jq path).
var dotFileRe = lazyre.New(`^\.(env|[\w-]*rc)(\.[\w-]+)+$`)

// metasyntactic are the words READMEs use for "any value": foo, bar.
var metasyntactic = toSet(`foo bar baz qux foobar myfile my-file myapp my-app my_app myproject my-project
my_project mydir my-dir myrepo my-repo`)

// someNounRe is "some" and a noun, a README's stand-in for a value:
// someremote, some-branch, some_file.
var someNounRe = lazyre.New(`^some[-_]?(remote|branch|file|dir|directory|folder|repo|repository|project|app|tag|host|server|user|name|package|module|command|value|key|image|service)s?$`)

// makesNames are commands whose arguments name what they create or set,
// so foo there is the README's own demo, not a placeholder.
var makesNames = toSet(`echo printf export mkdir touch cd pushd cat tee cp mv ln alias set unset local declare git npm yarn pnpm cargo go`)

// exampleArg returns an argument that is a metasyntactic word (foo, bar,
// ~/foo, foo/) that no earlier command made real, "" when there is none.
func (pl *planner) exampleArg(cmds []simple) string {
	for _, s := range cmds {
		// `git open x` runs the project git-open: its arguments are its own.
		gitOwn := s.name() == "git" && len(s.argv) > 1 && pl.repo.is("git-"+s.argv[1].text)
		if (makesNames[s.name()] || shellWords[s.name()]) && !gitOwn {
			continue
		}
		for _, w := range s.argv[min(1, len(s.argv)):] {
			if w.text != w.bare || strings.HasPrefix(w.text, "/") {
				continue // quoted: data; absolute: a real place (/tmp/foo)
			}
			a := path.Base(strings.TrimSuffix(w.text, "/"))
			if (metasyntactic[a] || someNounRe.MatchString(a)) && !pl.mentioned[a] && !pl.mentioned[strings.TrimPrefix(w.text, "~/")] {
				return w.text
			}
		}
	}
	return ""
}

// shellNames are shells other than bash, by the name tools take as an
// argument (`zoxide init zsh`, `tool completion fish`).
var shellNames = map[string]string{"zsh": "zsh", "fish": "fish", "powershell": "PowerShell", "pwsh": "PowerShell",
	"elvish": "Elvish", "nushell": "Nushell", "nu": "Nushell", "tcsh": "tcsh", "csh": "csh", "xonsh": "xonsh", "ksh": "ksh"}

// forShell names the other shell a command is for: one of its arguments
// is that shell's name (`fd --gen-completions zsh`), "" for none.
func forShell(cmds []simple) string {
	for _, s := range cmds {
		if shellNames[path.Base(s.name())] != "" || shellWords[s.name()] || s.name() == "printf" {
			continue // running that shell is judged elsewhere; echo zsh prints a word
		}
		for _, a := range s.args() {
			if n := shellNames[a]; n != "" {
				return n
			}
		}
	}
	return ""
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
