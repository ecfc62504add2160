package engines_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// BuildCommand copies the chat session file gemini wrote under its private
// home to SessionContainerPath, and still exits with gemini's status.
func TestGeminiBuildCommandKeepsSession(t *testing.T) {
	t.Parallel()
	g := eng(t, "gemini")
	for _, tc := range []struct {
		name    string
		session bool
		exit    int
	}{
		{"session written, turn limit", true, 53},
		{"no session, success", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			assert.NilError(t, os.Mkdir(bin, 0o755))
			fake := "#!/bin/sh\n"
			if tc.session {
				fake += "d=\"$GEMINI_CLI_HOME/.gemini/tmp/workspace/chats\"; mkdir -p \"$d\"\n" +
					"echo old > \"$d/session-2026-01-01T00-00-aaaa.jsonl\"; touch -d 2000-01-01 \"$d/session-2026-01-01T00-00-aaaa.jsonl\"\n" +
					"echo '{\"sessionId\":\"s\",\"projectHash\":\"h\"}' > \"$d/session-2026-01-01T00-01-bbbb.jsonl\"\n"
			}
			fake += "echo '{\"type\":\"init\"}'\nexit " + strconv.Itoa(tc.exit) + "\n"
			assert.NilError(t, os.WriteFile(filepath.Join(bin, "gemini"), []byte(fake), 0o755))
			assert.NilError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("go\n"), 0o644))
			cmd := strings.NewReplacer(
				engines.PromptContainerPath, filepath.Join(dir, "prompt.md"),
				engines.TranscriptContainerPath, filepath.Join(dir, "transcript.jsonl"),
				engines.StderrContainerPath, filepath.Join(dir, "transcript.stderr"),
				engines.SessionContainerPath, filepath.Join(dir, "session.jsonl"),
			).Replace(g.BuildCommand(engines.Limits{}))
			c := exec.Command("bash", "-c", cmd)
			c.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "GEMINI_API_KEY=k"}
			err := c.Run()
			if tc.exit == 0 {
				assert.NilError(t, err)
			} else {
				var ee *exec.ExitError
				assert.Assert(t, errors.As(err, &ee), "%v", err)
				assert.Check(t, is.Equal(ee.ExitCode(), tc.exit), "the command exits as gemini did")
			}
			got, err := os.ReadFile(filepath.Join(dir, "session.jsonl"))
			if !tc.session {
				assert.Check(t, os.IsNotExist(err), "no session file, nothing copied")
				return
			}
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(got), "{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n"), "the newest session file")
		})
	}
}

// The session file of a real run, merged into the stream log of the same
// run, gives every command that ran to an end its exact exit code (the
// stream states one only for a command that printed nothing), and leaves a
// call the session does not record (killed mid-command) as the stream says.
func TestGeminiSessionMerge(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "fixtures", "gemini")
	g := eng(t, "gemini")
	type want struct {
		Exit   any
		Status commandlog.Status
	}
	ok0 := want{0, commandlog.StatusOK}
	fail := func(n int) want { return want{n, commandlog.StatusFailed} }
	failedNoCode := want{nil, commandlog.StatusFailed}
	for _, tc := range []struct {
		run  string
		want []want
	}{
		{"real-0.61.0-success", []want{ok0, ok0, ok0}},
		{"real-0.61.0-model-success", []want{ok0, ok0, ok0}},
		{"real-0.61.0-failures", []want{fail(1), fail(3), fail(127), fail(2), fail(1), ok0}},
		// killed by a signal: failed, and no exit code (the shell had none)
		{"real-0.61.0-signals", []want{failedNoCode, failedNoCode, fail(1)}},
		{"real-0.61.0-edit", []want{ok0}},
		{"real-0.61.0-bigoutput", []want{ok0, ok0}},
		{"real-0.61.0-maxturns", []want{ok0, ok0}},
		// killed mid-command: the session never recorded the call
		{"real-0.61.0-killed", []want{{nil, commandlog.StatusUnknown}}},
		{"real-0.35.0-success", []want{ok0, ok0, ok0}},
		{"real-0.35.0-failures", []want{fail(1), fail(3), fail(127), fail(2), fail(1), ok0}},
		// 0.20.2 often rejects commands it "could not parse safely" (which
		// ones varies from run to run); the old output format states
		// "Exit Code: N" for the ones it ran
		{"real-0.20.2-failures", []want{failedNoCode, failedNoCode, failedNoCode, failedNoCode, failedNoCode, failedNoCode}},
		{"real-0.20.2-failures-some-run", []want{failedNoCode, failedNoCode, failedNoCode, failedNoCode, fail(1), ok0}},
		{"real-0.20.2-edit", []want{ok0}},
	} {
		t.Run(tc.run, func(t *testing.T) {
			stream := parseFile(t, g, filepath.Join(dir, tc.run+".jsonl"))
			sessions, _ := filepath.Glob(filepath.Join(dir, tc.run+".session.json*"))
			assert.Assert(t, is.Len(sessions, 1))
			f, err := os.Open(sessions[0])
			assert.NilError(t, err)
			defer f.Close()
			merged := *stream
			merged.Commands = append([]commandlog.Command(nil), stream.Commands...)
			_, err = g.(engines.SessionMerger).MergeSession(&merged, f)
			assert.NilError(t, err)
			var got []want
			for i, c := range merged.Commands {
				got = append(got, want{derefInt(c.ExitCode), c.Status})
				assert.Check(t, is.Equal(c.Command, stream.Commands[i].Command))
				assert.Check(t, is.Equal(c.ID, stream.Commands[i].ID))
				if s := stream.Commands[i].ExitCode; s != nil {
					assert.Check(t, c.ExitCode != nil && *c.ExitCode == *s, "%s: the session contradicts the stream", c.Command)
				}
			}
			assert.Check(t, is.DeepEqual(got, tc.want))
			assert.Check(t, is.DeepEqual(merged.FileEdits, stream.FileEdits))
			assert.Check(t, is.Equal(merged.Outcome, stream.Outcome))
		})
	}
}

