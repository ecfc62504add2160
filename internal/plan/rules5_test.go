package plan

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The rules found on fresh batch 5 (gron, pup, vhs, npm-check-updates,
// live-server, json, wrk, fzy, z, Bash-Snippets); the README lines are made
// up in the shape of the mistakes.

// An install from a release archive the text says to download, with the
// move of its binary, goes together; the `go install` after it runs.
func TestReleaseArchiveFromProse(t *testing.T) {
	md := "# gron\n\nDownload a release, then:\n\n```\n▶ tar xzf gron-linux-amd64-0.1.5.tgz\n▶ sudo mv gron /usr/local/bin/\n```\n\n" +
		"Or with go:\n\n```\n▶ go install github.com/tomnomnom/gron@latest\n```\n\n" +
		"```sh\ncurl -LO https://x.org/tool-1.0.tgz && tar xzf tool-1.0.tgz\n```\n"
	checkPlan(t, md, repoWith("tomnomnom/gron", "testdata/two.json"),
		skip(6, "extracts gron-linux-amd64-0.1.5.tgz, which no earlier command downloads"),
		skip(7, "part of the install from the archive at line 6"),
		run(13, ""),
		run(17, ""),
	)
}

// A block of one program's argument forms is a reference, not commands;
// a block of the same program with options and values is not.
func TestArgumentFormsReference(t *testing.T) {
	md := "# pup\n\n## Implemented Selectors\n\n```bash\npup '.class'\npup '#id'\npup 'element'\npup '[attribute]'\npup ':empty'\n```\n\n" +
		"```sh\nncu mocha\nncu -f mocha\nncu --filter mocha\nncu chalk mocha react\nncu -x nodemon\n```\n"
	checkPlan(t, md, repoOf("ericchiang/pup"),
		skip(6, "a reference of pup's argument forms"),
		skip(7, "a reference of pup's argument forms"),
		skip(8, "a reference of pup's argument forms"),
		skip(9, "a reference of pup's argument forms"),
		skip(10, "a reference of pup's argument forms"),
		run(14, ""),
		run(15, ""),
		run(16, ""),
		run(17, ""),
		run(18, ""),
	)
}

// Aliases the text says to put in the shell's profile are optional when no
// later command uses them; a script's body ("$@") is not a command.
func TestOptionalAliasesAndScriptBodies(t *testing.T) {
	md := "# gron\n\nPut something like this in your shell profile (e.g. in `~/.bashrc`):\n\n```\nalias norg=\"gron --ungron\"\n```\n\n" +
		"Or create a shell script in your $PATH named `ungron`:\n\n```\ngron --ungron \"$@\"\n```\n\n" +
		"Add this to your `~/.bashrc`:\n\n```sh\nalias g=\"gron\"\n```\n\n```sh\ng --version\n```\n"
	checkPlan(t, md, repoOf("tomnomnom/gron"),
		skip(6, "optional aliases (norg): no later command of the README uses them"),
		skip(12, "uses a script's arguments"),
		run(18, ""),
		run(22, ""),
	)
}

// A value the command line itself gives as data is not a placeholder or a
// missing file; a comment is not data.
func TestArgumentsGivenInTheLine(t *testing.T) {
	md := "# json\n\n```\n$ echo '{\"foo\":\"bar\"}' | json foo\n$ echo '{\"fred\":{\"age\":42}}' | json fred.age\n$ cheat foo/bar # file is named \"bar\", in \"foo\"\n```\n"
	checkPlan(t, md, repoWith("trentm/json", "lib/json.js"),
		run(4, ""),
		run(5, ""),
		skip(6, "example argument foo/bar"),
	)
}

// A client of a server on this machine needs a server an earlier command
// starts; a program named *-server, or a `serve` subcommand, starts one.
func TestLocalServerNeeded(t *testing.T) {
	md := "# wrk\n\n```\nwrk -t12 -c400 -d30s http://127.0.0.1:8080/index.html\n```\n\n" +
		"```sh\nnpx json-server db.json\ncurl http://localhost:3000/posts/1\nvhs serve\n```\n"
	p := checkPlan(t, md, repoWith("wg/wrk", "db.json"),
		skip(4, "needs a server at http://127.0.0.1:8080, and no earlier command starts one"),
		run(8, "starts a server (npx json-server"),
		run(9, ""),
		run(10, "starts a server (vhs serve)"),
	)
	assert.Check(t, p.Entries[1].Step.Background)
}

// Installs: a Debian/Ubuntu recipe that does more than `apt install tool`
// wins over an earlier generic install; `npm install -g` in a clone
// installs the project, and the build steps before it go with it as an
// alternative; npx of an installed package in an install section is an
// alternative; the apt steps after a skipped PPA, and a checkout of
// another version after a skipped clone, go with them; a section about
// updating under a summary is skipped.
func TestInstallAlternativesBatch5(t *testing.T) {
	md := "# vhs\n\nOr, just install it with `go`:\n\n```sh\ngo install github.com/charmbracelet/vhs@latest\n```\n\n" +
		"- Debian / Ubuntu\n\n```sh\nsudo mkdir -p /etc/apt/keyrings\nsudo apt update && sudo apt install vhs ffmpeg\n```\n\n" +
		"- Fedora / RHEL\n\n```sh\necho '[charm]' | sudo tee /etc/yum.repos.d/charm.repo\n```\n"
	p := checkPlan(t, md, repoOf("charmbracelet/vhs"),
		skip(6, "alternative: README.md line 13 installs vhs with the instructions for Debian/Ubuntu"),
		run(12, ""),
		run(13, "with -y"),
		skip(19, "other platform: Fedora/RHEL"),
	)
	for _, e := range p.Entries {
		if e.Line == 13 {
			assert.Check(t, strings.Contains(e.Exec("/workspace"), "sudo apt install -y vhs ffmpeg"), e.Exec("/workspace"))
		}
	}

	md = "# live-server\n\n## Installation\n\n    npm install -g live-server\n\n**Manual way**\n\n" +
		"    git clone https://github.com/tapio/live-server\n    cd live-server\n    npm install\n    npm install -g\n\n" +
		"```sh\nnpx live-server --version\n```\n"
	checkPlan(t, md, repoOf("tapio/live-server"),
		run(5, ""),
		skip(9, "clones this repository"),
		skip(10, "enters the clone"),
		skip(11, "prepares line 12, which is not run (alternative"),
		skip(12, "alternative: README.md line 5 already installs live-server"),
		skip(15, "alternative: runs live-server with npx"),
	)

	md = "# Bash-Snippets\n\n## Installing\n\n```bash\nsudo add-apt-repository ppa:x/bash-snippets\nsudo apt update\nsudo apt install bash-snippets\n```\n\n" +
		"```bash\ngit clone https://github.com/alexanderepstein/Bash-Snippets\ncd Bash-Snippets\ngit checkout v1.23.0\n./install.sh all\n```\n\n" +
		"## Updating\n\n<details>\n<summary>APT Package Manager</summary>\n\n```bash\nsudo apt update\n```\n\n</details>\n"
	checkPlan(t, md, repoWith("alexanderepstein/Bash-Snippets", "install.sh"),
		skip(6, "other platform: Ubuntu PPA"),
		skip(7, "installs from the package source that line 6 adds"),
		skip(8, "installs from the package source that line 6 adds"),
		skip(12, "clones this repository"),
		skip(13, "enters the clone"),
		skip(14, "checks out another version of the clone at line 12"),
		run(15, ""),
		skip(24, "upgrades an earlier install (section \"Updating\")"),
	)
}

// Placeholders: a host named for the reader's domain, bare alternatives
// joined by |; a platform named in the comment on the command's line; `go
// get` in the install section of a README without Go code installs the
// program.
func TestMorePlaceholdersBatch5(t *testing.T) {
	md := "# ncu\n\n## Install\n\n    go get github.com/raineorshine/ncu\n\n```sh\nncu --registry https://api.mydomain/registry.json\n" +
		"ncu --target greatest|newest|minor\nncu '/^(?!react-).*$/' # mac/linux\nncu \"/^(?!react-).*$/\" # windows\n```\n"
	checkPlan(t, md, repoOf("raineorshine/ncu"),
		run(5, ""),
		skip(8, "placeholder ://api.mydomain"),
		skip(9, "usage synopsis (greatest|newest|minor)"),
		run(10, ""),
		skip(11, "other platform: Windows (the comment on its line)"),
	)
	md = "# lib\n\n## Install\n\n```sh\ngo get github.com/acme/lib\n```\n\n```go\nimport \"github.com/acme/lib\"\n```\n"
	checkPlan(t, md, repoOf("acme/lib"), skip(6, "adds this project"))
}
