package plan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"github.com/aymanbagabas/go-udiff"
	"gotest.tools/v3/assert"
)

// The plan's tests are tables of READMEs and the plans they make, one
// table per topic, in the file named like the product file of its rules.
// A README is written as a here-document (here.Doc, of
// github.com/MakeNowJust/heredoc, imported as here: the package has a
// heredoc of its own); its code fences are ~~~, as Go raw strings cannot
// hold a backquote (Markdown reads both alike). A plan
// is compared as planText renders it: one line per entry,
//
//	LINE DECISION KIND COMMAND
//
// where DECISION is step or probe for what runs and skip for what does not,
// KIND the Kind, and COMMAND the command's first line ("(no command)" for
// a block decided whole, the here-document's first line for a file
// written). Reasons are not compared: their words are free to change
// (TestNoDecisionReadsAReason shows nothing depends on them); the few tests
// whose feature is a reason's text compare it exactly.

// planCase is one README and the plan it makes.
type planCase struct {
	name string
	// rule is the named rule (blockrules.go, command.go) the case is
	// about, "" for none: TestEveryRuleHasACase checks each has one.
	rule   string
	readme string
	repo   Repo
	opts   Options // the options but Repo
	want   string  // planText of the plan
	// wrong, when set, says that the plan the case shows (want) is not
	// what a careful person on Linux would do, and what they would do: the
	// case pins the current plan until its rule is fixed.
	wrong string
}

// testPlans plans each case's README and compares its planText with want;
// a mismatch prints the diff and all of the plan, to paste as want.
func testPlans(t *testing.T, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Repo = tc.repo
			got := planText(Make([]byte(tc.readme), o))
			if got != tc.want {
				t.Errorf("%s\n--- got of %s (all of it)\n%s--- end", udiff.Unified("want", "got", tc.want, got), tc.name, got)
			}
		})
	}
}

// planText renders a plan's entries as the tests compare them.
func planText(p *Plan) string {
	var b strings.Builder
	for _, e := range p.Entries {
		decision := "skip"
		if e.Run {
			decision = string(e.Planned)
			if decision == "" {
				decision = "run-unplanned" // a run entry that is neither step nor probe: a bug
			}
		}
		cmd, _, _ := strings.Cut(e.Command, "\n")
		if cmd == "" {
			cmd = "(no command)"
		}
		fmt.Fprintf(&b, "%d %s %s %s\n", e.Line, decision, e.Kind, cmd)
	}
	return b.String()
}

// slugRepo is a repository known by its owner/name only.
func slugRepo(slug string) Repo {
	var r Repo
	r.AddSlug(slug)
	return r
}

// repoNamed is a repository known by its owner/name and the names of its
// programs (as its manifests would give them).
func repoNamed(slug string, names ...string) Repo {
	r := slugRepo(slug)
	r.add(&r.Names, names...)
	return r
}

// repoWith is a repository known by its owner/name and its files (with a
// README.md, LICENSE and main.go, so that its listing is known).
func repoWith(slug string, files ...string) Repo {
	r := slugRepo(slug)
	r.AddFiles(append([]string{"README.md", "LICENSE", "main.go"}, files...)...)
	return r
}

// archiveRepo is the repository of a repository archive written as a
// here-document (RepoFromArchive): "slug", "dir" and "file" lines, then
// the manifests as txtar files.
func archiveRepo(txtar string) Repo { return RepoFromArchive([]byte(here.Doc(txtar))) }

// allCases are the tables of every topic.
func allCases() [][]planCase {
	return [][]planCase{
		alternativeCases, blockRuleCases, candidateCases, cloneCases, containerCases, fileContentCases,
		inputCases, installCases, interactiveCases, placeholderCases, platformCases, plannedCases,
		resolveCases, serviceCases, sudoCases, textCases, definitionCases,
	}
}

// Every named rule of blockrules.go and command.go has a case about it.
func TestEveryRuleHasACase(t *testing.T) {
	covered := map[string]bool{}
	names := map[string]bool{}
	for _, cases := range allCases() {
		for _, tc := range cases {
			if tc.rule != "" {
				covered[tc.rule] = true
			}
			assert.Check(t, !names[tc.name], "two cases named %q", tc.name)
			names[tc.name] = true
		}
	}
	var rules []string
	for _, r := range slices.Concat(contextRules, contentRules) {
		rules = append(rules, r.name)
	}
	for _, r := range commandRules {
		rules = append(rules, r.name)
	}
	for _, r := range rules {
		assert.Check(t, covered[r], "no case is about the rule %s", r)
		delete(covered, r)
	}
	for r := range covered {
		t.Errorf("a case names the rule %s, which no rule list has", r)
	}
}

