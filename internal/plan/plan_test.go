package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// decision is what a test expects of one plan entry: "run" or "skip",
// with a part of the reason.
type decision struct {
	line   int
	run    bool
	reason string // a substring of the reason ("" to ignore it)
}

func run(line int, reason string) decision  { return decision{line, true, reason} }
func skip(line int, reason string) decision { return decision{line, false, reason} }

// checkPlan plans md and compares the entries that carry a command with
// want, in order.
func checkPlan(t *testing.T, md string, repo Repo, want ...decision) *Plan {
	t.Helper()
	p := Make([]byte(md), Options{Repo: repo})
	var got []Entry
	for _, e := range p.Entries {
		if e.Command != "" {
			got = append(got, e)
		}
	}
	var gs, ws []string
	for _, e := range got {
		gs = append(gs, fmt.Sprintf("%d %v %s | %s", e.Line, e.Run, e.Command, e.Reason))
	}
	for _, w := range want {
		ws = append(ws, fmt.Sprintf("%d %v", w.line, w.run))
	}
	assert.Equal(t, len(got), len(want), "entries:\n%s\nwant:\n%s", strings.Join(gs, "\n"), strings.Join(ws, "\n"))
	for i, w := range want {
		e := got[i]
		assert.Check(t, e.Line == w.line && e.Run == w.run && strings.Contains(e.Reason, w.reason),
			"entry %d: got %d %v %q (%s), want %d %v …%s…", i, e.Line, e.Run, e.Command, e.Reason, w.line, w.run, w.reason)
	}
	return p
}

func repoOf(slug string) Repo {
	var r Repo
	r.AddSlug(slug)
	return r
}

// Point 2 of the issue: other platforms are skipped, by tool, syntax,
// heading, sentence and comment; Linux installs are kept; of several
// installs of one tool the first that fits Linux runs; the hint overrides.
func TestPlatforms(t *testing.T) {
	md := `# tool

## Install

` + "```sh" + `
brew install tool
sudo port install tool
choco install tool
scoop install tool
winget install Acme.Tool
sudo pacman -S tool
sudo dnf install tool
sudo yum install tool
sudo zypper install tool
sudo snap install tool
mise use -g tool@latest
0install add tool https://example.org/tool.xml
Set-ExecutionPolicy RemoteSigned -Scope CurrentUser
iwr -useb get.example.org | iex
sudo apt-get install -y tool
go install example.org/x/cmd/tool@latest
npm install -g tool
cargo install tool
` + "```" + `

## Other platforms

On Windows, run:

` + "```sh" + `
make
` + "```" + `

` + "```sh" + `
# Arch Linux
makepkg -si
# Debian/Ubuntu
sudo apt install libtool-dev
pip install tool-helper
` + "```" + `

<!-- readme2demo: platform=linux -->
` + "```sh" + `
brew install other-tool
` + "```" + `

<!-- readme2demo: platform=macos -->
` + "```sh" + `
echo hi
` + "```" + `

### macOS

` + "```sh" + `
xcode-select --install
make
` + "```" + `
`
	checkPlan(t, md, Repo{},
		skip(6, "other platform: Homebrew"),
		skip(7, "MacPorts"),
		skip(8, "Chocolatey"),
		skip(9, "Scoop"),
		skip(10, "winget"),
		skip(11, "pacman"),
		skip(12, "dnf"),
		skip(13, "yum"),
		skip(14, "zypper"),
		skip(15, "Snap"),
		skip(16, "mise"),
		skip(17, "0install"),
		skip(18, "PowerShell"),
		skip(19, "PowerShell"),
		run(20, ""),
		skip(21, "alternative: README.md line 20 already installs tool"),
		skip(22, "alternative"),
		skip(23, "alternative"),
		skip(31, "Windows (the text before the block)"),
		skip(36, "Arch Linux (the comment above it)"),
		run(38, ""),
		run(39, ""),
		run(44, ""), // brew under platform=linux: the README's author says it fits
		skip(49, "other platform: macOS (platform hint)"),
		skip(55, `other platform: macOS (section "macOS")`),
		skip(56, "macOS"),
	)
}

// The project's own installer piped to sh is kept; a third party's too
// (it is Linux), and apt with or without sudo.
func TestLinuxInstallsAreKept(t *testing.T) {
	md := "```sh\ncurl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh\napt install jq\nsudo apt-get update\nmake install\npip install tool-extra\ncurl https://sh.rustup.rs -sSf | sh\n```\n"
	checkPlan(t, md, repoOf("acme/tool"),
		run(2, ""), run(3, ""), run(4, ""),
		skip(5, "alternative: README.md line 2 already installs tool"),
		run(6, ""), run(7, ""))
}

