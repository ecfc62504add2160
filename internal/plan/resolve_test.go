package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// A line is a command when its program resolves as a shell would find
// it: a builtin, a program of the sandbox or of GitHub's runners, a file
// of the repository, the project's own program, or one an earlier line
// installs or defines.
var resolveCases = []planCase{
	{
		name: "a program that resolves nowhere",
		rule: "unknown-program",
		readme: here.Doc(`
			~~~sh
			frobnicate --all
			ls
			~~~

			~~~console
			$ frobnicate --all
			~~~

			<!-- readme2demo: run -->
			~~~sh
			frobnicate --all
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 skip text frobnicate --all
			3 probe command ls
			7 skip missing-input frobnicate --all
			12 step command frobnicate --all
		`),
	},
	{
		name: "programs of the image, the runners, the project and the repository",
		readme: here.Doc(`
			~~~sh
			git --version
			terraform version
			widget --help
			wjs --help
			./scripts/build.sh
			bin/widget-admin --help
			~~~
		`),
		repo: archiveRepo(`
			slug acme/widget
			file README.md
			file LICENSE
			file scripts/build.sh
			file bin/widget-admin
			file cmd/widget/main.go
			file package.json
			-- package.json --
			{"name": "@acme/widget-js", "bin": {"wjs": "bin/wjs.js"}}
		`),
		want: here.Doc(`
			2 probe command git --version
			3 probe command terraform version
			4 probe command widget --help
			5 probe command wjs --help
			6 probe command ./scripts/build.sh
			7 probe command bin/widget-admin --help
		`),
	},
	{
		name: "a program an earlier line installs, under its package's name or another",
		readme: here.Doc(`
			~~~sh
			sudo apt install ripgrep fd-find
			rg --version
			fdfind --version
			pipx install black-cli
			black-cli --version
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 probe command sudo apt install ripgrep fd-find
			3 probe command rg --version
			4 probe command fdfind --version
			5 probe command pipx install black-cli
			6 probe command black-cli --version
		`),
	},
	{
		name: "a cargo plugin runs only once an earlier line installs it",
		rule: "plugin-subcommand",
		readme: here.Doc(`
			## Installation

			~~~sh
			cargo binstall tool
			cargo install --locked tool
			cargo +nightly build
			~~~

			## Development

			~~~sh
			cargo nextest run
			cargo install cargo-nextest
			cargo nextest run
			cargo fmt --check
			~~~
		`),
		repo: repoWith("acme/tool", "Cargo.toml"),
		want: here.Doc(`
			4 skip missing-input cargo binstall tool
			5 step command cargo install --locked tool
			6 probe command cargo +nightly build
			12 skip missing-input cargo nextest run
			13 probe command cargo install cargo-nextest
			14 probe command cargo nextest run
			15 probe command cargo fmt --check
		`),
	},
	{
		name: "a program named unlike the package an earlier line installs",
		readme: here.Doc(`
			~~~console
			$ pip install hello-cli
			$ hello --name world
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 probe command pip install hello-cli
			3 probe command hello --name world
		`),
	},
	{
		name: "the image's program list is an option",
		readme: here.Doc(`
			~~~sh
			frobnicate --all
			~~~
		`),
		repo: repoWith("acme/tool"),
		opts: Options{Programs: programsWith("frobnicate")},
		want: here.Doc(`
			2 probe command frobnicate --all
		`),
	},
	{
		name: "a program the project installs from its checkout",
		readme: here.Doc(`
			~~~sh
			make install
			tool-admin --help
			other --help
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "cmd/tool-admin/main.go"),
		want: here.Doc(`
			2 probe command make install
			3 probe command tool-admin --help
			4 skip text other --help
		`),
	},
	{
		name: "a path a build makes",
		readme: here.Doc(`
			~~~sh
			./target/release/tool --help
			cargo build --release
			./target/release/tool --help
			~~~
		`),
		repo: repoWith("acme/tool", "Cargo.toml"),
		want: here.Doc(`
			2 skip text ./target/release/tool --help
			3 probe command cargo build --release
			4 probe command ./target/release/tool --help
		`),
	},
	{
		name: "a function the README defines",
		readme: here.Doc(`
			~~~sh
			greet() {
			  echo "hello $1"
			}
			greet world
			alias ll='ls -l'
			ll
			~~~
		`),
		want: here.Doc(`
			2 probe command greet() {
			5 probe command greet world
			6 probe command alias ll='ls -l'
			7 probe command ll
		`),
	},
	{
		name: "a path of a repository whose files are not known",
		readme: here.Doc(`
			<!-- readme2demo: background -->
			~~~sh
			./server --port 8080
			~~~
		`),
		want: here.Doc(`
			3 probe command ./server --port 8080
		`),
	},
	{
		name: "a line that starts with // is a comment of another language, not a path",
		readme: here.Doc(`
			~~~sh
			// go get github.com/acme/tool/{version}
			/usr/bin/env true
			~~~
		`),
		want: here.Doc(`
			2 skip text // go get github.com/acme/tool/{version}
			3 probe command /usr/bin/env true
		`),
	},
	{
		name: "a program looked up by its path must resolve too",
		rule: "looked-up-program",
		readme: here.Doc(`
			~~~sh
			sudo ln -s $(which r2d-runtime) /usr/local/bin/node
			ln -s "$(command -v node)" ~/bin/node
			ln -s ` + "`which r2d-other`" + ` ~/bin/other
			~~~
		`),
		want: here.Doc(`
			2 skip missing-input sudo ln -s $(which r2d-runtime) /usr/local/bin/node
			3 probe command ln -s "$(command -v node)" ~/bin/node
			4 skip missing-input ln -s ` + "`which r2d-other`" + ` ~/bin/other
		`),
	},
	{
		// bun and pm2 are programs a README may take for granted, but
		// neither the image nor GitHub's runners have them: $(which bun)
		// is empty. java is on the runners.
		name: "a looked-up program that a README names but nothing has",
		rule: "looked-up-program",
		readme: here.Doc(`
			~~~sh
			sudo ln -s $(which bun) /usr/local/bin/node
			ln -s "$(which pm2)" ~/bin/pm2
			export JAVA_HOME=$(dirname $(dirname $(readlink -f $(which java))))
			~~~
		`),
		want: here.Doc(`
			2 skip missing-input sudo ln -s $(which bun) /usr/local/bin/node
			3 skip missing-input ln -s "$(which pm2)" ~/bin/pm2
			4 probe command export JAVA_HOME=$(dirname $(dirname $(readlink -f $(which java))))
		`),
	},
}

func TestResolve(t *testing.T) { testPlans(t, resolveCases) }
