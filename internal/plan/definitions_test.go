package plan

import (
	"strings"
	"testing"

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
		{"export VERSION=$(curl -s https://example.org/v)", false},
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
func TestDefinitionsOnlyRunNothing(t *testing.T) {
	md := "# fff\n\n## Shell integration\n\n```sh\nf() {\n    fff \"$@\"\n    cd \"$(cat \"${XDG_CACHE_HOME:=${HOME}/.cache}/fff/.fff_d\")\"\n}\n```\n\n" +
		"```sh\nexport FFF_HIDDEN=1\nalias ff=fff\n```\n"
	p := Make([]byte(md), Options{})
	assert.Check(t, len(p.Run()) == 0, "%+v", p.Entries)
	for _, e := range p.Entries {
		if e.Command != "" {
			assert.Check(t, e.Reason == definitionsOnlyReason || e.Reason != "", "%+v", e)
		}
	}
	why := p.NothingToRun()
	assert.Check(t, why != "", "an empty plan says why")
	assert.Check(t, strings.Contains(why, "test nothing") || strings.Contains(why, "optional settings"), why)

	withUse := md + "\n```sh\necho \"$FFF_HIDDEN\"\n```\n"
	p = Make([]byte(withUse), Options{})
	assert.Check(t, len(p.Run()) > 0, "%+v", p.Entries)
	for _, e := range p.Entries {
		assert.Check(t, e.Reason != definitionsOnlyReason, "%+v", e)
	}
}
