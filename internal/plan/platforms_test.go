package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// Other platforms are skipped: by tool, by syntax, by the comment on the
// command's line or above it; other shells too. (The section and the
// sentence before a block: blockrules_test.go.)
var platformCases = []planCase{
	{
		name: "a package manager of another platform is not one in its own README",
		readme: here.Doc(`
			# vcpkg

			~~~sh
			vcpkg new --application
			conan install .
			~~~
		`),
		repo: repoWith("microsoft/vcpkg", "vcpkg", "bootstrap-vcpkg.sh"),
		want: here.Doc(`
			4 probe command vcpkg new --application
			5 skip other-platform conan install .
		`),
	},
	{
		name:  "other platforms' package managers and syntax",
		rule:  "other-platform-tool",
		wrong: "line 20, a Windows path, is other-platform, not output (its capital first letter makes it text before any rule sees it)",
		readme: here.Doc(`
			# tool

			~~~sh
			brew install tool
			sudo port install tool
			choco install tool
			scoop install tool
			winget install Acme.Tool
			sudo pacman -S tool
			sudo dnf install tool
			sudo yum install tool
			sudo zypper install tool
			sudo snap install tool
			mise use -g tool@latest
			0install add tool https://dl.acme.dev/tool.xml
			Set-ExecutionPolicy RemoteSigned -Scope CurrentUser
			iwr -useb get.example.org | iex
			sudo apk add tool
			nix-env -iA nixpkgs.tool
			C:\tools\tool.exe --version
			$env:PATH += ";C:\tools"
			sudo add-apt-repository ppa:acme/tool
			~~~
		`),
		want: here.Doc(`
			4 skip other-platform brew install tool
			5 skip other-platform sudo port install tool
			6 skip other-platform choco install tool
			7 skip other-platform scoop install tool
			8 skip other-platform winget install Acme.Tool
			9 skip other-platform sudo pacman -S tool
			10 skip other-platform sudo dnf install tool
			11 skip other-platform sudo yum install tool
			12 skip other-platform sudo zypper install tool
			13 skip other-platform sudo snap install tool
			14 skip other-platform mise use -g tool@latest
			15 skip other-platform 0install add tool https://dl.acme.dev/tool.xml
			16 skip other-platform Set-ExecutionPolicy RemoteSigned -Scope CurrentUser
			17 skip other-platform iwr -useb get.example.org | iex
			18 skip other-platform sudo apk add tool
			19 skip other-platform nix-env -iA nixpkgs.tool
			20 skip output C:\tools\tool.exe --version
			21 skip other-platform $env:PATH += ";C:\tools"
			22 skip other-platform sudo add-apt-repository ppa:acme/tool
		`),
	},
	{
		name: "BSD sed's in-place form, with the empty suffix GNU sed takes for its script",
		readme: here.Doc(`
			~~~sh
			sed -i "" 's/old/new/g' notes.txt
			sed -i '' -e 's/old/new/' notes.txt
			sed -i 's/old/new/g' notes.txt
			sed -i.bak 's/old/new/g' notes.txt
			~~~
		`),
		repo: repoWith("acme/tool", "notes.txt"),
		want: here.Doc(`
			2 skip other-platform sed -i "" 's/old/new/g' notes.txt
			3 skip other-platform sed -i '' -e 's/old/new/' notes.txt
			4 probe command sed -i 's/old/new/g' notes.txt
			5 probe command sed -i.bak 's/old/new/g' notes.txt
		`),
	},
	{
		name: "ordinary words that are also platform tools",
		readme: here.Doc(`
			~~~sh
			echo snap
			port=8080 ./run.sh
			~~~
		`),
		repo: repoWith("acme/tool", "run.sh"),
		want: here.Doc(`
			2 probe command echo snap
			3 probe command port=8080 ./run.sh
		`),
	},
	{
		name: "snap's other subcommands need snapd too; x-cmd is not in the sandbox",
		readme: here.Doc(`
			# dive

			~~~sh
			sudo snap connect dive:docker-executables docker:docker-executables
			x env use dive
			~~~
		`),
		repo: slugRepo("wagoodman/dive"),
		want: here.Doc(`
			4 skip other-platform sudo snap connect dive:docker-executables docker:docker-executables
			5 skip other-platform x env use dive
		`),
	},
	{
		name: "macOS-only commands and paths",
		readme: here.Doc(`
			~~~sh
			open https://example.org
			defaults write com.acme.tool Key -bool true
			pbcopy < notes.txt
			cp tool /opt/homebrew/bin/
			~~~
		`),
		want: here.Doc(`
			2 skip other-platform open https://example.org
			3 skip other-platform defaults write com.acme.tool Key -bool true
			4 skip other-platform pbcopy < notes.txt
			5 skip other-platform cp tool /opt/homebrew/bin/
		`),
	},
	{
		name: "the platform hint says a block of brew is for Linux",
		rule: "platform-hint",
		readme: here.Doc(`
			<!-- readme2demo: platform=linux -->
			~~~sh
			brew install other-tool
			~~~

			<!-- readme2demo: platform=macos -->
			~~~sh
			echo hi
			~~~

			<!-- readme2demo: platform=windows run -->
			~~~sh
			echo hi
			~~~
		`),
		want: here.Doc(`
			3 probe command brew install other-tool
			8 skip other-platform echo hi
			13 skip other-platform echo hi
		`),
	},
	{
		name: "the comment on the command's line names the platform",
		rule: "platform-comment",
		readme: here.Doc(`
			# ncu

			~~~sh
			ncu '/^(?!react-).*$/' # mac/linux
			ncu "/^(?!react-).*$/" # windows
			~~~
		`),
		repo: slugRepo("raineorshine/ncu"),
		want: here.Doc(`
			4 probe command ncu '/^(?!react-).*$/' # mac/linux
			5 skip other-platform ncu "/^(?!react-).*$/" # windows
		`),
	},
	{
		name: "the comment above the command names the platform or the shell",
		rule: "comment-above",
		readme: here.Doc(`
			~~~sh
			# Arch Linux
			makepkg -si
			# Debian/Ubuntu
			sudo apt install libtool-dev
			# For zsh
			echo 'eval "$(tool init)"' >> ~/.profile
			# bash or zsh
			echo 'eval "$(tool init)"' >> ~/.bashrc
			~~~
		`),
		want: here.Doc(`
			3 skip other-platform makepkg -si
			5 probe command sudo apt install libtool-dev
			7 skip other-shell echo 'eval "$(tool init)"' >> ~/.profile
			9 probe command echo 'eval "$(tool init)"' >> ~/.bashrc
		`),
	},
	{
		name: "after the downloads for each processor, the move of the one that ran is no platform's",
		readme: here.Doc(`
			~~~console
			# For AMD64 / x86_64
			[ $(uname -m) = x86_64 ] && curl -Lo ./tool https://acme.dev/dl/tool-linux-amd64
			# For ARM64
			[ $(uname -m) = aarch64 ] && curl -Lo ./tool https://acme.dev/dl/tool-linux-arm64
			chmod +x ./tool
			sudo mv ./tool /usr/local/bin/tool
			# For ARM64
			sudo mv ./tool-extras /usr/local/bin/
			~~~
		`),
		repo: repoWith("acme/tool", "go.mod"),
		want: here.Doc(`
			3 probe command [ $(uname -m) = x86_64 ] && curl -Lo ./tool https://acme.dev/dl/tool-linux-amd64
			5 skip other-platform [ $(uname -m) = aarch64 ] && curl -Lo ./tool https://acme.dev/dl/tool-linux-arm64
			6 probe command chmod +x ./tool
			7 probe command sudo mv ./tool /usr/local/bin/tool
			9 skip other-platform sudo mv ./tool-extras /usr/local/bin/
		`),
	},
	{
		name: "completions and set-up for other shells",
		rule: "other-shell",
		readme: here.Doc(`
			~~~sh
			tool completions zsh > _tool
			echo 'eval "$(tool init)"' >> ~/.zshrc
			/bin/ksh test.sh
			fish -c 'tool --version'
			echo zsh
			~~~
		`),
		repo: repoWith("acme/tool", "test.sh"),
		want: here.Doc(`
			2 skip other-shell tool completions zsh > _tool
			3 skip other-shell echo 'eval "$(tool init)"' >> ~/.zshrc
			4 skip other-shell /bin/ksh test.sh
			5 skip other-shell fish -c 'tool --version'
			6 probe command echo zsh
		`),
	},
	{
		name: "zsh's own syntax, and the zsh blocks of a project made for zsh",
		rule: "other-shell",
		readme: here.Doc(`
			# p10k

			Powerlevel10k is a theme for Zsh.

			~~~zsh
			typeset -g POWERLEVEL9K_TIME_FOREGROUND=160
			~~~

			~~~sh
			autoload -Uz compinit && compinit
			bindkey '^s' pet-select
			print -rl -- ${(eq+)PROMPT}
			echo "${(%):-%n}"
			uname -sm
			~~~
		`),
		repo: repoWith("romkatv/powerlevel10k", "README.md", "config"),
		want: here.Doc(`
			6 skip other-shell typeset -g POWERLEVEL9K_TIME_FOREGROUND=160
			10 skip other-shell autoload -Uz compinit && compinit
			11 skip other-shell bindkey '^s' pet-select
			12 skip other-shell print -rl -- ${(eq+)PROMPT}
			13 skip other-shell echo "${(%):-%n}"
			14 probe command uname -sm
		`),
	},
	{
		name:  "a shell the README installs is run with it",
		wrong: "apt install zsh installs a program, it is not set-up for zsh: both lines run (otherShellRule's exception for a shell an earlier line installs is unreachable for apt installs, since forShell skips the install first)",
		readme: here.Doc(`
			~~~sh
			sudo apt install zsh
			zsh -c 'echo hi'
			~~~
		`),
		want: here.Doc(`
			2 skip other-shell sudo apt install zsh
			3 skip other-shell zsh -c 'echo hi'
		`),
	},
	{
		name: "languages of other shells",
		readme: here.Doc(`
			~~~fish
			set -x PATH $PATH ~/bin
			~~~

			~~~powershell
			iwr get.example.org | iex
			~~~

			~~~cmd
			set PATH=%PATH%;C:\tools
			~~~

			<!-- readme2demo: platform=linux -->
			~~~nushell
			$env.PATH = ($env.PATH | append ~/bin)
			~~~

			<!-- readme2demo: run -->
			~~~fish
			echo run with bash
			~~~
		`),
		want: here.Doc(`
			2 skip other-shell (no command)
			6 skip other-platform (no command)
			10 skip other-platform (no command)
			15 skip other-shell (no command)
			20 step command echo run with bash
		`),
	},
	{
		name: "an apt package of a later release than ours, then the way for ours",
		readme: here.Doc(`
			## Installation

			### Debian and Ubuntu

			For Debian 13 "Trixie" and later, or Ubuntu 25.10 and later:

			~~~sh
			sudo apt install tool
			~~~

			For Debian 12 and Ubuntu 25.04 and earlier:

			~~~sh
			curl -Lo tool.tar.gz https://github.com/acme/tool/releases/download/v1.0/tool_1.0_Linux_x86_64.tar.gz
			tar xf tool.tar.gz tool
			sudo install tool -D -t /usr/local/bin/
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			8 skip other-platform sudo apt install tool
			14 step command curl -Lo tool.tar.gz https://github.com/acme/tool/releases/download/v1.0/tool_1.0_Linux_x86_64.tar.gz
			15 step command tar xf tool.tar.gz tool
			16 step command sudo install tool -D -t /usr/local/bin/
		`),
	},
}

