package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// Output, prose, data and help texts in shell blocks are not commands.
var textCases = []planCase{
	{
		name: "lines of a shell block that are output, data or prose",
		readme: here.Doc(`
			# tool

			~~~sh
			tool --version
			tool 1.2.3
			Hello, world!
			Usage: tool [options] <file>
			- item
			| a | b |
			3 passed in 0.01s
			$NPM_CONFIG_PREFIX
			direnv: loading .envrc
			https://dl.acme.dev/x
			/: search
			4.67s user 4.58s system 286% cpu 3.255 total
			NAME      SIZE      MODIFIED
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 probe command tool --version
			5 probe command tool 1.2.3
			6 skip output Hello, world!
			7 skip output Usage: tool [options] <file>
			8 skip output - item
			9 skip output | a | b |
			10 skip output 3 passed in 0.01s
			11 skip output $NPM_CONFIG_PREFIX
			12 skip output direnv: loading .envrc
			13 skip output https://dl.acme.dev/x
			14 skip output /: search
			15 skip output 4.67s user 4.58s system 286% cpu 3.255 total
			16 skip output NAME      SIZE      MODIFIED
		`),
	},
	{
		name: "a line of JSON data",
		rule: "json-data",
		readme: here.Doc(`
			~~~sh
			{
			  "name": "x"
			}
			{ echo a; echo b; } > out.txt
			~~~
		`),
		want: here.Doc(`
			2 skip text {
			5 probe command { echo a; echo b; } > out.txt
		`),
	},
	{
		name: "a line that holds no command",
		rule: "no-command",
		readme: here.Doc(`
			~~~sh
			( )
			~~~
		`),
		want: here.Doc(`
			2 skip text ( )
		`),
	},
	{
		name: "a help text's option descriptions and sentences, one that starts with the program's name",
		readme: here.Doc(`
			# tool

			~~~bash
			GENERATE OPTIONS
			    -T, --detailed
			        give a detailed list of git stats
			        see changelogs
			~~~

			~~~sh
			tool --version
			see the docs for the details
			~~~

			~~~
			tool is a configurable talking cow, written in Perl. It operates
			much as the figlet program does, and it written in the same spirit
			of silliness.
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 skip output GENERATE OPTIONS
			5 skip output -T, --detailed
			6 skip output give a detailed list of git stats
			7 skip output see changelogs
			11 probe command tool --version
			12 skip output see the docs for the details
			16 skip text (no command)
		`),
	},
	{
		name: "the end of a compound whose start is no command, and a setting of TOML",
		readme: here.Doc(`
			~~~bash
			@test 'assert()' {
			  assert [ 1 -lt 0 ]
			}
			~~~

			~~~bash
			if [ -f go.mod ]; then
			  go build
			fi
			~~~

			~~~sh
			rev = "26.01.0"  # check the releases for the latest version
			test go = go
			~~~
		`),
		repo: repoWith("bats-core/bats-assert", "load.bash", "go.mod"),
		want: here.Doc(`
			2 skip output @test 'assert()' {
			3 skip output assert [ 1 -lt 0 ]
			4 skip output }
			8 probe command if [ -f go.mod ]; then
			14 skip output rev = "26.01.0"  # check the releases for the latest version
			15 probe command test go = go
		`),
	},
	{
		name: "REPL lines",
		readme: here.Doc(`
			~~~sh
			python3 -c 'print(1)'
			>>> print(1)
			... print(2)
			~~~
		`),
		want: here.Doc(`
			2 probe command python3 -c 'print(1)'
			3 skip text >>> print(1)
			4 skip text ... print(2)
		`),
	},
	{
		name: "a block of only comments",
		readme: here.Doc(`
			~~~sh
			# nothing to run here
			~~~
		`),
		want: here.Doc(`
			2 skip text (no command)
		`),
	},
}

func TestText(t *testing.T) { testPlans(t, textCases) }

