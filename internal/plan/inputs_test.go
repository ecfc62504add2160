package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// What a command needs that nothing made: a file, a directory, an
// archive, a manifest, a server on this machine. Files are looked up in
// the directory the session is in.
var inputCases = []planCase{
	{
		name: "a search for files of an extension the checkout has none of",
		readme: here.Doc(`
			~~~sh
			fd -e zip -x unzip
			fd -e md
			fd -e h -e cpp -x clang-format -i
			fd -e rs -e toml
			fd -e pdf . ~/Documents
			find . -name '*.ipynb' -exec nbstripout {} +
			find . -name '*.md'
			~~~
		`),
		repo: repoWith("acme/tool", "docs/guide.md", "src/main.rs"),
		opts: Options{Programs: programsWith("fd", "nbstripout")},
		want: here.Doc(`
			2 skip missing-input fd -e zip -x unzip
			3 probe command fd -e md
			4 skip missing-input fd -e h -e cpp -x clang-format -i
			5 probe command fd -e rs -e toml
			6 skip placeholder fd -e pdf . ~/Documents
			7 skip missing-input find . -name '*.ipynb' -exec nbstripout {} +
			8 probe command find . -name '*.md'
		`),
	},
	{
		name: "git add and git apply name files",
		readme: here.Doc(`
			~~~sh
			git add patches/left-pad+1.3.0.patch
			git apply fixes/0001-fix.patch
			git add docs/guide.md
			git checkout v1.2.0
			git add .
			~~~
		`),
		repo: repoWith("acme/tool", "docs/guide.md"),
		want: here.Doc(`
			2 skip missing-input git add patches/left-pad+1.3.0.patch
			3 skip missing-input git apply fixes/0001-fix.patch
			4 probe command git add docs/guide.md
			5 probe command git checkout v1.2.0
			6 probe command git add .
		`),
	},
	{
		name: "a file with a line and column, or a scheme before it, is still a file",
		readme: here.Doc(`
			~~~sh
			ameba src/command/format.cr:26:83
			ameba src/ameba.cr:12
			grype sbom:./sbom.json
			grype dir:./src
			curl example.com:8080
			~~~
		`),
		repo: repoWith("acme/ameba", "src/ameba.cr", "src/main.cr"),
		opts: Options{Programs: programsWith("grype")},
		want: here.Doc(`
			2 skip missing-input ameba src/command/format.cr:26:83
			3 probe command ameba src/ameba.cr:12
			4 skip missing-input grype sbom:./sbom.json
			5 probe command grype dir:./src
			6 probe command curl example.com:8080
		`),
	},
	{
		name: "a path made of the words for a file of yours is one the checkout lacks",
		readme: here.Doc(`
			~~~sh
			typos dir/file --diff
			hyperfine 'hexdump file' 'xxd file'
			ls folder/
			typos docs/guide.md
			gdrive file list
			touch file
			degit acme/template
			~~~
		`),
		repo: repoWith("acme/typos", "docs/guide.md"),
		opts: Options{Programs: programsWith("typos", "hyperfine", "hexdump", "gdrive", "degit")},
		want: here.Doc(`
			2 skip missing-input typos dir/file --diff
			3 skip missing-input hyperfine 'hexdump file' 'xxd file'
			4 skip missing-input ls folder/
			5 probe command typos docs/guide.md
			6 probe command gdrive file list
			7 probe command touch file
			8 probe command degit acme/template
		`),
	},
	{
		name: "a file named in capitals with any extension stands for the reader's",
		readme: here.Doc(`
			~~~sh
			tool FILE.zpln
			tool -f INPUT.ipynb.bak
			tool NOTES.md
			tool CHANGES.md
			~~~
		`),
		repo: repoWith("acme/tool", "tool", "NOTES.md"),
		want: here.Doc(`
			2 skip missing-input tool FILE.zpln
			3 skip missing-input tool -f INPUT.ipynb.bak
			4 probe command tool NOTES.md
			5 skip missing-input tool CHANGES.md
		`),
	},
	{
		name: "what only a skipped line would write does not exist for the lines after it",
		rule: "made-by-skipped",
		readme: here.Doc(`
			## Usage

			~~~sh
			tool scan --format json my-project/ > report.json
			jq '.findings' report.json
			cp report.json /tmp/report.json
			tool scan --format json . > local.json
			jq '.findings' local.json
			~~~

			~~~sh
			curl -O https://acme.dev/samples/sample.wav
			tool play sample.wav
			~~~

			~~~
			$ cloc --by-file --output-type=sloccount . > sloccount.scc
			~~~

			~~~sh
			npm install -g forever
			forever start ./forever/development.json
			~~~

			~~~
			$ cat sloccount.scc
			398 Go      ./main.go
			~~~
		`),
		repo: repoWith("acme/tool", "tool", "samples/README.md"),
		want: here.Doc(`
			4 skip placeholder tool scan --format json my-project/ > report.json
			5 skip missing-input jq '.findings' report.json
			6 skip missing-input cp report.json /tmp/report.json
			7 probe command tool scan --format json . > local.json
			8 probe command jq '.findings' local.json
			12 probe command curl -O https://acme.dev/samples/sample.wav
			13 probe command tool play sample.wav
			17 skip missing-input cloc --by-file --output-type=sloccount . > sloccount.scc
			21 probe command npm install -g forever
			22 skip missing-input forever start ./forever/development.json
			26 skip missing-input cat sloccount.scc
		`),
	},
	{
		name: "the steps in the folder of a release archive the text says to download and unpack",
		readme: here.Doc(`
			## Installation

			1. **Download tool-(VERSION)-(ARCH).tbz from [latest release](https://github.com/acme/tool/releases/latest) and unpack to a new folder**

			2. **Install (from created folder)**

			   ~~~bash
			   sudo make install
			   ~~~

			## Compilation

			~~~bash
			sudo apt install build-essential
			make
			sudo make install
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "src/main.c", "install.sh"),
		want: here.Doc(`
			8 skip missing-input sudo make install
			14 step command sudo apt install build-essential
			15 step command make
			16 step command sudo make install
		`),
	},
	{
		name: "a section that offers the checkout beside the release archive runs in the checkout",
		readme: here.Doc(`
			## From a release, or from source

			Download a release and unpack it, or clone the repository, then:

			~~~bash
			./install.sh
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile", "src/main.c", "install.sh"),
		want: here.Doc(`
			6 step command ./install.sh
		`),
	},
	{
		name: "the members a skipped tar would extract, named bare to install, and a command's own destination",
		readme: here.Doc(`
			## Installation

			~~~bash
			VERSION='' # Set this to the release you want, for example VERSION='1.2.0'
			curl -OL "https://github.com/acme/tool/releases/download/v${VERSION:?}/tool-${VERSION:?}.tar.gz"
			tar -xvzf tool-${VERSION:?}.tar.gz tool
			sudo install -m 755 tool /usr/local/bin/tool
			~~~

			Or the latest:

			~~~bash
			curl -OL https://github.com/acme/tool/releases/latest/download/tool.tar.gz
			tar -xvzf tool.tar.gz tool
			sudo install -m 755 tool /usr/local/bin/tool
			~~~
		`),
		repo: repoWith("acme/tool", "go.mod"),
		want: here.Doc(`
			4 skip placeholder VERSION='' # Set this to the release you want, for example VERSION='1.2.0'
			5 skip placeholder curl -OL "https://github.com/acme/tool/releases/download/v${VERSION:?}/tool-${VERSION:?}.tar.gz"
			6 skip placeholder tar -xvzf tool-${VERSION:?}.tar.gz tool
			7 skip missing-input sudo install -m 755 tool /usr/local/bin/tool
			13 step command curl -OL https://github.com/acme/tool/releases/latest/download/tool.tar.gz
			14 step command tar -xvzf tool.tar.gz tool
			15 step command sudo install -m 755 tool /usr/local/bin/tool
		`),
	},
	{
		name: "a download piped to tee into a bin directory installs the program",
		readme: here.Doc(`
			## Installing

			~~~bash
			curl -sL https://acme.dev/tool > /usr/local/bin/tool
			~~~

			~~~bash
			curl -sL https://acme.dev/tool | sudo tee /usr/local/bin/tool >/dev/null
			~~~
		`),
		repo: repoWith("acme/tool", "tool"),
		want: here.Doc(`
			4 step command curl -sL https://acme.dev/tool > /usr/local/bin/tool
			8 skip alternative curl -sL https://acme.dev/tool | sudo tee /usr/local/bin/tool >/dev/null
		`),
	},
	{
		name: "files the repository lacks and no earlier command makes",
		rule: "missing-input",
		readme: here.Doc(`
			# lib

			~~~console
			$ cd examples
			$ ./math_test.sh
			$ ./missing_test.sh
			$ test-script.sh -- testOne
			~~~

			~~~sh
			dotenv run -f .env.local -- node hello.js
			CONFIG=./.env.local node hello.js
			~~~

			~~~sh
			clib install clibs/ms clibs/commander
			~~~

			~~~sh
			curl -LO https://dl.acme.dev/dist/lib-1.3.4.tar.gz && tar -xf lib-1.3.4.tar.gz && cd lib-1.3.4 && ./configure
			~~~
		`),
		repo: repoWith("acme/lib", "examples/math.inc", "examples/math_test.sh", "hello.js"),
		opts: Options{Programs: programsWith("clib", "dotenv")},
		want: here.Doc(`
			4 probe command cd examples
			5 probe command ./math_test.sh
			6 skip missing-input ./missing_test.sh
			7 skip missing-input test-script.sh -- testOne
			11 skip missing-input dotenv run -f .env.local -- node hello.js
			12 skip missing-input CONFIG=./.env.local node hello.js
			16 probe command clib install clibs/ms clibs/commander
			20 probe command curl -LO https://dl.acme.dev/dist/lib-1.3.4.tar.gz && tar -xf lib-1.3.4.tar.gz && cd lib-1.3.4 && ./configure
		`),
	},
	{
		name: "the files a package runner's program reads",
		rule: "missing-input",
		readme: here.Doc(`
			~~~bash
			npx @acme/deck-cli@latest slide-deck.md -o output.html
			npx @acme/deck-cli@latest example.md
			pnpm dlx @acme/deck-cli slide-deck.md
			npx -y @acme/deck-cli --version
			~~~
		`),
		repo: repoWith("acme/deck-cli", "example.md", "package.json"),
		want: here.Doc(`
			2 skip missing-input npx @acme/deck-cli@latest slide-deck.md -o output.html
			3 probe command npx @acme/deck-cli@latest example.md
			4 skip missing-input pnpm dlx @acme/deck-cli slide-deck.md
			5 probe command npx -y @acme/deck-cli --version
		`),
	},
	{
		name: "an owner/name argument is a repository, not a file",
		readme: here.Doc(`
			# eget

			~~~
			eget zyedidia/micro --tag nightly
			eget --system darwin/amd64 sharkdp/fd
			eget docs/missing.md
			eget src/nothing
			~~~
		`),
		repo: repoWith("zyedidia/eget", "src/main.go", "docs/guide.md"),
		want: here.Doc(`
			4 probe command eget zyedidia/micro --tag nightly
			5 probe command eget --system darwin/amd64 sharkdp/fd
			6 skip missing-input eget docs/missing.md
			7 skip missing-input eget src/nothing
		`),
	},
	{
		name: "a file an earlier command made",
		readme: here.Doc(`
			~~~sh
			echo '{"name": "x", "a": 1}' > data.json
			jq .name data.json
			jq .a data.json
			tool --output report.html data.json
			mkdir out && cp data.json out/copy.json
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 probe command echo '{"name": "x", "a": 1}' > data.json
			3 probe command jq .name data.json
			4 probe command jq .a data.json
			5 probe command tool --output report.html data.json
			6 probe command mkdir out && cp data.json out/copy.json
		`),
	},
	{
		name: "an archive no earlier command downloads, and the move of its program",
		readme: here.Doc(`
			# gron

			Download a release, then:

			~~~
			▶ tar xzf gron-linux-amd64-0.1.5.tgz
			▶ sudo mv gron /usr/local/bin/
			~~~

			Or with go:

			~~~
			▶ go install github.com/tomnomnom/gron@latest
			~~~

			~~~sh
			curl -LO https://x.org/tool-1.0.tgz && tar xzf tool-1.0.tgz
			~~~
		`),
		repo: repoWith("tomnomnom/gron", "testdata/two.json"),
		want: here.Doc(`
			6 skip missing-input tar xzf gron-linux-amd64-0.1.5.tgz
			7 skip missing-input sudo mv gron /usr/local/bin/
			13 probe command go install github.com/tomnomnom/gron@latest
			17 probe command curl -LO https://x.org/tool-1.0.tgz && tar xzf tool-1.0.tgz
		`),
	},
	{
		name: "an archive named by a pattern that nothing known matches",
		readme: here.Doc(`
			## Install manually

			First, download a tarball from the releases page. Then:

			~~~sh
			tar -xzf ruby-build-*.tar.gz
			~~~

			~~~sh
			tar -xzf vendor/dist-*.tgz
			curl -LO https://x.org/tool-1.0.tgz
			tar -xzf tool-*.tgz
			~~~
		`),
		repo: repoWith("rbenv/ruby-build", "vendor/dist-2.0.tgz"),
		want: here.Doc(`
			6 skip missing-input tar -xzf ruby-build-*.tar.gz
			10 step command tar -xzf vendor/dist-*.tgz
			11 step command curl -LO https://x.org/tool-1.0.tgz
			12 step command tar -xzf tool-*.tgz
		`),
	},
	{
		name: "a file an earlier command of its line downloads",
		readme: here.Doc(`
			~~~sh
			wget https://dl.acme.dev/tool_1.0_amd64.deb && sudo dpkg -i tool_1.0_amd64.deb
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 probe command wget https://dl.acme.dev/tool_1.0_amd64.deb && sudo dpkg -i tool_1.0_amd64.deb
		`),
	},
	{
		name: "build and task programs need their manifest, run directly or by a wrapper after --",
		readme: here.Doc(`
			~~~sh
			make
			make test
			make nothing
			npm run build
			npm run lint
			npm start
			cargo build
			cargo new demo
			make -C docs
			npx dotenv-cli -- mvn exec:java -Dexec.args="-g -f"
			npx dotenv-cli -- make test
			~~~
		`),
		repo: archiveRepo(`
			slug acme/tool
			file README.md
			file LICENSE
			file Makefile
			file package.json
			file docs/Makefile
			-- Makefile --
			all: tool
			test:
				go test ./...
			-- package.json --
			{"name": "tool", "scripts": {"build": "tsc"}}
		`),
		want: here.Doc(`
			2 probe command make
			3 probe command make test
			4 skip missing-input make nothing
			5 probe command npm run build
			6 skip missing-input npm run lint
			7 skip server npm start
			8 skip missing-input cargo build
			9 probe command cargo new demo
			10 probe command make -C docs
			11 skip missing-input npx dotenv-cli -- mvn exec:java -Dexec.args="-g -f"
			12 probe command npx dotenv-cli -- make test
		`),
	},
	{
		name: "a Makefile that configure writes",
		readme: here.Doc(`
			~~~sh
			autoreconf -i
			./configure
			make
			~~~
		`),
		repo: repoWith("acme/tool", "configure.ac"),
		want: here.Doc(`
			2 probe command autoreconf -i
			3 probe command ./configure
			4 probe command make
		`),
	},
	{
		name: "a Makefile that configure writes earlier on the same line",
		readme: here.Doc(`
			~~~sh
			make install && ./configure
			./autogen.sh && ./configure && make
			~~~
		`),
		repo: repoWith("acme/tool", "autogen.sh", "configure.ac"),
		want: here.Doc(`
			2 skip missing-input make install && ./configure
			3 probe command ./autogen.sh && ./configure && make
		`),
	},
	{
		// A checkout has configure.ac and a generator, not ./configure,
		// which release tarballs carry: their steps cannot run as
		// written, the checkout's way (autogen.sh, by sh too) can.
		name: "./configure that the checkout does not have until a generator runs",
		readme: here.Doc(`
			## Build

			~~~sh
			./configure --prefix=/usr
			make
			~~~

			## From git

			~~~sh
			sh autogen.sh
			./configure
			make
			~~~
		`),
		repo: repoWith("acme/tool", "autogen.sh", "configure.ac", "Makefile.am"),
		want: here.Doc(`
			4 skip missing-input ./configure --prefix=/usr
			5 skip missing-input make
			11 probe command sh autogen.sh
			12 probe command ./configure
			13 probe command make
		`),
	},
	{
		name: "./configure after a sentence that gives its generator runs with it first",
		readme: here.Doc(`
			Run ` + "`./autogen.sh`" + ` if compiling from a cloned repository.

			~~~console
			$ ./configure
			$ make
			~~~
		`),
		repo: repoWith("acme/tool", "autogen.sh", "configure.ac", "Makefile.am"),
		want: here.Doc(`
			4 probe command ./configure
			5 probe command make
		`),
	},
	{
		name: "./configure of a checkout that has it",
		readme: here.Doc(`
			~~~sh
			./configure
			~~~
		`),
		repo: repoWith("acme/tool", "configure", "configure.ac"),
		want: here.Doc(`
			2 probe command ./configure
		`),
	},
	{
		name: "a directory of the checkout the session enters",
		readme: here.Doc(`
			~~~sh
			cd docs
			make
			ls guide.md
			cd ..
			ls docs/guide.md
			~~~
		`),
		repo: repoWith("acme/tool", "docs/Makefile", "docs/guide.md"),
		want: here.Doc(`
			2 probe command cd docs
			3 probe command make
			4 probe command ls guide.md
			5 probe command cd ..
			6 probe command ls docs/guide.md
		`),
	},
	{
		name: "the cwd hint: paths are relative to its directory",
		readme: here.Doc(`
			<!-- readme2demo: cwd=examples -->
			~~~sh
			./demo.sh
			cat input.txt
			~~~

			~~~sh
			cat input.txt
			~~~
		`),
		repo: repoWith("acme/tool", "examples/demo.sh", "examples/input.txt"),
		want: here.Doc(`
			3 probe command ./demo.sh
			4 probe command cat input.txt
			8 probe command cat input.txt
		`),
	},
	{
		name: "a skipped cd takes its block's rest with it",
		readme: here.Doc(`
			~~~sh
			cd my-example
			make
			ls
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			2 skip missing-input cd my-example
			3 skip missing-input make
			4 skip missing-input ls
		`),
	},
	{
		name: "a system file of the reader's machine",
		readme: here.Doc(`
			~~~sh
			tool --config /etc/tool/tool.conf
			cat /etc/os-release
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 skip missing-input tool --config /etc/tool/tool.conf
			3 probe command cat /etc/os-release
		`),
	},
	{
		name: "the commands a runner program runs",
		readme: here.Doc(`
			~~~sh
			hyperfine 'make -j4' 'cat missing.txt'
			bash -c 'cat README.md'
			bash -c 'cat missing.txt'
			~~~
		`),
		repo: repoWith("acme/tool"),
		want: here.Doc(`
			2 skip missing-input hyperfine 'make -j4' 'cat missing.txt'
			3 probe command bash -c 'cat README.md'
			4 skip missing-input bash -c 'cat missing.txt'
		`),
	},
	{
		name:  "a client of a server on this machine that nothing started",
		wrong: "line 12 is remote: a database on another host needs its credentials (remoteClient knows nc, telnet and ssh only)",
		readme: here.Doc(`
			# wrk

			~~~
			wrk -t12 -c400 -d30s http://127.0.0.1:8080/index.html
			~~~

			~~~sh
			npx json-server db.json
			curl http://localhost:3000/posts/1
			psql -h localhost -c 'select 1'
			psql -c 'select 1'
			psql postgres://db.example.org/app -c 'select 1'
			ssh -p 23231 localhost
			git clone ssh://git@localhost:23231/repo
			~~~
		`),
		repo: repoWith("wg/wrk", "db.json"),
		want: here.Doc(`
			4 skip missing-input wrk -t12 -c400 -d30s http://127.0.0.1:8080/index.html
			8 skip server npx json-server db.json
			9 skip missing-input curl http://localhost:3000/posts/1
			10 skip missing-input psql -h localhost -c 'select 1'
			11 skip missing-input psql -c 'select 1'
			12 probe command psql postgres://db.example.org/app -c 'select 1'
			13 skip missing-input ssh -p 23231 localhost
			14 skip missing-input git clone ssh://git@localhost:23231/repo
		`),
	},
	{
		name: "a URL option that names this machine, given to any program",
		readme: here.Doc(`
			~~~
			jplot --url http://:8080/debug/vars Threads
			jplot --url=http://localhost:8080/debug/vars Threads
			jplot --url https://metrics.example.org/vars Threads
			~~~
		`),
		repo: repoWith("rs/jplot", "main.go", "go.mod"),
		want: here.Doc(`
			2 skip missing-input jplot --url http://:8080/debug/vars Threads
			3 skip missing-input jplot --url=http://localhost:8080/debug/vars Threads
			4 probe command jplot --url https://metrics.example.org/vars Threads
		`),
	},
	{
		name: "a database URL on this machine, given to any program or a variable",
		readme: here.Doc(`
			~~~sh
			dbmate -u "postgres://postgres@127.0.0.1:5432/myapp_test?sslmode=disable" up
			DATABASE_URL="mysql://username:password@localhost:3306/database_name"
			export DATABASE_URL=postgres://user@/app?socket=/var/run/postgresql
			migrate --database=redis://localhost:6379/0 up
			npx dbmate -u "postgres://postgres@db.example.org:5432/app" up
			npx dbmate -u "sqlite:db/app.sqlite3" up
			echo "postgres://localhost/app is the default"
			~~~
		`),
		repo: repoWith("acme/dbtool", "db.json"),
		want: here.Doc(`
			2 skip missing-input dbmate -u "postgres://postgres@127.0.0.1:5432/myapp_test?sslmode=disable" up
			3 skip missing-input DATABASE_URL="mysql://username:password@localhost:3306/database_name"
			4 skip missing-input export DATABASE_URL=postgres://user@/app?socket=/var/run/postgresql
			5 skip missing-input migrate --database=redis://localhost:6379/0 up
			6 probe command npx dbmate -u "postgres://postgres@db.example.org:5432/app" up
			7 probe command npx dbmate -u "sqlite:db/app.sqlite3" up
			8 probe command echo "postgres://localhost/app is the default"
		`),
	},
	{
		name: "a wildcard for files the checkout does not have",
		readme: here.Doc(`
			~~~sh
			wc -c *.png
			wc -c docs/*.png
			wc -l src/**/*.rs
			wc -l src/*.go
			grep -n TODO '*.png'
			touch a.txt b.txt
			wc -l *.txt
			~~~
		`),
		repo: repoWith("acme/tool", "docs/logo.png", "src/deep/lib.rs", "main.go"),
		want: here.Doc(`
			2 skip missing-input wc -c *.png
			3 probe command wc -c docs/*.png
			4 probe command wc -l src/**/*.rs
			5 skip missing-input wc -l src/*.go
			6 probe command grep -n TODO '*.png'
			7 probe command touch a.txt b.txt
			8 probe command wc -l *.txt
		`),
	},
	{
		name: "a client of a server the background hint started",
		readme: here.Doc(`
			<!-- readme2demo: background ready="curl -sf localhost:3000" -->
			~~~sh
			npx json-server db.json
			~~~

			~~~sh
			curl http://localhost:3000/posts/1
			~~~
		`),
		repo: repoWith("acme/tool", "db.json"),
		want: here.Doc(`
			3 probe command npx json-server db.json
			7 probe command curl http://localhost:3000/posts/1
		`),
	},
	{
		name: "a value the line gives as data is no file",
		readme: here.Doc(`
			# json

			~~~
			$ echo '{"foo":"bar"}' | json foo
			$ echo '{"fred":{"age":42}}' | json fred.age
			$ json -f lib/missing.json
			~~~
		`),
		repo: repoWith("trentm/json", "lib/json.js"),
		want: here.Doc(`
			4 probe command echo '{"foo":"bar"}' | json foo
			5 probe command echo '{"fred":{"age":42}}' | json fred.age
			6 skip missing-input json -f lib/missing.json
		`),
	},
}

func TestInputs(t *testing.T) { testPlans(t, inputCases) }

// programsWith is the default sandbox's programs and some more.
func programsWith(names ...string) map[string]bool {
	m := map[string]bool{}
	for k := range DefaultPrograms() {
		m[k] = true
	}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// The generator the text gives runs as the ./configure line's setup, once.
func TestConfigureGeneratorFromProse(t *testing.T) {
	md := "Run `./autogen.sh` if compiling from a cloned repository.\n\n```console\n$ ./configure\n$ make\n```\n\n" +
		"Run `./autogen.sh` first, then:\n\n```console\n$ ./configure\n```\n"
	p := Make([]byte(md), Options{Repo: repoWith("acme/tool", "autogen.sh", "configure.ac", "Makefile.am")})
	run := p.Run()
	assert.Assert(t, len(run) == 3, "%s", planText(p))
	assert.Equal(t, run[0].Step.Setup, "./autogen.sh")
	assert.Equal(t, run[1].Step.Setup, "")
	assert.Equal(t, run[2].Step.Setup, "", "generated once")
}
