package scriptedllm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// api describes one mocked API for TestRetriedRequestsGetTheSameAnswer: where a CLI posts its
// main-conversation requests, and the request body a CLI sends after `exchanges` answers (the
// prompt, then each answer's tool call and the tool's result), as that API spells it.
type api struct {
	name, path string
	request    func(exchanges int) map[string]any
}

var apis = []api{
	{name: "anthropic messages (Claude Code)", path: "/v1/messages?beta=true", request: func(n int) map[string]any {
		results := make([]any, n)
		for i := range results {
			results[i] = []any{map[string]any{"type": "tool_result", "tool_use_id": ToolUseID(i, 0), "content": fmt.Sprint("output ", i)}}
		}
		return body(conversation("Follow the README.", results...), true, "Bash", "Edit")
	}},
	{name: "openai responses (Codex)", path: "/v1/responses", request: func(n int) map[string]any {
		input := []any{map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": "Follow the README."}}}}
		for i := range n {
			input = append(input,
				map[string]any{"type": "function_call", "call_id": ToolUseID(i, 0), "name": "exec_command",
					"arguments": fmt.Sprintf(`{"cmd":"step %d"}`, i)},
				map[string]any{"type": "function_call_output", "call_id": ToolUseID(i, 0), "output": fmt.Sprint("output ", i)})
		}
		return map[string]any{"model": "gpt-5.5", "stream": true, "input": input,
			"tools": []any{map[string]any{"type": "function", "name": "exec_command"}}}
	}},
	{name: "gemini streamGenerateContent (Gemini CLI)", path: "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", request: func(n int) map[string]any {
		contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Follow the README."}}}}
		for i := range n {
			contents = append(contents,
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{
					"name": "run_shell_command", "args": map[string]any{"command": fmt.Sprint("step ", i)}}}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
					"id": fmt.Sprint("call-", i), "name": "run_shell_command", "response": map[string]any{"output": fmt.Sprint("output ", i)}}}}})
		}
		return map[string]any{"contents": contents, "tools": geminiTools("run_shell_command")}
	}},
}

// TestRetriedRequestsGetTheSameAnswer: a CLI on a loaded machine may retry a request (its
// first answer came too late, or the connection broke). The retry carries the same conversation
// and must get the same answer, byte for byte, without consuming a turn; otherwise the scenario
// shifts and a scripted command is skipped. Each new request carries one more exchange and gets
// the next turn, then the final text. For every API the mock speaks.
func TestRetriedRequestsGetTheSameAnswer(t *testing.T) {
	sc := Scenario{Turns: []Turn{
		Run("First.", Bash("echo first-step")),
		Run("", Bash("echo second-step")),
		Run("", Bash("echo third-step")),
	}, FinalText: "All done.\nSUCCESS"}
	steps := []struct {
		exchanges  int // the conversation sent: prompt plus this many answers with their results
		wantKind   RequestKind
		wantTurn   int
		wantRepeat bool
		want       string // in the answer
	}{
		{0, KindTurn, 0, false, "first-step"},
		{0, KindTurn, 0, true, "first-step"}, // the first request retried
		{1, KindTurn, 1, false, "second-step"},
		{2, KindTurn, 2, false, "third-step"},
		{2, KindTurn, 2, true, "third-step"},
		{2, KindTurn, 2, true, "third-step"}, // and retried again
		{3, KindFinal, -1, false, "All d"},   // the final text, in deltas
		{3, KindFinal, -1, true, "All d"},
		{4, KindFinal, -1, false, "All d"},
	}
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			srv := startMock(t, sc)
			first := map[int][]byte{} // the answer to each conversation, as first sent
			for i, step := range steps {
				b, err := json.Marshal(a.request(step.exchanges))
				assert.NilError(t, err)
				resp, err := http.Post(srv.URL()+a.path, "application/json", bytes.NewReader(b))
				assert.NilError(t, err)
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.NilError(t, err)
				assert.Assert(t, is.Equal(resp.StatusCode, http.StatusOK), "step %d: %s", i, got)
				assert.Check(t, is.Contains(string(got), step.want), "step %d", i)
				if step.wantRepeat {
					assert.Check(t, bytes.Equal(got, first[step.exchanges]), "step %d: a retry got another answer:\n%s\nfirst:\n%s", i, got, first[step.exchanges])
				} else {
					first[step.exchanges] = got
				}
				r := srv.Requests()[i]
				assert.Check(t, is.Equal(r.Kind, step.wantKind), "step %d", i)
				assert.Check(t, is.Equal(r.Turn, step.wantTurn), "step %d", i)
				assert.Check(t, is.Equal(r.Repeat, step.wantRepeat), "step %d", i)
				assert.Check(t, is.Equal(r.ConsumedTurn(), step.wantKind == KindTurn && !step.wantRepeat), "step %d", i)
			}
			assert.Check(t, is.Equal(srv.TurnsServed(), len(sc.Turns)))
		})
	}
}

// TestConversationKeyIgnoresCacheMarkers: a client may move its prompt-cache markers between
// sends of the same conversation; the conversation is the same. Anything else that differs
// makes another conversation.
func TestConversationKeyIgnoresCacheMarkers(t *testing.T) {
	key := func(s string) string { return conversationKey(json.RawMessage(s)) }
	base := `[{"role":"user","content":[{"type":"text","text":"go"}]}]`
	assert.Check(t, is.Equal(key(base), key(`[{"role":"user","content":[{"type":"text","text":"go","cache_control":{"type":"ephemeral"}}]}]`)))
	assert.Check(t, is.Equal(key(base), key(`[ {"content":[{"text":"go","type":"text"}],"role":"user"} ]`)), "same JSON, other spelling")
	assert.Check(t, key(base) != key(`[{"role":"user","content":[{"type":"text","text":"go on"}]}]`))
	assert.Check(t, key(base) != key(`[{"role":"assistant","content":[{"type":"text","text":"go"}]}]`))
	assert.Check(t, conversationKey(json.RawMessage(base), json.RawMessage(`"resp_1"`)) !=
		conversationKey(json.RawMessage(base), json.RawMessage(`"resp_2"`)), "previous_response_id names another conversation")
}
