package scriptedllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// sseEvents posts body to the mock and returns the SSE data payloads.
func sseEvents(t *testing.T, url string, body map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(body)
	assert.NilError(t, err)
	resp, err := http.Post(url+"/v1/responses", "application/json", bytes.NewReader(b))
	assert.NilError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	assert.Check(t, is.Contains(resp.Header.Get("Content-Type"), "text/event-stream"))
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
			continue
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			assert.NilError(t, json.Unmarshal([]byte(data), &m))
			assert.Check(t, is.Equal(m["type"], event), "event name and data type differ")
			out = append(out, m)
		}
	}
	assert.NilError(t, sc.Err())
	return out
}

func eventsOf(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestOpenAIResponsesStream checks the SSE a Responses API client sees, for every tool set
// codex generations offer: the scenario's Bash and Write become the offered tools' calls, the
// deltas add up to the finished items, and the usage arrives in response.completed.
func TestOpenAIResponsesStream(t *testing.T) {
	fn := func(name string) map[string]any { return map[string]any{"type": "function", "name": name} }
	custom := func(name string) map[string]any { return map[string]any{"type": "custom", "name": name} }
	patch := "*** Begin Patch\n*** Add File: /w/a.txt\n+one\n+two\n*** End Patch\n"
	tests := []struct {
		name      string
		tools     []any // request "tools"
		extra     []any // request input items before the user message (additional_tools)
		bashName  string
		bashKind  string // function_call or custom_tool_call
		bashArgs  string // arguments JSON or custom input
		patchName string
		patchKind string
		patchBody string
	}{
		{name: "exec_command+custom apply_patch (gpt-5.x)", tools: []any{fn("exec_command"), custom("apply_patch")},
			bashName: "exec_command", bashKind: "function_call", bashArgs: `{"cmd":"ls -la"}`,
			patchName: "apply_patch", patchKind: "custom_tool_call", patchBody: patch},
		{name: "shell_command+function apply_patch", tools: []any{fn("shell_command"), fn("apply_patch")},
			bashName: "shell_command", bashKind: "function_call", bashArgs: `{"command":"ls -la"}`,
			patchName: "apply_patch", patchKind: "function_call", patchBody: mustJSON(map[string]any{"input": patch})},
		{name: "shell argv (older codex)", tools: []any{fn("shell")},
			bashName: "shell", bashKind: "function_call", bashArgs: `{"command":["bash","-lc","ls -la"]}`,
			patchName: "shell", patchKind: "function_call", patchBody: mustJSON(map[string]any{"command": []string{"apply_patch", patch}})},
		{name: "code mode exec (codex default model)",
			extra: []any{map[string]any{"type": "additional_tools", "role": "developer", "tools": []any{
				map[string]any{"type": "namespace", "name": "functions", "tools": []any{custom("exec"), fn("wait")}}}}},
			bashName: "exec", bashKind: "custom_tool_call", bashArgs: "const r = await tools.exec_command({\"cmd\":\"ls -la\"});\ntext(r);\n",
			patchName: "exec", patchKind: "custom_tool_call", patchBody: "const r = await tools.apply_patch(" + mustJSON(patch) + ");\ntext(r);\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{
				Run("Looking around.", Bash("ls -la"), Write("/w/a.txt", "one\ntwo\n")),
			}, FinalText: "All done.\nSUCCESS"})
			assert.NilError(t, err)
			defer srv.Close()
			input := append(append([]any{}, tc.extra...), map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": "go"}}})
			body := map[string]any{"model": "gpt-5.5", "stream": true, "input": input}
			if tc.tools != nil {
				body["tools"] = tc.tools
			}
			evs := sseEvents(t, srv.URL(), body)

			assert.Assert(t, len(evs) > 4)
			assert.Check(t, is.Equal(evs[0]["type"], "response.created"))
			assert.Check(t, is.Equal(evs[len(evs)-1]["type"], "response.completed"))
			for i, e := range evs {
				assert.Check(t, is.Equal(e["sequence_number"], float64(i)))
			}
			done := eventsOf(evs, "response.output_item.done")
			assert.Assert(t, is.Len(done, 3))
			msg, bash, edit := done[0]["item"].(map[string]any), done[1]["item"].(map[string]any), done[2]["item"].(map[string]any)
			assert.Check(t, is.Equal(msg["type"], "message"))
			assert.Check(t, is.Equal(deltaText(evs, "response.output_text.delta", msg["id"]), "Looking around."))
			for _, c := range []struct {
				item               map[string]any
				name, kind, body   string
				wantCallID, wantID string
			}{
				{bash, tc.bashName, tc.bashKind, tc.bashArgs, ToolUseID(0, 0), ""},
				{edit, tc.patchName, tc.patchKind, tc.patchBody, ToolUseID(0, 1), ""},
			} {
				assert.Check(t, is.Equal(c.item["type"], c.kind))
				assert.Check(t, is.Equal(c.item["name"], c.name))
				assert.Check(t, is.Equal(c.item["call_id"], c.wantCallID))
				field, delta := "arguments", "response.function_call_arguments.delta"
				if c.kind == "custom_tool_call" {
					field, delta = "input", "response.custom_tool_call_input.delta"
				}
				assert.Check(t, is.Equal(c.item[field], c.body))
				assert.Check(t, is.Equal(deltaText(evs, delta, c.item["id"]), c.body), "deltas must add up")
			}
			completed := evs[len(evs)-1]["response"].(map[string]any)
			usage := completed["usage"].(map[string]any)
			assert.Check(t, is.Equal(usage["input_tokens"], float64(UsageInputTokens)))
			assert.Check(t, is.Equal(usage["output_tokens"], float64(UsageOutputTokens)))
			assert.Check(t, is.Len(completed["output"], 3))

			// The CLI's answer carries the tool outputs; the mock records them and answers with
			// the final text once the turns are exhausted.
			body["input"] = append(input,
				map[string]any{"type": "function_call_output", "call_id": ToolUseID(0, 0), "output": "total 0"},
				map[string]any{"type": "custom_tool_call_output", "call_id": ToolUseID(0, 1),
					"output": []any{map[string]any{"type": "input_text", "text": "Success."}}})
			evs = sseEvents(t, srv.URL(), body)
			final := eventsOf(evs, "response.output_item.done")
			assert.Assert(t, is.Len(final, 1))
			assert.Check(t, is.Equal(deltaText(evs, "response.output_text.delta", final[0]["item"].(map[string]any)["id"]), "All done.\nSUCCESS"))
			reqs := srv.Requests()
			assert.Assert(t, is.Len(reqs, 2))
			assert.Check(t, is.Equal(reqs[0].Kind, KindTurn))
			assert.Check(t, is.Equal(reqs[1].Kind, KindFinal))
			assert.Check(t, is.DeepEqual(reqs[1].ToolResults, []ToolResult{
				{ToolUseID: ToolUseID(0, 0), Content: "total 0"},
				{ToolUseID: ToolUseID(0, 1), Content: "Success."},
			}))
		})
	}
}

// TestOpenAISideAndErrors: a request without tools is answered without consuming a turn; a
// non-streaming request gets the response object; a bad body is a 400 in the API's shape.
func TestOpenAISideAndErrors(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{Say("SUCCESS")}})
	assert.NilError(t, err)
	defer srv.Close()

	resp, err := http.Post(srv.URL()+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"title?"}`))
	assert.NilError(t, err)
	var got map[string]any
	assert.NilError(t, json.NewDecoder(resp.Body).Decode(&got))
	resp.Body.Close()
	assert.Check(t, is.Equal(got["status"], "completed"))
	assert.Check(t, is.Equal(srv.TurnsServed(), 0), "a side request must not consume a turn")

	resp, err = http.Post(srv.URL()+"/v1/responses", "application/json", strings.NewReader(`{"tools":[`))
	assert.NilError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusBadRequest))
	assert.Check(t, is.Contains(string(b), `"invalid_request_error"`))
}

func deltaText(evs []map[string]any, typ string, itemID any) string {
	var b strings.Builder
	for _, e := range eventsOf(evs, typ) {
		if e["item_id"] == itemID {
			b.WriteString(e["delta"].(string))
		}
	}
	return b.String()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
