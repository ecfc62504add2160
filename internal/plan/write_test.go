package plan

import (
	"bytes"
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// The plan printed for people and as JSON, with and without the hints
// that flip each decision: exact output, reasons included (the printed
// form is the feature).

// writeREADME has a step, a probe, a skipped command, a file the
// README names and a block decided whole.
var writeREADME = here.Doc(`
	# tool

	## Install

	~~~sh
	make
	brew install tool
	~~~

	## Usage

	~~~console
	$ ./tool --name <your-name>
	$ echo ok
	ok
	~~~

	<!-- readme2demo: file=conf.toml -->
	~~~toml
	k = 1
	~~~

	~~~go
	x := 1
	~~~
`)

func writeRepo() Repo { return repoWith("acme/tool", "Makefile", "tool") }

func TestWriteText(t *testing.T) {
	tests := []struct {
		name string
		o    WriteOptions
		want string
	}{
		{
			name: "plain",
			want: here.Doc(`
				README.md: 3 of 5 candidate commands run, 4 code blocks, order readme

				block at line 6 (sh)
				  step     6  make
				          ` + "```" + `sh block
				  skip     7  brew install tool
				          other platform: Homebrew

				block at line 13 (console)
				  skip    13  ./tool --name <your-name>
				          placeholder <your-name>: a value to fill in
				  probe   14  echo ok
				          ` + "```" + `console block: shell prompt

				block at line 20 (toml)
				  step    20  cat > conf.toml <<'README2DEMO_EOF' …
				          file hint: writes the block to conf.toml

				block at line 24 (go)
				  skip    24  (no command)
				          go code, not shell
			`),
		},
		{
			name: "hints",
			o:    WriteOptions{Hints: true},
			want: here.Doc(`
				README.md: 3 of 5 candidate commands run, 4 code blocks, order readme

				block at line 6 (sh)
				  step     6  make
				          ` + "```" + `sh block
				          to skip it (with its block): <!-- readme2demo: skip --> above its code block (whose first line is 6)
				  skip     7  brew install tool
				          other platform: Homebrew
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 6)

				block at line 13 (console)
				  skip    13  ./tool --name <your-name>
				          placeholder <your-name>: a value to fill in
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 13)
				  probe   14  echo ok
				          ` + "```" + `console block: shell prompt
				          to make it a step (with every command of its block): <!-- readme2demo: run --> above its code block (whose first line is 13)

				block at line 20 (toml)
				  step    20  cat > conf.toml <<'README2DEMO_EOF' …
				          file hint: writes the block to conf.toml
				          to skip it (with its block): <!-- readme2demo: skip --> above its code block (whose first line is 20)

				block at line 24 (go)
				  skip    24  (no command)
				          go code, not shell
				          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 24)
			`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			assert.NilError(t, WriteText(&b, Make([]byte(writeREADME), Options{Repo: writeRepo()}), tc.o))
			assert.Equal(t, b.String(), tc.want, "got:\n%s", b.String())
		})
	}
}

func TestWriteJSON(t *testing.T) {
	tests := []struct {
		name string
		o    WriteOptions
		want string
	}{
		{
			name: "plain",
			want: here.Doc(`
				[
				  {
				    "file": "README.md",
				    "line": 6,
				    "command": "make",
				    "run": true,
				    "reason": "` + "```" + `sh block",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "command",
				    "planned": "step"
				  },
				  {
				    "file": "README.md",
				    "line": 7,
				    "command": "brew install tool",
				    "run": false,
				    "reason": "other platform: Homebrew",
				    "block_line": 6,
				    "language": "sh",
				    "kind": "other-platform"
				  },
				  {
				    "file": "README.md",
				    "line": 13,
				    "command": "./tool --name <your-name>",
				    "run": false,
				    "reason": "placeholder <your-name>: a value to fill in",
				    "block_line": 13,
				    "language": "console",
				    "kind": "placeholder"
				  },
				  {
				    "file": "README.md",
				    "line": 14,
				    "command": "echo ok",
				    "run": true,
				    "reason": "` + "```" + `console block: shell prompt",
				    "block_line": 13,
				    "language": "console",
				    "kind": "command",
				    "planned": "probe"
				  },
				  {
				    "file": "README.md",
				    "line": 20,
				    "command": "cat > conf.toml <<'README2DEMO_EOF'\nk = 1\nREADME2DEMO_EOF",
				    "run": true,
				    "reason": "file hint: writes the block to conf.toml",
				    "block_line": 20,
				    "language": "toml",
				    "kind": "write-file",
				    "planned": "step"
				  },
				  {
				    "file": "README.md",
				    "line": 24,
				    "command": "",
				    "run": false,
				    "reason": "go code, not shell",
				    "block_line": 24,
				    "language": "go",
				    "kind": "other-language"
				  }
				]
			`),
		},
		{
			name: "hints",
			o:    WriteOptions{Hints: true},
			want: here.Doc(`
				[
				  {
				    "file": "README.md",
				    "line": 6,
				    "command": "make",
				    "run": true,
				    "reason": "` + "```" + `sh block",
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
				    "line": 7,
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
				    "line": 13,
				    "command": "./tool --name <your-name>",
				    "run": false,
				    "reason": "placeholder <your-name>: a value to fill in",
				    "block_line": 13,
				    "language": "console",
				    "kind": "placeholder",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 14,
				    "command": "echo ok",
				    "run": true,
				    "reason": "` + "```" + `console block: shell prompt",
				    "block_line": 13,
				    "language": "console",
				    "kind": "command",
				    "planned": "probe",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to make it a step (with every command of its block)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 20,
				    "command": "cat > conf.toml <<'README2DEMO_EOF'\nk = 1\nREADME2DEMO_EOF",
				    "run": true,
				    "reason": "file hint: writes the block to conf.toml",
				    "block_line": 20,
				    "language": "toml",
				    "kind": "write-file",
				    "planned": "step",
				    "hint": {
				      "comment": "<!-- readme2demo: skip -->",
				      "effect": "to skip it (with its block)"
				    }
				  },
				  {
				    "file": "README.md",
				    "line": 24,
				    "command": "",
				    "run": false,
				    "reason": "go code, not shell",
				    "block_line": 24,
				    "language": "go",
				    "kind": "other-language",
				    "hint": {
				      "comment": "<!-- readme2demo: run -->",
				      "effect": "to run it (with every command of its block, as steps)"
				    }
				  }
				]
			`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			assert.NilError(t, WriteJSON(&b, Make([]byte(writeREADME), Options{Repo: writeRepo()}), tc.o))
			assert.Equal(t, b.String(), tc.want, "got:\n%s", b.String())
		})
	}
}

// An empty plan prints as an empty array, and its text says why.
func TestWriteNothingToRun(t *testing.T) {
	p := Make([]byte("# lib\n\n~~~go\nx := 1\n~~~\n"), Options{})
	var b bytes.Buffer
	assert.NilError(t, WriteText(&b, p, WriteOptions{Hints: true}))
	assert.Equal(t, b.String(), here.Doc(`
		README.md: 0 of 0 candidate commands run, 1 code blocks, order readme

		block at line 4 (go)
		  skip     4  (no command)
		          go code, not shell
		          to run it (with every command of its block, as steps): <!-- readme2demo: run --> above its code block (whose first line is 4)

		nothing to run: none of the 1 code blocks of README.md has a command to run on Linux (line 4: go code, not shell)
	`))
	b.Reset()
	assert.NilError(t, WriteJSON(&b, &Plan{File: "README.md"}, WriteOptions{}))
	assert.Equal(t, b.String(), "[]\n")
}

// The hint comment is written as the README's format writes a comment;
// a decision the README's own hint made has none (remove that hint).
func TestHintComment(t *testing.T) {
	tests := []struct {
		file  string
		entry Entry
		want  Hint
	}{
		{"README.md", Entry{Run: true, Planned: PlannedProbe, Kind: KindCommand}, Hint{"<!-- readme2demo: run -->", "to make it a step (with every command of its block)"}},
		{"README.rst", Entry{Run: true, Planned: PlannedStep, Kind: KindCommand}, Hint{".. readme2demo: skip", "to skip it (with its block)"}},
		{"README.adoc", Entry{Kind: KindPlaceholder}, Hint{"// readme2demo: run", "to run it (with every command of its block, as steps)"}},
		{"README.md", Entry{Kind: KindFileContent}, Hint{"<!-- readme2demo: file=PATH -->", "to write it to PATH"}},
		{"README.md", Entry{Kind: KindHint}, Hint{}},
	}
	for _, tc := range tests {
		p := &Plan{File: tc.file}
		assert.Equal(t, p.Hint(tc.entry), tc.want, "%s %+v", tc.file, tc.entry)
	}
}

// JSON keeps a reason's quotes as the reason has them (escaped for JSON,
// and no more). The reason itself is wrong here: it quotes the comment
// with %q, so its quotes are escaped Go-style (\"x\"), where reasons used
// to quote commands as written (reported to the lead).
func TestReasonsQuoteAsWritten(t *testing.T) {
	p := Make([]byte("~~~sh\n# replace \"x\" with your name\necho \"x\" | tool --name x\n~~~\n"), Options{Repo: repoNamed("acme/tool", "tool")})
	var b bytes.Buffer
	assert.NilError(t, WriteJSON(&b, p, WriteOptions{}))
	assert.Equal(t, b.String(), here.Doc(`
		[
		  {
		    "file": "README.md",
		    "line": 3,
		    "command": "echo \"x\" | tool --name x",
		    "run": false,
		    "reason": "a value to fill in: the comment says so (\"replace \\\"x\\\" with your name\")",
		    "block_line": 2,
		    "language": "sh",
		    "kind": "placeholder"
		  }
		]
	`))
}
