package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// What needs a person at a terminal, and what never ends by itself.
var interactiveCases = []planCase{
	{
		name: "a program the README pipes into reads standard input when a line gives it nothing",
		readme: here.Doc(`
			~~~sh
			curl -s https://example.com | pretty
			pretty > note.md
			pretty notes.md
			pretty --version
			pretty < notes.md
			other > out.txt
			~~~
		`),
		repo: repoWith("acme/pretty", "notes.md"),
		opts: Options{Programs: programsWith("pretty", "other")},
		want: here.Doc(`
			2 probe command curl -s https://example.com | pretty
			3 skip interactive pretty > note.md
			4 probe command pretty notes.md
			5 probe command pretty --version
			6 probe command pretty < notes.md
			7 probe command other > out.txt
		`),
	},
	{
		name: "a program given - alone reads standard input",
		readme: here.Doc(`
			~~~sh
			typos - --write-changes
			hr - '#' -
			echo 'teh' | typos -
			typos - < notes.md
			tar -cf - src
			cd -
			git checkout -
			nosuchtool -
			~~~
		`),
		repo: repoWith("acme/typos", "notes.md", "src/main.rs"),
		opts: Options{Programs: programsWith("typos", "hr")},
		want: here.Doc(`
			2 skip interactive typos - --write-changes
			3 probe command hr - '#' -
			4 probe command echo 'teh' | typos -
			5 probe command typos - < notes.md
			6 probe command tar -cf - src
			7 probe command cd -
			8 probe command git checkout -
			9 skip text nosuchtool -
		`),
	},
	{
		name: "a project generator asks its questions on the terminal",
		readme: here.Doc(`
			~~~sh
			npm create hono@latest
			npm init vite my-app
			npx create-react-app my-app
			npm create vite@latest demo -- --template react --yes
			cargo generate gh:acme/template
			cargo generate gh:acme/template --name demo
			deno run -Ar jsr:@fresh/init
			npm init -y
			~~~
		`),
		want: here.Doc(`
			2 skip interactive npm create hono@latest
			3 skip interactive npm init vite my-app
			4 skip interactive npx create-react-app my-app
			5 probe command npm create vite@latest demo -- --template react --yes
			6 skip interactive cargo generate gh:acme/template
			7 skip missing-input cargo generate gh:acme/template --name demo
			8 skip interactive deno run -Ar jsr:@fresh/init
			9 probe command npm init -y
		`),
	},
	{
		name:  "programs that need a terminal",
		wrong: "line 14 runs: tmux new -d starts a detached session, with no terminal (interactive() returns early for tmux new, before the -d its first loop allows)",
		rule:  "interactive",
		readme: here.Doc(`
			~~~sh
			vim notes.txt
			less README.md
			git log | fzf
			git log | fzf --filter fix
			fd -e md -x nvim
			python3
			python3 -c 'print(1)'
			valkey-cli
			ssh example.org
			ssh example.org uptime
			htop
			tmux new -s work
			tmux new -d -s work
			hx # in a separate pane
			tmux capture-pane -p | gum format
			$EDITOR notes.txt
			vim --version
			~~~
		`),
		repo: repoWith("acme/tool", "notes.txt"),
		want: here.Doc(`
			2 skip interactive vim notes.txt
			3 skip interactive less README.md
			4 skip interactive git log | fzf
			5 probe command git log | fzf --filter fix
			6 skip interactive fd -e md -x nvim
			7 skip interactive python3
			8 probe command python3 -c 'print(1)'
			9 skip interactive valkey-cli
			10 skip remote ssh example.org
			11 skip remote ssh example.org uptime
			12 skip interactive htop
			13 skip interactive tmux new -s work
			14 skip interactive tmux new -d -s work
			15 skip interactive hx # in a separate pane
			16 skip interactive tmux capture-pane -p | gum format
			17 skip interactive $EDITOR notes.txt
			18 probe command vim --version
		`),
	},
	{
		name: "openssl req asks for the certificate's names unless -subj or -batch",
		rule: "interactive",
		readme: here.Doc(`
			~~~sh
			openssl req -newkey rsa:2048 -new -nodes -x509 -days 3650 -keyout key.pem -out cert.pem
			openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -subj "/CN=localhost"
			openssl req -new -key key.pem -out req.csr -batch
			openssl rand -hex 16
			~~~
		`),
		want: here.Doc(`
			2 skip interactive openssl req -newkey rsa:2048 -new -nodes -x509 -days 3650 -keyout key.pem -out cert.pem
			3 probe command openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -subj "/CN=localhost"
			4 probe command openssl req -new -key key.pem -out req.csr -batch
			5 probe command openssl rand -hex 16
		`),
	},
	{
		name: "editors opened by an edit subcommand, crontab -e and the project's bare configure",
		rule: "interactive",
		readme: here.Doc(`
			~~~sh
			pet edit
			systemctl edit demo.service
			crontab -e
			pet configure
			pet configure --help
			pet configure > config.toml
			~~~
		`),
		repo: slugRepo("knqyf263/pet"),
		want: here.Doc(`
			2 skip interactive pet edit
			3 skip interactive systemctl edit demo.service
			4 skip interactive crontab -e
			5 skip interactive pet configure
			6 probe command pet configure --help
			7 probe command pet configure > config.toml
		`),
	},
	{
		name: "output that shows the program asking at the terminal",
		rule: "interactive",
		readme: here.Doc(`
			~~~
			$ pet new
			Command> echo Hello world!
			Description> print Hello world
			$ pet list
			Command: echo Hello world!
			~~~

			~~~console
			$ npx create-demo
			? Project name: demo
			$ npx create-other
			✔ Pick a template › react
			$ pet clean
			Remove every snippet? (y/N) y
			$ sudo apt-get install jq
			Do you want to continue? [Y/n] y
			~~~
		`),
		repo: slugRepo("knqyf263/pet"),
		want: here.Doc(`
			2 skip interactive pet new
			5 probe command pet list
			10 skip interactive npx create-demo
			12 skip interactive npx create-other
			14 skip interactive pet clean
			16 probe command sudo apt-get install jq
		`),
	},
	{
		name: "REPLs given only options, and REPLs given something to run",
		rule: "interactive",
		readme: here.Doc(`
			~~~sh
			ts-node --esm
			ts-node --transpiler sucrase/transpiler
			ts-node -vvv
			ts-node src/index.ts
			ts-node -e 'console.log(1)'
			node --inspect
			node --require dotenv/config
			node --test
			echo 'print(1)' | python3 -q
			python3 -q < script.py
			python3 -m pip list
			python3 -i
			psql -U postgres -v ON_ERROR_STOP=1 app
			psql -U postgres -c 'select 1' app
			sqlite3 app.db
			sqlite3 app.db 'select 1'
			redis-cli -n 2
			redis-cli -n 2 PING
			deno --unstable
			deno repl
			~~~
		`),
		repo: repoWith("acme/tool", "src/index.ts", "script.py", "app.db"),
		want: here.Doc(`
			2 skip interactive ts-node --esm
			3 skip interactive ts-node --transpiler sucrase/transpiler
			4 probe command ts-node -vvv
			5 probe command ts-node src/index.ts
			6 probe command ts-node -e 'console.log(1)'
			7 skip interactive node --inspect
			8 skip interactive node --require dotenv/config
			9 probe command node --test
			10 probe command echo 'print(1)' | python3 -q
			11 probe command python3 -q < script.py
			12 probe command python3 -m pip list
			13 skip interactive python3 -i
			14 skip interactive psql -U postgres -v ON_ERROR_STOP=1 app
			15 skip missing-input psql -U postgres -c 'select 1' app
			16 skip interactive sqlite3 app.db
			17 probe command sqlite3 app.db 'select 1'
			18 skip interactive redis-cli -n 2
			19 skip missing-input redis-cli -n 2 PING
			20 probe command deno --unstable
			21 skip interactive deno repl
		`),
	},
	{
		name: "the text presents the project's program as interactive",
		readme: here.Doc(`
			# gum

			## Input

			Prompt for input with a simple command.

			~~~bash
			gum input > answer.txt
			gum --version
			echo done
			~~~

			### Interactive

			~~~bash
			git gum
			~~~

			### Non-interactive

			~~~bash
			gum style hello
			~~~

			Use ` + "`tab`" + ` to select, ` + "`enter`" + ` to confirm.

			~~~bash
			cat list.txt | gum filter
			CARD=$(gum choose a b)
			~~~
		`),
		repo: repoNamed("charmbracelet/gum", "git-gum"),
		want: here.Doc(`
			8 skip interactive gum input > answer.txt
			9 probe command gum --version
			10 probe command echo done
			16 skip interactive git gum
			22 probe command gum style hello
			28 skip interactive cat list.txt | gum filter
			29 skip interactive CARD=$(gum choose a b)
		`),
	},
	{
		name: "a program the README says is interactive by default",
		readme: here.Doc(`
			# gdu

			~~~
			  -n, --non-interactive   Do not run in interactive mode
			~~~

			    gdu
			    gdu -n /
			    gdu -npc /
			    gdu / > out.txt
			    gdu -o- / | gzip -c > r.gz
			    gdu --interactive / | tee out.txt
			    gdu --version
		`),
		repo: slugRepo("dundee/gdu"),
		want: here.Doc(`
			4 skip text (no command)
			7 skip interactive gdu
			8 probe command gdu -n /
			9 probe command gdu -npc /
			10 probe command gdu / > out.txt
			11 probe command gdu -o- / | gzip -c > r.gz
			12 skip interactive gdu --interactive / | tee out.txt
			13 probe command gdu --version
		`),
	},
	{
		name: "a README with a section of key bindings",
		readme: here.Doc(`
			# dive

			A tool for exploring a Docker image.

			~~~sh
			dive nginx:latest
			dive --version
			dive img | tee out.txt
			~~~

			## KeyBindings

			Ctrl+C: exit
		`),
		repo: slugRepo("wagoodman/dive"),
		want: here.Doc(`
			6 skip interactive dive nginx:latest
			7 probe command dive --version
			8 probe command dive img | tee out.txt
		`),
	},
	{
		name: "a README whose opening presents the program as interactive",
		readme: here.Doc(`
			# jid

			You can drill down JSON interactively.

			## Usage

			~~~
			echo '{"a":1}' | jid
			jid
			jid -version
			jid -q . out.json
			ps ux | jid -g x | xargs kill
			jid < in.json > out.txt
			jid -q . in.json | cat
			~~~
		`),
		repo: repoWith("simeji/jid", "in.json", "out.json"),
		want: here.Doc(`
			8 skip interactive echo '{"a":1}' | jid
			9 skip interactive jid
			10 probe command jid -version
			11 probe command jid -q . out.json
			12 skip interactive ps ux | jid -g x | xargs kill
			13 skip interactive jid < in.json > out.txt
			14 probe command jid -q . in.json | cat
		`),
	},
	{
		name: "an interactive terminal, or one mode's keys, present no UI",
		readme: here.Doc(`
			# bat

			When bat detects a non-interactive terminal it acts like cat. Decorations show on an interactive terminal.

			Examples:

			~~~sh
			bat README.md
			echo x | bat
			~~~

			### Keys

			q: quit
		`),
		repo: slugRepo("sharkdp/bat"),
		want: here.Doc(`
			8 probe command bat README.md
			9 probe command echo x | bat
		`),
	},
	{
		name: "a filter given no input",
		rule: "reads-stdin",
		readme: here.Doc(`
			~~~sh
			jq '.name'
			jq '.name' package.json
			jq -n '1 + 1'
			echo '{}' | jq .
			grep -r TODO
			sort
			cat -
			~~~
		`),
		repo: repoWith("acme/tool", "package.json"),
		want: here.Doc(`
			2 skip interactive jq '.name'
			3 probe command jq '.name' package.json
			4 probe command jq -n '1 + 1'
			5 probe command echo '{}' | jq .
			6 probe command grep -r TODO
			7 skip interactive sort
			8 skip interactive cat -
		`),
	},
	{
		name: "programs that do not end",
		rule: "runs-until-stopped",
		readme: here.Doc(`
			~~~sh
			tail -f log.txt
			journalctl -u tool --follow
			docker logs -f tool
			yes
			yes 'y' > answers.txt
			yes | ./install.sh
			yes 'line' | head -c 8M > big.txt
			tail -n 5 log.txt
			go test -run=- -fuzz=ParsePrint
			go test -fuzz FuzzX -fuzztime 30s
			go test -run TestFuzzy
			~~~
		`),
		repo: repoWith("acme/tool", "log.txt", "install.sh", "go.mod"),
		want: here.Doc(`
			2 skip server tail -f log.txt
			3 skip server journalctl -u tool --follow
			4 skip server docker logs -f tool
			5 skip server yes
			6 skip server yes 'y' > answers.txt
			7 probe command yes | ./install.sh
			8 probe command yes 'line' | head -c 8M > big.txt
			9 probe command tail -n 5 log.txt
			10 skip server go test -run=- -fuzz=ParsePrint
			11 probe command go test -fuzz FuzzX -fuzztime 30s
			12 probe command go test -run TestFuzzy
		`),
	},
	{
		name: "watchers by the conventions of command lines: --watch, a watch subcommand, followed logs",
		rule: "runs-until-stopped",
		readme: here.Doc(`
			~~~sh
			npx tsc --watch
			jest --watchAll
			tool build --watch=src
			tool build --watch=false
			gulp watch
			tool logs -f
			tool compose logs --follow web
			tool logs
			tool build src/watch
			ls watch
			~~~
		`),
		repo: repoWith("acme/tool", "package.json", "src/watch", "watch"),
		want: here.Doc(`
			2 skip server npx tsc --watch
			3 skip server jest --watchAll
			4 skip server tool build --watch=src
			5 probe command tool build --watch=false
			6 skip server gulp watch
			7 skip server tool logs -f
			8 skip server tool compose logs --follow web
			9 probe command tool logs
			10 probe command tool build src/watch
			11 probe command ls watch
		`),
	},
	{
		name: "a logs subcommand that follows by default",
		rule: "runs-until-stopped",
		readme: here.Doc(`
			~~~sh
			pm2 logs
			pm2 logs --nostream --lines 20
			pm2 logs api
			~~~
		`),
		opts: Options{Programs: programsWith("pm2")},
		want: here.Doc(`
			2 skip server pm2 logs
			3 probe command pm2 logs --nostream --lines 20
			4 skip server pm2 logs api
		`),
	},
	{
		name: "a watch subcommand of a program the image has (its list is an option) takes a file",
		readme: here.Doc(`
			~~~sh
			lint watch
			gulp watch
			~~~
		`),
		repo: repoWith("acme/tool", "package.json", "watch"),
		opts: Options{Programs: programsWith("lint")},
		want: here.Doc(`
			2 probe command lint watch
			3 skip server gulp watch
		`),
	},
	{
		name: "servers and watchers",
		rule: "server",
		readme: here.Doc(`
			~~~sh
			npm start
			python3 -m http.server 8000
			npx json-server db.json
			vhs serve
			hugo server -D
			./src/valkey-server --port 7000
			docker compose up -d
			tool serve --help
			air init
			~~~
		`),
		repo: repoWith("acme/tool", "package.json", "db.json"),
		want: here.Doc(`
			2 skip server npm start
			3 skip server python3 -m http.server 8000
			4 skip server npx json-server db.json
			5 skip server vhs serve
			6 skip server hugo server -D
			7 skip server ./src/valkey-server --port 7000
			8 skip container docker compose up -d
			9 probe command tool serve --help
			10 probe command air init
		`),
	},
	{
		name: "the background hint runs a server",
		readme: here.Doc(`
			<!-- readme2demo: background -->
			~~~sh
			npm start
			~~~
		`),
		repo: repoWith("acme/tool", "package.json", "server.js"),
		want: here.Doc(`
			3 probe command npm start
		`),
	},
	{
		name: "a project the README presents as a server",
		readme: here.Doc(`
			# serve

			A simple HTTP server for static files.

			## Usage

			~~~sh
			serve --version
			serve ./public
			serve ./public > log.txt
			serve -v
			serve init
			~~~
		`),
		repo: repoWith("acme/serve", "public/index.html"),
		want: here.Doc(`
			8 probe command serve --version
			9 skip server serve ./public
			10 skip server serve ./public > log.txt
			11 probe command serve -v
			12 probe command serve init
		`),
	},
	{
		name: "setting up shell completion",
		rule: "completion",
		readme: here.Doc(`
			~~~sh
			tool completion bash > ~/.local/share/bash-completion/completions/tool
			source <(tool completions)
			sudo cp contrib/tool.bash /etc/bash_completion.d/
			tool --version
			~~~
		`),
		repo: repoWith("acme/tool", "contrib/tool.bash"),
		want: here.Doc(`
			2 skip optional tool completion bash > ~/.local/share/bash-completion/completions/tool
			3 skip optional source <(tool completions)
			4 skip optional sudo cp contrib/tool.bash /etc/bash_completion.d/
			5 probe command tool --version
		`),
	},
	{
		name: "a command its comment calls optional",
		rule: "optional-comment",
		readme: here.Doc(`
			# tool

			## Build

			~~~sh
			make
			make verify  # (optional)
			sudo mv tool /usr/local/bin # optional
			# Optional: a shorter name
			sudo ln -s /usr/local/bin/tool /usr/local/bin/t

			make test # runs the optional checks too
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			6 step command make
			7 skip optional make verify  # (optional)
			8 skip optional sudo mv tool /usr/local/bin # optional
			10 skip optional sudo ln -s /usr/local/bin/tool /usr/local/bin/t
			12 step command make test # runs the optional checks too
		`),
	},
	{
		name: "a tool's monitor subcommand opens a full-screen view",
		readme: here.Doc(`
			~~~sh
			npm install pm2 -g
			pm2 monit
			pm2 dashboard
			pm2 list
			cat monitor
			~~~
		`),
		repo: repoWith("acme/pm2", "monitor"),
		want: here.Doc(`
			2 probe command npm install pm2 -g
			3 skip interactive pm2 monit
			4 skip interactive pm2 dashboard
			5 probe command pm2 list
			6 probe command cat monitor
		`),
	},
}

