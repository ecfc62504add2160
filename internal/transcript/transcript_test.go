package transcript_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/transcript"
)

var fixtures = filepath.Join("..", "..", "testdata", "fixtures")

func encode(t *testing.T, l *commandlog.Log) string {
	t.Helper()
	var b bytes.Buffer
	assert.NilError(t, commandlog.Encode(&b, l))
	return b.String()
}

// A directory of page files (named 1.json … 12.json, so that a plain sort
// would read 10.json before 2.json) reads as the trajectory it was cut from.
func TestDirectoryOfPages(t *testing.T) {
	dir := filepath.Join(fixtures, "openhands", "v1-blocked.pages")
	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	assert.Assert(t, len(entries) >= 10, "the fixture must exercise the name order")
	got, err := transcript.Parse(dir, transcript.Options{})
	assert.NilError(t, err)
	want, err := transcript.Parse(filepath.Join(fixtures, "openhands", "v1-blocked.jsonl"), transcript.Options{Engine: "openhands"})
	assert.NilError(t, err)
	assert.Assert(t, got.NotUnderstood == nil)
	assert.Check(t, is.Equal(*got.Detected, engines.FormatOpenHandsPages))
	assert.Check(t, is.Equal(encode(t, got.Logs[0].Log), encode(t, want.Logs[0].Log)))
}

// Open reads a directory's files in natural name order, each ending with
// a newline, hidden files and subdirectories left out.
func TestOpenDirectoryOrder(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"page-10.json": "ten", "page-2.json": "two\n", "page-1.json": "one", ".hidden": "no", "a.json": "a"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	rc, err := transcript.Open(dir)
	assert.NilError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(b), "a\none\ntwo\n\nten\n"))

	_, err = transcript.Open(t.TempDir())
	assert.Check(t, is.ErrorContains(err, "holds no files"))
}

// Parse applies the engines' rules: detection, refusal, instances, session.
func TestParse(t *testing.T) {
	t.Run("refusal names what it looks like", func(t *testing.T) {
		path := filepath.Join(fixtures, "gemini", "real-0.61.0-success.session.jsonl")
		res, err := transcript.Parse(path, transcript.Options{Engine: "codex"})
		assert.NilError(t, err)
		assert.Assert(t, res.NotUnderstood != nil)
		assert.Check(t, is.Equal(res.NotUnderstood.Error(), path+" does not look like a codex transcript: 0 of 26 records understood; it looks like a Gemini CLI chat session file (engine gemini)"))
	})
	t.Run("drift of a known format", func(t *testing.T) {
		// every record of a rollout renamed: still a rollout to detection,
		// but nothing the parser knows
		b, err := os.ReadFile(filepath.Join(fixtures, "codex", "real-0.171.0-failures.rollout.jsonl"))
		assert.NilError(t, err)
		b = bytes.ReplaceAll(b, []byte(`"type":"function_call`), []byte(`"type":"tool_invocation`))
		b = bytes.ReplaceAll(b, []byte(`"type":"message"`), []byte(`"type":"chat_message"`))
		b = bytes.ReplaceAll(b, []byte(`"type":"item_completed"`), []byte(`"type":"item_done"`))
		b = bytes.ReplaceAll(b, []byte(`"type":"token_count"`), []byte(`"type":"tokens_used"`))
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		assert.NilError(t, os.WriteFile(path, b, 0o644))
		res, err := transcript.Parse(path, transcript.Options{})
		assert.NilError(t, err)
		assert.Assert(t, res.NotUnderstood != nil)
		assert.Check(t, is.Contains(res.NotUnderstood.Error(), "it looks like a Codex session rollout (engine codex), but most of its records are of kinds this readme2demo does not know"))
	})
	t.Run("instances", func(t *testing.T) {
		path := filepath.Join(fixtures, "openhands", "eval-two-instances.history.jsonl")
		res, err := transcript.Parse(path, transcript.Options{})
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(res.IDs(), []string{"demo__app-1", "demo__app-2"}))
		assert.Check(t, is.Len(res.Logs, 2))
		one, err := transcript.Parse(path, transcript.Options{Instance: "demo__app-1"})
		assert.NilError(t, err)
		assert.Check(t, is.Len(one.Logs, 1))
		_, err = transcript.Parse(path, transcript.Options{Instance: "nope"})
		var ie *transcript.InstanceError
		assert.Check(t, errors.As(err, &ie), "%v", err)
	})
	t.Run("session merge needs a merging engine", func(t *testing.T) {
		_, err := transcript.Parse(filepath.Join(fixtures, "codex", "real-0.171.0-success.jsonl"),
			transcript.Options{Session: filepath.Join(fixtures, "gemini", "real-0.61.0-success.session.jsonl")})
		assert.Check(t, is.ErrorContains(err, "the codex engine reads no session file"))
	})
	t.Run("ambiguous", func(t *testing.T) {
		a, _ := os.ReadFile(filepath.Join(fixtures, "codex", "real-0.171.0-failures.jsonl"))
		b, _ := os.ReadFile(filepath.Join(fixtures, "gemini", "real-0.61.0-failures.jsonl"))
		path := filepath.Join(t.TempDir(), "mixed.jsonl")
		assert.NilError(t, os.WriteFile(path, append(a, b...), 0o644))
		_, err := transcript.Parse(path, transcript.Options{})
		var amb *engines.AmbiguousError
		assert.Assert(t, errors.As(err, &amb), "%v", err)
		var names []string
		for _, f := range amb.Candidates {
			names = append(names, f.Engine)
		}
		sort.Strings(names)
		assert.Check(t, is.DeepEqual(names, []string{"codex", "gemini"}))
	})
}

