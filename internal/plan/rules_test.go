package plan

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The rules found on the fresh batches of real READMEs (testdata/readmes/
// heldout, batches 1 to 4). Each case is the general shape of a mistake the
// plan made there; the README lines are made up.

// repoWith is a repository known by its slug and its files.
func repoWith(slug string, files ...string) Repo {
	r := repoOf(slug)
	r.AddFiles(append([]string{"README.md", "LICENSE", "main.go"}, files...)...)
	return r
}

// Text in shell blocks that a line-by-line shape check took for commands:
// a help text's option descriptions, sentences, lists of program names.
func TestShellBlocksOfText(t *testing.T) {
	md := "# tool\n\n```bash\nGENERATE OPTIONS\n    -T, --detailed\n        give a detailed list of git stats\n        see changelogs\n```\n\n" +
		"Tools we use:\n\n```bash\nawk\ncat\ngit\n```\n\n" +
		"```sh\ntool --version\nsee the docs for the details\n```\n"
	checkPlan(t, md, repoOf("acme/tool"),
		skip(4, "output or text"),
		skip(5, "output or text"),
		skip(6, "output or text"),
		skip(7, "output or text"),
		skip(13, "a list of program names"),
		skip(14, "a list of program names"),
		skip(15, "a list of program names"),
		run(19, "```sh block"),
		skip(20, "output or text"),
	)
}

// An unlabelled or indented block may show a command with its output under
// it; one that is a help text with indented example prompts is not run.
func TestUnlabelledBlocksWithOutput(t *testing.T) {
	md := "# spark\n\n    spark 0 30 55\n    ▁▂▃\n\n```\n  Usage\n    $ spark <numbers>\n\n  Examples\n    $ spark 1 2 3\n```\n\n" +
		"```sh\n› spark 1 5 22 |\n  cat\n```\n"
	checkPlan(t, md, repoOf("holman/spark"),
		run(3, "commands and their output"),
		skip(4, "output or text"),
		run(15, "shell prompt"),
	)
	p := Make([]byte(md), Options{Repo: repoOf("holman/spark")})
	for _, e := range p.Entries {
		if e.BlockLine == 7 {
			assert.Check(t, strings.Contains(e.Reason, "help text with example prompts"), e.Reason)
		}
	}
}

// Programs that need a person at the terminal: by the text around them,
// by a README that says the program is interactive by default, editors,
// tmux.
func TestInteractiveByTheText(t *testing.T) {
	md := "# gum\n\n## Input\n\nPrompt for input with a simple command.\n\n```bash\ngum input > answer.txt\ngum --version\necho done\n```\n\n" +
		"### Interactive\n\n```bash\ngit gum\n```\n\n### Non-interactive\n\n```bash\ngum style hello\n```\n\n" +
		"Use `tab` to select, `enter` to confirm.\n\n```bash\ncat list.txt | gum filter\nCARD=$(gum choose a b)\n```\n\n" +
		"```bash\nhx # in a separate pane\ntmux capture-pane -p | gum format\n$EDITOR notes.txt\n```\n"
	r := repoOf("charmbracelet/gum")
	r.add(&r.Names, "git-gum")
	checkPlan(t, md, r,
		skip(8, "interactive: the text presents it so"),
		run(9, ""), // --version never is
		run(10, ""),
		skip(16, "interactive: the text presents it so"), // git gum: the project git-gum
		run(22, ""),
		skip(28, "interactive: the text presents it so"),
		skip(29, "interactive: the text presents it so"),
		skip(33, "interactive: hx"),
		skip(34, "interactive: tmux"),
		skip(35, "interactive: an editor ($EDITOR)"),
	)

	tui := "# gdu\n\n```\n  -n, --non-interactive   Do not run in interactive mode\n```\n\n    gdu\n    gdu -n /\n    gdu -npc /\n    gdu / > out.txt\n    gdu -o- / | gzip -c > r.gz\n    gdu --interactive / | tee out.txt\n    gdu --version\n"
	checkPlan(t, tui, repoOf("dundee/gdu"),
		skip(7, "interactive by default"),
		run(8, ""),
		run(9, ""), // -n bundled with other short options
		run(10, ""),
		run(11, ""),
		skip(12, "interactive by default"),
		run(13, ""),
	)
}

// Steps that are not part of trying the README: another machine, an
// account of a hosted service, removing or reinstalling, packaging for a
// distribution, committing what a skipped push would publish, fixes from a
// troubleshooting section, other shells.
func TestStepsOutsideTheTrial(t *testing.T) {
	md := "# croc\n\n```sh\ncroc send notes.txt\n```\n\nThen, to receive the file on another computer, run:\n\n```sh\ncroc 1234-code-word\n```\n\n" +
		"```sh\nheroku config:set KEY=value\ngh pr list\ngh --version\nclaude mcp add croc -- croc --mcp\n```\n\n" +
		"For uninstalling, run\n\n```sh\nsudo make uninstall\n```\n\n```sh\nnpm uninstall -g croc\ncroc uninstall\n```\n\n" +
		"If you are packaging croc for a distribution, you would take these steps:\n\n```sh\nmake DESTDIR=/tmp/pkg install\n```\n\n" +
		"```sh\ngit add .env.production\ngit commit -m deploy\ngit push heroku main\n```\n\n" +
		"## FAQ\n\n### What if it breaks?\n\n```sh\nnpm install -g croc-fixer\ncroc --help\n```\n\n" +
		"```sh\n/bin/ksh test.sh\necho 'alias c=croc' >> ~/.zshrc\nnc paste.example.org 9999 < notes.txt\nnc -z localhost 80\n```\n"
	r := repoWith("schollz/croc", "notes.txt", "test.sh")
	checkPlan(t, md, r,
		run(4, ""),
		skip(10, "runs on another machine"),
		skip(14, "needs a Heroku account"),
		skip(15, "needs a GitHub account"),
		run(16, ""),
		skip(17, "needs a Anthropic (Claude Code) account"),
		skip(23, "uninstalls or reinstalls (the text before the block)"),
		skip(27, "uninstalls or reinstalls"),
		skip(28, "uninstalls or reinstalls"),
		skip(34, "for packagers of a distribution"),
		skip(38, "prepares line 40"),
		skip(39, "prepares line 40"),
		skip(40, "publishes or logs in (git push"),
		skip(48, "installs a fix from a troubleshooting section"),
		run(49, ""),
		skip(53, "another shell"),
		skip(54, "writes to ~/.zshrc"),
		skip(55, "connects to paste.example.org"),
		run(56, ""),
	)
}

// Another platform's package manager bootstrapped in the block: its
// clone, cd and bootstrap script go with it.
func TestSetupOfASkippedStep(t *testing.T) {
	md := "# cjson\n\n```\ngit clone https://github.com/Microsoft/vcpkg.git\ncd vcpkg\n./bootstrap-vcpkg.sh\n./vcpkg integrate install\nvcpkg install cjson\n```\n"
	checkPlan(t, md, repoOf("DaveGamble/cJSON"),
		skip(4, "prepares line 7"),
		skip(5, "prepares line 7"),
		skip(6, "prepares line 7"),
		skip(7, "other platform: vcpkg"),
		skip(8, "other platform: vcpkg"),
	)
}

// Values to fill in and illustrations that the first rules missed.
func TestMorePlaceholders(t *testing.T) {
	md := "# x\n\n```sh\nconcurrently 'command1 arg' 'command2 arg'\nCROC_SECRET=*** croc\nduf /home /some/file\ncurl /users/123\ncurl {APP}/users\ncurl -H 'Accept: x' https://api.github.com/users\n" +
		"echo '{{ Bold \"x\" }}' | gum format -t template\ngo list -f '{{.ImportPath}}' ./...\nfoo greet person\nmy-cli --help\n```\n"
	checkPlan(t, md, repoOf("acme/x"),
		skip(4, "placeholder command1 arg"),
		skip(5, "placeholder CROC_SECRET=***"),
		skip(6, "placeholder /some/file"),
		skip(7, "placeholder /users/123"),
		skip(8, "placeholder {APP}"),
		run(9, ""),
		run(10, ""),
		run(11, ""),
		skip(12, "example program foo"),
		skip(13, "example program my-cli"),
	)
}

// Files: a block whose first line names a file that a later command uses
// is written there; one that names a file of the repository is shown, not
// run; a file the repository lacks is looked up where the session is.
func TestFilesByTheirNames(t *testing.T) {
	md := "# lib\n\n```js\n// hello.js\nconsole.log('hi')\n```\n\n```sh\nnode hello.js\n```\n\n" +
		"```sh\n# file: examples/math.inc.\nadd() {\n  echo $(($1 + $2))\n}\n```\n\n" +
		"```console\n$ cd examples\n$ ./math_test.sh\n$ ./missing_test.sh\n$ test-script.sh -- testOne\n```\n\n" +
		"```sh\ndotenv run -f .env.local -- node hello.js\nCONFIG=./.env.local node hello.js\n```\n\n" +
		"```sh\nclib install clibs/ms clibs/commander\n```\n\n" +
		"```sh\ncurl -LO https://example.org/dist/lib-1.3.4.tar.gz && tar -xf lib-1.3.4.tar.gz && cd lib-1.3.4 && ./configure\n```\n"
	r := repoWith("acme/lib", "examples/math.inc", "examples/math_test.sh")
	r.add(&r.Names, "clib")
	p := checkPlan(t, md, r,
		run(4, "its first line names hello.js, which line 9 uses"),
		run(9, ""),
		skip(14, "shows the repository's file examples/math.inc"),
		run(20, ""),
		run(21, ""), // ./math_test.sh in examples/, after the cd
		skip(22, "refers to ./missing_test.sh"),
		skip(23, "refers to test-script.sh"),
		skip(27, "refers to .env.local"),
		skip(28, "refers to ./.env.local"),
		run(32, ""), // package names, not files
		run(36, ""), // the archive makes lib-1.3.4
	)
	assert.Equal(t, p.Entries[0].Step.WriteFile, "hello.js")
}

// A `go get` that the text presents as the install of the program runs; a
// text block runs the project's own commands, not others'.
func TestInstallsAndTextBlocks(t *testing.T) {
	md := "# statik\n\nInstall the command line tool first.\n\n\tgo get github.com/rakyll/statik\n\n```go\nimport \"github.com/rakyll/statik/fs\"\n```\n\n" +
		"```sh\ngo get github.com/rakyll/statik/fs\n```\n\n" +
		"```text\n$ statik -h\nUsage: statik\n$ cloc .\n```\n\n```text\nstatik -m\nstatik -f\n```\n\n```text\nsome text\n```\n"
	r := repoOf("rakyll/statik")
	r.add(&r.Modules, "github.com/rakyll/statik")
	checkPlan(t, md, r,
		run(5, ""),
		skip(12, "adds this project"),
		run(16, "text, but it runs this project's program"),
		run(22, "text, but it runs this project's program"),
		run(23, ""),
	)
}

// The project's installer on a host named after it (getcroc.com) installs
// the project: a later install of it is an alternative.
func TestInstallerHostNamedAfterTheProject(t *testing.T) {
	md := "# croc\n\n```bash\ncurl https://getcroc.com | bash\n```\n\n### On Debian\n\n```bash\nsudo apt install croc\n```\n"
	checkPlan(t, md, repoOf("schollz/croc"),
		run(4, ""),
		skip(10, "alternative: README.md line 4 already installs croc"),
	)
}

// A step a person would run as root, or answer yes to, runs that way; the
// log keeps the command as written.
func TestRootAndYesAsAPersonWould(t *testing.T) {
	md := "```sh\napt install git-quick-stats\nsudo apt install bat\napt-get update\nmake install\nmake PREFIX=~/.local install\napt list --installed\nsudo apt-get install -y jq\n```\n"
	p := checkPlan(t, md, Repo{},
		run(2, "with -y, as a person answers apt's question"),
		run(3, "with -y"),
		run(4, "run with sudo, as a person would (apt-get update needs root"),
		run(5, "run with sudo, as a person would (make install needs root"),
		run(6, ""),
		run(7, ""),
		run(8, ""),
	)
	exec := map[int]string{}
	for _, e := range p.Entries {
		exec[e.Line] = e.Exec("/workspace")
		assert.Check(t, !strings.Contains(e.Command, "sudo env"), "the command stays as written: %q", e.Command)
	}
	assert.Equal(t, exec[2], `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'apt install git-quick-stats -y'; else`+"\napt install git-quick-stats -y\nfi")
	assert.Equal(t, exec[3], "sudo apt install bat -y")
	assert.Assert(t, strings.Contains(exec[5], "bash -c 'make install'"))
	assert.Equal(t, exec[6], "make PREFIX=~/.local install")
	assert.Equal(t, exec[7], "apt list --installed")
	assert.Equal(t, exec[8], "sudo apt-get install -y jq")
}

// An installer piped from curl fails when the download fails.
func TestInstallerPipeFails(t *testing.T) {
	md := "```sh\ncurl -fsSL https://example.org/install.sh | sh\ncurl -s https://example.org/x.txt | grep x\n```\n"
	p := checkPlan(t, md, Repo{}, run(2, "with pipefail"), run(3, ""))
	assert.Equal(t, p.Entries[0].Exec("/workspace"), "(set -o pipefail\ncurl -fsSL https://example.org/install.sh | sh\n)")
	assert.Equal(t, p.Entries[1].Exec("/workspace"), "curl -s https://example.org/x.txt | grep x")
}

// A benchmark section measures performance with tools and servers of its
// own: not run.
func TestBenchmarkSections(t *testing.T) {
	md := "<div>polka</div>\n\n## Benchmarks\n\n```\n$ wrk -t4 -c4 -d10s http://localhost:3000/users/123\n```\n\n## Usage\n\n```sh\necho hi\n```\n"
	checkPlan(t, md, repoOf("lukeed/polka"), skip(6, `benchmark (section "Benchmarks")`), run(12, ""))
	// A title that names a benchmarking tool is no benchmark section.
	checkPlan(t, "# wrk - a HTTP benchmarking tool\n\n```sh\nmake\n```\n", repoOf("wg/wrk"), run(4, ""))
}
