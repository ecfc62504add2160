package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Whether a line is a command is decided by facts the sandbox can check,
// not by its wording: its program must resolve, as a shell would find it.

// resolution is how a command's program is known.
type resolution int

const (
	unresolved        resolution = iota
	resolvedShell                // a keyword or builtin, a function or alias the README defines, an expansion
	resolvedImage                // a program of the sandbox image
	resolvedRunner               // a program GitHub's hosted runners have that the image lacks
	resolvedKnown                // a well-known program that neither the image nor the runners have
	resolvedRepo                 // a path of the repository, or one its build makes
	resolvedInstalled            // a program an earlier line installs
	resolvedProject              // the project's own command (its names and manifests)
)

// resolve says how a command's program (its first word, after sudo, env
// and assignments) is known.
func (pl *planner) resolve(name string) resolution {
	switch {
	case name == "":
		return unresolved
	case shellWords[name] || pl.seen.defined[name] || strings.HasPrefix(name, "$") || strings.HasPrefix(name, "`"):
		return resolvedShell
	case strings.Contains(name, "/"):
		return pl.resolvePath(name)
	case pl.programs[name]:
		return resolvedImage
	case pl.repo.is(name), (pl.seen.selfInstall || pl.readme.selfInstall) && (!pl.repo.FilesKnown() || pl.repo.hasStem(name)):
		// The project's names, or, once it is installed from the
		// checkout, a program named like one of its files (bin/rg).
		return resolvedProject
	case pl.installedTool(name):
		return resolvedInstalled
	case envcause.OnRunner(name):
		return resolvedRunner
	case familiarPrograms[name] || knownCommands[name]:
		return resolvedKnown
	}
	return unresolved
}

// resolvePath resolves a program named by a path: one of the repository
// (relative to the session's directory), one a build makes, an absolute
// path, one under the home directory (a clone or download put it there).
func (pl *planner) resolvePath(name string) resolution {
	if strings.HasPrefix(name, "//") {
		return unresolved // a comment in another language's style: // go get …
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, "~") {
		base := path.Base(name)
		if pl.programs[base] || envcause.OnRunner(base) || familiarPrograms[base] || pl.installedTool(base) || pl.repo.is(base) {
			return resolvedImage
		}
		return resolvedRepo // a place the README set up, or a system path: the shell will say
	}
	if !pl.repo.FilesKnown() {
		return resolvedRepo // nothing known of the checkout: the shell will say
	}
	clean := strings.TrimPrefix(name, "./")
	first := strings.SplitN(clean, "/", 2)[0]
	switch {
	case pl.inRepo(clean), pl.seen.mentioned[clean], pl.seen.mentioned[first], pl.seen.cloneDirs[first]:
		return resolvedRepo
	case generatedRe.MatchString(clean) || generatedRe.MatchString(first):
		if pl.seen.built || pl.seen.configured || !pl.repo.FilesKnown() || first == "configure" {
			return resolvedRepo // what a build made
		}
	case pl.installedTool(path.Base(clean)):
		return resolvedInstalled
	}
	return unresolved
}

// installedTool reports a program that an earlier line installs or
// defines: by the tool names installs() records, and the programs some
// Debian packages put on the PATH under another name.
func (pl *planner) installedTool(name string) bool {
	name = strings.ToLower(name)
	if pl.seen.installed[name] > 0 || pl.seen.mentioned[name] || pl.readme.installs[name] {
		return true
	}
	for pkg := range pl.readme.installs {
		if provides(pkg, name) {
			return true
		}
	}
	return false
}

// provides reports a package that puts the program on the PATH: one
// named for it, a Debian package whose programs are named otherwise, or
// one named for it with a word beside it (hello-cli, python-hello,
// hello.py install hello).
func provides(pkg, program string) bool {
	if pkg == program || debianBinaries[pkg] != "" && strings.Contains(" "+debianBinaries[pkg]+" ", " "+program+" ") {
		return true
	}
	for _, sep := range []string{"-", "_", "."} {
		if strings.HasPrefix(pkg, program+sep) || strings.HasSuffix(pkg, sep+program) {
			return true
		}
	}
	return false
}

