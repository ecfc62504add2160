package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
)

const fixtures = "../../testdata/fixtures/"

// Without --engine, parse tells the engine and format from the content and
// says on stderr what it found.
func TestParseAutoDetects(t *testing.T) {
	for _, tc := range []struct {
		file, engine, format string
	}{
		{"claude-code/real-2.1.332-success.jsonl", "claude-code", "Claude Code stream-json"},
		{"codex/real-0.171.0-success.rollout.jsonl", "codex", "Codex session rollout"},
		{"codex/real-0.171.0-success.jsonl", "codex", "Codex exec --json stream"},
		{"gemini/real-0.61.0-success.session.jsonl", "gemini", "Gemini CLI chat session file"},
		{"gemini/real-0.35.0-success.session.json", "gemini", "Gemini CLI chat session file"},
		{"openhands/v1-blocked.pages.jsonl", "openhands", "OpenHands V1 event search pages"},
		{"openhands/v1-blocked.pages", "openhands", "OpenHands V1 event search pages"},
		{"markdown/quickstart-success.jsonl", "markdown", "readme2demo markdown runner transcript"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "parse", fixtures+tc.file)
			assert.Equal(t, code, exitcode.OK, errOut)
			assert.Check(t, is.Contains(errOut, "detected "+tc.format+" (engine "+tc.engine+")"))
			l, err := commandlog.Decode(strings.NewReader(out))
			assert.NilError(t, err)
			assert.Check(t, is.Equal(l.Engine, tc.engine))
		})
	}
}

// A transcript the engine does not understand is refused loudly: exit 4, a
// message naming the file, the counts and what it looks like, and no log
// unless --force.
func TestParseRefusesWhatItDoesNotUnderstand(t *testing.T) {
	rollout := fixtures + "codex/real-0.171.0-success.rollout.jsonl"
	dst := filepath.Join(t.TempDir(), "command_log.json")
	code, out, errOut := runCLI(t, "parse", "--engine", "gemini", "-o", dst, rollout)
	assert.Equal(t, code, exitcode.NotUnderstood)
	assert.Equal(t, out, "")
	assert.Check(t, is.Contains(errOut, rollout+" does not look like a gemini transcript: 0 of 41 records understood; it looks like a Codex session rollout (engine codex)"))
	assert.Check(t, is.Contains(errOut, "pass --force"))
	_, err := os.Stat(dst)
	assert.Check(t, os.IsNotExist(err), "no log without --force")

	code, _, _ = runCLI(t, "parse", "--engine", "gemini", "--force", "-o", dst, rollout)
	assert.Equal(t, code, exitcode.NotUnderstood, "--force writes the log; the status still says it was not understood")
	_, err = os.Stat(dst)
	assert.NilError(t, err)

	text := filepath.Join(t.TempDir(), "notes.txt")
	assert.NilError(t, os.WriteFile(text, []byte("just some text\nnot a transcript\n"), 0o644))
	code, out, errOut = runCLI(t, "parse", text)
	assert.Equal(t, code, exitcode.NotUnderstood)
	assert.Equal(t, out, "")
	assert.Check(t, is.Contains(errOut, text+" does not look like a transcript of any engine"))
	assert.Check(t, is.Contains(errOut, "it looks like nothing: it holds no JSON record"))
}

// Records of two engines in about equal numbers: an error naming both.
func TestParseAmbiguous(t *testing.T) {
	a, err := os.ReadFile(fixtures + "codex/real-0.171.0-success.jsonl")
	assert.NilError(t, err)
	b, err := os.ReadFile(fixtures + "gemini/real-0.61.0-success.jsonl")
	assert.NilError(t, err)
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	assert.NilError(t, os.WriteFile(mixed, append(a, b...), 0o644))
	code, out, errOut := runCLI(t, "parse", mixed)
	assert.Equal(t, code, exitcode.Usage)
	assert.Equal(t, out, "")
	assert.Check(t, is.Contains(errOut, "cannot tell which agent wrote it"))
	assert.Check(t, is.Contains(errOut, "(engine codex)"))
	assert.Check(t, is.Contains(errOut, "(engine gemini)"))
	assert.Check(t, is.Contains(errOut, "pass --engine"))
}

