package plan

import (
	"strings"
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// Install once: of several ways to install or build the project, the
// first that fits Linux (or a later recipe for Debian) runs; the others,
// and the steps that only build toward them, are alternatives.
var alternativeCases = []planCase{
	{
		name: "a local npm install of the project that its block runs with npx is the install, and later ways are alternatives",
		readme: here.Doc(`
			## Installation

			Install using NPM:

			~~~sh
			npm install --save-dev dbmate
			npx dbmate --help
			~~~

			**Linux**

			~~~sh
			sudo curl -fsSL -o /usr/local/bin/dbmate https://github.com/amacneil/dbmate/releases/latest/download/dbmate-linux-amd64
			sudo chmod +x /usr/local/bin/dbmate
			~~~
		`),
		repo: slugRepo("amacneil/dbmate"),
		want: here.Doc(`
			6 step command npm install --save-dev dbmate
			7 probe command npx dbmate --help
			13 skip alternative sudo curl -fsSL -o /usr/local/bin/dbmate https://github.com/amacneil/dbmate/releases/latest/download/dbmate-linux-amd64
			14 skip alternative sudo chmod +x /usr/local/bin/dbmate
		`),
	},
	{
		name: "a local npm install of the project that its block does not run is a library use",
		readme: here.Doc(`
			## Installation

			~~~sh
			npm install --save-dev dbmate
			~~~
		`),
		repo: slugRepo("amacneil/dbmate"),
		want: here.Doc(`
			4 skip library-use npm install --save-dev dbmate
		`),
	},
	{
		name: "a skipped dev-dependency install names a package, not a file the global install then uses",
		readme: here.Doc(`
			## Installation

			~~~bash
			npm install --save-dev @marp-team/marp-cli
			~~~

			~~~bash
			npm install -g @marp-team/marp-cli
			~~~
		`),
		repo: slugRepo("marp-team/marp-cli"),
		want: here.Doc(`
			4 skip library-use npm install --save-dev @marp-team/marp-cli
			8 step command npm install -g @marp-team/marp-cli
		`),
	},
	{
		name: "a Python tool installed with its version after @ is the same tool",
		readme: here.Doc(`
			## Installation

			~~~sh
			uv tool install ruff@latest
			~~~

			~~~sh
			pip install ruff
			~~~
		`),
		repo: slugRepo("astral-sh/ruff"),
		want: here.Doc(`
			4 step command uv tool install ruff@latest
			8 skip alternative pip install ruff
		`),
	},
	{
		name: "a Debian recipe after a generic install is another way",
		readme: here.Doc(`
			# vhs

			Or, just install it with ` + "`go`" + `:

			~~~sh
			go install github.com/charmbracelet/vhs@latest
			~~~

			- Debian / Ubuntu

			~~~sh
			sudo mkdir -p /etc/apt/keyrings
			sudo apt update && sudo apt install vhs ffmpeg
			~~~

			- Fedora / RHEL

			~~~sh
			echo '[charm]' | sudo tee /etc/yum.repos.d/charm.repo
			~~~
		`),
		repo: slugRepo("charmbracelet/vhs"),
		want: here.Doc(`
			6 probe command go install github.com/charmbracelet/vhs@latest
			12 probe command sudo mkdir -p /etc/apt/keyrings
			13 skip alternative sudo apt update && sudo apt install vhs ffmpeg
			19 skip other-platform echo '[charm]' | sudo tee /etc/yum.repos.d/charm.repo
		`),
	},
	{
		name: "a second install of the project in another block of the same section is another way",
		readme: here.Doc(`
			# soft-serve

			## Installation

			~~~bash
			sudo apt update && sudo apt install soft-serve
			~~~

			Or just install it with go:

			~~~bash
			go install github.com/charmbracelet/soft-serve/cmd/soft@latest
			~~~

			If you want the latest code, install from the repository:

			~~~bash
			python3 -m pip install -U git+https://github.com/charmbracelet/soft-serve.git
			~~~
		`),
		repo: repoNamed("charmbracelet/soft-serve", "soft"),
		want: here.Doc(`
			6 step command sudo apt update && sudo apt install soft-serve
			12 skip alternative go install github.com/charmbracelet/soft-serve/cmd/soft@latest
			18 skip alternative python3 -m pip install -U git+https://github.com/charmbracelet/soft-serve.git
		`),
	},
	{
		name: "after a clone whose installer ran, another way to install the project is an alternative",
		readme: here.Doc(`
			# tool

			## Installing

			### Cloning the repository

			~~~bash
			git clone https://github.com/acme/tool.git && cd tool && sudo make install
			~~~

			For a non-root installation:

			~~~bash
			git clone https://github.com/acme/tool.git
			cd tool
			make PREFIX=$HOME/.local install
			~~~

			### From source, editable

			~~~bash
			git clone https://github.com/acme/tool.git tool-src
			cd tool-src && pip install -e .
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "pyproject.toml"),
		want: here.Doc(`
			8 step clone-rest git clone https://github.com/acme/tool.git && cd tool && sudo make install
			14 skip clone-of-self git clone https://github.com/acme/tool.git
			15 skip clone-of-self cd tool
			16 skip alternative make PREFIX=$HOME/.local install
			22 skip alternative git clone https://github.com/acme/tool.git tool-src
			23 skip alternative cd tool-src && pip install -e .
		`),
	},
	{
		name: "a download, then its install into the PATH in another block of the section, are one way",
		readme: here.Doc(`
			# tool

			## Installation

			~~~sh
			curl -LO https://github.com/acme/tool/releases/download/v1.0.0/tool
			~~~

			~~~sh
			sudo install tool /usr/local/bin/tool
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			6 step command curl -LO https://github.com/acme/tool/releases/download/v1.0.0/tool
			10 step command sudo install tool /usr/local/bin/tool
		`),
	},
	{
		// The download of a release asset named for the project is the
		// pre-built way to install it, whether saved or piped to tar; an
		// asset of another project, or a file of the project's that is not
		// named for it, is not.
		name: "a release download of the project after its install is another way, with its variable",
		readme: here.Doc(`
			# tool

			## Installation

			~~~sh
			sudo apt-get install tool
			~~~

			## Pre-built binaries

			~~~bash
			ver="stable" # or "v1.2.0"
			wget -qO- "https://github.com/acme/tool/releases/download/${ver?}/tool-${ver?}.linux.x86_64.tar.xz" | tar -xJv
			cp "tool-${ver}/tool" /usr/local/bin/
			~~~

			## Test data

			~~~sh
			curl -LO https://github.com/acme/tool/releases/download/v1.0.0/fixtures.tar.gz
			curl -LO https://github.com/other/toolkit/releases/download/v2/toolkit-linux.tar.gz
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			6 step command sudo apt-get install tool
			12 skip prepares ver="stable" # or "v1.2.0"
			13 skip alternative wget -qO- "https://github.com/acme/tool/releases/download/${ver?}/tool-${ver?}.linux.x86_64.tar.xz" | tar -xJv
			14 skip alternative cp "tool-${ver}/tool" /usr/local/bin/
			20 probe command curl -LO https://github.com/acme/tool/releases/download/v1.0.0/fixtures.tar.gz
			21 probe command curl -LO https://github.com/other/toolkit/releases/download/v2/toolkit-linux.tar.gz
		`),
	},
	{
		name: "a download of the project's package, then its install from another block, are one way",
		readme: here.Doc(`
			## Installation

			~~~sh
			curl -LO https://github.com/acme/tool/releases/download/1.0/tool_1.0_amd64.deb
			~~~

			~~~sh
			sudo dpkg -i tool_1.0_amd64.deb
			~~~

			Or with pip:

			~~~sh
			pip install tool
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 step command curl -LO https://github.com/acme/tool/releases/download/1.0/tool_1.0_amd64.deb
			8 step command sudo dpkg -i tool_1.0_amd64.deb
			14 skip alternative pip install tool
		`),
	},
	{
		name: "a manual install from a clone after a global install, and npx of the installed package",
		readme: here.Doc(`
			# live-server

			## Installation

			    npm install -g live-server

			**Manual way**

			    git clone https://github.com/tapio/live-server
			    cd live-server
			    npm install
			    npm install -g

			~~~sh
			npx live-server --version
			~~~
		`),
		repo: slugRepo("tapio/live-server"),
		want: here.Doc(`
			5 probe command npm install -g live-server
			9 skip clone-of-self git clone https://github.com/tapio/live-server
			10 skip clone-of-self cd live-server
			11 skip prepares npm install
			12 skip alternative npm install -g
			15 skip alternative npx live-server --version
		`),
	},
	{
		name: "apt steps after a skipped package source",
		readme: here.Doc(`
			# Bash-Snippets

			## Installing

			~~~bash
			sudo add-apt-repository ppa:x/bash-snippets
			sudo apt update
			sudo apt install bash-snippets
			~~~
		`),
		repo: repoWith("alexanderepstein/Bash-Snippets", "install.sh"),
		want: here.Doc(`
			6 skip other-platform sudo add-apt-repository ppa:x/bash-snippets
			7 skip other-platform sudo apt update
			8 skip other-platform sudo apt install bash-snippets
		`),
	},
	{
		name: "an index update goes with the alternative install after it",
		readme: here.Doc(`
			# pastel

			~~~bash
			wget https://dl.acme.dev/pastel_0.12.0_amd64.deb
			sudo dpkg -i pastel_0.12.0_amd64.deb
			~~~

			Alternatively:

			~~~bash
			sudo apt update
			sudo apt install pastel
			~~~

			~~~
			sudo apt-get update
			make install
			~~~
		`),
		repo: repoWith("sharkdp/pastel", "Makefile"),
		want: here.Doc(`
			4 probe command wget https://dl.acme.dev/pastel_0.12.0_amd64.deb
			5 probe command sudo dpkg -i pastel_0.12.0_amd64.deb
			11 skip prepares sudo apt update
			12 skip alternative sudo apt install pastel
			16 probe command sudo apt-get update
			17 skip alternative make install
		`),
	},
	{
		name: "a second section that builds the project is an alternative",
		readme: here.Doc(`
			# tool

			## Install

			~~~sh
			go install github.com/acme/tool@latest
			~~~

			## Building from source

			~~~sh
			make
			sudo make install
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			6 step command go install github.com/acme/tool@latest
			12 skip alternative make
			13 skip alternative sudo make install
		`),
	},
	{
		name:  "the same build again with other options is a variant, the identical build is not",
		wrong: "line 6, the first build, runs: only the variant at line 7 is an alternative (withSkippedGoal takes the build before a skipped variant as a step that prepares it)",
		readme: here.Doc(`
			# tool

			## Build

			~~~sh
			make
			make DEBUG=1
			~~~

			## Test

			~~~sh
			make
			make test
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			6 skip prepares make
			7 skip alternative make DEBUG=1
			13 probe command make
			14 probe command make test
		`),
	},
	{
		name: "installing what the build made is the build's next step",
		readme: here.Doc(`
			# tool

			## Build

			~~~sh
			./configure
			make
			~~~

			## Install

			~~~sh
			sudo make install
			~~~
		`),
		repo: repoWith("acme/tool", "configure"),
		want: here.Doc(`
			6 step command ./configure
			7 step command make
			13 step command sudo make install
		`),
	},
	{
		// Configure, build and install in sections of their own are one
		// way; a build with other options after it is a variant.
		name: "the build after a configure in another section is its next step",
		readme: here.Doc(`
			## Configuration

			    $ ./configure

			## Building

			    $ make

			## Installation

			    $ make install

			Build a statically linked version:

			    $ make LDFLAGS=-all-static
		`),
		repo: repoWith("acme/tool", "configure", "Makefile.in"),
		want: here.Doc(`
			3 probe command ./configure
			7 step command make
			11 step command make install
			15 skip alternative make LDFLAGS=-all-static
		`),
	},
	{
		name: "the same download with curl and with wget, short options joined, is one way twice",
		readme: here.Doc(`
			## Install

			~~~bash
			curl -Lso ~/.local/bin/tool "https://github.com/acme/tool/releases/latest/download/tool.AppImage" && chmod +x ~/.local/bin/tool
			~~~

			~~~bash
			wget -qO ~/.local/bin/tool "https://github.com/acme/tool/releases/latest/download/tool.AppImage" && chmod +x ~/.local/bin/tool
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 step command curl -Lso ~/.local/bin/tool "https://github.com/acme/tool/releases/latest/download/tool.AppImage" && chmod +x ~/.local/bin/tool
			8 skip alternative wget -qO ~/.local/bin/tool "https://github.com/acme/tool/releases/latest/download/tool.AppImage" && chmod +x ~/.local/bin/tool
		`),
	},
	{
		name: "npm, yarn and pnpm of the same tool are alternatives",
		readme: here.Doc(`
			~~~sh
			npm install -g tool
			yarn global add tool
			pnpm add -g tool
			~~~
		`),
		want: here.Doc(`
			2 probe command npm install -g tool
			3 skip alternative yarn global add tool
			4 skip alternative pnpm add -g tool
		`),
	},
	{
		name: "another platform's package manager bootstrapped in the block",
		readme: here.Doc(`
			# cjson

			~~~
			git clone https://github.com/Microsoft/vcpkg.git
			cd vcpkg
			./bootstrap-vcpkg.sh
			./vcpkg integrate install
			vcpkg install cjson
			~~~
		`),
		repo: slugRepo("DaveGamble/cJSON"),
		want: here.Doc(`
			4 skip prepares git clone https://github.com/Microsoft/vcpkg.git
			5 skip prepares cd vcpkg
			6 skip prepares ./bootstrap-vcpkg.sh
			7 skip other-platform ./vcpkg integrate install
			8 skip other-platform vcpkg install cjson
		`),
	},
	{
		name: "a variable set only for a line that is not run",
		readme: here.Doc(`
			# tool

			~~~shell
			KUBECTL_VERSION=$(make kubectl-stable-version 2>/dev/null)
			docker build --build-arg KUBECTL_VERSION=${KUBECTL_VERSION} -t tool:0.1 .
			~~~

			~~~shell
			export NAME=demo
			echo "$NAME"
			~~~

			~~~shell
			echo "built with $KUBECTL_VERSION"
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 skip prepares KUBECTL_VERSION=$(make kubectl-stable-version 2>/dev/null)
			5 skip container docker build --build-arg KUBECTL_VERSION=${KUBECTL_VERSION} -t tool:0.1 .
			9 probe command export NAME=demo
			10 probe command echo "$NAME"
			14 skip placeholder echo "built with $KUBECTL_VERSION"
		`),
	},
}

func TestAlternatives(t *testing.T) { testPlans(t, alternativeCases) }

// A Debian recipe's apt chain runs with -y after each apt verb that asks.
func TestDebianRecipeExec(t *testing.T) {
	p := Make([]byte(here.Doc(`
		# vhs

		- Debian / Ubuntu

		~~~sh
		sudo apt update && sudo apt install vhs ffmpeg
		~~~
	`)), Options{Repo: slugRepo("charmbracelet/vhs")})
	ran := false
	for _, e := range p.Entries {
		if e.Line == 6 && e.Run {
			ran = true
			assert.Check(t, strings.Contains(e.Exec("/workspace"), "sudo apt install -y vhs ffmpeg"), e.Exec("/workspace"))
		}
	}
	assert.Check(t, ran, "the Debian recipe on line 6 does not run")
}

// A reason names at most three of a project's names.
func TestListNames(t *testing.T) {
	assert.Equal(t, listNames([]string{"yq"}), "yq")
	assert.Equal(t, listNames([]string{"yq", "completion", "constant"}), "yq, completion, constant")
	assert.Equal(t, listNames([]string{"yq", "completion", "constant", "root", "utils"}), "yq, completion, constant and 2 more")
}

// The file a download saves to, by curl's and wget's options however
// they are written.
func TestDownloadOutput(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"curl", "-Lso ~/.local/bin/tool https://x/tool", "~/.local/bin/tool"},
		{"curl", "-fsSL -o tool.tgz https://x/t.tgz", "tool.tgz"},
		{"curl", "--output=tool https://x/tool", "tool"},
		{"curl", "-fsSLO https://x/tool.tgz", ""},
		{"curl", "-o - https://x/tool", ""},
		{"wget", "-qO ~/bin/tool https://x/tool", "~/bin/tool"},
		{"wget", "-qO- https://x/tool", ""},
		{"wget", "-o log.txt https://x/tool", ""},
		{"wget", "--output-document tool https://x/tool", "tool"},
	}
	for _, tc := range tests {
		assert.Equal(t, downloadOutput(tc.name, strings.Fields(tc.args)), tc.want, "%s %s", tc.name, tc.args)
	}
}
