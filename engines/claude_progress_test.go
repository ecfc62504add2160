package engines_test

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// Claude Code 2.1.x prints tool_progress while a Bash command runs long (on a
// loaded machine even `ls` does): progress of a command it reports anyway,
// not an unknown event. Found by `readme2demo drift` in the sandbox.
func TestClaudeToolProgressIsNoUnknownEvent(t *testing.T) {
	tr := strings.Join([]string{
		`{"type":"system","subtype":"init","claude_code_version":"2.1.332","session_id":"s"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"tool_progress","tool_use_id":"toolu_1","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":3,"session_id":"s","uuid":"u1"}`,
		`{"type":"tool_progress","tool_use_id":"hook-PreToolUse-toolu_1-heartbeat-0","tool_name":"PreToolUse","parent_tool_use_id":"toolu_1","elapsed_time_seconds":5,"heartbeat":true,"session_id":"s","uuid":"u2"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"README.md","is_error":false}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"SUCCESS","num_turns":2,"duration_ms":5000,"total_cost_usd":0.01}`,
	}, "\n") + "\n"
	l, err := eng(t, "claude-code").ParseTranscript(strings.NewReader(tr))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(l.ParseStats.UnknownEvents, 0))
	assert.Check(t, is.Equal(l.ParseStats.Lines, 6))
	assert.Assert(t, is.Len(l.Commands, 1))
	assert.Check(t, is.Equal(l.Commands[0].Output, "README.md"))
}
