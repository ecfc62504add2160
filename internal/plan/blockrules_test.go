package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// The block rules decide for every command of a block at once, from its
// hints, its section, the sentence before it or the shape of the whole
// block: one case (or more) per rule, in the rules' order.
var blockRuleCases = []planCase{
	{
		name: "the skip hint",
		rule: "skip-hint",
		readme: here.Doc(`
			<!-- readme2demo: skip -->
			~~~sh
			sudo apt-get install -y libfoo-dev
			make
			~~~

			<!-- readme2demo: skip -->
			~~~
			make
			~~~
		`),
		want: here.Doc(`
			3 skip hint sudo apt-get install -y libfoo-dev
			4 skip hint make
			9 skip hint (no command)
		`),
	},
	{
		name: "a platform hint that fits stops the context rules",
		rule: "platform-hint",
		readme: here.Doc(`
			## macOS

			<!-- readme2demo: platform=linux -->
			~~~sh
			make
			~~~
		`),
		want: here.Doc(`
			5 probe command make
		`),
	},
	{
		name: "an uninstall section",
		rule: "uninstall-section",
		readme: here.Doc(`
			## Uninstalling

			~~~sh
			rm -rf ~/.tool
			~~~
		`),
		want: here.Doc(`
			4 skip maintenance rm -rf ~/.tool
		`),
	},
	{
		name: "an upgrade section",
		rule: "upgrade-section",
		readme: here.Doc(`
			# tool

			## Install

			~~~sh
			make
			~~~

			## Updating

			<details>
			<summary>APT Package Manager</summary>

			~~~bash
			sudo apt update
			~~~

			</details>

			## Updating requirements

			~~~sh
			echo 'x==2' >> requirements.txt
			~~~
		`),
		want: here.Doc(`
			6 step command make
			15 skip maintenance sudo apt update
			23 probe command echo 'x==2' >> requirements.txt
		`),
	},
	{
		name: "an install and update section is not an upgrade",
		readme: here.Doc(`
			# tool

			## Installing and Updating

			~~~sh
			make
			~~~
		`),
		want: here.Doc(`
			6 step command make
		`),
	},
	{
		name: "a benchmark section",
		rule: "benchmark-section",
		readme: here.Doc(`
			<div>polka</div>

			## Benchmarks

			~~~
			$ wrk -t4 -c4 -d10s http://localhost:3000/users/123
			~~~

			## Usage

			~~~sh
			echo hi
			~~~
		`),
		repo: slugRepo("lukeed/polka"),
		want: here.Doc(`
			6 skip maintenance wrk -t4 -c4 -d10s http://localhost:3000/users/123
			12 probe command echo hi
		`),
	},
	{
		name: "a title that names a benchmarking tool is no benchmark section",
		readme: here.Doc(`
			# wrk - a HTTP benchmarking tool

			~~~sh
			make
			~~~
		`),
		repo: slugRepo("wg/wrk"),
		want: here.Doc(`
			4 probe command make
		`),
	},
	{
		name: "a completion section",
		rule: "completion-section",
		readme: here.Doc(`
			## Shell completion

			~~~sh
			source ~/.tool/tool.bash
			~~~
		`),
		want: here.Doc(`
			4 skip optional source ~/.tool/tool.bash
		`),
	},
	{
		name: "a troubleshooting section",
		rule: "troubleshooting-section",
		readme: here.Doc(`
			# croc

			## Troubleshooting

			~~~sh
			ulimit -n 4096
			~~~
		`),
		want: here.Doc(`
			6 skip optional ulimit -n 4096
		`),
	},
	{
		name: "a sentence that introduces a fix",
		rule: "troubleshooting-text",
		readme: here.Doc(`
			# tldr

			If you are experiencing issues with *tldr*, consider deleting the cache files:

			~~~bash
			tldr --clear-cache
			~~~

			If you have Python 3:

			~~~bash
			tldr --version
			~~~
		`),
		repo: repoNamed("tldr-pages/tldr-python-client", "tldr"),
		want: here.Doc(`
			6 skip optional tldr --clear-cache
			12 probe command tldr --version
		`),
	},
	{
		// A linter's gallery of what it finds, and a "Don't" example
		// beside the right one: shown to be wrong, not to be run.
		name: "code shown as wrong",
		rule: "shown-as-wrong",
		readme: here.Doc(`
			# lint

			## Gallery of bad code

			### Quoting

			It finds several kinds of mistakes:

			~~~sh
			echo $1                 # Unquoted variables
			ls() { ls -l "$@"; }    # Infinitely recursive wrapper
			~~~

			## Usage

			Don't:

			~~~sh
			lint *.sh | grep error
			~~~

			Do:

			~~~sh
			lint --format=gcc *.sh
			~~~

			The tool reports bad patterns; here is a check of a file:

			~~~sh
			lint LICENSE
			~~~
		`),
		repo: repoWith("acme/lint", "LICENSE", "x.sh"),
		want: here.Doc(`
			10 skip text echo $1                 # Unquoted variables
			11 skip text ls() { ls -l "$@"; }    # Infinitely recursive wrapper
			19 skip text lint *.sh | grep error
			25 probe command lint --format=gcc *.sh
			31 probe command lint LICENSE
		`),
	},
	{
		name: "a sentence about uninstalling",
		rule: "uninstall-text",
		readme: here.Doc(`
			# croc

			For uninstalling, run

			~~~sh
			sudo make uninstall
			~~~

			CMake doesn't generate an uninstall target by default. To remove installed files, run

			~~~
			cat build/install_manifest.txt | xargs rm -irv
			~~~
		`),
		repo: slugRepo("schollz/croc"),
		want: here.Doc(`
			6 skip maintenance sudo make uninstall
			12 skip maintenance cat build/install_manifest.txt | xargs rm -irv
		`),
	},
	{
		name: "a sentence that offers what follows as optional",
		rule: "optional-text",
		readme: here.Doc(`
			# forgit

			Optionally you can add [aliases in git](https://git-scm.com/book):

			~~~sh
			git config --global alias.cf 'forgit checkout_file'
			~~~

			You can optionally pass a path:

			~~~sh
			git config --global alias.lo 'forgit log'
			~~~
		`),
		repo: slugRepo("wfxr/forgit"),
		want: here.Doc(`
			6 skip optional git config --global alias.cf 'forgit checkout_file'
			12 probe command git config --global alias.lo 'forgit log'
		`),
	},
	{
		name: "a sentence addressed to a reader who has the project from before",
		rule: "existing-copy-text",
		readme: here.Doc(`
			# starship

			> **The default branch has been renamed from master to main.**
			> If you have a local clone, update it by running:
			>
			> ~~~sh
			> git branch -m master main
			> git fetch origin
			> ~~~

			If you already installed an older version, run

			~~~sh
			starship migrate
			~~~

			If you have a question, run

			~~~sh
			starship --help
			~~~
		`),
		repo: slugRepo("starship/starship"),
		want: here.Doc(`
			7 skip maintenance git branch -m master main
			8 skip maintenance git fetch origin
			14 skip maintenance starship migrate
			20 probe command starship --help
		`),
	},
	{
		name: "the maintainers' steps to cut a release",
		rule: "release-section",
		readme: here.Doc(`
			# notes

			## I want to help

			~~~sh
			./test.sh
			~~~

			### Release process

			~~~
			sed -i -e "s/notes_version=.*/notes_version=\"$NEW_VERSION\"/g" notes
			git checkout -B latest-release
			~~~

			## Releases

			~~~sh
			./test.sh
			~~~
		`),
		repo: repoWith("pimterry/notes", "notes", "test.sh"),
		want: here.Doc(`
			6 probe command ./test.sh
			12 skip maintenance sed -i -e "s/notes_version=.*/notes_version=\"$NEW_VERSION\"/g" notes
			13 skip maintenance git checkout -B latest-release
			19 probe command ./test.sh
		`),
	},
	{
		name: "a section about a file's syntax shows the file",
		rule: "file-format-section",
		readme: here.Doc(`
			# shdotenv

			## .env file syntax

			~~~sh
			UNQUOTED=value1 # Spaces cannot be used
			export EXPORT1="value"
			~~~

			## Usage

			~~~sh
			shdotenv --version
			~~~
		`),
		repo: slugRepo("ko1nksm/shdotenv"),
		want: here.Doc(`
			6 skip file-content UNQUOTED=value1 # Spaces cannot be used
			7 skip file-content export EXPORT1="value"
			13 probe command shdotenv --version
		`),
	},
	{
		name: "steps for packagers of a distribution",
		rule: "packaging",
		readme: here.Doc(`
			# croc

			If you are packaging croc for a distribution, you would take these steps:

			~~~sh
			make DESTDIR=/tmp/pkg install
			~~~
		`),
		repo: slugRepo("schollz/croc"),
		want: here.Doc(`
			6 skip maintenance make DESTDIR=/tmp/pkg install
		`),
	},
	{
		name: "a list of program names",
		rule: "name-list",
		readme: here.Doc(`
			Tools we use:

			~~~bash
			awk
			cat
			git
			~~~

			~~~console
			$ ls
			$ pwd
			$ date
			~~~
		`),
		want: here.Doc(`
			4 skip text awk
			5 skip text cat
			6 skip text git
			10 probe command ls
			11 probe command pwd
			12 probe command date
		`),
	},
	{
		name: "a reference of one program's argument forms",
		rule: "argument-forms",
		readme: here.Doc(`
			# pup

			## Implemented Selectors

			~~~bash
			pup '.class'
			pup '#id'
			pup 'element'
			pup '[attribute]'
			pup ':empty'
			~~~
		`),
		repo: slugRepo("ericchiang/pup"),
		want: here.Doc(`
			6 skip synopsis pup '.class'
			7 skip synopsis pup '#id'
			8 skip synopsis pup 'element'
			9 skip synopsis pup '[attribute]'
			10 skip synopsis pup ':empty'
		`),
	},
	{
		name: "a reference of one program's commands, each with what it does",
		rule: "command-reference",
		readme: here.Doc(`
			# tool

			## Commands

			~~~sh
			tool --help     # print usage help
			tool new        # generate a new migration file
			tool up         # create the database and migrate it
			tool status     # show the status of all migrations
			tool dump -- [...]  # pass arguments to pg_dump
			~~~

			## Usage

			~~~sh
			tool init       # create the config
			tool build      # build it
			tool check      # check it
			tool --version  # print the version
			~~~

			~~~console
			$ tool a   # one
			$ tool b   # two
			$ tool c   # three
			$ tool d   # four
			$ tool e   # five
			~~~
		`),
		opts: Options{Programs: programsWith("tool")},
		want: here.Doc(`
			6 skip text tool --help     # print usage help
			7 skip text tool new        # generate a new migration file
			8 skip text tool up         # create the database and migrate it
			9 skip text tool status     # show the status of all migrations
			10 skip text tool dump -- [...]  # pass arguments to pg_dump
			16 probe command tool init       # create the config
			17 probe command tool build      # build it
			18 probe command tool check      # check it
			19 probe command tool --version  # print the version
			23 probe command tool a   # one
			24 probe command tool b   # two
			25 probe command tool c   # three
			26 probe command tool d   # four
			27 probe command tool e   # five
		`),
	},
	{
		name: "one program with options and values is no reference",
		readme: here.Doc(`
			~~~sh
			ncu mocha
			ncu -f mocha
			ncu --filter mocha
			ncu chalk mocha react
			ncu -x nodemon
			~~~
		`),
		repo: slugRepo("raineorshine/ncu"),
		want: here.Doc(`
			2 probe command ncu mocha
			3 probe command ncu -f mocha
			4 probe command ncu --filter mocha
			5 probe command ncu chalk mocha react
			6 probe command ncu -x nodemon
		`),
	},
	{
		name: "output the text introduces",
		rule: "output-sample",
		readme: here.Doc(`
			# tldr

			If you install as root and get something like:

			~~~shell
			as root ->
			gyp WARN EACCES user "root" does not have permission
			~~~

			Run it and see:

			~~~sh
			tldr --version
			~~~
		`),
		repo: repoNamed("tldr-pages/tldr-node-client", "tldr"),
		want: here.Doc(`
			6 skip output as root ->
			7 skip output gyp WARN EACCES user "root" does not have permission
			13 probe command tldr --version
		`),
	},
	{
		name: "an INI file's content",
		rule: "ini-content",
		readme: here.Doc(`
			~~~sh
			[extensions]
			extdiff=

			[extdiff]
			cmd.icdiff=icdiff
			~~~
		`),
		want: here.Doc(`
			2 skip file-content [extensions]
			3 skip file-content extdiff=
			5 skip file-content [extdiff]
			6 skip file-content cmd.icdiff=icdiff
		`),
	},
	{
		name: "the project's optional settings",
		rule: "optional-settings",
		readme: here.Doc(`
			# fff

			## Customization

			~~~sh
			# Directory color [0-9]
			export FFF_COL1=2
			export EDITOR="vim"
			~~~

			## Usage

			You can set the variable FFF_HIDDEN to show hidden files:

			~~~sh
			export FFF_HIDDEN=1
			~~~

			## Install

			Then add this to your ~/.bashrc:

			~~~sh
			export FFF_DIR="$HOME/.fff"
			~~~

			## Configuration

			~~~sh
			export _GIT_SINCE="2017-01-20"
			export GOPATH=$HOME/go
			~~~

			~~~sh
			ls
			~~~
		`),
		repo: slugRepo("dylanaraps/fff"),
		want: here.Doc(`
			7 skip optional export FFF_COL1=2
			8 skip optional export EDITOR="vim"
			16 skip optional export FFF_HIDDEN=1
			24 step shell-setup export FFF_DIR="$HOME/.fff"
			30 probe command export _GIT_SINCE="2017-01-20"
			31 probe command export GOPATH=$HOME/go
			35 probe command ls
		`),
	},
	{
		name: "a reference of settings",
		rule: "settings-reference",
		readme: here.Doc(`
			# pfetch

			## Configuration

			~~~sh
			# Which information to display.
			# Default: first example below
			PF_INFO="ascii title os"

			# Example: Only ASCII.
			PF_INFO="ascii"

			PF_COL1=4
			~~~

			~~~sh
			VERSION=1.2.3
			ARCH=amd64
			~~~

			~~~sh
			curl -LO https://dl.acme.dev/tool-$VERSION-$ARCH.tgz
			~~~

			~~~sh
			export A=1
			export B=2
			~~~

			~~~sh
			ONE=1
			~~~
		`),
		repo: slugRepo("dylanaraps/pfetch"),
		want: here.Doc(`
			8 skip optional PF_INFO="ascii title os"
			11 skip optional PF_INFO="ascii"
			13 skip optional PF_COL1=4
			17 probe command VERSION=1.2.3
			18 probe command ARCH=amd64
			22 probe command curl -LO https://dl.acme.dev/tool-$VERSION-$ARCH.tgz
			26 probe command export A=1
			27 probe command export B=2
			31 probe command ONE=1
		`),
	},
	{
		name: "building the documentation",
		rule: "documentation-build",
		readme: here.Doc(`
			## Building the docs

			~~~sh
			make html
			~~~

			To generate the man pages, run:

			~~~sh
			make man
			~~~
		`),
		want: here.Doc(`
			4 skip optional make html
			10 skip optional make man
		`),
	},
	{
		name: "hardware the sandbox lacks",
		rule: "hardware",
		readme: here.Doc(`
			## GPU support

			~~~sh
			make CUDA=1
			~~~

			With an Arduino connected:

			~~~sh
			tool flash
			~~~
		`),
		want: here.Doc(`
			4 skip other-platform make CUDA=1
			10 skip other-platform tool flash
		`),
	},
	{
		name: "another machine",
		rule: "another-machine",
		readme: here.Doc(`
			# croc

			~~~sh
			croc send notes.txt
			~~~

			Then, to receive the file on another computer, run:

			~~~sh
			croc 1234-code-word
			~~~
		`),
		repo: repoWith("schollz/croc", "notes.txt"),
		want: here.Doc(`
			4 probe command croc send notes.txt
			10 skip remote croc 1234-code-word
		`),
	},
	{
		name: "the section or the sentence names another platform",
		rule: "platform-text",
		readme: here.Doc(`
			# tool

			## Other platforms

			On Windows, run:

			~~~sh
			make
			~~~

			### macOS

			~~~sh
			xcode-select --install
			make
			~~~

			### Colors under Cygwin

			~~~bash
			export TERM=xterm
			~~~

			### MSYS2

			~~~sh
			pacman -S make
			~~~

			## Docker

			~~~sh
			make image
			~~~

			## Linux

			~~~sh
			make
			~~~
		`),
		want: here.Doc(`
			8 skip other-platform make
			14 skip other-platform xcode-select --install
			15 skip other-platform make
			21 skip other-platform export TERM=xterm
			27 skip other-platform pacman -S make
			33 skip other-platform make image
			39 probe command make
		`),
	},
	{
		name: "a section for several platforms, and the label before the block",
		readme: here.Doc(`
			## Windows, Debian and Fedora

			Fedora:

			~~~sh
			sudo make install
			~~~

			Debian:

			~~~sh
			make
			~~~
		`),
		want: here.Doc(`
			6 skip other-platform sudo make install
			12 probe command make
		`),
	},
	{
		name: "a link target names no platform",
		readme: here.Doc(`
			Download [the release](https://dl.acme.dev/tool?os=darwin&arch=arm64), then:

			~~~sh
			make
			~~~
		`),
		want: here.Doc(`
			4 probe command make
		`),
	},
	{
		name: "the section or the sentence names another shell",
		rule: "shell-text",
		readme: here.Doc(`
			## Zsh

			~~~sh
			echo 'source ~/.tool.zsh' >> ~/.profile
			~~~

			## Setup

			For fish:

			~~~sh
			tool init | source
			~~~

			For bash and zsh:

			~~~sh
			eval "$(tool init)"
			~~~
		`),
		want: here.Doc(`
			4 skip other-shell echo 'source ~/.tool.zsh' >> ~/.profile
			12 skip other-shell tool init | source
			18 probe command eval "$(tool init)"
		`),
	},
	{
		name: "a block that shows a file of the repository",
		rule: "shown-file",
		readme: here.Doc(`
			~~~sh
			# file: examples/math.inc.
			add() {
			  echo $(($1 + $2))
			}
			~~~

			<!-- readme2demo: run -->
			~~~sh
			# examples/math.inc
			echo run anyway
			~~~
		`),
		repo: repoWith("acme/lib", "examples/math.inc"),
		want: here.Doc(`
			3 skip file-content add() {
			11 step command echo run anyway
		`),
	},
	{
		name: "a script shown as an example",
		rule: "script-example",
		readme: here.Doc(`
			~~~bash
			#!/usr/bin/env bash
			echo "a script"
			~~~

			~~~console
			#!/bin/sh is not a prompt
			$ echo "a session"
			~~~
		`),
		want: here.Doc(`
			3 skip file-content echo "a script"
			8 probe command echo "a session"
		`),
	},
	{
		name: "the text says where the block goes",
		rule: "file-target",
		readme: here.Doc(`
			# gron

			Put something like this in your shell profile (e.g. in ~/.bashrc):

			~~~
			alias norg="gron --ungron"
			~~~

			Add this to your ` + "`~/.bashrc`" + `:

			~~~sh
			alias g="gron"
			~~~

			~~~sh
			g --version
			~~~

			Add the following to your ~/.zshrc:

			~~~sh
			eval "$(gron --init)"
			~~~

			Add the following to your ` + "`~/.hgrc`" + `:

			~~~sh
			icdiff_opts=--line-numbers
			alias d=icdiff
			~~~
		`),
		repo: slugRepo("tomnomnom/gron"),
		want: here.Doc(`
			6 skip optional alias norg="gron --ungron"
			12 step shell-setup alias g="gron"
			16 probe command g --version
			22 skip other-shell eval "$(gron --init)"
			28 skip file-content icdiff_opts=--line-numbers
			29 skip file-content alias d=icdiff
		`),
	},
}

func TestBlockRules(t *testing.T) { testPlans(t, blockRuleCases) }