// Stream gives what Parse gives — the same log, bytes for bytes, the same
// detection, refusal and warnings — for every fixture of every engine,
// detected or named; only transcripts of several runs (or with a session
// to merge) come back as logs in memory.
func TestStreamMatchesParse(t *testing.T) {
	longtest.Require(t) // parses every fixture twice, seconds of CPU
	var paths []string
	for _, name := range engines.Names() {
		entries, err := os.ReadDir(filepath.Join(fixtures, name))
		assert.NilError(t, err)
		for _, e := range entries {
			paths = append(paths, filepath.Join(fixtures, name, e.Name()))
		}
	}
	streamed := 0
	for _, path := range paths {
		for _, engine := range []string{transcript.Auto, filepath.Base(filepath.Dir(path))} {
			o := transcript.Options{Engine: engine}
			want, werr := transcript.Parse(path, o)
			got, w, gerr := transcript.Stream(path, o, t.TempDir())
			if werr != nil {
				assert.Check(t, gerr != nil && gerr.Error() == werr.Error(), "%s (%s): %v / %v", path, engine, gerr, werr)
				continue
			}
			assert.NilError(t, gerr, path)
			assert.DeepEqual(t, got.Detected, want.Detected)
			assert.Check(t, is.Equal(fmt.Sprint(got.NotUnderstood), fmt.Sprint(want.NotUnderstood)), "%s (%s)", path, engine)
			assert.DeepEqual(t, got.Warnings, want.Warnings)
			if got.Runs != nil { // several runs, spilled: the same logs, encoded
				var logs []string
				assert.NilError(t, got.Runs.Each(func(_ string, log []byte) error {
					logs = append(logs, string(log))
					return nil
				}))
				assert.NilError(t, got.Runs.Close())
				var wantLogs []string
				for _, r := range want.Logs {
					wantLogs = append(wantLogs, encode(t, r.Log))
				}
				assert.DeepEqual(t, logs, wantLogs)
				assert.DeepEqual(t, got.IDs(), want.IDs())
				continue
			}
			if w == nil {
				assert.DeepEqual(t, got.Logs, want.Logs)
				continue
			}
			var b bytes.Buffer
			_, err := w.WriteTo(&b)
			assert.NilError(t, err)
			assert.NilError(t, w.Close())
			assert.Equal(t, len(want.Logs), 1, path)
			assert.Equal(t, b.String(), encode(t, want.Logs[0].Log), "%s (%s)", path, engine)
			streamed++
		}
	}
	assert.Assert(t, streamed > 80, "only %d transcripts streamed", streamed)
}

func TestListIDsCountsWhatItDoesNotName(t *testing.T) {
	ids := func(n int) []string {
		var out []string
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprintf("r%d", i))
		}
		return out
	}
	assert.Equal(t, transcript.ListIDs(ids(2)), "r1, r2")
	assert.Equal(t, transcript.ListIDs(ids(10)), "r1, r2, r3, r4, r5, r6, r7, r8, r9, r10")
	assert.Equal(t, transcript.ListIDs(ids(579)), "r1, r2, r3, r4, r5, r6, r7, r8, r9, r10 and 569 more")
}
