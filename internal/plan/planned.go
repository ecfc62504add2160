package plan

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Sure steps and probes: the plan runs a line as a step when the README
// clearly means it to be run, and as a probe when it runs it on a guess.
// A failing step fails the run; a failing probe is reported and never
// decides the verdict.

// stepSectionRe is a heading under which a README's commands are steps a
// new user takes before anything else: installing, building, getting
// started. (Examples of use run as probes: which of them a person would
// try depends on knowledge the plan does not have.)
var stepSectionRe = lazyre.New(`(?i)\b(install(ation|ing)?|set\s*up|setting\s+up|getting\s+started|get\s+started|quick\s*-?\s*start|build(ing)?|from\s+source|compil(e|ing|ation)|requirements|prerequisites|dependencies|download(ing)?)\b`)

// markPlanned marks each run entry of a block as a step or a probe.
func (pl *planner) markPlanned(b readme.Block, es []Entry) {
	sure := b.Hints.Run
	if !sure && (readme.IsShellLang(b.Lang) || b.Mode == readme.ModeConsole) && section(b.Headings, stepSectionRe) != "" {
		// A shell block in a section a new user follows, every command
		// of which resolves.
		sure = true
		for _, e := range es {
			if e.Command != "" && e.Kind == KindCommand && !pl.commandResolves(e) {
				sure = false
			}
		}
	}
	for i := range es {
		e := &es[i]
		if !e.Run {
			continue
		}
		switch {
		case e.Kind != KindCommand, b.Hints.Run:
			e.Planned = PlannedStep // a file the README names, set-up, the clone linked, the run hint
		case sure && pl.commandResolves(*e):
			e.Planned = PlannedStep
		default:
			e.Planned = PlannedProbe
		}
	}
}

// commandResolves reports that the program of an entry's command resolves.
func (pl *planner) commandResolves(e Entry) bool {
	ss := simples(lex(e.command()))
	if len(ss) == 0 {
		return false
	}
	n := ss[0].name()
	return n == "" || pl.resolve(strings.TrimSpace(n)) != unresolved
}
