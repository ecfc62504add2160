package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

func TestIsDefinition(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"f() {\n  fff \"$@\"\n  cd \"$(cat ~/.fff/.fff_d)\"\n}", true},
		{"function ff { fff; }", true},
		{"function ff() {\n  echo hi\n}", true},
		{"alias ll='ls -l | less'", true},
		{"export FFF_DIR=\"$HOME/.fff\"", true},
		{"export PATH=$PATH:~/bin", true},
		{"GOPATH=$HOME/go", true},
		{"export EDITOR", true},
		{"export VERSION=$(curl -s https://dl.acme.dev/v)", false},
		{"X=1 make test", false},
		{"f() { echo hi; }; f", false},
		{"export A=1 && ./run", false},
		{"alias ll='ls -l' ; ll", false},
		{"ls -l", false},
		{"make install", false},
		{"echo `date`", false},
		{"", false},
	} {
		assert.Check(t, isDefinition(tc.cmd) == tc.want, "%q: want %v", tc.cmd, tc.want)
	}
}

// A README whose only commands to run define something tests nothing: the
// plan runs nothing and says why; one command that uses them keeps them.
var definitionCases = []planCase{
	{
		name: "only definitions run nothing",
		readme: here.Doc(`
			# fff

			~~~sh
			function ff { fff "$@"; }
			~~~

			~~~sh
			export FFF_HIDDEN=1
			alias ff=fff
			~~~
		`),
		repo: slugRepo("dylanaraps/fff"),
		want: here.Doc(`
			4 skip nothing-tested function ff { fff "$@"; }
			8 skip nothing-tested export FFF_HIDDEN=1
			9 skip nothing-tested alias ff=fff
		`),
	},
	{
		name: "a command that uses the definitions keeps them",
		readme: here.Doc(`
			# fff

			~~~sh
			export FFF_HIDDEN=1
			alias ff=fff
			~~~

			~~~sh
			echo "$FFF_HIDDEN"
			~~~
		`),
		repo: slugRepo("dylanaraps/fff"),
		want: here.Doc(`
			4 probe command export FFF_HIDDEN=1
			5 probe command alias ff=fff
			9 probe command echo "$FFF_HIDDEN"
		`),
	},
}

func TestDefinitionsOnly(t *testing.T) { testPlans(t, definitionCases) }

// An empty plan of definitions says why: the reason is the feature.
func TestDefinitionsOnlyReason(t *testing.T) {
	p := Make([]byte(definitionCases[0].readme), Options{Repo: definitionCases[0].repo})
	assert.Equal(t, p.NothingToRun(), "nothing to run: none of the 2 code blocks of README.md has a command to run on Linux (line 4: "+definitionsOnlyReason+"; line 8: "+definitionsOnlyReason+")")
}
