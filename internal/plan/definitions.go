package plan

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// A plan whose every command to run only defines something (a shell
// function, an alias, a variable) tests nothing: running it passes
// whatever the program does, and a "success" would claim the README
// works when none of its examples ran. Such a plan runs nothing, and
// says why.

const definitionsOnlyReason = "only defines a shell function, alias or variable, and no command of the README uses it: running it would test nothing"

var (
	// name() { … }, function name { … }, function name() { … }
	definesFuncRe = lazyre.New(`^(?:function\s+)?[A-Za-z_][A-Za-z0-9_:.-]*\s*\(\s*\)\s*\{|^function\s+[A-Za-z_][A-Za-z0-9_:.-]*\s*\{`)
	// alias x=…, export X=…, X=…, readonly/declare/typeset X=…
	assignRe = lazyre.New(`^(?:alias\s+\S+=|(?:export|readonly|declare|typeset|local)(?:\s+-[A-Za-z]+)*\s+[A-Za-z_][A-Za-z0-9_]*(?:=|\s*$)|[A-Za-z_][A-Za-z0-9_]*=)`)
)

// isDefinition reports whether a command only defines something: a
// function definition (its whole text, body included), or one alias,
// export or assignment whose value runs nothing (no command substitution,
// no second command on the line).
func isDefinition(cmd string) bool {
	c := strings.TrimSpace(cmd)
	if c == "" {
		return false
	}
	if definesFuncRe.MatchString(c) {
		return strings.HasSuffix(c, "}")
	}
	if strings.Contains(c, "\n") || !assignRe.MatchString(c) {
		return false
	}
	// A value that runs something, or a second command after the
	// definition, is not a definition only.
	for _, s := range []string{"$(", "`", ";", "&&", "||", "|", "<(", ">(", ">", "<"} {
		if strings.Contains(stripQuoted(c), s) {
			return false
		}
	}
	// VAR=value cmd args: an assignment in front of a command runs it.
	kw, _, _ := strings.Cut(c, " ")
	return declarers[kw] || len(strings.Fields(stripQuoted(c))) < 2
}

// declarers are the builtins that define what follows them.
var declarers = toSet(`alias export readonly declare typeset local`)

// stripQuoted blanks the text inside single and double quotes, so that
// an alias's quoted body (alias ll='ls -l | less') is not read as the
// line's own pipes and separators.
func stripQuoted(s string) string {
	var b strings.Builder
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == 0 && (c == '\'' || c == '"'):
			q = c
			b.WriteByte(c)
		case q != 0 && c == q:
			q = 0
			b.WriteByte(c)
		case q != 0:
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipDefinitionsOnly turns the plan's commands to run into skipped ones
// when every one of them only defines something.
func skipDefinitionsOnly(p *Plan) {
	n := 0
	for _, e := range p.Entries {
		if !e.Run {
			continue
		}
		if !isDefinition(e.Command) {
			return
		}
		n++
	}
	if n == 0 {
		return
	}
	for i := range p.Entries {
		if p.Entries[i].Run {
			p.Entries[i].setDecision(because(KindNothingTested, definitionsOnlyReason))
		}
	}
}
