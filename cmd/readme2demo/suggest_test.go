package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// suggestFixture writes what `readme2demo suggest` reads: a pull request
// that reworded the Shouting section of the sample README, and a run whose
// agent changed --shout to --loud there and ./test.sh to sh test.sh
// elsewhere. It returns the run's output directory, the repository and the
// pull request's diff.
func suggestFixture(t *testing.T) (out, repo, prDiff string) {
	t.Helper()
	base, err := os.ReadFile("../../testdata/sample-repo/README.md")
	assert.NilError(t, err)
	head := strings.Replace(string(base), "Add `--shout` to greet in capitals: <!-- readme2demo: run -->", "Add `--shout` to greet in capitals, for the hard of hearing: <!-- readme2demo: run -->", 1)
	agent := strings.Replace(strings.Replace(head, "greet.py --shout World", "greet.py --loud World", 1), "./test.sh", "sh test.sh", 1)
	dir := t.TempDir()
	out, repo, prDiff = filepath.Join(dir, "out"), filepath.Join(dir, "repo"), filepath.Join(dir, "pr.diff")
	assert.NilError(t, os.MkdirAll(out, 0o755))
	assert.NilError(t, os.MkdirAll(repo, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte(head), 0o644))
	d, err := textdiff.Unified("a/README.md", "b/README.md", head, agent)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(out, "readme.diff"), []byte(d), 0o644))
	pd, err := textdiff.Unified("a/README.md", "b/README.md", string(base), head)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(prDiff, []byte("diff --git a/README.md b/README.md\nindex 1111111..2222222 100644\n"+pd), 0o644))
	f, err := os.Create(filepath.Join(out, "command_log.json"))
	assert.NilError(t, err)
	defer f.Close()
	assert.NilError(t, commandlog.Encode(f, &commandlog.Log{SchemaVersion: 1, Engine: "claude-code", Outcome: commandlog.OutcomeSuccess, Adjusted: true,
		Markers: []commandlog.Marker{
			{Kind: commandlog.MarkerFix, Text: "README section Shouting uses --shout, but greet.py only accepts --loud"},
			{Kind: commandlog.MarkerFix, Text: "test.sh is not executable: run it with sh"},
			{Kind: commandlog.MarkerAdjustedSuccess},
		},
		Commands: []commandlog.Command{}}))
	return out, repo, prDiff
}

func TestSuggestVerb(t *testing.T) {
	out, repo, prDiff := suggestFixture(t)
	code, stdout, stderr := runVerb("suggest", "--out", out, "--pr-diff", prDiff, repo)
	assert.Equal(t, code, exitcode.OK, stderr)
	golden.Assert(t, stdout, "suggest/review.json")

	code, stdout, stderr = runVerb("suggest", "--out", out, "--pr-diff", prDiff, "--format", "markdown", repo)
	assert.Equal(t, code, exitcode.OK, stderr)
	golden.Assert(t, stdout, "suggest/review.md")

	// Without the pull request's diff every change is a patch.
	code, stdout, _ = runVerb("suggest", "--out", out, repo)
	assert.Equal(t, code, exitcode.OK)
	assert.Check(t, is.Contains(stdout, `"comments": [],`))
	assert.Check(t, is.Equal(strings.Count(stdout, `"kind": "no-pr-diff"`), 2))
}

func TestSuggestVerbWithoutAnEdit(t *testing.T) {
	out, repo, _ := suggestFixture(t)
	assert.NilError(t, os.Remove(filepath.Join(out, "readme.diff")))
	code, stdout, stderr := runVerb("suggest", "--out", out, repo)
	assert.Equal(t, code, exitcode.OK, stderr)
	assert.Check(t, is.Equal(stdout, "{\n  \"comments\": [],\n  \"outside_diff\": [],\n  \"markers\": [\n    {\n      \"kind\": \"FIX\",\n      \"text\": \"README section Shouting uses --shout, but greet.py only accepts --loud\"\n    },\n    {\n      \"kind\": \"FIX\",\n      \"text\": \"test.sh is not executable: run it with sh\"\n    }\n  ]\n}\n"))
	assert.Check(t, is.Equal(stderr, "readme2demo suggest: "+out+" has no readme.diff: the run made no README edit\n"))
}

func TestSuggestVerbErrors(t *testing.T) {
	out, repo, _ := suggestFixture(t)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"suggest", repo}, "readme2demo suggest: --out: give the run's output directory\n"},
		{[]string{"suggest", "--out", out, "--format", "yaml", repo}, "readme2demo suggest: --format \"yaml\": use json or markdown\n"},
		{[]string{"suggest", "--out", out, "--pr-diff", filepath.Join(out, "missing.diff"), repo},
			"readme2demo suggest: read pull request diff: open " + filepath.Join(out, "missing.diff") + ": no such file or directory\n"},
		{[]string{"suggest", "--out", repo, repo}, "readme2demo suggest: open command log: open " + filepath.Join(repo, "command_log.json") + ": no such file or directory\n"},
	} {
		code, stdout, stderr := runVerb(tc.args...)
		assert.Check(t, is.Equal(code, exitcode.Usage), "%v", tc.args)
		assert.Check(t, is.Equal(stdout, ""))
		assert.Check(t, is.Equal(stderr, tc.stderr))
	}
}
