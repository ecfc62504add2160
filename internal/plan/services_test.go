package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// What needs something outside the sandbox or the README's purpose:
// another host, a hosted service's account, publishing, removing,
// another version control system, adding the project to the reader's own.
var serviceCases = []planCase{
	{
		name: "a connection to another host",
		rule: "remote-client",
		readme: here.Doc(`
			~~~sh
			nc paste.example.org 9999 < notes.txt
			nc -z localhost 80
			nc -l 9999 > out.txt
			ssh user@build.example.org make
			~~~
		`),
		repo: repoWith("acme/tool", "notes.txt"),
		want: here.Doc(`
			2 skip remote nc paste.example.org 9999 < notes.txt
			3 probe command nc -z localhost 80
			4 probe command nc -l 9999 > out.txt
			5 skip remote ssh user@build.example.org make
		`),
	},
	{
		name: "a hosted service's account",
		rule: "needs-account",
		readme: here.Doc(`
			~~~sh
			heroku config:set KEY=value
			gh pr list
			gh --version
			claude mcp add croc -- croc --mcp
			aws s3 ls
			~~~
		`),
		repo: slugRepo("schollz/croc"),
		want: here.Doc(`
			2 skip needs-account heroku config:set KEY=value
			3 skip needs-account gh pr list
			4 probe command gh --version
			5 skip needs-account claude mcp add croc -- croc --mcp
			6 skip needs-account aws s3 ls
		`),
	},
	{
		name: "adding this project to the reader's own, and publishing",
		rule: "library-use-or-publish",
		readme: here.Doc(`
			~~~sh
			npm install tool
			npm install -g tool-cli
			yarn add @acme/tool
			go get github.com/acme/tool
			cargo add tool
			npm publish
			docker push acme/tool
			yarn add --dev babel-jest @babel/core
			npm install -D typescript
			bun add -d @types/bun
			npm install --save-dev -g typescript
			npm install typescript
			uv add --dev tool
			poetry add tool==1.2
			uv add requests
			~~~
		`),
		repo: func() Repo {
			r := slugRepo("acme/tool")
			r.add(&r.Packages, "@acme/tool")
			return r
		}(),
		want: here.Doc(`
			2 skip library-use npm install tool
			3 probe command npm install -g tool-cli
			4 skip library-use yarn add @acme/tool
			5 skip library-use go get github.com/acme/tool
			6 skip library-use cargo add tool
			7 skip needs-account npm publish
			8 skip needs-account docker push acme/tool
			9 skip library-use yarn add --dev babel-jest @babel/core
			10 skip library-use npm install -D typescript
			11 skip library-use bun add -d @types/bun
			12 probe command npm install --save-dev -g typescript
			13 probe command npm install typescript
			14 skip library-use uv add --dev tool
			15 skip library-use poetry add tool==1.2
			16 probe command uv add requests
		`),
	},
	{
		name: "committing what a skipped push would publish",
		readme: here.Doc(`
			~~~sh
			git add .env.production
			git commit -m deploy
			git push heroku main
			~~~
		`),
		want: here.Doc(`
			2 skip prepares git add .env.production
			3 skip prepares git commit -m deploy
			4 skip needs-account git push heroku main
		`),
	},
	{
		name: "a release tool's run and a release script publish; their previews do not",
		readme: here.Doc(`
			## Usage

			Run release-it from the root of the project using either npm run or npx:

			~~~bash
			npm run release
			npx release-it
			release-it minor --ci
			npx release-it --dry-run
			release-it --help
			np patch --any-branch --tag=v1
			npx np --preview
			yarn deploy
			npm run build
			~~~
		`),
		repo: repoWith("release-it/release-it", "package.json", "bin/release-it.js"),
		want: here.Doc(`
			6 skip needs-account npm run release
			7 skip needs-account npx release-it
			8 skip needs-account release-it minor --ci
			9 probe command npx release-it --dry-run
			10 probe command release-it --help
			11 skip needs-account np patch --any-branch --tag=v1
			12 probe command npx np --preview
			13 skip needs-account yarn deploy
			14 probe command npm run build
		`),
	},
	{
		name: "a go get the text presents as the install of the tool",
		readme: here.Doc(`
			# statik

			Install the command line tool first.

				go get github.com/rakyll/statik

			~~~go
			import "github.com/rakyll/statik/fs"
			~~~

			~~~sh
			go get github.com/rakyll/statik/fs
			~~~
		`),
		repo: func() Repo {
			r := slugRepo("rakyll/statik")
			r.add(&r.Modules, "github.com/rakyll/statik")
			return r
		}(),
		want: here.Doc(`
			5 probe command go get github.com/rakyll/statik
			8 skip other-language (no command)
			12 skip library-use go get github.com/rakyll/statik/fs
		`),
	},
	{
		name: "a go get in the install section of a README without Go code",
		readme: here.Doc(`
			# ncu

			## Install

			    go get github.com/raineorshine/ncu
		`),
		repo: slugRepo("raineorshine/ncu"),
		want: here.Doc(`
			5 probe command go get github.com/raineorshine/ncu
		`),
	},
	{
		name: "a go get in the install section of a library's README",
		readme: here.Doc(`
			# lib

			## Install

			~~~sh
			go get github.com/acme/lib
			~~~

			~~~go
			import "github.com/acme/lib"
			~~~
		`),
		repo: slugRepo("acme/lib"),
		want: here.Doc(`
			6 skip library-use go get github.com/acme/lib
			10 skip other-language (no command)
		`),
	},
	{
		name: "removing or reinstalling",
		rule: "uninstalls",
		readme: here.Doc(`
			~~~sh
			npm uninstall -g croc
			croc uninstall
			pip uninstall -y croc
			tool remove thing
			croc --uninstall --global
			tool --uninstall
			~~~
		`),
		repo: slugRepo("schollz/croc"),
		opts: Options{Programs: programsWith("tool")},
		want: here.Doc(`
			2 skip maintenance npm uninstall -g croc
			3 skip maintenance croc uninstall
			4 skip maintenance pip uninstall -y croc
			5 probe command tool remove thing
			6 skip maintenance croc --uninstall --global
			7 probe command tool --uninstall
		`),
	},
	{
		name: "another version control system outside its working copy",
		rule: "other-vcs",
		readme: here.Doc(`
			# icdiff

			## Using with subversion

			~~~sh
			svn diff --diff-cmd icdiff
			hg diff
			svn checkout https://svn.example.org/repo
			svn --version
			~~~
		`),
		repo: repoWith("jeffkaufman/icdiff"),
		want: here.Doc(`
			6 skip maintenance svn diff --diff-cmd icdiff
			7 skip maintenance hg diff
			8 probe command svn checkout https://svn.example.org/repo
			9 probe command svn --version
		`),
	},
	{
		name: "another version control system in its working copy",
		readme: here.Doc(`
			# icdiff

			## Using with subversion

			~~~sh
			svn diff --diff-cmd icdiff
			hg diff
			~~~
		`),
		repo: repoWith("jeffkaufman/icdiff", ".svn/entries"),
		want: here.Doc(`
			6 probe command svn diff --diff-cmd icdiff
			7 skip maintenance hg diff
		`),
	},
}

func TestServices(t *testing.T) { testPlans(t, serviceCases) }
