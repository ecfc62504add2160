package engines_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
)

// detectFile runs Detect on a file.
func detectFile(t *testing.T, path string) (engines.Detection, error) {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	return engines.Detect(f)
}

// Every fixture of every engine is detected as that engine's, and each
// engine understands its own fixtures: auto-detection and the refusal never
// get in the way of a real transcript.
func TestDetectEveryFixture(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, name := range engines.Names() {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		for _, path := range transcripts(t, filepath.Join(root, "testdata", "fixtures", name)) {
			t.Run(name+"/"+filepath.Base(path), func(t *testing.T) {
				d, err := detectFile(t, path)
				assert.NilError(t, err)
				assert.Check(t, is.Equal(d.Format.Engine, name), "detected %s", d.Format)
				u, total := engines.Understood(fixtureLog(t, eng, path))
				assert.Check(t, !engines.Misunderstood(u, total), "%d of %d records understood", u, total)
			})
		}
	}
}

// The format named is the one the file is in.
func TestDetectFormats(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "fixtures")
	for file, want := range map[string]engines.Format{
		"claude-code/real-2.1.332-success.jsonl":     engines.FormatClaudeStream,
		"codex/real-0.171.0-success.jsonl":           engines.FormatCodexExec,
		"codex/real-0.39.0-success.jsonl":            engines.FormatCodexLegacy,
		"codex/real-0.171.0-success.rollout.jsonl":   engines.FormatCodexRollout,
		"codex/real-0.20.0-success.rollout.jsonl":    engines.FormatCodexRollout,
		"codex/edge-ts-session-2025-04.json":         engines.FormatCodexTSSession,
		"gemini/real-0.61.0-success.jsonl":           engines.FormatGeminiStream,
		"gemini/real-0.61.0-success.session.jsonl":   engines.FormatGeminiSession,
		"gemini/real-0.20.2-success.session.json":    engines.FormatGeminiSession,
		"openhands/v0-adjusted-success.jsonl":        engines.FormatOpenHandsV0,
		"openhands/v1-blocked.jsonl":                 engines.FormatOpenHandsV1,
		"openhands/v1-blocked.events.json":           engines.FormatOpenHandsV1,
		"openhands/v1-blocked.page.json":             engines.FormatOpenHandsPages,
		"openhands/v1-blocked.pages-array.json":      engines.FormatOpenHandsPages,
		"openhands/v1-blocked.cli.log":               engines.FormatOpenHandsCLI,
		"openhands/eval-two-instances.history.jsonl": engines.FormatOpenHandsEval,
		"markdown/quickstart-success.jsonl":          engines.FormatMarkdownRunner,
		"replay/claude-code-accepted.jsonl":          engines.FormatReplayRunner,
	} {
		t.Run(file, func(t *testing.T) {
			d, err := detectFile(t, filepath.Join(dir, file))
			assert.NilError(t, err)
			assert.Check(t, is.Equal(d.Format, want))
			assert.Check(t, d.Matched > 0 && d.Matched <= d.Records+20)
		})
	}
}

// Records of two engines about equally: an error naming both; a few stray
// records of another engine do not make a file ambiguous.
func TestDetectAmbiguous(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "fixtures")
	codex, err := os.ReadFile(filepath.Join(dir, "codex", "real-0.171.0-failures.jsonl"))
	assert.NilError(t, err)
	gemini, err := os.ReadFile(filepath.Join(dir, "gemini", "real-0.61.0-failures.jsonl"))
	assert.NilError(t, err)
	_, err = engines.Detect(bytes.NewReader(append(append([]byte{}, codex...), gemini...)))
	var amb *engines.AmbiguousError
	assert.Assert(t, errors.As(err, &amb), "%v", err)
	assert.Check(t, is.DeepEqual(amb.Candidates, []engines.Format{engines.FormatGeminiStream, engines.FormatCodexExec}))
	assert.Check(t, is.Contains(err.Error(), "pass --engine"))

	one := bytes.SplitAfterN(gemini, []byte("\n"), 2)[0]
	d, err := engines.Detect(bytes.NewReader(append(append([]byte{}, codex...), one...)))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(d.Format, engines.FormatCodexExec))
}