// Point 3: lines of shell blocks that are not commands.
func TestCommandsVersusText(t *testing.T) {
	md := `# x

` + "```sh" + `
tool --version
tool 1.2.3
Hello, world!
Usage: tool [options] <file>
{"name": "x"}
- item
| a | b |
3 passed in 0.01s
tool [options] <file>
tool --token <your-token>
export API_KEY=YOUR_API_KEY
tool --theme [dark|light]
make DRIVER
tool run path/to/file.txt
$NPM_CONFIG_PREFIX
` + "```" + `

` + "```console" + `
$ echo one
one
% echo two
❯ echo three
▶ echo four
(venv) $ echo five
user@host:~/x$ echo six
>>> print(1)
` + "```" + `

` + "```" + `
make
make test
` + "```" + `

` + "```" + `
Usage: tool FILE
` + "```" + `

    $ tool --help
    usage: tool

Create a file ` + "`main.py`" + ` with:

` + "```python" + `
print("hi")
` + "```" + `

` + "```sh" + `
python main.py
` + "```" + `

` + "```bash" + `
#!/usr/bin/env bash
echo "a script"
` + "```" + `
`
	checkPlan(t, md, Repo{},
		run(4, ""),
		run(5, ""), // "tool 1.2.3" cannot be told from a command
		skip(6, "output or text"),
		skip(7, "output or text"),
		skip(8, "output or text"),
		skip(9, "output or text"),
		skip(10, "output or text"),
		skip(11, "output or text"),
		skip(12, "usage synopsis ([options])"),
		skip(13, "placeholder <your-token>"),
		skip(14, "placeholder API_KEY=YOUR_API_KEY"),
		skip(15, "usage synopsis ([dark|light])"),
		skip(16, "placeholder DRIVER"),
		skip(17, "placeholder path/to/file.txt"),
		skip(18, "output or text"),
		run(22, "shell prompt"),
		run(24, "shell prompt"),
		run(25, "shell prompt"),
		run(26, "shell prompt"),
		run(27, "shell prompt"),
		run(28, "shell prompt"),
		run(33, "unlabelled block: every line is a command"),
		run(34, "unlabelled block: every line is a command"),
		run(41, "indented block: shell prompt"),
		run(47, "file content: the text before the block says to put it in main.py"),
		run(51, ""),
		skip(56, "a script shown as an example (#!/usr/bin/env bash)"),
	)
}

// Point 4: the clone of this repository and the cd into it are skipped; a
// clone into another directory is linked to the checkout; npm install of
// the project itself is for the reader's own project.
func TestOrderAndSelf(t *testing.T) {
	md := "```sh\ngit clone https://github.com/acme/tool.git\ncd tool\nmake\ngit clone git@github.com:acme/tool.git && cd tool && make test\n" +
		"git clone https://github.com/acme/tool ~/.tool\n~/.tool/install\ngit clone https://github.com/other/lib.git\nnpm install tool\nnpm install -g tool-cli\ngo get github.com/acme/tool\n```\n"
	r := repoOf("acme/tool")
	r.add(&r.Packages, "tool")
	p := checkPlan(t, md, r,
		skip(2, "clones this repository: the run starts in its checkout"),
		skip(3, "enters the clone of this repository"),
		run(4, ""),
		run(5, "only the rest of the line runs"),
		run(6, "linked to the checkout under test"),
		run(7, ""),
		run(8, ""),
		skip(9, "adds this project (tool) to the reader's own project"),
		run(10, ""),
		skip(11, "adds this project (github.com/acme/tool)"),
	)
	assert.Equal(t, p.Entries[3].Exec("/workspace"), "make test")
	assert.Equal(t, p.Entries[4].Exec("/workspace"), `mkdir -p -- "$(dirname -- "$HOME"/".tool")" && ln -sfn -- /workspace "$HOME"/".tool"`)

	// A repository known only by its directory name: a clone URL whose last
	// element matches it is this repository too.
	var byDir Repo
	byDir.add(&byDir.Names, "tool")
	checkPlan(t, "```sh\ngit clone https://gitlab.example.org/team/tool.git\ncd tool\n```\n", byDir,
		skip(2, "clones this repository"), skip(3, "enters the clone"))
}

// Programs that do not end are skipped; `yes` feeding another program is
// ended by it (a README that answers an installer's prompts, or writes a
// large file with `yes | head -c`).
func TestProgramsThatDoNotEnd(t *testing.T) {
	md := "```sh\ntail -f log.txt\njournalctl -u tool --follow\ndocker logs -f tool\nyes\nyes 'y' > answers.txt\n" +
		"yes | ./install.sh\nyes 'line' | head -c 8M > big.txt\ntail -n 5 log.txt\n```\n"
	checkPlan(t, md, Repo{},
		skip(2, "runs until interrupted (tail -f)"),
		skip(3, "runs until interrupted (journalctl --follow)"),
		skip(4, "runs until interrupted (docker logs -f)"),
		skip(5, "runs until interrupted (yes)"),
		skip(6, "runs until interrupted (yes)"),
		run(7, ""),
		run(8, ""),
		run(9, ""),
	)
}

