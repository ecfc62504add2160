package engines

import (
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func getenvFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

const (
	fakeAPIKey = "sk-ant-api03-THISISNOTAREALKEYbutlooksLikeOne0123456789abcdefgh"
	fakeOAuth  = "sk-ant-oat01-THISISNOTAREALTOKENbutlooksLikeOne0123456789abcd"
)

func TestClaudeResolveEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    map[string]string
		errVar  string
		errText string
	}{
		{name: "api key", env: map[string]string{"ANTHROPIC_API_KEY": fakeAPIKey},
			want: map[string]string{"ANTHROPIC_API_KEY": fakeAPIKey}},
		{name: "oauth token", env: map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": fakeOAuth},
			want: map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": fakeOAuth}},
		{name: "both: the API key is used", env: map[string]string{"ANTHROPIC_API_KEY": fakeAPIKey, "CLAUDE_CODE_OAUTH_TOKEN": fakeOAuth},
			want: map[string]string{"ANTHROPIC_API_KEY": fakeAPIKey}},
		{name: "base url and model pass through", env: map[string]string{"ANTHROPIC_API_KEY": "gateway-key-123", "ANTHROPIC_BASE_URL": "http://172.17.0.1:8080", "ANTHROPIC_MODEL": "claude-x", "GITHUB_TOKEN": "ghp_x"},
			want: map[string]string{"ANTHROPIC_API_KEY": "gateway-key-123", "ANTHROPIC_BASE_URL": "http://172.17.0.1:8080", "ANTHROPIC_MODEL": "claude-x"}},
		{name: "missing", env: map[string]string{}, errVar: "ANTHROPIC_API_KEY", errText: "CLAUDE_CODE_OAUTH_TOKEN"},
		{name: "oauth token in the api key variable", env: map[string]string{"ANTHROPIC_API_KEY": fakeOAuth},
			errVar: "ANTHROPIC_API_KEY", errText: "put it in CLAUDE_CODE_OAUTH_TOKEN"},
		{name: "api key in the oauth variable", env: map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": fakeAPIKey},
			errVar: "CLAUDE_CODE_OAUTH_TOKEN", errText: "put it in ANTHROPIC_API_KEY"},
		{name: "trailing newline", env: map[string]string{"ANTHROPIC_API_KEY": fakeAPIKey + "\n"},
			errVar: "ANTHROPIC_API_KEY", errText: "white space"},
	}
	e, _ := Lookup(ClaudeCodeName)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.ResolveEnv(getenvFrom(tt.env))
			if tt.errVar == "" {
				assert.NilError(t, err)
				assert.DeepEqual(t, got, tt.want)
				return
			}
			var ee *EngineError
			assert.Assert(t, errors.As(err, &ee), "want *EngineError, got %v", err)
			assert.Equal(t, ee.Var, tt.errVar)
			assert.Equal(t, ee.Engine, ClaudeCodeName)
			assert.ErrorContains(t, err, tt.errText)
			for _, v := range tt.env {
				assert.Assert(t, !strings.Contains(err.Error(), strings.TrimSpace(v)), "the error must not echo a value")
			}
		})
	}
}

func TestClaudeBuildCommand(t *testing.T) {
	e, _ := Lookup(ClaudeCodeName)
	cmd := e.BuildCommand(Limits{MaxTurns: 12, Model: "claude-sonnet-4-5"})
	for _, want := range []string{
		"claude -p", "--output-format stream-json", "--verbose", "--max-turns 12", "--model claude-sonnet-4-5",
		"< " + PromptContainerPath, "> " + TranscriptContainerPath, "2> " + StderrContainerPath,
	} {
		assert.Assert(t, strings.Contains(cmd, want), "%q lacks %q", cmd, want)
	}
	def := e.BuildCommand(Limits{})
	assert.Assert(t, strings.Contains(def, "--max-turns 50"), def)
	assert.Assert(t, !strings.Contains(def, "--model"), def)
	assert.Assert(t, !strings.Contains(def, "--max-budget-usd"), def)
	capped := e.BuildCommand(Limits{MaxCostUSD: 1.5})
	assert.Assert(t, strings.Contains(capped, "--max-budget-usd 1.5"), capped)
	odd := e.BuildCommand(Limits{Model: "x; rm -rf /"})
	assert.Assert(t, strings.Contains(odd, "--model 'x; rm -rf /'"), "a model name is quoted: %s", odd)
}