// The candidates of a block: console prompts, unlabelled and indented
// blocks, text blocks that run the project, other languages.
var candidateCases = []planCase{
	{
		name: "what a comment such as # Output: introduces is output, up to a blank line or another comment",
		readme: here.Doc(`
			~~~sh
			echo '[1,2]' | jq 'map(. * 2)'
			# Output:
			[
			    2,
			    4
			]

			ls
			# => README.md
			# now count them
			ls | wc -l
			# output the version
			jq --version
			~~~
		`),
		want: here.Doc(`
			2 probe command echo '[1,2]' | jq 'map(. * 2)'
			4 skip output [
			5 skip output 2,
			6 skip output 4
			7 skip output ]
			9 probe command ls
			12 probe command ls | wc -l
			14 probe command jq --version
		`),
	},
	{
		name: "console prompts",
		readme: here.Doc(`
			~~~console
			$ echo one
			one
			% echo two
			❯ echo three
			▶ echo four
			(venv) $ echo five
			user@host:~/x$ echo six
			>>> print(1)
			~~~
		`),
		want: here.Doc(`
			2 probe command echo one
			4 probe command echo two
			5 probe command echo three
			6 probe command echo four
			7 probe command echo five
			8 probe command echo six
		`),
	},
	{
		name: "a console block with no command after its prompts",
		readme: here.Doc(`
			~~~console
			$
			~~~
		`),
		want: here.Doc(`
			2 skip output (no command)
		`),
	},
	{
		name: "an unlabelled block of commands, and one of usage",
		readme: here.Doc(`
			~~~
			make
			make test
			~~~

			~~~
			Usage: tool FILE
			~~~

			~~~
			frobnicate the widgets
			~~~
		`),
		want: here.Doc(`
			2 probe command make
			3 probe command make test
			7 skip text (no command)
			11 skip text (no command)
		`),
	},
	{
		name: "an unlabelled or indented block that shows a command and its output",
		readme: here.Doc(`
			# spark

			    spark 0 30 55
			    ▁▂▃

			~~~
			  Usage
			    $ spark <numbers>

			  Examples
			    $ spark 1 2 3
			~~~

			~~~sh
			› spark 1 5 22 |
			  cat
			~~~
		`),
		repo: slugRepo("holman/spark"),
		want: here.Doc(`
			3 probe command spark 0 30 55
			4 skip output ▁▂▃
			7 skip text (no command)
			15 probe command spark 1 5 22 |
		`),
	},
	{
		name: "an indented session under a heading of text",
		readme: here.Doc(`
			# tool

			    $ tool --help
			    usage: tool
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			3 probe command tool --help
		`),
	},
	{
		name: "text blocks run the project's own commands and its install, not others'",
		readme: here.Doc(`
			# statik

			~~~text
			$ statik -h
			Usage: statik
			$ cloc .
			~~~

			~~~text
			statik -m
			statik -f
			~~~

			~~~text
			some text
			~~~

			<!-- readme2demo: skip -->
			~~~text
			$ statik -h
			~~~

			First, install the tool:

			~~~text
			go install github.com/rakyll/statik@latest
			~~~

			~~~text
			go install github.com/other/tool@latest
			~~~
		`),
		repo: slugRepo("rakyll/statik"),
		want: here.Doc(`
			4 probe command statik -h
			10 probe command statik -m
			11 probe command statik -f
			15 skip text (no command)
			20 skip text (no command)
			26 probe command go install github.com/rakyll/statik@latest
			30 skip text (no command)
		`),
	},
	{
		name: "other languages",
		readme: here.Doc(`
			~~~python
			print("hi")
			~~~

			~~~Dockerfile
			RUN make
			~~~

			~~~json
			{"a": 1}
			~~~
		`),
		want: here.Doc(`
			2 skip other-language (no command)
			6 skip other-language (no command)
			10 skip other-language (no command)
		`),
	},
}

func TestCandidates(t *testing.T) { testPlans(t, candidateCases) }

// A line's shape: a key list ("/: search") is text; the shell's ":" no-op,
// a path, a function definition and a test are commands.
func TestShapeOf(t *testing.T) {
	for line, want := range map[string]lineShape{
		"/: search":              shapeText,
		".: toggle hidden files": shapeText,
		"~: go to home":          shapeText,
		"!: open shell":          shapeText,
		":: go to a directory":   shapeText,
		": > empty.txt":          shapeCommand,
		"/usr/bin/env bash x":    shapeCommand,
		"greet() {":              shapeCommand,
		"[ -f x ] && echo y":     shapeCommand,
		"[INFO] started":         shapeText,
		`{"a": 1}`:               shapeText,
		"(cd x && make)":         shapeCommand,
		"bin/tool --help":        shapeCommand,
		"http-server settings:":  shapeText,
		">>> import x":           shapeREPL,
	} {
		assert.Check(t, shapeOf(line) == want, "%q: got %v, want %v", line, shapeOf(line), want)
	}
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

// The commands of a line's command substitutions.
func TestSubstituted(t *testing.T) {
	names := func(text string) []string {
		var out []string
		for _, s := range substituted(text) {
			out = append(out, s.name())
		}
		return out
	}
	assert.DeepEqual(t, names(`export LS_COLORS="$(vivid generate molokai)"`), []string{"vivid"})
	assert.DeepEqual(t, names("echo `date` $(basename $(pwd)) $((1+2))"), []string{"date", "basename", "pwd"})
	assert.Equal(t, len(names("echo $(unclosed")), 0)
}
