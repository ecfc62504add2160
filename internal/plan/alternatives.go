package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Which of several installs of a tool runs, and what goes with a skipped
// one.

// debianRe names this platform's own distributions specifically (not
// "Linux" in general).
var debianRe = lazyre.New(`(?i)\b(debian|ubuntu|apt|apt-get|\.deb)\b`)

// readmeFacts learns what the plan needs to know of the whole README before
// it reads it in order: whether it shows Go code (then `go get` of the
// module is for the reader's project), and which tools a section written
// for Debian or Ubuntu installs with more than a bare `apt install tool`
// (that recipe wins over an earlier generic install of the same tool, as a
// person on Debian would choose it).
func readmeFacts(doc *readme.Doc, repo Repo) (goCode bool, debTools map[string]int) {
	debTools = map[string]int{}
	for _, b := range doc.Blocks {
		if b.Lang == "go" || b.Lang == "golang" {
			goCode = true
		}
		if !b.Shell || !debianBlock(b) {
			continue
		}
		found := map[string]int{}
		steps, pkgs := 0, 0
		for _, l := range b.Lines {
			t, ok := readme.CutPrompt(l.Text)
			if !ok {
				t = l.Text
			}
			if strings.HasPrefix(strings.TrimSpace(t), "#") || strings.TrimSpace(t) == "" {
				continue
			}
			for _, s := range simples(lex(t)) {
				steps++
				ts, _, ok := installs(s, repo)
				if url, _, isClone := clone(s); isClone && repo.isClone(url) {
					ts, ok = repo.Names, true
				}
				if ok {
					for _, tool := range ts {
						pkgs++
						if found[tool] == 0 {
							found[tool] = l.Line
						}
					}
				}
			}
		}
		// A bare `apt install tool` is the same install as a generic one;
		// the Debian recipe wins when it does more: adds the package
		// source, installs what the tool needs.
		if steps < 2 && pkgs < 2 {
			continue
		}
		for tool, l := range found {
			if debTools[tool] == 0 {
				debTools[tool] = l
			}
		}
	}
	return goCode, debTools
}

// debianBlock reports a block written for Debian or Ubuntu: the sentence
// right before it, its first comment, or its innermost heading names them
// (and no other platform).
func debianBlock(b readme.Block) bool {
	texts := []string{lastSentence(b.Before), innermost(b.Headings)}
	if first := firstNonBlank(b.Lines); strings.HasPrefix(first, "#") && !strings.HasPrefix(first, "#!") {
		texts = append([]string{first}, texts...)
	}
	for _, t := range texts {
		t = proseOnly(t)
		if t == "" || len(t) > 200 {
			continue
		}
		if _, fits, named := textPlatform(t); named {
			return fits && debianRe.MatchString(t) && platformCount(t) == 1
		}
	}
	return false
}

// laterDebianInstall returns the README line after line of the Debian or
// Ubuntu section that installs all of tools, 0 when there is none.
func (pl *planner) laterDebianInstall(tools []string, line int) int {
	last := 0
	for _, t := range tools {
		l := pl.debTools[t]
		if l <= line {
			return 0
		}
		last = max(last, l)
	}
	return last
}

// buildStep reports a step of a build from source: what a manual install
// does before its install command.
func buildStep(s simple) bool {
	name, args := path.Base(s.name()), s.args()
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch name {
	case "npm", "pnpm", "yarn":
		return sub == "" || sub == "install" || sub == "i" || sub == "ci" || sub == "run" && len(args) > 1 && args[1] == "build"
	case "make", "cmake", "meson", "ninja", "configure", "autoreconf", "bootstrap", "autogen.sh":
		return !slices.Contains(args, "install")
	case "go", "cargo":
		return sub == "build"
	case "git":
		return sub == "checkout" || sub == "submodule" || sub == "pull" || sub == "fetch"
	}
	return false
}

// aptCommand reports an apt or apt-get command (update or install).
func aptCommand(text string) bool {
	for _, s := range simples(lex(text)) {
		if n := s.name(); n == "apt" || n == "apt-get" || n == "aptitude" {
			return true
		}
	}
	return false
}

// checksOut reports `git checkout REF` or `git switch REF`: a version of
// the clone.
func checksOut(text string) bool {
	for _, s := range simples(lex(text)) {
		if args := s.args(); s.name() == "git" && len(args) > 1 && (args[0] == "checkout" || args[0] == "switch") && args[1] != "-b" && args[1] != "-c" {
			return true
		}
	}
	return false
}

// npxOf returns the package an `npx PKG` command runs, "" for none.
func npxOf(cmds []simple) string {
	for _, s := range cmds {
		if s.name() != "npx" {
			continue
		}
		for _, a := range s.args() {
			if !strings.HasPrefix(a, "-") {
				return a
			}
		}
	}
	return ""
}