func TestPlatforms(t *testing.T) { testPlans(t, platformCases) }

// The platforms a text names: Linux and Debian fit, alone or beside
// others; a text naming only others names the first.
func TestTextPlatform(t *testing.T) {
	tests := []struct {
		text, name string
		fits       bool
	}{
		{"macOS", "macOS", false},
		{"On Windows, run:", "Windows", false},
		{"Arch Linux", "Arch Linux", false},
		{"Debian/Ubuntu", "", true},
		{"macOS or Linux", "", true},
		{"Fedora, CentOS", "Fedora/RHEL", false},
		{"Homebrew", "macOS (Homebrew)", false},
		{"Install with Homebrew on any platform, or with the script", "", false},
		{"*nix systems", "", true},
		{"ARM64 builds", "another processor architecture", false},
		{"nothing about platforms", "", false},
	}
	for _, tc := range tests {
		name, fits, _ := textPlatform(tc.text)
		if name != tc.name || fits != tc.fits {
			t.Errorf("textPlatform(%q) = %q, %v; want %q, %v", tc.text, name, fits, tc.name, tc.fits)
		}
	}
}

// A text for releases after ours (the sandbox's Debian 12, the runners'
// Ubuntu 24.04) names them; one that names a release we have, or a
// release without a range, names none.
func TestLaterRelease(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{`For **Debian 13 "Trixie", Sid**, and later, or **Ubuntu 25.10 "Questing Quokka"** and later:`, true},
		{"On Ubuntu 26.04 or newer:", true},
		{"Debian 13+", true},
		{`For **Debian 12 "Bookworm", Ubuntu 25.04 "Plucky Puffin"** and earlier:`, false},
		{"Ubuntu 22.04 and later:", false},
		{"Debian 13 and later, or Ubuntu 20.04 and later:", false},
		{"Tested on Ubuntu 25.10:", false},
		{"Debian and Ubuntu", false},
	}
	for _, tc := range tests {
		if got := laterRelease([]string{tc.text}) != ""; got != tc.want {
			t.Errorf("laterRelease(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