// The cases whose plan is known to be wrong, with what it should be:
//
//	go test ./internal/plan -run TestKnownWrongPlans -v
func TestKnownWrongPlans(t *testing.T) {
	for _, cases := range allCases() {
		for _, tc := range cases {
			if tc.wrong != "" {
				t.Logf("%s: %s", tc.name, tc.wrong)
			}
		}
	}
}

// The run order: the README's order hint, the option over it, and the
// install sections first on their own when a command uses a program only
// a later install section installs.
func TestOrders(t *testing.T) {
	tests := []struct {
		name, readme, order, want string
		repo                      Repo
	}{
		{
			name: "install-first never moves a use of the program ahead of the install, whatever its section's heading",
			readme: here.Doc(`
				# x

				## Usage

				~~~sh
				pet new
				~~~

				## Configuration

				### Multi file setup

				~~~
				$ pet list
				~~~

				## Installation

				~~~sh
				go install github.com/knqyf263/pet@latest
				~~~
			`),
			repo: slugRepo("knqyf263/pet"),
			want: here.Doc(`
				order install-first
				note: order install-first: line 6 uses pet, which line 20 installs (--order readme keeps README order)
				20 step command go install github.com/knqyf263/pet@latest
				6 probe command pet new
				14 probe command pet list
			`),
		},
		{
			name: "the order hint",
			readme: here.Doc(`
				# x

				## Usage

				~~~sh
				tool run
				~~~

				## Installation

				~~~sh
				make install
				~~~

				<!-- readme2demo: order=install-first -->
			`),
			want: here.Doc(`
				order install-first
				12 step command make install
				6 probe command tool run
			`),
		},
		{
			name: "the option wins over the hint",
			readme: here.Doc(`
				# x

				## Usage

				~~~sh
				tool run
				~~~

				## Installation

				~~~sh
				make install
				~~~

				<!-- readme2demo: order=install-first -->
			`),
			order: OrderReadme,
			want: here.Doc(`
				order readme
				6 probe command tool run
				12 step command make install
			`),
		},
		{
			name: "a program only a later install section installs",
			readme: here.Doc(`
				# x

				## Usage

				~~~sh
				gojq --version
				~~~

				## Installation

				~~~sh
				go install github.com/itchyny/gojq/cmd/gojq@latest
				~~~
			`),
			want: here.Doc(`
				order install-first
				note: order install-first: line 6 uses gojq, which line 12 installs (--order readme keeps README order)
				12 step command go install github.com/itchyny/gojq/cmd/gojq@latest
				6 probe command gojq --version
			`),
		},
		{
			name: "a program run in a command substitution",
			readme: here.Doc(`
				# x

				## Usage

				~~~bash
				export LS_COLORS="$(vivid generate molokai)"
				~~~

				## Installation

				~~~bash
				go install github.com/sharkdp/vivid@latest
				~~~
			`),
			want: here.Doc(`
				order install-first
				note: order install-first: line 6 uses vivid, which line 12 installs (--order readme keeps README order)
				12 step command go install github.com/sharkdp/vivid@latest
				6 probe command export LS_COLORS="$(vivid generate molokai)"
			`),
		},
		{
			name: "the option keeps README order",
			readme: here.Doc(`
				# x

				## Usage

				~~~sh
				gojq --version
				~~~

				## Installation

				~~~sh
				go install github.com/itchyny/gojq/cmd/gojq@latest
				~~~
			`),
			order: OrderReadme,
			want: here.Doc(`
				order readme
				6 probe command gojq --version
				12 step command go install github.com/itchyny/gojq/cmd/gojq@latest
			`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Make([]byte(tc.readme), Options{Order: tc.order, Repo: tc.repo})
			got := "order " + p.Order + "\n"
			for _, n := range p.Notes {
				got += "note: " + n.Text + "\n"
			}
			got += planText(p)
			assert.Equal(t, got, tc.want, "got:\n%s", got)
		})
	}
}

