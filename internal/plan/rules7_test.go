package plan

import (
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

// The rules found on fresh batch 7 (eget, pastel, dua-cli, cpy-cli,
// tldr-python-client, git-open); the README lines are made up in the shape
// of the mistakes.

// An owner/name argument is a repository (or an os/arch pair), not a file
// the checkout lacks; a path under a directory of the checkout still is.
func TestRepositoryArguments(t *testing.T) {
	md := "# eget\n\n```\neget zyedidia/micro --tag nightly\neget --system darwin/amd64 sharkdp/fd\neget docs/missing.md\neget src/nothing\n```\n"
	checkPlan(t, md, repoWith("zyedidia/eget", "src/main.go", "docs/guide.md"),
		run(4, ""),
		run(5, ""),
		skip(6, "refers to docs/missing.md"),
		skip(7, "refers to src/nothing"),
	)
}

// A crate's [[bin]] targets are the names its programs go by.
func TestCargoBinNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dua-cli")
	writeFiles(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"dua-cli\"\n\n[[bin]]\nname = \"dua\"\npath = \"src/main.rs\"\n\n[dependencies]\nname = \"not-this\"\n",
	})
	r := RepoFromDir(dir, "")
	assert.Check(t, r.is("dua"), "%v", r.Names)
	assert.Check(t, r.is("dua-cli"), "%v", r.Names)
	assert.Check(t, !r.is("not-this"), "%v", r.Names)
}

// `apt update` before an apt install that is an alternative goes with it;
// before another kind of install it stays. `cargo +nightly install x`
// installs x.
func TestIndexUpdateWithItsInstall(t *testing.T) {
	md := "# pastel\n\n```bash\nwget https://example.org/pastel_0.12.0_amd64.deb\nsudo dpkg -i pastel_0.12.0_amd64.deb\n```\n\nAlternatively:\n\n```bash\nsudo apt update\nsudo apt install pastel\n```\n\n```\ncargo +nightly install pastel\n```\n\n" +
		"```\nsudo apt-get update\nmake install\n```\n"
	checkPlan(t, md, repoWith("sharkdp/pastel"),
		run(4, ""),
		run(5, ""),
		skip(11, "prepares line 12, which is not run (alternative: README.md line 5 already installs pastel)"),
		skip(12, "alternative: README.md line 5 already installs pastel"),
		skip(16, "alternative: README.md line 5 already installs pastel"),
		run(20, ""),
		skip(21, "alternative"),
	)
}

// A sentence that introduces a fix for a problem makes its block
// troubleshooting.
func TestTroubleshootingSentence(t *testing.T) {
	md := "# tldr\n\nIf you are experiencing issues with *tldr*, consider deleting the cache files:\n\n```bash\ntldr --clear-cache\n```\n\nIf you have Python 3:\n\n```bash\ntldr --version\n```\n"
	checkPlan(t, md, repoOf("tldr-pages/tldr-python-client"),
		skip(6, "troubleshooting (the text before the block"),
		run(12, ""),
	)
}

// A script downloaded from a URL that names the project, then run, is the
// project's installer: a later installer is an alternative.
func TestDownloadedInstaller(t *testing.T) {
	md := "# eget\n\n```\ncurl -o eget.sh https://zyedidia.github.io/eget.sh\nbash eget.sh\n```\n\nOr alternatively:\n\n```\ncurl https://zyedidia.github.io/eget.sh | sh\n```\n\n" +
		"```\nwget https://example.org/other.sh\nsh other.sh\n```\n"
	checkPlan(t, md, repoOf("zyedidia/eget"),
		run(4, ""),
		run(5, ""),
		skip(11, "alternative: README.md line 5 already installs eget"),
		run(15, ""),
		run(16, ""),
	)
}

// "some" and a noun is a stand-in value; `git open x` of the project
// git-open is judged like the project's own program.
func TestSomeNounAndGitSubcommandProjects(t *testing.T) {
	md := "# git-open\n\n```sh\n$ git open someremote somebranch\n$ git open --print\n$ git checkout -b somebranch\n$ tool somedir\n```\n"
	checkPlan(t, md, repoOf("paulirish/git-open"),
		skip(4, "example argument someremote"),
		run(5, ""),
		run(6, ""),
		skip(7, "example argument somedir"),
	)
}

// A block that only exports the project's own settings (named after it,
// or EDITOR-like preferences), in a section of options or after a sentence
// that offers them, is optional; the same exports as a step, or another
// tool's variables, run.
func TestOptionalSettings(t *testing.T) {
	md := "# fff\n\n## Customization\n\n```sh\n# Directory color [0-9]\nexport FFF_COL1=2\nexport EDITOR=\"vim\"\n```\n\n" +
		"## Usage\n\nYou can set the variable `FFF_HIDDEN` to show hidden files:\n\n```sh\nexport FFF_HIDDEN=1\n```\n\n" +
		"## Install\n\nThen add this to your `~/.bashrc`:\n\n```sh\nexport FFF_DIR=\"$HOME/.fff\"\n```\n\n" +
		"## Configuration\n\n```sh\nexport _GIT_SINCE=\"2017-01-20\"\nexport GOPATH=$HOME/go\n```\n\n```sh\nls\n```\n"
	checkPlan(t, md, repoOf("dylanaraps/fff"),
		skip(7, "optional settings of the program (FFF_COL1, EDITOR)"),
		skip(8, "optional settings of the program"),
		skip(16, "optional settings of the program (FFF_HIDDEN)"),
		run(24, "shell setup"),
		run(30, ""),
		run(31, ""),
		run(35, ""),
	)
}

// A pyproject's scripts are the names its programs go by.
func TestPyprojectScriptNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rich-cli")
	writeFiles(t, dir, map[string]string{
		"pyproject.toml": "[project]\nname = \"rich-cli\"\n\n[project.scripts]\nrich = \"rich_cli.__main__:run\"\n\n[tool.poetry.scripts]\n\"rich-x\" = \"x:main\"\n\n[project.urls]\nhome = \"https://example.org\"\n",
	})
	r := RepoFromDir(dir, "")
	assert.Check(t, r.is("rich"), "%v", r.Names)
	assert.Check(t, r.is("rich-x"), "%v", r.Names)
	assert.Check(t, !r.is("home"), "%v", r.Names)
}

// A key list ("/: search", "~: go to home") is text, not paths to run;
// the shell's ":" no-op and a path still are commands.
func TestKeyLegendLines(t *testing.T) {
	for line, want := range map[string]lineShape{
		"/: search":              shapeText,
		".: toggle hidden files": shapeText,
		"~: go to home":          shapeText,
		"!: open shell":          shapeText,
		":: go to a directory":   shapeText,
		": > empty.txt":          shapeCommand,
		"/usr/bin/env bash x":    shapeCommand,
	} {
		assert.Equal(t, shapeOf(line), want, line)
	}
}