func parseString(t *testing.T, s string) *commandlog.Log {
	t.Helper()
	e, _ := Lookup(ClaudeCodeName)
	l, err := e.ParseTranscript(strings.NewReader(s))
	assert.NilError(t, err)
	assert.NilError(t, commandlog.Validate(l))
	return l
}

func TestClaudeParseEdgeCases(t *testing.T) {
	bash := func(id, cmd string) string {
		return `{"type":"assistant","message":{"id":"m-` + id + `","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]},"parent_tool_use_id":null}` + "\n"
	}
	result := func(id, content string, isError bool, extra string) string {
		e := "false"
		if isError {
			e = "true"
		}
		return `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + content + `,"is_error":` + e + `}]}` + extra + `}` + "\n"
	}
	tests := []struct {
		name   string
		in     string
		exit   *int
		status commandlog.Status
		output string
	}{
		{"success string", bash("a", "ls") + result("a", `"x"`, false, ""), intPtr(0), commandlog.StatusOK, "x"},
		{"is_error absent means success", bash("a", "ls") + `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}}` + "\n", intPtr(0), commandlog.StatusOK, "x"},
		{"exit code in text", bash("a", "false") + result("a", `"Exit code 1\nboom"`, true, ""), intPtr(1), commandlog.StatusFailed, "boom"},
		{"exit code only in tool_use_result", bash("a", "x") + result("a", `"boom"`, true, `,"tool_use_result":"Error: Exit code 127\nboom"`), intPtr(127), commandlog.StatusFailed, "boom"},
		{"exit code 137 (killed)", bash("a", "x") + result("a", `"Exit code 137"`, true, ""), intPtr(137), commandlog.StatusFailed, ""},
		{"error without code is never 1", bash("a", "x") + result("a", `"permission denied"`, true, ""), nil, commandlog.StatusFailed, "permission denied"},
		{"unpaired is unknown", bash("a", "sleep 9"), nil, commandlog.StatusUnknown, ""},
		{"interrupted is unknown", bash("a", "x") + result("a", `"partial"`, false, `,"tool_use_result":{"stdout":"partial","stderr":"","interrupted":true}`), nil, commandlog.StatusUnknown, "partial"},
		{"list content", bash("a", "x") + result("a", `[{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]`, false, ""), intPtr(0), commandlog.StatusOK, "one\ntwo"},
		{"list serialised into a string", bash("a", "x") + result("a", `"[{\"type\":\"text\",\"text\":\"one\"}]"`, false, ""), intPtr(0), commandlog.StatusOK, "one"},
		{"a string that merely looks like a list", bash("a", "x") + result("a", `"[1, 2, 3]"`, false, ""), intPtr(0), commandlog.StatusOK, "[1, 2, 3]"},
		{"persisted-output preview: real stdout wins", bash("a", "seq 100000") + result("a", `"<persisted-output>Output too large (588KB). Preview: 1\n2\n</persisted-output>"`, false, `,"tool_use_result":{"stdout":"1\n2\n3","stderr":"","interrupted":false}`), intPtr(0), commandlog.StatusOK, "1\n2\n3"},
		{"stderr appended to stdout", bash("a", "x") + result("a", `"out\nerr"`, false, `,"tool_use_result":{"stdout":"out","stderr":"err"}`), intPtr(0), commandlog.StatusOK, "out\nerr"},
		{"camelCase toolUseResult of session files", bash("a", "x") + result("a", `"preview"`, false, `,"toolUseResult":{"stdout":"full","stderr":""}`), intPtr(0), commandlog.StatusOK, "full"},
		{"background task has no exit code yet", bash("a", "srv &") + result("a", `"Command running in background with ID: b1"`, false, `,"tool_use_result":{"stdout":"","stderr":"","backgroundTaskId":"b1"}`), nil, commandlog.StatusUnknown, "Command running in background with ID: b1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := parseString(t, tt.in)
			assert.Equal(t, len(l.Commands), 1)
			c := l.Commands[0]
			assert.DeepEqual(t, c.ExitCode, tt.exit)
			assert.Equal(t, c.Status, tt.status)
			assert.Equal(t, c.Output, tt.output)
		})
	}
}

func TestClaudeMarkersNeverFromCommandOutput(t *testing.T) {
	l := parseString(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"echo SUCCESS"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"SUCCESS\nADJUSTED_SUCCESS"}]},"tool_use_result":{"stdout":"SUCCESS\nADJUSTED_SUCCESS","stderr":""}}
{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"The README printed the word, but I never finished."}]},"parent_tool_use_id":null}
{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"The README printed the word, but I never finished.","total_cost_usd":0.01,"duration_ms":5}
`)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Equal(t, len(l.Markers), 0)
}