// debianBinaries are programs of Debian packages whose names differ from
// the package's.
var debianBinaries = map[string]string{
	"ripgrep": "rg", "fd-find": "fdfind fd", "bat": "batcat bat", "python3-pip": "pip3 pip", "python3": "python3",
	"python-is-python3": "python", "nodejs": "node", "npm": "npm npx", "golang-go": "go gofmt", "golang": "go gofmt",
	"build-essential": "gcc g++ make cc c++", "default-jdk": "java javac jar", "default-jre": "java",
	"ruby-full": "ruby gem irb", "neovim": "nvim", "silversearcher-ag": "ag", "imagemagick": "convert magick identify",
	"postgresql-client": "psql", "redis-tools": "redis-cli", "redis-server": "redis-server redis-cli",
	"sqlite3": "sqlite3", "netcat-openbsd": "nc", "netcat": "nc", "dnsutils": "dig nslookup", "iputils-ping": "ping",
	"openssh-client": "ssh scp ssh-keygen", "gnupg": "gpg", "xz-utils": "xz", "bsdmainutils": "column hexdump",
	"pandoc": "pandoc", "ffmpeg": "ffmpeg ffprobe", "rustc": "rustc", "cargo": "cargo", "clang": "clang clang++",
	"libtool": "libtool libtoolize", "autoconf": "autoconf autoreconf", "automake": "automake aclocal",
	"pkg-config": "pkg-config", "git-lfs": "git-lfs", "jq": "jq", "yq": "yq", "fzf": "fzf", "tmux": "tmux",
	"shellcheck": "shellcheck", "hexyl": "hexyl", "exa": "exa", "eza": "eza", "zoxide": "zoxide",
}

// familiarPrograms are well-known programs a README may take for granted:
// a line that starts with one is a command, which runs; where it is
// missing, the run says so (and names the image where GitHub's hosted
// runners have it: envcause.OnRunner, the one list of what they have).
var familiarPrograms = toSet(`
java javac jar mvn gradle ant kotlin kotlinc sbt scala ruby gem bundle bundler rake irb php composer phpunit
yarn pnpm corepack lerna deno bun dotnet mono msbuild swift swiftc pwsh julia R Rscript
cmake ninja meson autoreconf autoconf automake libtool aclocal m4 bison flex clang clang++ gfortran
jq yq zstd 7z p7zip aria2c parallel rsync zip unzip shellcheck yamllint sqlite3 psql mysql pg_ctl
kubectl helm kind minikube kustomize terraform packer pulumi ansible ansible-playbook aws az gcloud gh
docker docker-compose podman buildah skopeo git-lfs hg svn bazel bazelisk
chromium chromedriver google-chrome firefox geckodriver xvfb-run
pipx poetry uv virtualenv tox nox pytest black flake8 mypy ruff pre-commit
mix iex elixir erl rebar3 ghc ghci cabal stack opam dune ocaml zig nim nimble crystal shards dart flutter
lein clojure clj lua luajit luarocks cpanm cpan raco racket elm gleam rustup rustc cargo go gofmt node npm npx
goreleaser golangci-lint gopls staticcheck gotestsum air templ buf protoc grpcurl mockgen swag wire sqlc migrate
busted luacheck stylua perl prove plackup carton rubocop rspec rails jekyll bundle-audit solargraph
phpstan psalm phpcs phpcbf php-cs-fixer artisan symfony wp drush pest
tsc ts-node tsx esbuild webpack rollup vite parcel babel eslint prettier jest vitest mocha ava nyc c8 lerna nx turbo
nodemon pm2 forever serve http-server live-server json-server create-react-app vue ng nest next nuxt astro svelte-kit
black isort flake8 pylint mypy pyright ruff bandit pytest coverage tox nox hatch pdm pipenv poetry twine sphinx-build
mkdocs jupyter ipython streamlit gunicorn uvicorn celery alembic django-admin flask fastapi
cargo-binstall cargo-watch cargo-make cargo-nextest wasm-pack trunk maturin
mvnw gradlew sbt mill scala-cli coursier cs jbang kotlinc groovy jshell
dotnet-format nuget msbuild swift-format swiftlint swiftformat xcodebuild
dart flutter pub fvm
stack cabal hlint ormolu fourmolu ghcup opam dune utop ocamlfind esy
mix hex rebar3 erlc escript elixirc iex
terraform tofu terragrunt packer vault consul nomad kubectl helm kustomize skaffold
gh hub glab git-lfs pre-commit commitizen semantic-release changeset release-it
hugo zola eleventy docusaurus hexo gatsby
sqlite3 duckdb psql mysql redis-cli mongosh
curl wget http https xh curlie httpie jq yq fx gron dasel xsv csvkit mlr
ffmpeg ffprobe convert magick pandoc graphviz dot gnuplot
shfmt shellcheck bats hadolint actionlint yamllint markdownlint
`)

