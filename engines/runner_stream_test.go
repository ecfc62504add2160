package engines

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The runner's verdict is decided as the builder seals commands: a
// streamed parse of a run with more commands than the builder keeps open
// gives the same commands and the same first failure as the in-memory one,
// whether the failing command is sealed early or late, and a command left
// unfinished among thousands is still the one named.
func TestRunnerStreamsVerdictInOrder(t *testing.T) {
	t.Parallel()
	n := 3 * openSlots
	for _, tt := range []struct {
		name    string
		fail    int // 1-based index of the failing command; 0: none
		code    int // its exit code (2 unless set)
		output  string
		killed  bool
		reason  string
		lacks   string // not in the reason
		install int    // the line of frob's install (n unless set)
	}{
		{name: "early failure", fail: 3, reason: "README.md line 3: `echo 3` exited with 2"},
		{name: "late failure", fail: n - 5, reason: fmt.Sprintf("README.md line %d: `echo %d` exited with 2", n-5, n-5)},
		{name: "killed", killed: true, reason: fmt.Sprintf("README.md line %d: `echo %d` did not finish", n, n)},
		{name: "success", reason: ""},
		// What the reason adds to a failure survives the streaming verdict:
		// the network note (without the advice to try an AI engine), the
		// later install of a missing program, or the earlier one that ran.
		{name: "late network failure", fail: n - 2, code: 6, output: "curl: (6) Could not resolve host: example.org\n",
			reason: fmt.Sprintf("README.md line %d: `echo %d` exited with 6; it could not reach example.org", n-2, n-2), lacks: "AI engine"},
		{name: "not found, installed later", fail: n - 1, code: 127, output: "bash: line 1: frob: command not found\n",
			reason: fmt.Sprintf("README.md line %d: `echo %d` exited with 127 (frob: command not found); line %d installs it (`apt-get install -y frob`)", n-1, n-1, n)},
		{name: "not found, installed before", fail: n - 1, code: 127, output: "bash: line 1: frob: command not found\n", install: 2,
			reason: fmt.Sprintf("README.md line %d: `echo %d` exited with 127 (frob: command not found); line 2 (`apt-get install -y frob`) ran before it and passed", n-1, n-1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			lines = append(lines, fmt.Sprintf(`{"type":"plan","runner":"readme2demo-runner/1","steps":%d}`, n),
				`{"type":"skip","file":"README.md","line":9999,"command":"sudo reboot","reason":"restarts the machine"}`,
				fmt.Sprintf(`{"type":"install","tool":"frob","line":%d,"command":"apt-get install -y frob"}`, cmp.Or(tt.install, n)))
			for i := 1; i <= n; i++ {
				lines = append(lines, fmt.Sprintf(`{"type":"start","id":"%d","command":"echo %d","file":"README.md","line":%d}`, i, i, i))
				if tt.killed && i == n {
					break
				}
				code, text := 0, fmt.Sprintf("%d\n", i)
				if i == tt.fail {
					code = 2
					if tt.code != 0 {
						code, text = tt.code, tt.output
					}
				}
				out := base64.StdEncoding.EncodeToString([]byte(text))
				lines = append(lines, fmt.Sprintf(`{"type":"end","id":"%d","exit_code":%d,"output_head_b64":%q}`, i, code, out))
			}
			if !tt.killed {
				lines = append(lines, `{"type":"summary","text":"SUCCESS"}`)
			}
			in := strings.Join(lines, "\n") + "\n"

			mem, err := parseRunnerTranscript(MarkdownName, strings.NewReader(in), nil)
			assert.NilError(t, err)
			s := &recSink{}
			streamed, err := parseRunnerTranscript(MarkdownName, strings.NewReader(in), s)
			assert.NilError(t, err)

			assert.Equal(t, len(streamed.Commands), 0, "the commands went to the sink")
			// reflect.DeepEqual decides as go-cmp would on these plain
			// structs at a fraction of the cost on 1536 commands; go-cmp
			// runs only to show a difference.
			if !reflect.DeepEqual(s.commands, mem.Commands) {
				assert.DeepEqual(t, s.commands, mem.Commands)
			}
			assert.Equal(t, len(mem.Commands), n)
			assert.Equal(t, streamed.OutcomeReason, mem.OutcomeReason)
			assert.Equal(t, streamed.Outcome, mem.Outcome)
			assert.DeepEqual(t, streamed.Skipped, mem.Skipped)
			assert.Equal(t, len(streamed.Skipped), 1)
			assert.Assert(t, tt.lacks == "" || !strings.Contains(mem.OutcomeReason, tt.lacks), mem.OutcomeReason)
			if tt.reason == "" {
				assert.Equal(t, mem.OutcomeReason, "")
			} else {
				assert.Assert(t, strings.HasPrefix(mem.OutcomeReason, tt.reason), mem.OutcomeReason)
			}
		})
	}
}