// What matches nothing says so, and the refusal reads as the issue asks.
func TestDetectNothingAndRefusal(t *testing.T) {
	d, err := engines.Detect(strings.NewReader("hello\nworld\n"))
	assert.NilError(t, err)
	assert.Check(t, d.Empty)
	assert.Check(t, is.Equal(engines.LooksLike(d, nil), "nothing: it holds no JSON record (an empty file, or plain text)"))
	d, err = engines.Detect(strings.NewReader(`{"a":1}` + "\n" + `{"b":2}` + "\n"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(d.Format, engines.Format{}))
	assert.Check(t, is.Equal(engines.LooksLike(d, nil), "none of the formats readme2demo reads (2 JSON records, none recognised)"))

	e := &engines.NotUnderstoodError{File: "run.jsonl", Engine: "codex", Understood: 0, Total: 209, LooksLike: "a " + engines.FormatGeminiStream.String()}
	assert.Check(t, is.Equal(e.Error(), "run.jsonl does not look like a codex transcript: 0 of 209 records understood; it looks like a Gemini CLI stream-json (engine gemini)"))
	for _, tc := range []struct {
		understood, total int
		refused           bool
	}{
		{0, 0, true}, {0, 5, true}, {2, 5, true}, {3, 5, false}, {1, 2, false}, {10, 10, false},
	} {
		assert.Check(t, is.Equal(engines.Misunderstood(tc.understood, tc.total), tc.refused), "%d of %d", tc.understood, tc.total)
	}
}

// A transcript given to the wrong engine is refused: no agent engine
// understands most of another agent's fixtures.
func TestOtherEnginesRefuse(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	agents := []string{engines.ClaudeCodeName, engines.CodexName, engines.GeminiName, engines.OpenHandsName}
	for _, owner := range agents {
		for _, path := range transcripts(t, filepath.Join(root, "testdata", "fixtures", owner)) {
			for _, other := range agents {
				if other == owner {
					continue
				}
				t.Run(other+"/"+owner+"/"+filepath.Base(path), func(t *testing.T) {
					eng, err := engines.Lookup(other)
					assert.NilError(t, err)
					u, total := engines.Understood(parseFile(t, eng, path))
					assert.Check(t, engines.Misunderstood(u, total), "the %s engine understood %d of %d records", other, u, total)
				})
			}
		}
	}
}

// Detect names the format from the first records and bytes: two hundred
// small records, or five of OpenHands evaluation output's big ones (here
// 600 KiB each) rather than decoding two hundred of them.
func TestDetectStopsAfterEnoughRecordsOrBytes(t *testing.T) {
	eval, err := os.ReadFile("../testdata/fixtures/openhands/eval-two-instances.history.jsonl")
	assert.NilError(t, err)
	line, _, _ := bytes.Cut(eval, []byte("\n"))
	big := append(append([]byte(`{"padding": "`+strings.Repeat("x", 600<<10)+`", `), line[1:]...), '\n')
	forty := make([]io.Reader, 40) // 24 MiB of input, not in memory
	for i := range forty {
		forty[i] = bytes.NewReader(big)
	}
	d, err := engines.Detect(io.MultiReader(forty...))
	assert.NilError(t, err)
	assert.Equal(t, d.Format, engines.FormatOpenHandsEval)
	assert.Equal(t, d.Records, 5)

	small, err := os.ReadFile("../testdata/fixtures/claude-code/real-2.1.332-success.jsonl")
	assert.NilError(t, err)
	d, err = engines.Detect(bytes.NewReader(bytes.Repeat(small, 300/bytes.Count(small, []byte("\n"))+1)))
	assert.NilError(t, err)
	assert.Equal(t, d.Format, engines.FormatClaudeStream)
	assert.Equal(t, d.Records, 200)
}
