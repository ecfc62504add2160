package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// Values the reader must fill in, usage syntax, key presses and made-up
// example names.
var placeholderCases = []planCase{
	{
		name: "an absolute path on the author's or reader's own machine",
		readme: here.Doc(`
			~~~sh
			tool --file /user/tf/example.tf
			tool -d /Users/me/code/infra
			tool -d /MyDirectory
			tool -d /tmp
			tool --log /readme2demo/tool.log
			tool -x /user/@status
			tool --xpath /catalog/book
			sudo mkdir -p /MyData/db
			tool --dbpath /MyData/db
			tool --dockerfile-path=/Users/me/Dockerfile
			~~~
		`),
		opts: Options{Programs: programsWith("tool")},
		want: here.Doc(`
			2 skip placeholder tool --file /user/tf/example.tf
			3 skip placeholder tool -d /Users/me/code/infra
			4 skip placeholder tool -d /MyDirectory
			5 probe command tool -d /tmp
			6 probe command tool --log /readme2demo/tool.log
			7 probe command tool -x /user/@status
			8 probe command tool --xpath /catalog/book
			9 probe command sudo mkdir -p /MyData/db
			10 probe command tool --dbpath /MyData/db
			11 skip placeholder tool --dockerfile-path=/Users/me/Dockerfile
		`),
	},
	{
		name: "a folder of a person's home that a fresh machine does not have",
		readme: here.Doc(`
			~~~sh
			tool --out ~/Documents/report.pdf
			tool ~/github/my-project
			mkdir -p ~/projects/demo
			tool ~/projects/demo
			tool ~/.config/tool/config.toml
			cp tool ~/bin/
			tool ~/go/src/example.com/x
			git clone https://github.com/acme/other.git ~/github/other
			cd ~/Desktop/jdk8
			~~~
		`),
		opts: Options{Programs: programsWith("tool")},
		want: here.Doc(`
			2 skip placeholder tool --out ~/Documents/report.pdf
			3 skip placeholder tool ~/github/my-project
			4 probe command mkdir -p ~/projects/demo
			5 probe command tool ~/projects/demo
			6 probe command tool ~/.config/tool/config.toml
			7 probe command cp tool ~/bin/
			8 probe command tool ~/go/src/example.com/x
			9 probe command git clone https://github.com/acme/other.git ~/github/other
			10 skip placeholder cd ~/Desktop/jdk8
		`),
	},
	{
		name: "a folder of a person's home named through $HOME",
		readme: here.Doc(`
			~~~sh
			tool "${HOME}/Documents/notes.md"
			tool $HOME/.config/tool/config.toml
			mkdir -p $HOME/code/demo
			tool $HOME/code/demo
			cd $HOME/github/app
			~~~
		`),
		opts: Options{Programs: programsWith("tool")},
		want: here.Doc(`
			2 skip placeholder tool "${HOME}/Documents/notes.md"
			3 probe command tool $HOME/.config/tool/config.toml
			4 probe command mkdir -p $HOME/code/demo
			5 probe command tool $HOME/code/demo
			6 skip placeholder cd $HOME/github/app
		`),
	},
	{
		name:  "values to fill in and usage syntax",
		wrong: "line 11 runs: ls|sort|uniq is a pipeline written without spaces (shapeOf takes the whole of it for its first word and calls the line output, so the allKnown exception in rawPlaceholder is never reached)",
		rule:  "placeholder",
		readme: here.Doc(`
			# tool

			~~~sh
			tool [options] <file>
			tool --token <your-token>
			export API_KEY=YOUR_API_KEY
			tool --theme [dark|light]
			make DRIVER
			tool run path/to/file.txt
			tool --target greatest|newest|minor
			ls|sort|uniq
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 skip synopsis tool [options] <file>
			5 skip placeholder tool --token <your-token>
			6 skip placeholder export API_KEY=YOUR_API_KEY
			7 skip synopsis tool --theme [dark|light]
			8 skip placeholder make DRIVER
			9 skip placeholder tool run path/to/file.txt
			10 skip synopsis tool --target greatest|newest|minor
			11 skip output ls|sort|uniq
		`),
	},
	{
		name: "a synopsis with repeated options, also inside a quoted command substitution",
		rule: "placeholder",
		readme: here.Doc(`
			~~~sh
			eval "$(tool [OPTION]...)"
			tool [OPTION]... export [OPTION]... [NAME]...
			eval "$(tool --export)"
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 skip synopsis eval "$(tool [OPTION]...)"
			3 skip synopsis tool [OPTION]... export [OPTION]... [NAME]...
			4 probe command eval "$(tool --export)"
		`),
	},
	{
		name:  "stand-ins the first rules missed",
		wrong: "line 13 is a placeholder: user/repo in a clone URL is the reader's repository (slugPlaceholderRe is matched against the whole URL, so only a bare user/repo argument is one)",
		readme: here.Doc(`
			# x

			~~~sh
			concurrently 'command1 arg' 'command2 arg'
			CROC_SECRET=*** croc
			duf /home /some/file
			curl /users/123
			curl {APP}/users
			curl -H 'Accept: x' https://api.github.com/users
			echo '{{ Bold "x" }}' | gum format -t template
			go list -f '{{.ImportPath}}' ./...
			x --registry https://api.mydomain/registry.json
			git clone https://github.com/user/repo
			npm install my-package
			x send --to john.doe@example.com
			curl -L -O https://github.com/acme/x/releases/download/vx.x.x/x_x.x.x-1_amd64.deb
			x --version X.Y.Z
			curl http://example.com/slides.md | x
			curl https://example.com
			x --version 1.2.3
			~~~
		`),
		repo: slugRepo("acme/x"),
		want: here.Doc(`
			4 skip placeholder concurrently 'command1 arg' 'command2 arg'
			5 skip placeholder CROC_SECRET=*** croc
			6 skip placeholder duf /home /some/file
			7 skip placeholder curl /users/123
			8 skip placeholder curl {APP}/users
			9 probe command curl -H 'Accept: x' https://api.github.com/users
			10 probe command echo '{{ Bold "x" }}' | gum format -t template
			11 probe command go list -f '{{.ImportPath}}' ./...
			12 skip placeholder x --registry https://api.mydomain/registry.json
			13 probe command git clone https://github.com/user/repo
			14 skip placeholder npm install my-package
			15 skip placeholder x send --to john.doe@example.com
			16 skip placeholder curl -L -O https://github.com/acme/x/releases/download/vx.x.x/x_x.x.x-1_amd64.deb
			17 skip placeholder x --version X.Y.Z
			18 skip placeholder curl http://example.com/slides.md | x
			19 probe command curl https://example.com
			20 probe command x --version 1.2.3
		`),
	},
	{
		name:  "a placeholder with a quoted word inside its angle brackets",
		wrong: "the line is skipped as a placeholder: <your \"name\"> is a value to fill in, but the lexer reads its < as a redirection, so no rule sees it, and the line runs (the unknown program after the pipe is not looked at either)",
		readme: here.Doc(`
			~~~sh
			echo "x" | tool --name <your "name">
			~~~
		`),
		want: here.Doc(`
			2 probe command echo "x" | tool --name <your "name">
		`),
	},
	{
		name: "a choice of values in angle brackets, which a shell would read as a redirection and pipes",
		readme: here.Doc(`
			~~~sh
			pm2 stop     <app_name|namespace|id|'all'|json_conf>
			pm2 describe <id|app_name>
			sort <input.txt >out.txt
			echo "<a|b>" | tool
			~~~
		`),
		repo: repoWith("acme/pm2", "input.txt"),
		want: here.Doc(`
			2 skip placeholder pm2 stop     <app_name|namespace|id|'all'|json_conf>
			3 skip placeholder pm2 describe <id|app_name>
			4 probe command sort <input.txt >out.txt
			5 probe command echo "<a|b>" | tool
		`),
	},
	{
		name: "a path/to placeholder in a redirection",
		readme: here.Doc(`
			~~~sh
			rbenv install --patch 1.9.3-p429 < /path/to/ruby.patch
			sort README.md > path/to/sorted.txt
			sort < README.md > sorted.txt
			~~~
		`),
		want: here.Doc(`
			2 skip placeholder rbenv install --patch 1.9.3-p429 < /path/to/ruby.patch
			3 skip placeholder sort README.md > path/to/sorted.txt
			4 probe command sort < README.md > sorted.txt
		`),
	},
	{
		name: "two commands joined by a bare or in one line are a choice, not a command",
		readme: here.Doc(`
			~~~sh
			./install.py or ./uninstall.py
			echo yes or /no
			ls ./install.py # or ./uninstall.py
			~~~
		`),
		repo: repoWith("wting/autojump", "install.py", "uninstall.py"),
		want: here.Doc(`
			2 skip synopsis ./install.py or ./uninstall.py
			3 probe command echo yes or /no
			4 probe command ls ./install.py # or ./uninstall.py
		`),
	},
	{
		name: "a comment that asks for the reader's value",
		readme: here.Doc(`
			~~~sh
			# replace with the path to your dotfiles
			ln -s ~/dotfiles/.vimrc ~/.vimrc
			tool --dir ~/notes # set this to your notes directory
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			3 skip placeholder ln -s ~/dotfiles/.vimrc ~/.vimrc
			4 skip placeholder tool --dir ~/notes # set this to your notes directory
		`),
	},
	{
		name: "a key press",
		readme: here.Doc(`
			~~~sh
			tool **<TAB>
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 skip text tool **<TAB>
		`),
	},
	{
		name: "example arguments, and the project's own made real",
		readme: here.Doc(`
			# git-open

			~~~sh
			$ git open someremote somebranch
			$ git open --print
			$ git checkout -b somebranch
			$ tool somedir
			$ cheat foo/bar # file is named "bar", in "foo"
			$ mkdir foo && ls foo
			$ mkdir bar
			$ ls bar
			~~~
		`),
		repo: slugRepo("paulirish/git-open"),
		opts: Options{Programs: programsWith("tool", "cheat")},
		want: here.Doc(`
			4 skip placeholder git open someremote somebranch
			5 probe command git open --print
			6 probe command git checkout -b somebranch
			7 skip placeholder tool somedir
			8 skip placeholder cheat foo/bar # file is named "bar", in "foo"
			9 probe command mkdir foo && ls foo
			10 probe command mkdir bar
			11 probe command ls bar
		`),
	},
	{
		name: "the name of the reader's own program",
		rule: "example-program",
		readme: here.Doc(`
			~~~sh
			foo greet person
			my-cli --help
			~~~
		`),
		repo: slugRepo("acme/x"),
		want: here.Doc(`
			2 skip placeholder foo greet person
			3 skip placeholder my-cli --help
		`),
	},
	{
		name: "a variable only a skipped line sets",
		rule: "unset-variable",
		readme: here.Doc(`
			~~~sh
			KUBESEAL_VERSION='' # set this to the version you want
			curl -LO "https://example.org/kubeseal-${KUBESEAL_VERSION:?}.tar.gz"
			VERSION=1.2.3
			curl -LO "https://example.org/tool-$VERSION.tar.gz"
			awk '{print $KUBESEAL_VERSION}' notes.txt
			export GOPATH=$HOME/xxxxx
			export PATH=$PATH:$GOPATH/bin
			export PATH=$PATH:$(go env GOPATH)/bin
			~~~
		`),
		repo: repoWith("acme/tool", "notes.txt"),
		want: here.Doc(`
			2 skip placeholder KUBESEAL_VERSION='' # set this to the version you want
			3 skip placeholder curl -LO "https://example.org/kubeseal-${KUBESEAL_VERSION:?}.tar.gz"
			4 probe command VERSION=1.2.3
			5 probe command curl -LO "https://example.org/tool-$VERSION.tar.gz"
			6 probe command awk '{print $KUBESEAL_VERSION}' notes.txt
			7 skip placeholder export GOPATH=$HOME/xxxxx
			8 skip placeholder export PATH=$PATH:$GOPATH/bin
			9 probe command export PATH=$PATH:$(go env GOPATH)/bin
		`),
	},
}

func TestPlaceholders(t *testing.T) { testPlans(t, placeholderCases) }
