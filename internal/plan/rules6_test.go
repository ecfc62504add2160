package plan

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The rules found on fresh batch 6 (hexyl, sd, dive, jid, xq, tldr,
// icdiff, yank, pfetch, hr); the README lines are made up in the shape of
// the mistakes.

// Any command that needs a container engine is skipped, also when Docker
// is inside $( … ) or an alias; the lines typed inside a container that a
// skipped command would have entered are skipped with it. A command that
// only names docker as a word runs.
func TestContainerCommands(t *testing.T) {
	md := "# tool\n\n```sh\ndocker run -d -p 5432:5432 postgres:16\ndocker compose up db\npodman ps\n" +
		"export DOCKER_HOST=$(docker context inspect -f '{{ .Endpoints.docker.Host }}')\n" +
		"alias tool=\"docker run --rm -it acme/tool\"\necho docker\ngrep -r docker .\n```\n\n" +
		"```sh\ndocker compose run --rm tool\ntool /opt/examples/a.xml\n```\n\n" +
		"```sh\ndocker run --rm -it alpine:3 echo hi\nls\n```\n\n" +
		"```sh\ndocker exec -it db bash\npsql -c 'select 1'\n```\n"
	checkPlan(t, md, repoOf("acme/tool"),
		skip(4, "needs Docker: the sandbox has no container engine"),
		skip(5, "needs Docker"),
		skip(6, "needs Podman"),
		skip(7, "needs Docker"),
		skip(8, "needs Docker"),
		run(9, ""),
		run(10, ""),
		skip(14, "needs Docker"),
		skip(15, "typed inside the container that line 14 starts"),
		skip(19, "needs Docker"),
		run(20, ""),
		skip(24, "needs Docker"),
		skip(25, "typed inside the container that line 24 starts"),
	)
}

// A block that only sets shell variables, none exported and none read by
// a command of the README, is a reference of settings; assignments that a
// later command reads, or exports, run.
func TestSettingsReference(t *testing.T) {
	md := "# pfetch\n\n## Configuration\n\n```sh\n# Which information to display.\n# Default: first example below\nPF_INFO=\"ascii title os\"\n\n# Example: Only ASCII.\nPF_INFO=\"ascii\"\n\nPF_COL1=4\n```\n\n" +
		"```sh\nVERSION=1.2.3\nARCH=amd64\n```\n\n```sh\ncurl -LO https://example.org/tool-$VERSION-$ARCH.tgz\n```\n\n" +
		"```sh\nexport A=1\nexport B=2\n```\n\n```sh\nONE=1\n```\n"
	checkPlan(t, md, repoOf("dylanaraps/pfetch"),
		skip(8, "only sets shell variables that no command reads"),
		skip(11, "only sets shell variables that no command reads"),
		skip(13, "only sets shell variables that no command reads"),
		run(17, ""),
		run(18, ""),
		run(22, ""),
		run(26, ""),
		run(27, ""),
		run(31, ""),
	)
}

// A README with a top-level section of key bindings presents a terminal
// UI: runs of its program are skipped unless their output goes elsewhere or
// they only ask for help. A README whose opening says the program works
// interactively skips the runs that would open it (fed by a pipe, or with
// no argument), not its subcommands; "an interactive terminal" or a
// "### Keys" section of one mode says neither.
func TestTerminalUIPrograms(t *testing.T) {
	keys := "# dive\n\nA tool for exploring a Docker image.\n\n```sh\ndive nginx:latest\ndive --version\ndive img | tee out.txt\n```\n\n## KeyBindings\n\nCtrl+C: exit\n"
	checkPlan(t, keys, repoOf("wagoodman/dive"),
		skip(6, "interactive: the README says the program is interactive by default"),
		run(7, ""),
		run(8, ""),
	)
	intro := "# jid\n\nYou can drill down JSON interactively.\n\n## Usage\n\n```\necho '{\"a\":1}' | jid\njid\njid -version\njid -q . out.json\nps ux | jid -g x | xargs kill\njid < in.json > out.txt\njid -q . in.json | cat\n```\n"
	checkPlan(t, intro, repoWith("simeji/jid", "in.json", "out.json"),
		skip(8, "interactive: the README presents the program so (\"interactively\")"),
		skip(9, "interactive: the README presents the program so"),
		run(10, ""),
		run(11, ""),
		skip(12, "interactive: the README presents the program so"),
		skip(13, "interactive: the README presents the program so"),
		run(14, ""),
	)
	notUI := "# bat\n\nWhen bat detects a non-interactive terminal it acts like cat. Decorations show on an interactive terminal.\n\nExamples:\n\n```sh\nbat README.md\necho x | bat\n```\n\n### Keys\n\nq: quit\n"
	checkPlan(t, notUI, repoOf("sharkdp/bat"),
		run(8, ""),
		run(9, ""),
	)
}

// Commands of another version control system run only in its working
// copy; a checkout of something else with it is fine.
func TestOtherVersionControl(t *testing.T) {
	md := "# icdiff\n\n## Using with subversion\n\n```sh\nsvn diff --diff-cmd icdiff\nhg diff\nsvn checkout https://svn.example.org/repo\nsvn --version\n```\n"
	checkPlan(t, md, repoWith("jeffkaufman/icdiff"),
		skip(6, "works in a Subversion working copy: the checkout under test is not one"),
		skip(7, "works in a Mercurial working copy"),
		run(8, ""),
		run(9, ""),
	)
	checkPlan(t, md, repoWith("jeffkaufman/icdiff", ".svn/entries"),
		run(6, ""),
		skip(7, "works in a Mercurial working copy"),
		run(8, ""),
		run(9, ""),
	)
}

// A block the text presents as what a command prints is output; a block
// in INI shape is a configuration file; a block the text says to add to a
// dotfile is that file's content.
func TestOutputAndConfigBlocks(t *testing.T) {
	md := "# tldr\n\nIf you install as root and get something like:\n\n```shell\nas root ->\ngyp WARN EACCES user \"root\" does not have permission\n```\n\n" +
		"Run it and see:\n\n```sh\ntldr --version\n```\n\n" +
		"```sh\n[extensions]\nextdiff=\n\n[extdiff]\ncmd.icdiff=icdiff\n```\n\n" +
		"Add the following to your `~/.hgrc`:\n\n```sh\nicdiff_opts=--line-numbers\nalias d=icdiff\n```\n"
	checkPlan(t, md, repoOf("tldr-pages/tldr-node-client"),
		skip(6, "output sample (the text before the block"),
		skip(7, "output sample"),
		run(13, ""),
		skip(17, "the content of a configuration file"),
		skip(18, "the content of a configuration file"),
		skip(20, "the content of a configuration file"),
		skip(21, "the content of a configuration file"),
		skip(27, "file content: the text before the block says to put it in ~/.hgrc"),
		skip(28, "file content"),
	)
}

// Platform words and tools: snap's other subcommands need snapd too,
// x-cmd is not in the sandbox, a section about Cygwin or MSYS is for
// Windows; `snap` as a word of another command is not Snap.
func TestMorePlatforms(t *testing.T) {
	md := "# dive\n\n```sh\nsudo snap connect dive:docker-executables docker:docker-executables\nx env use dive\necho snap\n```\n\n" +
		"### Colors under Cygwin\n\n```bash\nexport TERM=xterm\n```\n\n### MSYS2\n\n```sh\npacman -S make\n```\n"
	checkPlan(t, md, repoOf("wagoodman/dive"),
		skip(4, "other platform: Snap"),
		skip(5, "other platform: x-cmd"),
		run(6, ""),
		skip(12, "other platform: Windows"),
		skip(18, "other platform"),
	)
}

// Installs the plan now recognises: a download redirected into a bin
// directory, and the project's installer named install-NAME; the installs
// after them are alternatives.
func TestMoreInstallForms(t *testing.T) {
	md := "# hr\n\n```sh\ncurl https://example.org/hr > ~/bin/hr\nchmod +x ~/bin/hr\n```\n\n## Complete install\n\n```sh\nsudo make install\n```\n"
	checkPlan(t, md, repoOf("LuRsT/hr"),
		run(4, ""),
		run(5, ""),
		skip(11, "alternative: README.md line 4 already installs hr"),
	)
	xq := "# xq\n\n```\ncurl -sSL https://bit.ly/install-xq | sudo bash\n```\n\n```\ncurl -sSL https://bit.ly/install-xq | INSTALL_DIR=$(pwd) bash\n```\n\n```\napt-get install xq\n```\n"
	checkPlan(t, xq, repoOf("sibprogrammer/xq"),
		run(4, "with pipefail"),
		skip(8, "alternative: README.md line 4 already installs xq"),
		skip(12, "alternative: README.md line 4 already installs xq"),
	)
}

// The redirection targets of a command are recorded apart from its
// arguments.
func TestSimpleOutputs(t *testing.T) {
	ss := simples(lex("curl https://x.org/a > ~/bin/a 2>/dev/null | tee -a log >> all.txt"))
	assert.Equal(t, len(ss), 2)
	assert.DeepEqual(t, ss[0].outputs, []string{"~/bin/a", "/dev/null"})
	assert.DeepEqual(t, ss[1].outputs, []string{"all.txt"})
	assert.DeepEqual(t, ss[1].args(), []string{"-a", "log"})
}

// Installs the README gives only as inline code in its text are recorded,
// skipped, with their line; inline code that installs nothing, another
// platform's install and the code blocks' own commands are not.
func TestProseInstalls(t *testing.T) {
	md := "# sd\n\nInstall through cargo with `cargo install sd`, or `brew install sd`.\n\nRun `sd --help` for more.\n\n```sh\nnpm install -g tldr\nsd before after file.txt\n```\n"
	p := Make([]byte(md), Options{Repo: repoOf("chmln/sd")})
	var prose []Install
	for _, in := range p.Installs {
		if in.Skipped != "" {
			prose = append(prose, in)
		}
	}
	assert.Equal(t, len(prose), 1, "%+v", p.Installs)
	assert.Equal(t, prose[0].Tool, "sd")
	assert.Equal(t, prose[0].Line, 3)
	assert.Equal(t, prose[0].Command, "cargo install sd")
	assert.Assert(t, strings.Contains(prose[0].Skipped, "written in the README's text"))
}
