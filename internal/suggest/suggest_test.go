package suggest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// readme builds a README of numbered lines: line i says "line i", except
// the lines given (1-based).
func readme(n int, set map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		l, ok := set[i]
		if !ok {
			l = fmt.Sprintf("line %d", i)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func unified(t *testing.T, before, after string) []byte {
	t.Helper()
	d, err := textdiff.Unified("a/README.md", "b/README.md", before, after)
	assert.NilError(t, err)
	return []byte(d)
}

// scenario is one review to compute: the README the run followed (run),
// what the agent left (agent), and the PR's base and head READMEs (no
// pull request when base is "").
type scenario struct {
	run, agent, base, head string
	fixes                  []string
}

func (s scenario) compute(t *testing.T) *Review {
	t.Helper()
	in := Input{Readme: "README.md", ReadmeDiff: unified(t, s.run, s.agent), Head: []byte(s.head)}
	if s.base != "" {
		in.PRDiff = unified(t, s.base, s.head)
		if in.PRDiff == nil {
			in.PRDiff = []byte{}
		}
	}
	l := &commandlog.Log{}
	for _, f := range s.fixes {
		l.Markers = append(l.Markers, commandlog.Marker{Kind: commandlog.MarkerFix, Text: f})
	}
	in.Log = l
	rv, err := Compute(in)
	assert.NilError(t, err)
	return rv
}

// summary is a review in one line per item: a comment's lines and its
// suggestion, a patch's kind and lines.
func summary(rv *Review) []string {
	var out []string
	for _, c := range rv.Comments {
		_, sug, _ := strings.Cut(c.Body, "suggestion\n")
		sug = strings.TrimSuffix(strings.TrimRight(sug, "`\n"), "\n")
		out = append(out, fmt.Sprintf("comment %d-%d: %q", max(c.StartLine, c.Line), c.Line, sug))
		if c.StartLine != 0 {
			out[len(out)-1] = fmt.Sprintf("comment %d-%d: %q", c.StartLine, c.Line, sug)
		}
	}
	for _, p := range rv.OutsideDiff {
		out = append(out, fmt.Sprintf("%s %d-%d", p.Kind, p.StartLine, p.EndLine))
	}
	return out
}

func TestSuggestPlacesEachChange(t *testing.T) {
	// The pull request rewrites lines 20-22 of a 40-line README.
	base := readme(40, nil)
	head := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22"})
	tests := []struct {
		name  string
		agent string // the agent's README (the run followed head)
		want  []string
	}{
		{"inside: one line", readme(40, map[int]string{20: "new 20", 21: "fixed 21", 22: "new 22"}),
			[]string{`comment 21-21: "fixed 21"`}},
		{"inside: a context line of the PR's diff", readme(40, map[int]string{18: "fixed 18", 20: "new 20", 21: "new 21", 22: "new 22"}),
			[]string{`comment 18-18: "fixed 18"`}},
		{"outside", readme(40, map[int]string{5: "fixed 5", 20: "new 20", 21: "new 21", 22: "new 22"}),
			[]string{"outside-diff 5-5"}},
		{"straddling the edge of the diff", readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22", 25: "fixed 25", 26: "fixed 26"}),
			[]string{"straddles 25-26"}},
		{"multi-line", readme(40, map[int]string{20: "new 20", 21: "fixed 21a\nfixed 21b\nfixed 21c", 22: "fixed 22"}),
			[]string{`comment 21-22: "fixed 21a\nfixed 21b\nfixed 21c\nfixed 22"`}},
		{"deletion only", strings.Replace(head, "new 21\nnew 22\n", "", 1),
			[]string{`comment 21-22: ""`}},
		{"insertion", strings.Replace(head, "new 21\n", "new 21\ninserted\n", 1),
			[]string{`comment 21-21: "new 21\ninserted"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rv := scenario{run: head, agent: tc.agent, base: base, head: head}.compute(t)
			assert.DeepEqual(t, summary(rv), tc.want)
		})
	}
}

func TestSuggestStraddling(t *testing.T) {
	// The PR's diff shows lines 17-25 (three lines of context around
	// 20-22); a change of lines 24-27 reaches past it.
	base := readme(40, nil)
	head := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22"})
	agent := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22", 24: "fixed 24", 25: "fixed 25", 26: "fixed 26", 27: "fixed 27"})
	rv := scenario{run: head, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"straddles 24-27"})
	assert.Equal(t, rv.OutsideDiff[0].Reason, "the change reaches past the edge of the pull request's diff, and GitHub takes a suggestion only on lines inside one part of it")
}

func TestSuggestWithoutPRDiff(t *testing.T) {
	head := readme(10, nil)
	rv := scenario{run: head, agent: readme(10, map[int]string{4: "fixed 4"}), head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"no-pr-diff 4-4"})
	assert.Equal(t, rv.OutsideDiff[0].Patch, `--- a/README.md
+++ b/README.md
@@ -1,7 +1,7 @@
 line 1
 line 2
 line 3
-line 4
+fixed 4
 line 5
 line 6
 line 7
`)
}

func TestSuggestPRThatDoesNotTouchTheReadme(t *testing.T) {
	head := readme(10, nil)
	in := Input{Readme: "README.md", ReadmeDiff: unified(t, head, readme(10, map[int]string{4: "fixed 4"})), Head: []byte(head),
		PRDiff: []byte("diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-package x\n+package y\n")}
	rv, err := Compute(in)
	assert.NilError(t, err)
	assert.DeepEqual(t, summary(rv), []string{"not-in-pr 4-4"})
}

// The Action checks out the merge commit: its README can have lines the
// head does not (here four from the base branch, above the change), so the
// run's line numbers are not the head's.
func TestSuggestMergeCommitReadmeWhoseLinesMoved(t *testing.T) {
	base := readme(40, nil)
	head := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22"})
	merge := "from the base branch 1\nfrom the base branch 2\nfrom the base branch 3\nfrom the base branch 4\n" + head
	agent := strings.Replace(merge, "new 21\n", "fixed 21\n", 1)
	rv := scenario{run: merge, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{`comment 21-21: "fixed 21"`})
	d := unified(t, merge, agent)
	assert.Check(t, is.Contains(string(d), "@@ -22,7 +22,7 @@"), "the run's diff speaks of line 25: %s", d)
}

// A change whose lines the head no longer has is not placed by guess.
func TestSuggestChangeThatCannotBeAnchored(t *testing.T) {
	base := readme(40, nil)
	head := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22"})
	run := readme(40, map[int]string{20: "new 20", 21: "old 21", 22: "new 22"}) // the head changed line 21 since
	agent := readme(40, map[int]string{20: "new 20", 21: "fixed 21", 22: "new 22"})
	rv := scenario{run: run, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"not-found 21-21"})
	assert.Equal(t, rv.OutsideDiff[0].Reason, "the lines it changes are not in README.md as the pull request's head has it (changed since the run), so it cannot be placed; the patch is against the README the run followed")
	assert.Equal(t, rv.OutsideDiff[0].Patch, `--- a/README.md
+++ b/README.md
@@ -18,7 +18,7 @@
 line 18
 line 19
 new 20
-old 21
+fixed 21
 new 22
 line 23
 line 24
`)
}

func TestSuggestAmbiguousChange(t *testing.T) {
	// The run's README had the block once; the head has it twice.
	block := "```sh\nmake\n```\n"
	run := "# x\n\n" + block + "\ntext\n"
	head := "# x\n\n" + block + "\ntext\n\n# x\n\n" + block + "\ntext\n"
	agent := strings.Replace(run, "make\n", "make build\n", 1)
	rv := scenario{run: run, agent: agent, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"ambiguous 4-4"})
}

// Context that changed at the head is dropped (patch(1)'s fuzz); the
// removed lines still have to be there.
func TestSuggestFuzz(t *testing.T) {
	base := readme(40, nil)
	head := readme(40, map[int]string{18: "head 18", 20: "new 20", 21: "new 21", 22: "new 22"})
	run := readme(40, map[int]string{20: "new 20", 21: "new 21", 22: "new 22"})
	agent := readme(40, map[int]string{20: "new 20", 21: "fixed 21", 22: "new 22"})
	rv := scenario{run: run, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{`comment 21-21: "fixed 21"`})
}

func TestSuggestCRLFReadme(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	base := crlf(readme(30, nil))
	head := crlf(readme(30, map[int]string{10: "new 10"}))
	agent := crlf(readme(30, map[int]string{10: "fixed 10"}))
	rv := scenario{run: head, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{`comment 10-10: "fixed 10"`})
	assert.Check(t, !strings.Contains(rv.Comments[0].Body, "\r"))

	// Outside the diff, the patch keeps the README's line endings, so that
	// it applies.
	agent = crlf(readme(30, map[int]string{10: "new 10", 25: "fixed 25"}))
	rv = scenario{run: head, agent: agent, base: base, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"outside-diff 25-25"})
	fixed, err := Apply("README.md", []byte(head), []byte(rv.OutsideDiff[0].Patch))
	assert.NilError(t, err)
	assert.Equal(t, string(fixed.Text), agent)
}

// Every patch applies to the head's README and gives what the agent wrote.
func TestSuggestPatchesApplyToTheHead(t *testing.T) {
	head := readme(40, nil) + "no newline at the end"
	agent := readme(40, map[int]string{1: "fixed 1", 12: "fixed 12", 13: "", 39: "fixed 39"}) + "no newline at the end\n"
	rv := scenario{run: head, agent: agent, head: head}.compute(t)
	assert.DeepEqual(t, summary(rv), []string{"no-pr-diff 1-1", "no-pr-diff 12-13", "no-pr-diff 39-39"})
	for _, p := range rv.OutsideDiff {
		fixed, err := Apply("README.md", []byte(head), []byte(p.Patch))
		assert.NilError(t, err, p.Patch)
		assert.Check(t, fixed.Text != nil)
	}
}

func TestSuggestOtherFilesAndUnsafeText(t *testing.T) {
	head := readme(10, nil)
	d := string(unified(t, head, readme(10, map[int]string{3: "rm -rf \u202e/ echo"}))) +
		"--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n@@ -1 +1 @@\n-on: push\n+on: pull_request\n"
	rv, err := Compute(Input{Readme: "README.md", ReadmeDiff: []byte(d), Head: []byte(head), PRDiff: unified(t, readme(10, map[int]string{3: "x"}), head)})
	assert.NilError(t, err)
	assert.DeepEqual(t, summary(rv), []string{"unsafe-text 3-3", "not-readme 1-1"})
	files, err := Files([]byte(d))
	assert.NilError(t, err)
	assert.DeepEqual(t, files, []string{"README.md", ".github/workflows/ci.yml"})
}

func TestSuggestMatchesFixMarkersToChanges(t *testing.T) {
	agent := readme(40, map[int]string{5: "python3 greet.py --loud World", 30: "pip install ."})
	run := readme(40, map[int]string{5: "python3 greet.py --shout World", 30: "pip install -r requirements.txt"})
	rv := scenario{run: run, agent: agent, base: readme(40, map[int]string{5: "a", 30: "b"}), head: run,
		fixes: []string{"greet.py has no --shout flag; it is --loud", "requirements.txt does not exist: install the package"}}.compute(t)
	assert.Assert(t, is.Len(rv.Comments, 2))
	assert.Check(t, is.Contains(rv.Comments[0].Body, "> FIX: greet.py has no --shout flag; it is --loud\n"))
	assert.Check(t, !strings.Contains(rv.Comments[0].Body, "requirements"))
	assert.Check(t, is.Contains(rv.Comments[1].Body, "> FIX: requirements.txt does not exist: install the package\n"))
}

func TestApply(t *testing.T) {
	run := readme(20, nil)
	agent := readme(20, map[int]string{3: "fixed 3\nadded", 15: "fixed 15"})
	fixed, err := Apply("README.md", []byte(run), unified(t, run, agent))
	assert.NilError(t, err)
	assert.Equal(t, string(fixed.Text), agent)
	assert.DeepEqual(t, fixed.Changed, []Lines{{3, 4}, {16, 16}})

	_, err = Apply("README.md", []byte(readme(20, map[int]string{4: "moved"})), unified(t, run, agent))
	var he *HunkError
	assert.Assert(t, errorsAs(err, &he), "%v", err)
	assert.Equal(t, err.Error(), "apply edit to README.md: the hunk at line 1 does not match the README")
}

// The JSON form is stable: scripts read it.
func TestSuggestJSONGolden(t *testing.T) {
	base := readme(40, nil)
	head := readme(40, map[int]string{20: "new 20", 21: "python3 greet.py --shout World", 22: "new 22"})
	agent := readme(40, map[int]string{5: "fixed 5", 20: "new 20", 21: "python3 greet.py --loud World", 22: "new 22"})
	rv := scenario{run: head, agent: agent, base: base, head: head,
		fixes: []string{"README step Shouting uses --shout, but greet.py only accepts --loud", "line 5 is wrong"}}.compute(t)
	var b strings.Builder
	assert.NilError(t, rv.WriteJSON(&b))
	golden.Assert(t, b.String(), "review.json")
	golden.Assert(t, rv.Markdown(), "review.md")
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
