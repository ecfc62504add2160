package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// A line that runs is a step when the README clearly means it to be run
// and its failure would mean the README is wrong: in a shell block under
// an install, build or getting-started heading whose every command
// resolves, the commands that install, build or prepare; whatever the run
// hint runs; a file the README names; set-up it asks for; the clone
// linked. Everything else that runs is a probe.
var plannedCases = []planCase{
	{
		name: "a shell block of a section a new user follows",
		readme: here.Doc(`
			# tool

			## Getting started

			~~~sh
			make
			./tool --version
			~~~

			## Quick start

			~~~console
			$ make test
			~~~

			## Requirements

			    sudo apt install build-essential

			## Usage

			~~~sh
			./tool run
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "tool"),
		want: here.Doc(`
			6 step command make
			7 probe command ./tool --version
			13 step command make test
			18 probe command sudo apt install build-essential
			23 probe command ./tool run
		`),
	},
	{
		name: "an unlabelled fenced block of an install section is a step when it only installs or builds",
		readme: here.Doc(`
			# tool

			## Installation

			~~~
			go install github.com/acme/tool@latest
			~~~

			## Setup

			~~~
			mkdir -p ~/.config/tool
			tool --version
			~~~

			## Requirements

			    sudo apt install jq
		`),
		repo: repoWith("acme/tool", "Makefile", "go.mod"),
		want: here.Doc(`
			6 step command go install github.com/acme/tool@latest
			12 probe command mkdir -p ~/.config/tool
			13 probe command tool --version
			18 probe command sudo apt install jq
		`),
	},
	{
		name: "a skipped line leaves the others steps",
		readme: here.Doc(`
			## Installation

			~~~sh
			brew install tool
			make
			Then run it.
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			4 skip other-platform brew install tool
			5 step command make
			6 skip output Then run it.
		`),
	},
	{
		name: "the run hint makes every command a step",
		readme: here.Doc(`
			## Usage

			<!-- readme2demo: run -->
			~~~sh
			frobnicate --all
			brew install tool
			~~~
		`),
		want: here.Doc(`
			5 step command frobnicate --all
			6 step command brew install tool
		`),
	},
	{
		name: "what the README names runs as a step anywhere",
		readme: here.Doc(`
			## Usage

			Add this to your ` + "`~/.bashrc`" + `:

			~~~sh
			export PATH="$HOME/.tool/bin:$PATH"
			~~~

			~~~sh
			git clone https://github.com/acme/tool ~/.tool
			~~~

			<!-- readme2demo: file=notes.txt -->
			~~~text
			hello
			~~~

			~~~sh
			cat notes.txt
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			6 step shell-setup export PATH="$HOME/.tool/bin:$PATH"
			10 step link-clone git clone https://github.com/acme/tool ~/.tool
			15 step write-file cat > notes.txt <<'README2DEMO_EOF'
			19 probe command cat notes.txt
		`),
	},
	{
		name: "a section heading in a README's other words",
		readme: here.Doc(`
			## Building from source

			~~~sh
			cmake -B build
			cmake --build build
			~~~

			## Set up

			~~~sh
			mkdir -p ~/.config/tool
			~~~

			## Examples

			~~~sh
			ls
			~~~
		`),
		repo: repoWith("acme/tool", "CMakeLists.txt"),
		want: here.Doc(`
			4 step command cmake -B build
			5 step command cmake --build build
			11 step command mkdir -p ~/.config/tool
			17 probe command ls
		`),
	},
	{
		name: "the rest of a block whose install is another way is a probe",
		readme: here.Doc(`
			## Installation

			~~~sh
			curl -fsSL https://acme.dev/tool/install | sh
			~~~

			Or by hand:

			~~~sh
			VERSION=v1.2.0
			curl -L "https://github.com/acme/tool/releases/download/${VERSION}/tool.tar.gz" | tar xz -C /usr/local/bin tool
			chmod +rx /usr/local/bin/tool
			curl -L https://github.com/acme/tool/releases/download/${VERSION}/tool-helper -o /usr/local/bin/tool-helper
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			4 step command curl -fsSL https://acme.dev/tool/install | sh
			10 probe command VERSION=v1.2.0
			11 skip alternative curl -L "https://github.com/acme/tool/releases/download/${VERSION}/tool.tar.gz" | tar xz -C /usr/local/bin tool
			12 skip missing-input chmod +rx /usr/local/bin/tool
			13 probe command curl -L https://github.com/acme/tool/releases/download/${VERSION}/tool-helper -o /usr/local/bin/tool-helper
		`),
	},
	{
		name: "once the project is installed, installs and builds of another way are probes, its own set-up a step",
		readme: here.Doc(`
			## Installation

			~~~sh
			go install github.com/acme/tool/cmd/tool@latest
			~~~

			Binary too big? Build a lite version:

			~~~sh
			go build -tags=lite -o tool ./cmd/tool
			~~~

			### From source

			~~~sh
			curl -sSf https://sh.rustup.rs | sh
			sudo apt install libssl-dev
			mkdir -p ~/.config/tool
			~~~
		`),
		repo: repoWith("acme/tool", "go.mod", "cmd/tool/main.go"),
		want: here.Doc(`
			4 step command go install github.com/acme/tool/cmd/tool@latest
			10 probe command go build -tags=lite -o tool ./cmd/tool
			16 probe command curl -sSf https://sh.rustup.rs | sh
			17 probe command sudo apt install libssl-dev
			18 step command mkdir -p ~/.config/tool
		`),
	},
	{
		name: "after the project's own installer given in the text, an install in a block is another way",
		readme: here.Doc(`
			## Install

			Download a release, or install it now with ` + "`curl https://acme.dev/tool! | bash`" + `.

			### Source

			~~~sh
			$ go install github.com/acme/tool@latest
			~~~
		`),
		repo: repoWith("acme/tool", "go.mod"),
		want: here.Doc(`
			8 probe command go install github.com/acme/tool@latest
		`),
	},
	{
		name: "what only a probe wrote is a guess's result: the step that uses it is a probe",
		readme: here.Doc(`
			## Installing

			~~~console
			pandoc -s -t man tool.1.md -o tool.1
			sudo mv tool.1 /usr/share/man/man1
			curl -fsSLo tool.tar.gz https://acme.dev/tool.tar.gz
			tar -xzf tool.tar.gz
			~~~
		`),
		repo: repoWith("acme/tool", "tool.1.md"),
		want: here.Doc(`
			4 probe command pandoc -s -t man tool.1.md -o tool.1
			5 probe command sudo mv tool.1 /usr/share/man/man1
			6 step command curl -fsSLo tool.tar.gz https://acme.dev/tool.tar.gz
			7 step command tar -xzf tool.tar.gz
		`),
	},
	{
		name: "an install one-liner run through sh -c is a step like the commands it runs",
		readme: here.Doc(`
			## install

			~~~sh
			sudo sh -c "curl https://acme.dev/spark -o /usr/local/bin/spark && chmod +x /usr/local/bin/spark"
			sh -c 'spark 1 2 3'
			~~~
		`),
		repo: repoWith("holman/spark", "spark"),
		want: here.Doc(`
			4 step command sudo sh -c "curl https://acme.dev/spark -o /usr/local/bin/spark && chmod +x /usr/local/bin/spark"
			5 probe command sh -c 'spark 1 2 3'
		`),
	},
	{
		name: "a heading that only names the project is no install or build section",
		readme: here.Doc(`
			# ruby-build

			## Usage

			~~~sh
			rbenv install 3.4.9
			export RUBY_BUILD_MIRROR_URL="https://mirror.acme.dev"
			~~~

			## Installation

			~~~sh
			make install
			~~~
		`),
		repo: repoWith("rbenv/ruby-build", "Makefile"),
		want: here.Doc(`
			6 probe command rbenv install 3.4.9
			7 probe command export RUBY_BUILD_MIRROR_URL="https://mirror.acme.dev"
			13 step command make install
		`),
	},
}

func TestPlanned(t *testing.T) { testPlans(t, plannedCases) }

// An entry that only prepares the session checks nothing when it passes.
func TestEntryPrepares(t *testing.T) {
	tests := []struct {
		kind    Kind
		command string
		want    bool
	}{
		{KindCommand, `export PATH="$HOME/.cabal/bin:$PATH"`, true},
		{KindCommand, `alias ll='ls -l'`, true},
		{KindCommand, `mkdir -p build && cd build`, true},
		{KindCommand, `FOO=bar`, true},
		{KindCommand, `source venv/bin/activate`, true},
		{KindCommand, `sudo mkdir -p /etc/apt/keyrings`, true},
		{KindCommand, `make`, false},
		{KindCommand, `export CC=clang && make`, false},
		{KindCommand, `tool --version`, false},
		{KindCommand, `git config --global alias.cf 'forgit checkout_file'`, true},
		{KindCommand, `git config --get user.name`, false},
		{KindCommand, `git cf`, false},
		{KindCommand, "echo_err() {\n  echo \"$@\" >&2\n}", true},
		{KindCommand, "function greet { echo hi; }", true},
		{KindShellSetup, "for r in `tool --summary`; do\n  alias $r=\"tool $r\"\ndone", true},
		{KindWriteFile, `cat > x.js <<'EOF'`, true},
		{KindPlaceholder, `export FOO=1`, false},
	}
	for _, tc := range tests {
		e := Entry{Kind: tc.kind, Command: tc.command}
		assert.Check(t, e.Prepares() == tc.want, "%s %q", tc.kind, tc.command)
	}
}