// Each form of the shell tool's report Gemini CLI has written, read from a
// session file: never an invented exit code.
func TestGeminiSessionShellForms(t *testing.T) {
	g := eng(t, "gemini")
	session := func(output, display string) string {
		if !strings.HasPrefix(display, "{") {
			display = strconvQuote(display)
		}
		return `{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:02.500Z","messages":[` +
			`{"id":"m1","timestamp":"2026-01-01T00:00:01.000Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command",` +
			`"args":{"command":"make"},"status":"success","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":` +
			strconvQuote(output) + `}}}],"resultDisplay":` + display + `}]}]}`
	}
	for _, tc := range []struct {
		name, output, display string
		exit                  any
		status                commandlog.Status
		out                   string
	}{
		{"old, all lines", "Command: make\nDirectory: (root)\nOutput: built\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7", "built", 0, commandlog.StatusOK, "built"},
		{"old, no exit code", "Command: make\nDirectory: (root)\nOutput: (empty)\nError: spawn failed\nExit Code: (none)\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: (none)", "", nil, commandlog.StatusFailed, ""},
		{"older, stdout and stderr", "Command: make\nDirectory: (root)\nStdout: built\nStderr: warning\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7", `{"ansiOutput":[]}`, 2, commandlog.StatusFailed, "built\nwarning"},
		{"new, success states no line", "Output: built\nProcess Group PGID: 9", "built", 0, commandlog.StatusOK, "built"},
		{"new, an output line that looks like a header", "Output: Error: none found\nExit Code: 1\nProcess Group PGID: 9", "Error: none found", 1, commandlog.StatusFailed, "Error: none found"},
		{"0.6x, wrapped", "<untrusted_context>\nOutput: (empty)\nExit Code: 3\nProcess Group PGID: 9\n</untrusted_context>", "Command exited with code: 3", 3, commandlog.StatusFailed, ""},
		{"cancelled", "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\npartial", "Command cancelled by user.", nil, commandlog.StatusUnknown, "Command cancelled by user."},
		{"backgrounded", "Command moved to background (PID: 42). Output hidden. Press Ctrl+B to view.", "Command moved to background (PID: 42). Output hidden. Press Ctrl+B to view.", nil, commandlog.StatusUnknown, "Command moved to background (PID: 42). Output hidden. Press Ctrl+B to view."},
		{"a damaged trailer reads as silence, but the display says a signal: no code", "Output: (empty)\nSignal: 15\nPLocess Group PGID: 783", "Command terminated by signal: 15", nil, commandlog.StatusFailed, "Command terminated by signal: 15"},
		{"summarized by a model: no shell format", "The build succeeded.", "built", nil, commandlog.StatusUnknown, "built"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := parse(t, g, []byte(session(tc.output, tc.display)))
			assert.Assert(t, is.Len(l.Commands, 1))
			c := l.Commands[0]
			assert.Check(t, is.DeepEqual(derefInt(c.ExitCode), tc.exit))
			assert.Check(t, is.Equal(c.Status, tc.status))
			assert.Check(t, is.Equal(c.Output, tc.out))
			assert.Check(t, is.Equal(*l.DurationMS, int64(2500)))
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