func TestInteractive(t *testing.T) { testPlans(t, interactiveCases) }

// Each documented spelling of the option that turns the program's
// interactive mode off is found, with its short form; and a README that
// says the program is interactive by default is told apart from one that
// only uses the word.
func TestInteractiveDefault(t *testing.T) {
	tests := []struct {
		name, src string
		flags     []string
		ok        bool
	}{
		{"--non-interactive", "Options:\n  -n, --non-interactive  no UI\n", []string{"-n", "--non-interactive"}, true},
		{"--noninteractive", "Pass --noninteractive in scripts.\n", []string{"--noninteractive"}, true},
		{"--no-interactive", "  -y, --no-interactive\n", []string{"-y", "--no-interactive"}, true},
		{"-noninteractive", "Run it with -noninteractive.\n", []string{"-noninteractive"}, true},
		{"interactive (default)", "Modes: interactive (default), batch.\n", nil, true},
		{"interactive mode by default", "It starts in Interactive mode by default.\n", nil, true},
		{"defaults to interactive", "# x\n\nThe tool defaults to the interactive\nview.\n", nil, true},
		{"the word alone", "An interactive tutorial.\nBy default it prints.\n", nil, false},
		{"no word", "Prints files.\n", nil, false},
		{"a longer word", "noninteractive by default\n", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flags, ok := interactiveDefault([]byte(tc.src))
			assert.DeepEqual(t, flags, tc.flags)
			assert.Equal(t, ok, tc.ok)
		})
	}
}