// unknownProgram skips a line whose program does not resolve: output or
// prose that looks like a command, or a program the README never installs.
func unknownProgram(pl *planner, x *cmd) (Entry, bool) {
	if x.b.Hints.Run || x.funcDef {
		return pass()
	}
	name := x.cmds[0].name()
	if name == "" || pl.resolve(name) != unresolved {
		return pass() // only assignments, or a program it knows
	}
	if x.b.Mode == readme.ModeConsole {
		return pl.skip(x, because(KindMissingInput, "needs %s, which the sandbox does not have and no earlier line installs (add the run hint if a step installs it)", name))
	}
	return pl.skip(x, because(KindText, "%s is no program the sandbox has, no file of the repository, and no earlier line installs it: text, not a command (add the run hint if it is one)", name))
}

// cargoBuiltins are the subcommands cargo (with rustup's fmt and clippy)
// has itself; any other, `cargo binstall`, runs the program cargo-binstall.
var cargoBuiltins = toSet(`add b bench build c check clean clippy config d doc fetch fix fmt generate-lockfile
help info init install locate-project login logout metadata miri new owner package pkgid publish r
read-manifest remove report run rustc rustdoc search t test tree uninstall update vendor verify-project
version yank`)

// pluginSubcommand skips a command of a cargo plugin (`cargo binstall`,
// `cargo nextest`) that no earlier line installs: cargo runs the program
// cargo-NAME, which the sandbox image lacks (and GitHub's runners too).
func pluginSubcommand(pl *planner, x *cmd) (Entry, bool) {
	for _, s := range x.cmds {
		args := s.args()
		if path.Base(s.name()) != "cargo" || len(args) == 0 || cargoBuiltins[args[0]] || strings.HasPrefix(args[0], "+") || strings.HasPrefix(args[0], "-") {
			continue
		}
		if plugin := "cargo-" + args[0]; !pl.programs[plugin] && pl.seen.installed[plugin] == 0 {
			return pl.skip(x, because(KindMissingInput, "needs %s (`cargo %s` runs a cargo plugin), which the sandbox does not have and no earlier line installs (add the run hint if a step installs it)", plugin, args[0]))
		}
	}
	return pass()
}

// lookupRe is a program looked up by its path in a command substitution:
// $(which bun), $(command -v node), `which go`.
var lookupRe = lazyre.New("(?:\\$\\(|`)\\s*(?:which|command\\s+-v|type\\s+-p)\\s+([A-Za-z0-9][\\w.+-]*)\\s*(?:\\)|`)")

// lookedUpProgram skips a line that uses the path of a program that
// neither the sandbox nor GitHub's runners have and no earlier line
// installs (`sudo ln -s $(which bun) /usr/local/bin/node` where bun is the
// other way's runtime): the substitution is empty, and the line fails or
// does something else. That a README names the program does not make it
// present (resolvedKnown).
func lookedUpProgram(pl *planner, x *cmd) (Entry, bool) {
	if x.b.Hints.Run {
		return pass()
	}
	for _, m := range lookupRe.FindAllStringSubmatch(x.c.text, -1) {
		if r := pl.resolve(m[1]); r == unresolved || r == resolvedKnown {
			return pl.skip(x, because(KindMissingInput, "needs %s (%s), which the sandbox does not have and no earlier line installs (add the run hint if a step installs it)", m[1], strings.TrimSpace(m[0])))
		}
	}
	return pass()
}

// define records the functions and aliases a line that runs defines.
func (pl *planner) define(text string) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if m := definesFuncRe.FindString(l); m != "" {
			name := strings.TrimSpace(strings.TrimPrefix(m, "function"))
			if i := strings.IndexAny(name, " ({"); i >= 0 {
				name = name[:i]
			}
			pl.seen.defined[name] = true
		}
		if rest, ok := strings.CutPrefix(l, "alias "); ok {
			if name, _, ok := strings.Cut(strings.TrimSpace(rest), "="); ok {
				pl.seen.defined[name] = true
			}
		}
	}
}