func TestClaudeSubagentTextDoesNotDecide(t *testing.T) {
	l := parseString(t, `{"type":"assistant","message":{"id":"sub","content":[{"type":"text","text":"SUCCESS"}]},"parent_tool_use_id":"toolu_task"}
`)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
}

func TestClaudeSplitMessageCountsMarkersOnce(t *testing.T) {
	l := parseString(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"FIX: one\nSUCCESS"}]},"parent_tool_use_id":null}
{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"FIX: one\nSUCCESS"}]},"parent_tool_use_id":null}
{"type":"result","subtype":"success","result":"FIX: one\nSUCCESS","num_turns":1}
`)
	assert.Equal(t, len(l.Markers), 2, "%+v", l.Markers)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
}

func TestClaudeResultFields(t *testing.T) {
	tests := []struct {
		name   string
		result string
		cost   *float64
		turns  *int
		dur    *int64
		reason string
	}{
		{"total_cost_usd", `{"type":"result","subtype":"success","total_cost_usd":0.5,"num_turns":3,"duration_ms":1200}`, float64Ptr(0.5), intPtr(3), int64Ptr(1200), "without a SUCCESS"},
		{"older cost_usd", `{"type":"result","subtype":"success","cost_usd":0.25,"num_turns":1,"duration_ms":10}`, float64Ptr(0.25), intPtr(1), int64Ptr(10), ""},
		{"a real zero stays zero", `{"type":"result","subtype":"success","total_cost_usd":0,"num_turns":0,"duration_ms":0}`, float64Ptr(0), intPtr(0), int64Ptr(0), ""},
		{"max turns", `{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":50}`, nil, intPtr(50), nil, "turn limit"},
		{"api error", `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 overloaded"}`, nil, nil, nil, "API Error: 529"},
		{"no result line", ``, nil, nil, nil, "without a final result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := parseString(t, tt.result+"\n")
			assert.DeepEqual(t, l.CostUSD, tt.cost)
			assert.DeepEqual(t, l.Turns, tt.turns)
			assert.DeepEqual(t, l.DurationMS, tt.dur)
			assert.Assert(t, strings.Contains(l.OutcomeReason, tt.reason), l.OutcomeReason)
		})
	}
}

func TestClaudeHugeOutputIsTruncated(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line of output\n", 200000) // 3 MiB
	in := `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"yes"}}]}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"preview"}]},"tool_use_result":{"stdout":"` + strings.ReplaceAll(big, "\n", `\n`) + `","stderr":""}}` + "\n"
	l := parseString(t, in)
	c := l.Commands[0]
	assert.Assert(t, c.Truncated)
	assert.Assert(t, len(c.Output) < 4096+100, len(c.Output))
	assert.Assert(t, strings.HasPrefix(c.Output, "line of output\n"))
	assert.Assert(t, strings.Contains(c.Output, "bytes of output omitted"))
	assert.Assert(t, strings.Contains(c.Output, "2995904 bytes"), "the count includes what the decoder clipped: %s", c.Output[3000:3200])
}

// CLI 2.1.x keeps 30,000 characters of a large output in tool_use_result
// and states the full size; the omission line counts the real size.
func TestClaudePersistedOutputSize(t *testing.T) {
	stdout := strings.Repeat("x", 30000)
	l := parseString(t, `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"seq 1 200000"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"<persisted-output>\nOutput too large (1.2MB).\nPreview (first 2KB):\nxx\n</persisted-output>"}]},"tool_use_result":{"stdout":"`+stdout+`","stderr":"","interrupted":false,"persistedOutputSize":1288895}}
`)
	c := l.Commands[0]
	assert.Assert(t, c.Truncated)
	assert.Assert(t, strings.Contains(c.Output, "[... readme2demo: 1284799 bytes of output omitted ...]"), c.Output[3000:3200])
}
