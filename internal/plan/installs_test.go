package plan

import (
	"slices"
	"strings"
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// Installs: of several commands that install a tool, the first that fits
// Linux runs; what each command installs (package managers, the
// project's installer, a download into a bin directory, a manifest's
// programs).
var installCases = []planCase{
	{
		name: "a download of a release the reader picks, then its unpacking and install",
		readme: here.Doc(`
			# ov

			## Install

			~~~console
			curl -L -O https://github.com/noborus/ov/releases/download/vx.x.x/ov_x.x.x_linux_amd64.zip
			unzip ov_x.x.x_linux_amd64.zip
			sudo install ov /usr/local/bin
			~~~

			~~~console
			go install github.com/noborus/ov@latest
			~~~
		`),
		repo: repoWith("noborus/ov", "go.mod", "main.go"),
		want: here.Doc(`
			6 skip placeholder curl -L -O https://github.com/noborus/ov/releases/download/vx.x.x/ov_x.x.x_linux_amd64.zip
			7 skip missing-input unzip ov_x.x.x_linux_amd64.zip
			8 skip missing-input sudo install ov /usr/local/bin
			12 step command go install github.com/noborus/ov@latest
		`),
	},
	{
		name: "the first install that fits Linux runs, the later ones are alternatives",
		rule: "install",
		readme: here.Doc(`
			# tool

			## Install

			~~~sh
			brew install tool
			sudo apt-get install -y tool
			go install example.org/x/cmd/tool@latest
			npm install -g tool
			npm -g install tool
			cargo install tool
			pipx install tool
			~~~
		`),
		want: here.Doc(`
			6 skip other-platform brew install tool
			7 step command sudo apt-get install -y tool
			8 skip alternative go install example.org/x/cmd/tool@latest
			9 skip alternative npm install -g tool
			10 skip alternative npm -g install tool
			11 skip alternative cargo install tool
			12 skip alternative pipx install tool
		`),
	},
	{
		name: "a make target named for a kind of install installs the project",
		readme: here.Doc(`
			# INSTALL

			On Ubuntu or Debian, use the following to install a package:

			~~~bash
			sudo make install-deb
			~~~

			Otherwise use 'make install':

			~~~bash
			sudo make install
			~~~

			~~~bash
			make install-deps
			~~~
		`),
		repo: repoWith("rkitover/vimpager", "Makefile", "vimpager"),
		want: here.Doc(`
			6 step command sudo make install-deb
			12 skip alternative sudo make install
			16 probe command make install-deps
		`),
	},
	{
		name: "Linux installers of this project and of others are kept",
		readme: here.Doc(`
			~~~sh
			curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh
			apt install jq
			sudo apt-get update
			make install
			pip install tool-extra
			curl https://sh.rustup.rs -sSf | sh
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 probe command curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh
			3 probe command apt install jq
			4 probe command sudo apt-get update
			5 skip alternative make install
			6 probe command pip install tool-extra
			7 probe command curl https://sh.rustup.rs -sSf | sh
		`),
	},
	{
		name: "an installer on a host named after the project",
		readme: here.Doc(`
			# croc

			~~~bash
			curl https://getcroc.com | bash
			~~~

			### On Debian

			~~~bash
			sudo apt install croc
			~~~
		`),
		repo: slugRepo("schollz/croc"),
		want: here.Doc(`
			4 probe command curl https://getcroc.com | bash
			10 skip alternative sudo apt install croc
		`),
	},
	{
		name: "an installer downloaded from a URL that names the project, then run",
		readme: here.Doc(`
			# eget

			~~~
			curl -o eget.sh https://zyedidia.github.io/eget.sh
			bash eget.sh
			~~~

			Or alternatively:

			~~~
			curl https://zyedidia.github.io/eget.sh | sh
			~~~

			~~~
			wget https://dl.acme.dev/other.sh
			sh other.sh
			~~~
		`),
		repo: slugRepo("zyedidia/eget"),
		want: here.Doc(`
			4 probe command curl -o eget.sh https://zyedidia.github.io/eget.sh
			5 probe command bash eget.sh
			11 skip alternative curl https://zyedidia.github.io/eget.sh | sh
			15 probe command wget https://dl.acme.dev/other.sh
			16 probe command sh other.sh
		`),
	},
	{
		name:  "a download into a bin directory, and a later install",
		wrong: "line 11 is an alternative (line 4 installs hr): the heading \"Complete install\" is not about shell completion (completionRe matches the word complete)",
		readme: here.Doc(`
			# hr

			~~~sh
			curl https://dl.acme.dev/hr > ~/bin/hr
			chmod +x ~/bin/hr
			~~~

			## Complete install

			~~~sh
			sudo make install
			~~~
		`),
		repo: slugRepo("LuRsT/hr"),
		want: here.Doc(`
			4 probe command curl https://dl.acme.dev/hr > ~/bin/hr
			5 probe command chmod +x ~/bin/hr
			11 skip optional sudo make install
		`),
	},
	{
		name: "the project's installer named install-NAME piped to a shell, and the same again",
		readme: here.Doc(`
			# xq

			~~~
			curl -sSL https://bit.ly/install-xq | sudo bash
			~~~

			~~~
			curl -sSL https://bit.ly/install-xq | INSTALL_DIR=$(pwd) bash
			~~~

			~~~
			apt-get install xq
			~~~
		`),
		repo: slugRepo("sibprogrammer/xq"),
		want: here.Doc(`
			4 probe command curl -sSL https://bit.ly/install-xq | sudo bash
			8 skip alternative curl -sSL https://bit.ly/install-xq | INSTALL_DIR=$(pwd) bash
			12 skip alternative apt-get install xq
		`),
	},
	{
		name: "a download then a move into the PATH is one install",
		readme: here.Doc(`
			# yq

			~~~sh
			wget https://github.com/mikefarah/yq/releases/latest/download/yq_linux_amd64 -O yq
			sudo mv yq /usr/local/bin/yq
			~~~
		`),
		repo: slugRepo("mikefarah/yq"),
		want: here.Doc(`
			4 probe command wget https://github.com/mikefarah/yq/releases/latest/download/yq_linux_amd64 -O yq
			5 probe command sudo mv yq /usr/local/bin/yq
		`),
	},
	{
		name: "an archive extracted into a bin directory installs the members it names",
		readme: here.Doc(`
			# goss

			~~~sh
			curl -fsSL https://goss.rocks/install | sh
			~~~

			~~~sh
			curl -L https://github.com/goss-org/goss/releases/download/v0.4.10/goss_linux_x86_64.tar.gz | tar xz -C /usr/local/bin goss
			~~~

			~~~sh
			curl -L https://dl.acme.dev/tools.tar.gz | tar -xzf - --directory=/usr/local/bin/ other-tool
			tar -xzf tools.tar.gz -C ./out goss
			~~~
		`),
		repo: slugRepo("goss-org/goss"),
		want: here.Doc(`
			4 probe command curl -fsSL https://goss.rocks/install | sh
			8 skip alternative curl -L https://github.com/goss-org/goss/releases/download/v0.4.10/goss_linux_x86_64.tar.gz | tar xz -C /usr/local/bin goss
			12 probe command curl -L https://dl.acme.dev/tools.tar.gz | tar -xzf - --directory=/usr/local/bin/ other-tool
			13 probe command tar -xzf tools.tar.gz -C ./out goss
		`),
	},
	{
		name: "a download named as the project from a URL that names it",
		readme: here.Doc(`
			# speedtest-cli

			~~~sh
			wget -O speedtest-cli https://raw.githubusercontent.com/sivel/speedtest-cli/master/speedtest.py
			chmod +x speedtest-cli
			~~~

			~~~sh
			pip install speedtest-cli
			~~~
		`),
		repo: slugRepo("sivel/speedtest-cli"),
		want: here.Doc(`
			4 probe command wget -O speedtest-cli https://raw.githubusercontent.com/sivel/speedtest-cli/master/speedtest.py
			5 probe command chmod +x speedtest-cli
			9 skip alternative pip install speedtest-cli
		`),
	},
	{
		name: "cargo +toolchain install",
		readme: here.Doc(`
			~~~
			cargo install pastel
			~~~

			~~~
			cargo +nightly install pastel
			~~~
		`),
		repo: slugRepo("sharkdp/pastel"),
		want: here.Doc(`
			2 probe command cargo install pastel
			6 skip alternative cargo +nightly install pastel
		`),
	},
	{
		name: "an install in a troubleshooting section is a fix",
		readme: here.Doc(`
			# croc

			~~~sh
			croc send notes.txt
			~~~

			## FAQ

			### What if it breaks?

			~~~sh
			npm install -g croc-fixer
			croc --help
			~~~
		`),
		repo: repoWith("schollz/croc", "notes.txt"),
		want: here.Doc(`
			4 probe command croc send notes.txt
			12 skip optional npm install -g croc-fixer
			13 probe command croc --help
		`),
	},
	{
		name: "setup.py, easy_install and pip of this repository install the project",
		readme: here.Doc(`
			~~~sh
			pip install git+https://github.com/acme/tool
			~~~

			~~~sh
			python setup.py install
			~~~

			~~~sh
			easy_install tool
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 probe command pip install git+https://github.com/acme/tool
			6 skip alternative python setup.py install
			10 skip alternative easy_install tool
		`),
	},
}

func TestInstalls(t *testing.T) { testPlans(t, installCases) }

// Installs the README gives only as inline code in its text are recorded,
// skipped, with their line; inline code that installs nothing, another
// platform's install and the code blocks' own commands are not.
func TestProseInstalls(t *testing.T) {
	md := here.Doc(`
		# sd

		Install through cargo with ` + "`cargo install sd`" + `, or ` + "`brew install sd`" + `.

		Run ` + "`sd --help`" + ` for more.

		~~~sh
		npm install -g tldr
		sd before after file.txt
		~~~
	`)
	p := Make([]byte(md), Options{Repo: slugRepo("chmln/sd")})
	assert.DeepEqual(t, p.Installs, []Install{
		{Tool: "tldr", Line: 8, Command: "npm install -g tldr"},
		{Tool: "sd", Line: 3, Command: "cargo install sd", Skipped: "written in the README's text, not in a code block: the markdown engine runs only code blocks"},
	})
}

// What a command installs: the tools, and whether it is the project from
// its checkout.
func TestInstallsOf(t *testing.T) {
	repo := slugRepo("acme/tool")
	tests := []struct {
		cmd   string
		tools []string
		self  bool
		ok    bool
	}{
		{"go install github.com/charmbracelet/glow/v2@latest", []string{"glow"}, false, true},
		{"go install ./...", []string{"tool"}, true, true},
		{"go build", nil, false, false},
		{"cargo install --path .", []string{"tool"}, true, true},
		{"cargo install ripgrep --version 14", []string{"ripgrep"}, false, true},
		{"npm install -g @scope/pkg@2", []string{"pkg"}, false, true},
		{"npm install -g", []string{"tool"}, true, true},
		{"npm install", nil, false, false},
		{"pip install 'httpie[socks]>=3'", []string{"httpie"}, false, true},
		{"pip install -e '.[dev]'", []string{"tool"}, true, true},
		{"python3 -m pip install -r requirements.txt black", []string{"black"}, false, true},
		{"uv tool install ruff", []string{"ruff"}, false, true},
		{"sudo apt-get install -y ripgrep=14.1", []string{"ripgrep"}, false, true},
		{"sudo dpkg -i ripgrep_14.1.1-1_amd64.deb", []string{"ripgrep"}, false, true},
		{"make install", []string{"tool"}, true, true},
		{"cmake --install build", []string{"tool"}, true, true},
		{"~/.fzf/install", []string{"tool"}, true, true},
		{"gem install rouge", []string{"rouge"}, false, true},
		{"cpanm App::Ack", []string{"app-ack"}, false, true},
		{"dotnet tool install -g dotnet-ef", []string{"dotnet-ef"}, false, true},
		{"winget install Acme.Tool", []string{"tool"}, false, true},
		{"sudo pacman -S tool", []string{"tool"}, false, true},
	}
	for _, tc := range tests {
		ss := simples(lex(tc.cmd))
		tools, self, ok := installs(ss[len(ss)-1], repo)
		assert.Check(t, ok == tc.ok && self == tc.self, "%q: self %v ok %v", tc.cmd, self, ok)
		assert.DeepEqual(t, tools, tc.tools)
	}
}

// The project's own program, run while nothing that runs installs or
// builds the project, is noted: the run is then blocked where it is not
// found. An install that runs (its package may be named for it with a
// word beside it), a build, or the image's own program is not.
func TestUninstalled(t *testing.T) {
	usage := "## Usage\n\n~~~sh\ntool --help\ntool run\n~~~\n"
	tests := []struct {
		name, readme string
		want         Uninstalled
	}{
		{"installed in words", "# tool\n\nInstall it from the website.\n\n" + usage, Uninstalled{Program: "tool", Line: 8}},
		{"installed in a table", "# tool\n\n| way | command |\n|---|---|\n| cargo | `cargo install tool` |\n\n" + usage, Uninstalled{Program: "tool", Line: 10}},
		{"installed with go install", "# tool\n\n~~~sh\ngo install example.org/x/cmd/tool@latest\n~~~\n\n" + usage, Uninstalled{}},
		{"installed as tool-cli", "# tool\n\n~~~sh\nnpm install -g tool-cli\n~~~\n\n" + usage, Uninstalled{}},
		{"built", "# tool\n\n~~~sh\nmake\n~~~\n\n" + usage, Uninstalled{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Make([]byte(tc.readme), Options{Repo: repoWith("acme/tool", "Makefile")})
			assert.Equal(t, p.Uninstalled, tc.want, "%s", planText(p))
			notes := ""
			for _, n := range p.Notes {
				notes += n.Text
			}
			assert.Equal(t, strings.Contains(notes, "the project's own program"), tc.want.Program != "")
		})
	}
	// The image's program is there whatever the README says.
	p := Make([]byte("# jq\n\n~~~sh\njq --version\n~~~\n"), Options{Repo: repoWith("jqlang/jq")})
	assert.Equal(t, p.Uninstalled, Uninstalled{})
}

// The prerequisites a README names in its text: lib words anywhere, the
// words of lines and sections about requirements; never its code.
func TestPrerequisites(t *testing.T) {
	md := here.Doc(`
		# tool

		A tool for logs, built on libarchive.

		## Requirements

		- sqlite - The SQLite engine.

		The following packages are required: zlib and bzip2.

		~~~sh
		apt-get install libnotincode-dev
		~~~

		## Usage

		Run it on anything.
	`)
	p := Make([]byte(md), Options{})
	for _, w := range []string{"libarchive", "sqlite", "zlib", "bzip2"} {
		assert.Check(t, slices.Contains(p.Prerequisites, w), "%s not in %q", w, p.Prerequisites)
	}
	for _, w := range []string{"libnotincode-dev", "anything", "logs"} {
		assert.Check(t, !slices.Contains(p.Prerequisites, w), "%s in %q", w, p.Prerequisites)
	}
}

// The compilers the README's text asks for at a version the image lacks.
func TestCompilersTooOld(t *testing.T) {
	image := toSet(`gcc gcc-12 g++ g++-12 cc make`)
	tests := []struct{ name, md, want string }{
		{"a newer GCC or a Clang the image lacks", "## Compilation\n\nRequires at least GCC 14 or Clang 19.\n", "GCC 14 or newer (the sandbox image has GCC 12)"},
		{"across the lines of a paragraph", "A compiler that supports C++20 is required, such as GCC\n13 or later.\n", "GCC 13 or newer (the sandbox image has GCC 12)"},
		{"met by the image", "Requires GCC 10 or newer.\n", ""},
		{"met by one of several", "Requires GCC 10.2 or Clang 16 (or later).\n", ""},
		{"only a family the image lacks", "On macOS (clang 3.5+).\n", ""},
		{"a mention, not a requirement", "Compiled with GCC 14 it is faster.\n", ""},
		{"in a code block", "~~~sh\n# requires gcc 14\nmake\n~~~\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Make([]byte(tc.md), Options{Programs: image})
			assert.Equal(t, strings.Join(p.CompilersTooOld, "; "), tc.want)
			if tc.want != "" {
				assert.Check(t, slices.ContainsFunc(p.Notes, func(n Note) bool { return strings.Contains(n.Text, tc.want) }), "%v", p.Notes)
			}
		})
	}
}
