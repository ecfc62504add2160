package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

// planREADME is a README with a step, skipped commands of three kinds and
// a probe; its checkout's remote names it acme/tool. (Code fences are ~~~:
// Go raw strings cannot hold a backquote.)
var planREADME = heredoc.Doc(`
	# tool

	## Install

	~~~sh
	brew install tool
	git clone https://github.com/acme/tool.git
	cd tool
	make
	~~~

	## Usage

	~~~console
	$ tool --name <your-name>
	$ echo ok
	ok
	~~~
`)

// fence is a Markdown code fence, for the expected output (the reasons
// name a block by its fence).
const fence = "```"

// The plan verb's output, exactly, in each form: text (step, probe or
// skip, and the reason), JSON (the stable keys, with kind, and planned on
// what runs), each with the hint that flips every decision, and in
// install-first order.
func TestPlanVerb(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(planREADME), 0o644))
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:acme/tool.git\n"), 0o644))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "text",
			want: heredoc.Doc(`
				README.md: 2 of 6 candidate commands run, 2 code blocks, order readme

				block at line 6 (sh)
				  skip     6  brew install tool
				          other platform: Homebrew
				  skip     7  git clone https://github.com/acme/tool.git
				          clones this repository: the run starts in its checkout
				  skip     8  cd tool
				          enters the clone of this repository: the run already starts in its checkout
				  step     9  make
				          ` + fence + `sh block

				block at line 15 (console)
				  skip    15  tool --name <your-name>
				          placeholder <your-name>: a value to fill in
				  probe   16  echo ok
				          ` + fence + `console block: shell prompt
			`),
		},
		{
			name: "json",
			args: []string{"--format", "json"},
			want: heredoc.Doc(`
				[
				  {
				    "file": "README.md",
				    "line": 6,
				    "command": "brew install tool",
				    "run": false,
				    "reason": "other platform: Homebrew",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "other-platform"
				  },
				  {
				    "file": "README.md",
				    "line": 7,
				    "command": "git clone https://github.com/acme/tool.git",
				    "run": false,
				    "reason": "clones this repository: the run starts in its checkout",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "clone-of-self"
				  },
				  {
				    "file": "README.md",
				    "line": 8,
				    "command": "cd tool",
				    "run": false,
				    "reason": "enters the clone of this repository: the run already starts in its checkout",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "clone-of-self"
				  },
				  {
				    "file": "README.md",
				    "line": 9,
				    "command": "make",
				    "run": true,
				    "reason": "` + fence + `sh block",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "command",
				    "planned": "step"
				  },
				  {
				    "file": "README.md",
				    "line": 15,
				    "command": "tool --name <your-name>",
				    "run": false,
				    "reason": "placeholder <your-name>: a value to fill in",
				    "block_line": 15,
				    "language": "console",
				    "kind": "placeholder"
				  },
				  {
				    "file": "README.md",
				    "line": 16,
				    "command": "echo ok",
				    "run": true,
				    "reason": "` + fence + `console block: shell prompt",
				    "block_line": 15,
				    "language": "console",
				    "kind": "command",
				    "planned": "probe"
				  }
				]
			`),
		},
		{
			name: "text with hints",
			args: []string{"--hints"},
			want: heredoc.Doc(`
				README.md: 2 of 6 candidate commands run, 2 code blocks, order readme

				block at line 6 (sh)
				  skip     6  brew install tool
				          other platform: Homebrew
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 6)
				  skip     7  git clone https://github.com/acme/tool.git
				          clones this repository: the run starts in its checkout
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 6)
				  skip     8  cd tool
				          enters the clone of this repository: the run already starts in its checkout
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 6)
				  step     9  make
				          ` + fence + `sh block
				          to skip it (with its block): <!-- readme2demo: skip --> above its code block (whose first line is 6)

				block at line 15 (console)
				  skip    15  tool --name <your-name>
				          placeholder <your-name>: a value to fill in
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 15)
				  probe   16  echo ok
				          ` + fence + `console block: shell prompt
				          to make it a step (with every command of its block): <!-- readme2demo: run --> above its code block (whose first line is 15)
			`),
		},
		{
			name: "json with hints",
			args: []string{"--format", "json", "--hints"},
			want: heredoc.Doc(`
				[
				  {
				    "file": "README.md",
				    "line": 6,
				    "command": "brew install tool",
				    "run": false,
				    "reason": "other platform: Homebrew",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "other-platform",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 7,
				    "command": "git clone https://github.com/acme/tool.git",
				    "run": false,
				    "reason": "clones this repository: the run starts in its checkout",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "clone-of-self",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 8,
				    "command": "cd tool",
				    "run": false,
				    "reason": "enters the clone of this repository: the run already starts in its checkout",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "clone-of-self",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 9,
				    "command": "make",
				    "run": true,
				    "reason": "` + fence + `sh block",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "command",
				    "planned": "step",
				    "hint": {
				      "comment": "<!-- readme2demo: skip -->",
				      "effect": "to skip it (with its block)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 15,
				    "command": "tool --name <your-name>",
				    "run": false,
				    "reason": "placeholder <your-name>: a value to fill in",
				    "block_line": 15,
				    "language": "console",
				    "kind": "placeholder",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 16,
				    "command": "echo ok",
				    "run": true,
				    "reason": "` + fence + `console block: shell prompt",
				    "block_line": 15,
				    "language": "console",
				    "kind": "command",
				    "planned": "probe",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to make it a step (with every command of its block)"
				    }
				  }
				]
			`),
		},
		{
			name: "install-first order",
			args: []string{"--order", "install-first"},
			want: heredoc.Doc(`
				README.md: 2 of 6 candidate commands run, 2 code blocks, order install-first

				block at line 6 (sh)
				  skip     6  brew install tool
				          other platform: Homebrew
				  skip     7  git clone https://github.com/acme/tool.git
				          clones this repository: the run starts in its checkout
				  skip     8  cd tool
				          enters the clone of this repository: the run already starts in its checkout
				  step     9  make
				          ` + fence + `sh block

				block at line 15 (console)
				  skip    15  tool --name <your-name>
				          placeholder <your-name>: a value to fill in
				  probe   16  echo ok
				          ` + fence + `console block: shell prompt
			`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append(append([]string{"plan"}, tc.args...), dir)...)
			assert.Equal(t, code, exitcode.OK, errOut)
			assert.Equal(t, out, tc.want, "got:\n%s", out)
		})
	}
}

