package engines_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// TestCodexRolloutMatchesStream compares, for every real capture of every codex
// version (testdata/fixtures/codex/real-<version>-<scenario>), the session
// rollout the CLI wrote with the `exec --json` stream of the SAME run: the
// same commands with the same exit codes, statuses and outputs, and the same
// edits. The differences allowed are the ones where the rollout knows more:
//   - a command the stream never finished (killed, or still running when the
//     turn ended) may have, in the rollout, the output it printed so far; and
//     a run killed mid-command may not have recorded that command yet;
//   - a command without an exit code may be worded differently (the rollout
//     keeps what codex told the model, e.g. a sandbox error);
//   - a patch codex refused before applying it is a failed edit in the
//     rollout; the stream leaves no trace of it.
func TestCodexRolloutMatchesStream(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "testdata", "fixtures", "codex")
	rollouts, err := filepath.Glob(filepath.Join(dir, "real-*.rollout.jsonl"))
	assert.NilError(t, err)
	versions := map[string]bool{}
	eng, err := engines.Lookup(engines.CodexName)
	assert.NilError(t, err)
	for _, ro := range rollouts {
		stream := strings.TrimSuffix(ro, ".rollout.jsonl") + ".jsonl"
		name := strings.TrimSuffix(filepath.Base(ro), ".rollout.jsonl")
		versions[strings.SplitN(name, "-", 3)[1]] = true
		t.Run(name, func(t *testing.T) {
			_, err := os.Stat(stream)
			assert.NilError(t, err, "rollout without the stream of the same run")
			s, r := parseFile(t, eng, stream), parseFile(t, eng, ro)
			assert.Check(t, is.Equal(r.ParseStats.UnknownEvents, 0), "rollout records not understood")
			assert.Check(t, is.Equal(r.ParseStats.Malformed, 0))
			killed := strings.HasSuffix(name, "-killed")

			rcmds := map[string][]commandlog.Command{}
			for _, c := range r.Commands {
				rcmds[c.Command] = append(rcmds[c.Command], c)
			}
			for _, sc := range s.Commands {
				finished := sc.ExitCode != nil || sc.Status != commandlog.StatusUnknown || sc.Output != ""
				cands := rcmds[sc.Command]
				if len(cands) == 0 {
					assert.Check(t, killed && !finished, "stream command %q is not in the rollout", sc.Command)
					continue
				}
				rc := cands[0]
				rcmds[sc.Command] = cands[1:]
				assert.Check(t, is.DeepEqual(rc.ExitCode, sc.ExitCode), sc.Command)
				assert.Check(t, is.Equal(rc.Status, sc.Status), sc.Command)
				switch {
				case sc.ExitCode != nil && sc.Truncated && rc.Truncated:
					// codex keeps a shortened output of a big one in the rollout: the head
					// and the tail agree, how much was omitted does not
					assert.Check(t, is.Equal(omittedNote.ReplaceAllString(rc.Output, "[…]"), omittedNote.ReplaceAllString(sc.Output, "[…]")), sc.Command)
				case sc.ExitCode != nil:
					assert.Check(t, is.Equal(rc.Output, sc.Output), sc.Command)
				case !finished:
					// the rollout may know what it printed before it was stopped
				default:
					assert.Check(t, rc.Output != "", "%s: the rollout lost the output", sc.Command)
				}
			}
			for cmd, rest := range rcmds {
				assert.Check(t, is.Len(rest, 0), "rollout command %q is not in the stream", cmd)
			}

			redits := r.FileEdits
			for _, se := range s.FileEdits {
				i := indexEdit(redits, se)
				if assert.Check(t, i >= 0, "stream edit %+v is not in the rollout %+v", se, r.FileEdits) {
					redits = append(redits[:i:i], redits[i+1:]...)
				}
			}
			for _, re := range redits {
				assert.Check(t, !re.OK, "rollout edit %+v is not in the stream and not a refused patch", re)
			}
			if !killed {
				assert.Check(t, is.Equal(r.Outcome, s.Outcome))
				assert.Check(t, is.DeepEqual(r.Markers, s.Markers))
			}
		})
	}
	var got []string
	for v := range versions {
		got = append(got, v)
	}
	sort.Strings(got)
	assert.Check(t, len(got) >= 5, "real rollout captures of at least five codex versions are committed, got %v", got)
	assert.Check(t, versions[agentcli.CodexVersion], "no rollout capture of the pinned codex %s", agentcli.CodexVersion)
}