// An empty plan says why, block by block: the reasons are the feature.
func TestNothingToRun(t *testing.T) {
	tests := []struct {
		name, file, readme, want string
	}{
		{
			name: "every block is skipped",
			readme: here.Doc(`
				# lib

				~~~go
				x := 1
				~~~

				~~~sh
				brew install lib
				~~~
			`),
			want: "nothing to run: none of the 2 code blocks of README.md has a command to run on Linux (line 4: go code, not shell; line 8: other platform: Homebrew)",
		},
		{
			name:   "no code block",
			file:   "docs/README.md",
			readme: "# prose only\n\nRun `make`.\n",
			want:   "nothing to run: docs/README.md has no code block (the markdown engine runs only code blocks; steps written in prose need an AI engine)",
		},
		{
			name:   "something runs",
			readme: "~~~sh\nmake\n~~~\n",
			want:   "",
		},
		{
			name: "more blocks than are listed",
			readme: strings.Repeat(here.Doc(`
				~~~go
				x := 1
				~~~

			`), 14),
			want: "nothing to run: none of the 14 code blocks of README.md has a command to run on Linux (line 2: go code, not shell; line 6: go code, not shell; line 10: go code, not shell; " +
				"line 14: go code, not shell; line 18: go code, not shell; line 22: go code, not shell; line 26: go code, not shell; line 30: go code, not shell; line 34: go code, not shell; " +
				"line 38: go code, not shell; line 42: go code, not shell; line 46: go code, not shell; and 2 more)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Make([]byte(tc.readme), Options{File: tc.file})
			assert.Equal(t, p.NothingToRun(), tc.want)
		})
	}
}

// The hints reach the steps: check-output, exit, cwd, setup, timeout,
// continue-on-error on a console block; file on a TOML block; background
// and ready on a block of two servers, which become one background job.
func TestHintsReachTheSteps(t *testing.T) {
	md := here.Doc(`
		<!-- readme2demo: check-output exit=1 cwd=sub setup="mkdir -p sub" timeout=5s continue-on-error -->
		~~~console
		$ echo a
		a
		...
		$ false
		~~~

		<!-- readme2demo: file=conf/x.toml -->
		~~~toml
		k = 1
		~~~

		<!-- readme2demo: background ready="curl -sf localhost:1" -->
		~~~sh
		./server
		./worker
		~~~
	`)
	p := Make([]byte(md), Options{Repo: repoWith("acme/tool", "server", "worker")})
	assert.Equal(t, planText(p), here.Doc(`
		3 probe command echo a
		6 probe command false
		11 step write-file mkdir -p -- conf && cat > conf/x.toml <<'README2DEMO_EOF'
		16 probe command ./server
	`))
	steps := p.Run()
	a, b := steps[0].Step, steps[1].Step
	assert.DeepEqual(t, a.Expect, []string{"a", "..."})
	assert.Equal(t, a.ExpectLine, 4)
	assert.Equal(t, a.Cwd, "sub")
	assert.Equal(t, a.Setup, "mkdir -p sub")
	assert.Equal(t, a.SetupLine, 3, "the block's first line")
	assert.Assert(t, a.Exit == nil && !a.LeaveCwd)
	assert.Equal(t, *b.Exit, 1, "exit= is for the block's last command")
	assert.DeepEqual(t, b.Expect, []string{})
	assert.Equal(t, b.ExpectLine, 7)
	assert.Assert(t, b.LeaveCwd && b.ContinueOnError && b.Timeout.Seconds() == 5)
	assert.Equal(t, steps[2].Step.WriteFile, "conf/x.toml")
	assert.Equal(t, steps[2].Exec(""), "mkdir -p -- conf && cat > conf/x.toml <<'README2DEMO_EOF'\nk = 1\nREADME2DEMO_EOF")
	bg := steps[3]
	assert.Assert(t, bg.Step.Background)
	assert.Equal(t, bg.Command, "./server\n./worker", "one background job per block")
	assert.Equal(t, bg.EndLine, 17)
	assert.Equal(t, bg.Step.Ready, "curl -sf localhost:1")
}

// The here-document that writes a file picks a delimiter its content does
// not hold.
func TestWriteFileDelimiter(t *testing.T) {
	md := here.Doc(`
		<!-- readme2demo: file=notes.txt -->
		~~~text
		README2DEMO_EOF
		~~~
	`)
	p := Make([]byte(md), Options{})
	assert.Equal(t, p.Run()[0].Exec(""), "cat > notes.txt <<'README2DEMO_EOF_1'\nREADME2DEMO_EOF\nREADME2DEMO_EOF_1")
}

// The synthetic READMEs of the extraction goldens plan as their hints say.
//
//	go test ./internal/plan -run TestSyntheticREADMEs -update
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
