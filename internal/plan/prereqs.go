package plan

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// The prerequisites a README names in its text, not in code: what a
// person installs before the build from a sentence, a list or a table,
// which the plan cannot run. The runner reads them when a build stops
// for a library it lacks: the README named it, so the run could not check
// the README, which is not the README's failure.

// maxPrerequisites bounds the names a plan hands the runner.
const maxPrerequisites = 400

var (
	// prereqCueRe is prose about what a build needs.
	prereqCueRe = lazyre.New(`(?i)\b(requir\w*|depend\w*|prerequisites?|needs?|librar(y|ies)|packages?|headers|development files|-dev\b|-devel\b)`)
	// nameRe is a word that may name a package or a library.
	nameRe = lazyre.New(`[A-Za-z][A-Za-z0-9.+_-]{2,}`)
)

// prerequisites returns the names the README's text (outside its code
// blocks) gives for what a build needs: every word starting with "lib",
// and every word of a line that speaks of requirements, dependencies,
// libraries or packages, or that stands in a section so named; lower
// case, without repeats, at most maxPrerequisites.
func prerequisites(src []byte, doc *readme.Doc) []string {
	code := map[int]bool{}
	for _, l := range codeLines(doc) {
		code[l.Line] = true
	}
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.ToLower(strings.Trim(w, ".-_"))
		if len(w) >= 3 && !seen[w] && len(out) < maxPrerequisites {
			seen[w] = true
			out = append(out, w)
		}
	}
	section := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if code[n] {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			section = prereqCueRe.MatchString(line)
			continue
		}
		cue := section || prereqCueRe.MatchString(line)
		for _, w := range nameRe.FindAllString(line, -1) {
			if cue || strings.HasPrefix(strings.ToLower(w), "lib") {
				add(w)
			}
		}
	}
	return out
}
