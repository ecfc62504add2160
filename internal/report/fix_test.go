package report

import (
	"testing"

	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func fixLog() *commandlog.Log {
	l := baseLog()
	l.Adjusted = true
	l.Markers = []commandlog.Marker{
		{Kind: commandlog.MarkerFix, Text: "README step Shouting uses --shout, but greet.py only accepts --loud @maintainer"},
		{Kind: commandlog.MarkerAdjustedSuccess},
	}
	l.Commands = append(l.Commands, commandlog.Command{ID: "t4", Command: "python3 greet.py --shout World", Output: "error: unrecognized arguments: --shout\n",
		ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(24)})
	return l
}

const fixDiff = "--- a/README.md\n+++ b/README.md\n@@ -23,3 +23,3 @@\n ```sh\n-python3 greet.py --shout World\n+python3 greet.py --loud World\n ```\n"

func TestRenderFixSection(t *testing.T) {
	o := opts
	o.ReadmeDiff = fixDiff
	o.Fix = &Fix{ReviewURL: "https://github.com/acme/demo/pull/7#pullrequestreview-1", Suggestions: 1,
		Patches: []Patch{{Path: "README.md", StartLine: 32, EndLine: 32, Reason: "the pull request does not change these lines",
			Patch: "--- a/README.md\n+++ b/README.md\n@@ -32 +32 @@\n-./test.sh\n+sh test.sh\n"}}}
	golden.Assert(t, Render(fixLog(), o), "fix-suggest.md")

	o.Fix = &Fix{Note: "No fix pull request: the verification failed.", Verification: &Verification{Method: "markdown", Steps: []VerifiedStep{
		{File: "README.md", Line: 24, Command: "python3 greet.py --loud World", Result: StepFailed, Detail: "exit 2"},
		{File: "README.md", Line: 32, Command: "./test.sh", Result: StepNotReached},
		{File: "README.md", Line: 40, Command: "brew install greet", Result: StepSkipped, Detail: "other platform: Homebrew"},
	}}}
	golden.Assert(t, Render(fixLog(), o), "fix-not-verified.md")
}

func TestFixPRBody(t *testing.T) {
	body := FixPR(fixLog(), FixPROptions{Readme: "README.md", Diff: fixDiff, RunURL: "https://github.com/acme/demo/actions/runs/42",
		Verification: &Verification{Method: "markdown", Passed: true, Steps: []VerifiedStep{
			{File: "README.md", Line: 24, Command: "python3 greet.py --loud World", Result: StepPassed}}}})
	golden.Assert(t, body, "fix-pr.md")
}
