package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// The clone of the repository under test: the run starts in its checkout.
var cloneCases = []planCase{
	{
		name: "the clone of this repository and the cd into it",
		rule: "clone-of-self",
		readme: here.Doc(`
			~~~sh
			git clone https://github.com/acme/tool.git
			cd tool
			make
			git clone git@github.com:acme/tool.git && cd tool && make test
			gh repo clone acme/tool
			git clone https://github.com/other/lib.git
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 skip clone-of-self git clone https://github.com/acme/tool.git
			3 skip clone-of-self cd tool
			4 probe command make
			5 step clone-rest git clone git@github.com:acme/tool.git && cd tool && make test
			6 skip clone-of-self gh repo clone acme/tool
			7 probe command git clone https://github.com/other/lib.git
		`),
	},
	{
		name: "the place made for the clone is not entered: the later lines run in the checkout",
		readme: here.Doc(`
			## Build

			~~~
			mkdir -p $GOPATH/src/github.com/acme
			cd $GOPATH/src/github.com/acme
			git clone https://github.com/acme/tool.git
			cd tool
			make install
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 skip prepares mkdir -p $GOPATH/src/github.com/acme
			5 skip prepares cd $GOPATH/src/github.com/acme
			6 skip clone-of-self git clone https://github.com/acme/tool.git
			7 skip clone-of-self cd tool
			8 probe command make install
		`),
	},
	{
		name: "a clone into another directory is linked to the checkout",
		readme: here.Doc(`
			~~~sh
			git clone --depth 1 https://github.com/acme/tool ~/.tool
			~/.tool/install
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 step link-clone git clone --depth 1 https://github.com/acme/tool ~/.tool
			3 probe command ~/.tool/install
		`),
	},
	{
		name: "a repository known by its directory name only",
		readme: here.Doc(`
			~~~sh
			git clone https://gitlab.example.org/team/tool.git
			cd tool
			~~~
		`),
		repo: func() Repo {
			var r Repo
			r.add(&r.Names, "tool")
			return r
		}(),
		want: here.Doc(`
			2 skip clone-of-self git clone https://gitlab.example.org/team/tool.git
			3 skip clone-of-self cd tool
		`),
	},
	{
		name: "the cd into the project's directory that the checkout lacks",
		rule: "cd-into-clone",
		readme: here.Doc(`
			Clone it, then:

			~~~sh
			cd tool
			make
			cd src
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "src/tool.c"),
		want: here.Doc(`
			4 skip clone-of-self cd tool
			5 probe command make
			6 probe command cd src
		`),
	},
	{
		name: "a checkout of another version of the clone",
		readme: here.Doc(`
			# Bash-Snippets

			~~~bash
			git clone https://github.com/alexanderepstein/Bash-Snippets
			cd Bash-Snippets
			git checkout v1.23.0
			./install.sh all
			~~~
		`),
		repo: repoWith("alexanderepstein/Bash-Snippets", "install.sh"),
		want: here.Doc(`
			4 skip clone-of-self git clone https://github.com/alexanderepstein/Bash-Snippets
			5 skip clone-of-self cd Bash-Snippets
			6 skip clone-of-self git checkout v1.23.0
			7 probe command ./install.sh all
		`),
	},
	{
		name: "a clone of this repository that an earlier install makes an alternative, and what uses its directory",
		rule: "in-skipped-clone",
		readme: here.Doc(`
			~~~sh
			curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh
			git clone https://github.com/acme/tool b
			git clone https://github.com/acme/tool a
			ls b/x a/y
			cd a
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 probe command curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh
			3 skip alternative git clone https://github.com/acme/tool b
			4 skip alternative git clone https://github.com/acme/tool a
			5 skip alternative ls b/x a/y
			6 skip alternative cd a
		`),
	},
	{
		name: "a submodule add of this repository",
		readme: here.Doc(`
			~~~sh
			git submodule add https://github.com/acme/lib vendor/lib
			git submodule update --init
			~~~
		`),
		repo: slugRepo("acme/lib"),
		want: here.Doc(`
			2 skip library-use git submodule add https://github.com/acme/lib vendor/lib
			3 probe command git submodule update --init
		`),
	},
}

func TestClones(t *testing.T) { testPlans(t, cloneCases) }

// What runs for a clone: the rest of its line, or a link of its directory
// to the checkout (and the rest of its line).
func TestCloneExec(t *testing.T) {
	md := here.Doc(`
		~~~sh
		git clone git@github.com:acme/tool.git && cd tool && make test
		git clone https://github.com/acme/tool ~/.tool
		git clone https://github.com/acme/tool "$HOME/.tool" && ~/.tool/install
		~~~
	`)
	p := Make([]byte(md), Options{Repo: slugRepo("acme/tool")})
	assert.Equal(t, planText(p), here.Doc(`
		2 step clone-rest git clone git@github.com:acme/tool.git && cd tool && make test
		3 step link-clone git clone https://github.com/acme/tool ~/.tool
		4 skip alternative git clone https://github.com/acme/tool "$HOME/.tool" && ~/.tool/install
	`))
	assert.Equal(t, p.Entries[0].Exec("/workspace"), "make test")
	assert.Equal(t, p.Entries[1].Exec(`"$CO"`), `mkdir -p -- "$(dirname -- "$HOME"/".tool")" && ln -sfn -- "$CO" "$HOME"/".tool"`)
}

// A command that uses two clone directories not made gives the same
// reason on every run, naming the first of them in README order (they
// were once looked at in map order): the reason is the feature.
func TestNotMadeReasonIsStable(t *testing.T) {
	md := here.Doc(`
		~~~sh
		curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh
		git clone https://github.com/acme/tool b
		git clone https://github.com/acme/tool a
		ls b/x a/y
		~~~
	`)
	for range 20 {
		p := Make([]byte(md), Options{Repo: slugRepo("acme/tool")})
		assert.Equal(t, p.Entries[3].Reason, "uses b, which the clone at line 3 (not run) would have made")
	}
}

// A cd into a directory of the clone enters that directory of the
// checkout, and a later cd into the clone itself goes back to the top, so
// that a build after it runs where the README means.
func TestCdIntoTheCloneDirectories(t *testing.T) {
	md := here.Doc(`
		## Usage

		~~~console
		$ git clone https://github.com/acme/tool
		$ cd tool/cmd/tool
		$ go build
		~~~

		## Development

		~~~sh
		git clone https://github.com/acme/tool
		cd tool
		go test ./...
		~~~
	`)
	p := Make([]byte(md), Options{Repo: repoWith("acme/tool", "go.mod", "cmd/tool/main.go")})
	assert.Equal(t, planText(p), here.Doc(`
		4 skip clone-of-self git clone https://github.com/acme/tool
		5 step clone-rest cd tool/cmd/tool
		6 probe command go build
		12 skip clone-of-self git clone https://github.com/acme/tool
		13 step clone-rest cd tool
		14 probe command go test ./...
	`))
	assert.Equal(t, p.Entries[1].Exec(`"$CO"`), `cd -- "$CO"/cmd/tool`)
	assert.Equal(t, p.Entries[4].Exec(`"$CO"`), `cd -- "$CO"`)
}
