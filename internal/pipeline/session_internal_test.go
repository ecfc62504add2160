package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", name))
	assert.NilError(t, err)
	return b
}

// A gemini run collects the session file BuildCommand leaves and merges its
// exact exit codes; other engines collect nothing; a missing or unreadable
// session changes nothing.
func TestMergeSession(t *testing.T) {
	gemini, err := engines.Lookup(engines.GeminiName)
	assert.NilError(t, err)
	codex, err := engines.Lookup(engines.CodexName)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(sessionCollect(gemini), []string{engines.SessionContainerPath}))
	assert.Check(t, is.Len(sessionCollect(codex), 0))

	parse := func() *commandlog.Log {
		l, err := gemini.ParseTranscript(bytes.NewReader(fixture(t, "gemini/real-0.61.0-failures.jsonl")))
		assert.NilError(t, err)
		return l
	}
	l := parse()
	unknown := 0
	for _, c := range l.Commands {
		if c.ExitCode == nil {
			unknown++
		}
	}
	assert.Assert(t, unknown == 3, "the stream leaves the three commands that printed something without a code")
	var progress bytes.Buffer
	session := fixture(t, "gemini/real-0.61.0-failures.session.jsonl")
	kept := mergeSession(gemini, l, map[string][]byte{engines.SessionContainerPath: session}, &progress)
	assert.Check(t, is.DeepEqual(kept, session))
	assert.Check(t, is.Equal(progress.String(), "gemini session file: exact results for 3 command(s)\n"))
	for _, c := range l.Commands {
		assert.Check(t, c.ExitCode != nil, "%s", c.Command)
	}

	for name, collected := range map[string]map[string][]byte{
		"none":  nil,
		"empty": {engines.SessionContainerPath: []byte("\n")},
	} {
		l := parse()
		before := len(l.Failed())
		progress.Reset()
		assert.Check(t, mergeSession(gemini, l, collected, &progress) == nil, name)
		assert.Check(t, is.Equal(len(l.Failed()), before), name)
		assert.Check(t, is.Equal(progress.String(), ""), name)
	}
}

// A transcript the engine does not understand fails the run as parser
// drift, whatever markers it let through; an empty one is no drift.
func TestCheckUnderstood(t *testing.T) {
	codex, err := engines.Lookup(engines.CodexName)
	assert.NilError(t, err)
	// a gemini transcript read by the codex engine: the agent's SUCCESS
	// text is not codex's, but suppose a marker slipped through
	tr := fixture(t, "gemini/real-0.61.0-success.jsonl")
	l, err := codex.ParseTranscript(bytes.NewReader(tr))
	assert.NilError(t, err)
	l.Outcome = commandlog.OutcomeSuccess
	nu := checkUnderstood(codex, l, tr)
	assert.Assert(t, nu != nil)
	assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.Contains(l.OutcomeReason, "readme2demo did not understand the agent's transcript"))
	assert.Check(t, is.Contains(nu.Error(), "transcript.jsonl does not look like a codex transcript"))

	empty, err := codex.ParseTranscript(bytes.NewReader(nil))
	assert.NilError(t, err)
	assert.Check(t, checkUnderstood(codex, empty, nil) == nil)

	ok, err := codex.ParseTranscript(bytes.NewReader(fixture(t, "codex/real-0.171.0-success.jsonl")))
	assert.NilError(t, err)
	assert.Check(t, checkUnderstood(codex, ok, []byte("x")) == nil)
	assert.Check(t, is.Equal(ok.Outcome, commandlog.OutcomeSuccess))
}