// A section of key bindings is found under any heading of one or two #s
// that names them, in any case, and not under others.
func TestKeyBindingsSection(t *testing.T) {
	tests := []struct {
		src  string
		keys bool
	}{
		{"# x\n\n## Key bindings\n\nq: quit\n", true},
		{"## keymaps\n", true},
		{"# x\n#  KEYBOARD SHORTCUTS  \n", true},
		{"# x\n## Key-binding\n", true},
		{"# x\n##\n\nkey maps\n", true},  // white space runs over lines
		{"# x\n## \u212aeymaps\n", true}, // the Kelvin sign is a k in any case
		{"# x\n### Key bindings\n", false},
		{"# x\n## Keys\n", false},
		{"# x\nKey bindings\n", false},
		{"# x\n## Key bindings and more\n", false},
	}
	for _, tc := range tests {
		keys, _ := presentsTUI([]byte(tc.src))
		assert.Equal(t, keys, tc.keys, "%q", tc.src)
	}
}

// The opening's phrase that presents the program as working
// interactively, of each kind, and none when it speaks of a mode.
func TestIntroCue(t *testing.T) {
	tests := []struct{ src, cue string }{
		{"# x\n\nAn interactive tool to clean disks.\n", "interactive"},
		{"# x\n\nA text user interface for git.\n", "text user interface"},
		{"# x\n\nA TUI for docker.\n", "TUI"},
		{"# x\n\nA [terminal UI](https://dl.acme.dev/k) for k8s.\n", "terminal UI"},
		{"# x\n\nIt has an interactive mode.\n", ""},
		{"# x\n\nA fast grep.\n", ""},
	}
	for _, tc := range tests {
		_, cue := presentsTUI([]byte(tc.src))
		assert.Equal(t, cue, tc.cue, "%q", tc.src)
	}
}