// An evaluation file of several instances: --instance keeps one, -o DIR
// writes one log per instance, and neither gives every run's log in one
// JSON array (standard output or an -o file), the ids on stderr.
func TestParseInstances(t *testing.T) {
	file := fixtures + "openhands/eval-two-instances.history.jsonl"
	type run struct {
		Instance   string          `json:"instance"`
		CommandLog json.RawMessage `json:"command_log"`
	}
	checkArray := func(t *testing.T, b []byte) {
		t.Helper()
		var runs []run
		assert.NilError(t, json.Unmarshal(b, &runs), "%s", b)
		assert.Assert(t, is.Len(runs, 2))
		for i, id := range []string{"demo__app-1", "demo__app-2"} {
			assert.Check(t, is.Equal(runs[i].Instance, id))
			l, err := commandlog.Decode(bytes.NewReader(runs[i].CommandLog))
			assert.NilError(t, err, id)
			// The same log --instance gives.
			code, out, errOut := runCLI(t, "parse", "--instance", id, file)
			assert.Equal(t, code, exitcode.OK, errOut)
			want, err := commandlog.Decode(strings.NewReader(out))
			assert.NilError(t, err, id)
			assert.Check(t, len(l.Commands) > 0, id)
			assert.Check(t, is.DeepEqual(l, want), id)
		}
	}
	code, out, errOut := runCLI(t, "parse", file)
	assert.Equal(t, code, exitcode.OK, errOut)
	checkArray(t, []byte(out))
	assert.Check(t, is.Contains(errOut, "holds 2 runs"))
	assert.Check(t, is.Contains(errOut, "runs: demo__app-1, demo__app-2"))
	outFile := filepath.Join(t.TempDir(), "runs.json")
	code, out, errOut = runCLI(t, "parse", "-o", outFile, file)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Equal(t, out, "")
	b, err := os.ReadFile(outFile)
	assert.NilError(t, err)
	checkArray(t, b)

	code, out, errOut = runCLI(t, "parse", "--instance", "demo__app-2", file)
	assert.Equal(t, code, exitcode.OK, errOut)
	l, err := commandlog.Decode(strings.NewReader(out))
	assert.NilError(t, err)
	// its own first to last event (72.2 s); the two instances started 90 minutes apart
	assert.Check(t, l.DurationMS != nil && *l.DurationMS == 72_200, "the instance's own duration, not a span across instances: %v", l.DurationMS)

	code, _, errOut = runCLI(t, "parse", "--instance", "nope", file)
	assert.Equal(t, code, exitcode.Usage)
	assert.Check(t, is.Contains(errOut, `holds no run "nope"; runs: demo__app-1, demo__app-2`))

	dir := filepath.Join(t.TempDir(), "logs") + "/"
	code, out, errOut = runCLI(t, "parse", "-o", dir, file)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Equal(t, out, "")
	for _, id := range []string{"demo__app-1", "demo__app-2"} {
		b, err := os.ReadFile(filepath.Join(dir, id+".json"))
		assert.NilError(t, err)
		_, err = commandlog.Decode(strings.NewReader(string(b)))
		assert.NilError(t, err, id)
	}
}

// --session merges a Gemini chat session file: exact exit codes for the
// commands the stream left unknown.
func TestParseGeminiSession(t *testing.T) {
	stream := fixtures + "gemini/real-0.61.0-success.jsonl"
	code, out, errOut := runCLI(t, "parse", stream)
	assert.Equal(t, code, exitcode.OK, errOut)
	before, err := commandlog.Decode(strings.NewReader(out))
	assert.NilError(t, err)
	assert.Check(t, before.Commands[0].ExitCode == nil, "the stream states no exit code for a command that printed something")

	code, out, errOut = runCLI(t, "parse", "--session", fixtures+"gemini/real-0.61.0-success.session.jsonl", stream)
	assert.Equal(t, code, exitcode.OK, errOut)
	after, err := commandlog.Decode(strings.NewReader(out))
	assert.NilError(t, err)
	for _, c := range after.Commands {
		assert.Check(t, c.ExitCode != nil && *c.ExitCode == 0 && c.Status == commandlog.StatusOK, "%s", c.Command)
	}

	code, _, errOut = runCLI(t, "parse", "--engine", "codex", "--session", fixtures+"gemini/real-0.61.0-success.session.jsonl", fixtures+"codex/real-0.171.0-success.jsonl")
	assert.Equal(t, code, exitcode.Usage)
	assert.Check(t, is.Contains(errOut, "the codex engine reads no session file"))
}

// parse --help documents the formats, auto-detection and every exit status.
func TestParseHelp(t *testing.T) {
	code, out, _ := runCLI(t, "parse", "--help")
	assert.Equal(t, code, exitcode.OK)
	for _, want := range []string{"--engine auto", "rollout-*.jsonl", "chats/session-", `{"items": [...], "next_page_id"}`,
		"a directory of", "--instance", "--session", "--force", "exits 4", "Exit status: 0 parsed; 1 the log could not be written", "4 the transcript was not understood", "Memory stays bounded"} {
		assert.Check(t, is.Contains(out, want))
	}
}

// A run's log that cannot be written fails the parse with exit status 1
// and says which write failed.
func TestParseRunLogsWriteError(t *testing.T) {
	dir := t.TempDir()
	// A directory where one run's file would go: that write fails.
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "demo__app-2.json"), 0o755))
	code, _, errOut := runCLI(t, "parse", "-o", dir+"/", fixtures+"openhands/eval-two-instances.history.jsonl")
	assert.Equal(t, code, exitcode.Failed, errOut)
	assert.Check(t, is.Contains(errOut, "write command log: open "+filepath.Join(dir, "demo__app-2.json")))
	_, err := os.Stat(filepath.Join(dir, "demo__app-1.json"))
	assert.NilError(t, err, "the other run's log is written")
}

// -o naming what is not a regular file (a device such as /dev/stdout, a
// named pipe) writes into it: the runs' array is never renamed over it.
// (A named pipe stands in for /dev/null, which a failure would replace.)
func TestParseRunsToANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "runs.fifo")
	assert.NilError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens when the CLI opens it for writing
		got <- b
	}()
	code, _, errOut := runCLI(t, "parse", "-o", fifo, fixtures+"openhands/eval-two-instances.history.jsonl")
	assert.Equal(t, code, exitcode.OK, errOut)
	var b []byte
	select {
	case b = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing was written into the named pipe")
	}
	var runs []json.RawMessage
	assert.NilError(t, json.Unmarshal(b, &runs))
	assert.Check(t, is.Len(runs, 2))
	st, err := os.Lstat(fifo)
	assert.NilError(t, err)
	assert.Check(t, st.Mode()&os.ModeNamedPipe != 0, "still a named pipe: %v", st.Mode())
}