// plan --hints on a reStructuredText README writes the hints as its
// comments.
func TestPlanVerbHintsInTheREADMEsFormat(t *testing.T) {
	dir := t.TempDir()
	rst := heredoc.Doc(`
		tool
		====

		.. code-block:: sh

		   brew install tool
		   echo ok
	`)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.rst"), []byte(rst), 0o644))
	code, out, errOut := runCLI(t, "plan", "--hints", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Equal(t, out, heredoc.Doc(`
		README.rst: 1 of 2 candidate commands run, 1 code blocks, order readme

		block at line 6 (sh)
		  skip     6  brew install tool
		          other platform: Homebrew
		          to run it (with every command of its block, as steps): .. readme2demo: run above its code block (whose first line is 6)
		  probe    7  echo ok
		          `+fence+`sh block
		          to make it a step (with every command of its block): .. readme2demo: run above its code block (whose first line is 6)
	`), "got:\n%s", out)
}

// plan's text form quotes README lines to a terminal: every hidden, bidi,
// tag, separator and conceal character and every escape sequence of a
// README command is drawn visibly (golden), none passed on.
func TestPlanTextShowsHostileCommandsVisibly(t *testing.T) {
	dir := t.TempDir()
	readme := "# tool\n\n```sh\n" +
		"echo " + termtexttest.All(termtexttest.Hidden) + "\n" +
		"echo " + termtexttest.All(termtexttest.Controls) + "\n" +
		"make # \u202e\u2066\n```\n"
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644))
	code, out, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	for _, p := range termtexttest.Problems(out, termtexttest.Text) {
		t.Error(p)
	}
	golden.Assert(t, out, "hostile-plan.txt")
}

func TestPlanVerbErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no readme", []string{"plan", dir}, exitcode.Usage, "not found in"},
		{"bad format", []string{"plan", "--format", "yaml", dir}, exitcode.Usage, `--format "yaml": use text or json`},
		{"bad order", []string{"plan", "--order", "random", dir}, exitcode.Usage, `--order "random": use readme or install-first`},
		{"outside", []string{"plan", "--readme", "../x.md", dir}, exitcode.Usage, "leads out of the repository"},
		{"two dirs", []string{"plan", dir, dir}, exitcode.Usage, "at most one repository directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.args...)
			assert.Equal(t, code, tt.code)
			assert.Assert(t, strings.Contains(errOut, tt.want), errOut)
		})
	}

	// Nothing to run: exit 1, and the reason.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# lib\n\n~~~go\nx := 1\n~~~\n"), 0o644))
	code, out, _ := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.Failed)
	assert.Equal(t, out, heredoc.Doc(`
		README.md: 0 of 0 candidate commands run, 1 code blocks, order readme

		block at line 4 (go)
		  skip     4  (no command)
		          go code, not shell

		nothing to run: none of the 1 code blocks of README.md has a command to run on Linux (line 4: go code, not shell)
	`), "got:\n%s", out)
	code, out, _ = runCLI(t, "plan", "--format", "json", dir)
	assert.Equal(t, code, exitcode.Failed)
	assert.Equal(t, out, heredoc.Doc(`
		[
		  {
		    "file": "README.md",
		    "line": 4,
		    "command": "",
		    "run": false,
		    "reason": "go code, not shell",
		    "block_line": 4,
		    "language": "go",
		    "kind": "other-language"
		  }
		]
	`), "got:\n%s", out)

	// A README that links outside the repository is refused.
	assert.NilError(t, os.Remove(filepath.Join(dir, "README.md")))
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "README.md")))
	code, _, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.Usage)
	assert.Assert(t, strings.Contains(errOut, "which leads out of the repository"), errOut)
}

// Without --readme, a repository whose README is readme.md (as many Node
// packages name it) is planned from that file.
func TestPlanFindsLowerCaseReadme(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "readme.md"), []byte("# x\n\n~~~sh\necho ok\n~~~\n"), 0o644))
	code, out, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Equal(t, out, heredoc.Doc(`
		readme.md: 1 of 1 candidate commands run, 1 code blocks, order readme

		block at line 4 (sh)
		  probe    4  echo ok
		          `+fence+`sh block
	`), "got:\n%s", out)
}