// The opening's phrase that presents the project as a server.
func TestServerIntro(t *testing.T) {
	tests := []struct{ src, phrase string }{
		{"# x\n\nA simple HTTP server.\n", "HTTP server"},
		{"# x\n\nA self-hostable Git server.\n", "self-hostable"},
		{"# x\n\n<img alt=\"a reverse proxy\" src=\"logo.png\">\n", "reverse proxy"},
		{"# x\n\nA client for the server.\n", ""},
		{"# x\n\nA tool for interacting with APIs & HTTP servers.\n", ""},
		{"# x\n\nA load generator for web servers. Not a web server itself.\n", ""},
		{"# x\n\nTalks to remote SSH servers. It ships a file server.\n", "file server"},
		{"# x\n\nA CLI tool to serve files over HTTP.\n", "serve files"},
		{"# x\n\nWatches your .go files in a directory and invokes `go build` if\na file changed.\n", "Watches your .go files"},
		{"# x\n\nModd is a developer tool that triggers commands and manages daemons in response\nto filesystem changes.\n", "in response to filesystem changes"},
		{"# x\n\nRuns the tests whenever a source file changes.\n", "whenever a source file changes"},
		{"# x\n\nA formatter for Go source files.\n", ""},
	}
	for _, tc := range tests {
		assert.Equal(t, presentsServer([]byte(tc.src)), tc.phrase, "%q", tc.src)
	}
}
