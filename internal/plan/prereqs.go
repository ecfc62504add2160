package plan

import (
	"bufio"
	"bytes"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What a run cannot be given from the README's code: the prerequisites
// it names in its text (a sentence, a list or a table of what the build
// needs), and the project's own program when no line that runs installs
// it. The runner reads both when a command stops for one of them: the
// README asked for it in words, so the run could not check the README,
// which is not the README's failure.

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
	for line, code := range textLines(src, doc) {
		if code {
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

// uninstalled returns the project's own program that run entries start
// with when nothing that runs installs or builds the project and neither
// the image nor GitHub's runners have it (Plan.Uninstalled).
func (pl *planner) uninstalled() Uninstalled {
	if pl.seen.selfInstall || pl.seen.built || pl.seen.configured {
		return Uninstalled{}
	}
	installed := func(program string) bool {
		if pl.seen.installed[strings.ToLower(program)] > 0 {
			return true // (a clone into ~/.tool that runs counts)
		}
		for _, in := range pl.plan.Installs {
			if in.Skipped == "" && (pl.repo.is(in.Tool) || provides(strings.ToLower(in.Tool), strings.ToLower(program))) {
				return true
			}
		}
		return false
	}
	for _, e := range pl.plan.Entries {
		if !e.Run || e.Kind != KindCommand {
			continue
		}
		if ss := simples(lex(e.Command)); len(ss) > 0 {
			if n := ss[0].name(); pl.repo.is(n) && !pl.programs[n] && !envcause.OnRunner(n) && !installed(n) {
				return Uninstalled{Program: n, Line: e.Line}
			}
		}
	}
	return Uninstalled{}
}

var (
	// compilerNeedRe is a C or C++ compiler's name with a version: "GCC
	// 14", "gcc >= 13", "Clang 19+", "g++-14".
	compilerNeedRe = lazyre.New(`(?i)\b(gcc|g\+\+|clang)[\s-]*(?:version\s*)?(?:>=|≥|v)?\s*(\d{1,2})(?:\.\d+)*\b`)
	// atLeastRe is prose that asks for a version or newer.
	atLeastRe = lazyre.New(`(?i)\b(at least|minimum|or (newer|later|above|higher|greater)|requires?|required|needs?)\b|>=|≥|\d\+`)
)

// compilersTooOld returns the C and C++ compilers the README's text asks
// for at a version older than the image's: "GCC 14 or newer (the sandbox
// image has GCC 12)". A paragraph that names several ("GCC 14 or Clang
// 19") is met by any; the image's versions are its versioned programs
// (gcc-12, clang-19), and a family it has none of is not judged.
func compilersTooOld(src []byte, doc *readme.Doc, programs map[string]bool) []string {
	have := map[string]int{}
	for p := range programs {
		for fam, prefixes := range map[string][]string{"GCC": {"gcc-", "g++-"}, "Clang": {"clang-"}} {
			for _, pre := range prefixes {
				if v, err := strconv.Atoi(strings.TrimPrefix(p, pre)); err == nil && strings.HasPrefix(p, pre) {
					have[fam] = max(have[fam], v)
				}
			}
		}
	}
	var out []string
	judge := func(para string) {
		if !atLeastRe.MatchString(para) {
			return
		}
		want := ""
		for _, m := range compilerNeedRe.FindAllStringSubmatch(para, -1) {
			fam := "GCC"
			if strings.EqualFold(m[1], "clang") {
				fam = "Clang"
			}
			need, _ := strconv.Atoi(m[2])
			switch {
			case have[fam] == 0:
				continue
			case have[fam] >= need:
				return
			case want == "":
				want = fmt.Sprintf("%s %d or newer (the sandbox image has %s %d)", fam, need, fam, have[fam])
			}
		}
		if want != "" && !slices.Contains(out, want) {
			out = append(out, want)
		}
	}
	var para strings.Builder
	for line, code := range textLines(src, doc) {
		if line = strings.TrimSpace(line); code || line == "" {
			judge(para.String())
			para.Reset()
			continue
		}
		para.WriteString(line + " ")
	}
	judge(para.String())
	return out
}

// textLines yields the README's lines in order, each with whether it is a
// line of a code block.
func textLines(src []byte, doc *readme.Doc) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		code := map[int]bool{}
		for _, l := range codeLines(doc) {
			code[l.Line] = true
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if !yield(sc.Text(), code[n]) {
				return
			}
		}
	}
}