// omittedNote is the note truncation puts between an output's head and tail.
var omittedNote = regexp.MustCompile(`\[\.\.\. readme2demo: [0-9]+ bytes of output omitted \.\.\.\]`)

func indexEdit(edits []commandlog.FileEdit, e commandlog.FileEdit) int {
	for i, x := range edits {
		if x == e {
			return i
		}
	}
	return -1
}

// TestCodexRolloutOutputs reads each form of tool output codex has written
// into rollouts: the JSON of the shell tool (with its timeout note), the
// header of shell_command and unified exec, a unified exec session finished
// by write_stdin polls, and the exit code -1 codex uses for "none".
func TestCodexRolloutOutputs(t *testing.T) {
	line := func(typ string, payload string) string {
		return fmt.Sprintf(`{"timestamp":"2025-10-01T10:00:00.000Z","type":%q,"payload":%s}`, typ, payload)
	}
	call := func(id, name, args string) string {
		return line("response_item", fmt.Sprintf(`{"type":"function_call","name":%q,"arguments":%q,"call_id":%q}`, name, args, id))
	}
	output := func(id, out string) string {
		return line("response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%q}`, id, out))
	}
	transcript := strings.Join([]string{
		line("session_meta", `{"id":"s","cwd":"/w","cli_version":"0.99.0"}`),
		call("c1", "shell", `{"command":["bash","-lc","sleep 99"]}`),
		output("c1", `{"output":"command timed out after 10004 milliseconds\npartial\n","metadata":{"exit_code":124,"duration_seconds":10.0}}`),
		call("c2", "shell_command", `{"command":"make test"}`),
		output("c2", "Exit code: 2\nWall time: 0.3 seconds\nTotal output lines: 1\nOutput:\nmake: *** No rule to make target 'test'.\n"),
		call("c3", "exec_command", `{"cmd":"npm install"}`),
		output("c3", "Chunk ID: a1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 2\nOutput:\nadded 1\n"),
		call("c4", "write_stdin", `{"session_id":7,"chars":""}`),
		output("c4", "Chunk ID: a2\nWall time: 3.0 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nadded 2\n"),
		call("c5", "exec_command", `{"cmd":"./serve"}`),
		output("c5", "Chunk ID: a3\nWall time: 10.0 seconds\nProcess running with session ID 8\nOriginal token count: 1\nOutput:\nlistening\n"),
		call("c6", "shell_command", `{"command":"cat notes"}`),
		output("c6", "Output: the first line of the file\n"),
		line("event_msg", `{"type":"exec_command_end","call_id":"c7","command":["/bin/bash","-lc","rm -rf build"],"aggregated_output":"","exit_code":-1,"status":"failed"}`),
	}, "\n")
	eng, err := engines.Lookup(engines.CodexName)
	assert.NilError(t, err)
	l, err := eng.ParseTranscript(strings.NewReader(transcript))
	assert.NilError(t, err)
	type row struct {
		Cmd    string
		Exit   any
		Status commandlog.Status
		Out    string
	}
	var got []row
	for _, c := range l.Commands {
		got = append(got, row{c.Command, derefInt(c.ExitCode), c.Status, c.Output})
	}
	assert.Check(t, is.DeepEqual(got, []row{
		{"sleep 99", 124, commandlog.StatusFailed, "partial\n"},
		{"make test", 2, commandlog.StatusFailed, "make: *** No rule to make target 'test'.\n"},
		{"npm install", 0, commandlog.StatusOK, "added 1\nadded 2\n"},
		{"./serve", nil, commandlog.StatusUnknown, "listening\n"},
		// not codex's header: the whole text is the output, and nothing states an exit code
		{"cat notes", nil, commandlog.StatusUnknown, "Output: the first line of the file\n"},
		// -1: codex stopped it; no exit code, never a failure code
		{"rm -rf build", nil, commandlog.StatusUnknown, ""},
	}))
	assert.Check(t, is.Equal(*l.AgentVersion, "0.99.0"))
	assert.Check(t, is.Equal(l.ParseStats.UnknownEvents, 0))
}

func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