func TestInstallFirstOrder(t *testing.T) {
	md := "# x\n\n## Usage\n\n```sh\ntool run\n```\n\n## Installation\n\n```sh\nmake install\n```\n\n<!-- readme2demo: order=install-first -->\n"
	p := Make([]byte(md), Options{})
	assert.Equal(t, p.Order, OrderInstallFirst, "the README's hint")
	assert.Equal(t, p.Run()[0].Line, 12)
	assert.Equal(t, p.Run()[1].Line, 6)
	p = Make([]byte(md), Options{Order: OrderReadme})
	assert.Equal(t, p.Run()[0].Line, 6, "the option wins over the hint")
}

// Point 5: an empty plan says why, block by block.
func TestNothingToRun(t *testing.T) {
	p := Make([]byte("# lib\n\n```go\nx := 1\n```\n\n```sh\nbrew install lib\n```\n"), Options{})
	assert.Equal(t, p.NothingToRun(), "nothing to run: none of the 2 code blocks of README.md has a command to run on Linux (line 4: go code, not shell; line 8: other platform: Homebrew)")
	p = Make([]byte("# prose only\n\nRun `make`.\n"), Options{File: "docs/README.md"})
	assert.Assert(t, strings.HasPrefix(p.NothingToRun(), "nothing to run: docs/README.md has no code block"))
	p = Make([]byte("```sh\nmake\n```\n"), Options{})
	assert.Equal(t, p.NothingToRun(), "")
}

// Point 6: the hints reach the steps.
func TestHintsReachTheSteps(t *testing.T) {
	md := "<!-- readme2demo: check-output exit=1 cwd=sub setup=\"mkdir -p sub\" timeout=5s continue-on-error -->\n" +
		"```console\n$ echo a\na\n...\n$ false\n```\n\n<!-- readme2demo: file=conf/x.toml -->\n```toml\nk = 1\n```\n\n" +
		"<!-- readme2demo: background ready=\"curl -sf localhost:1\" -->\n```sh\n./server\n./worker\n```\n"
	p := Make([]byte(md), Options{})
	steps := p.Run()
	assert.Equal(t, len(steps), 4)
	a, b := steps[0].Step, steps[1].Step
	assert.DeepEqual(t, a.Expect, []string{"a", "..."})
	assert.Equal(t, a.ExpectLine, 4)
	assert.Equal(t, a.Cwd, "sub")
	assert.Equal(t, a.Setup, "mkdir -p sub")
	assert.Assert(t, a.Exit == nil && !a.LeaveCwd)
	assert.Equal(t, *b.Exit, 1, "exit= is for the block's last command")
	assert.Assert(t, b.LeaveCwd && b.ContinueOnError && b.Timeout.Seconds() == 5)
	assert.Equal(t, steps[2].Step.WriteFile, "conf/x.toml")
	assert.Equal(t, steps[2].Exec(""), "mkdir -p -- conf && cat > conf/x.toml <<'README2DEMO_EOF'\nk = 1\nREADME2DEMO_EOF")
	bg := steps[3]
	assert.Assert(t, bg.Step.Background)
	assert.Equal(t, bg.Command, "./server\n./worker", "one background job per block")
	assert.Equal(t, bg.Step.Ready, "curl -sf localhost:1")
}

// Reasons quote commands as written: no Go escaping anywhere.
func TestReasonsQuoteAsWritten(t *testing.T) {
	p := Make([]byte("```sh\necho \"x\" | tool --name <your \"name\">\n```\n"), Options{})
	var b bytes.Buffer
	assert.NilError(t, WriteJSON(&b, p, WriteOptions{}))
	assert.Assert(t, !strings.Contains(p.Entries[0].Reason, `\"`), p.Entries[0].Reason)
	var back []map[string]any
	assert.NilError(t, json.Unmarshal(b.Bytes(), &back))
	assert.Equal(t, back[0]["command"], "echo \"x\" | tool --name <your \"name\">")
}

// The synthetic READMEs of the extraction goldens plan as their hints say.
func TestSyntheticREADMEs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "readmes", "synthetic", "*.md"))
	assert.NilError(t, err)
	assert.Assert(t, len(paths) >= 13)
	for _, path := range paths {
		src, err := os.ReadFile(path)
		assert.NilError(t, err)
		var b bytes.Buffer
		assert.NilError(t, WriteText(&b, Make(src, Options{}), WriteOptions{}))
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		t.Run(name, func(t *testing.T) {
			assertGolden(t, b.String(), filepath.Join("synthetic", name+".txt"))
		})
	}
}

// A command that uses two clone directories not made gives the same reason
// on every run, naming the first of them in README order (they were once
// looked at in map order).
func TestNotMadeReasonIsStable(t *testing.T) {
	md := "```sh\ncurl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | sh\ngit clone https://github.com/acme/tool b\ngit clone https://github.com/acme/tool a\nls b/x a/y\n```\n"
	for range 20 {
		checkPlan(t, md, repoOf("acme/tool"),
			run(2, ""),
			skip(3, "alternative: README.md line 2 already installs tool"),
			skip(4, "alternative: README.md line 2 already installs tool"),
			skip(5, "uses b, which the clone at line 3 (not run) would have made"))
	}
}
