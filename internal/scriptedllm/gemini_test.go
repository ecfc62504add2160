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

// geminiPost posts body to the mock's models/{call} path and returns the response.
func geminiPost(t *testing.T, url, call, query string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	assert.NilError(t, err)
	if query != "" {
		query = "?" + query
	}
	resp, err := http.Post(url+"/v1beta/models/"+call+query, "application/json", bytes.NewReader(b))
	assert.NilError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// geminiSSE reads the "data:" payloads of an SSE response.
func geminiSSE(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	assert.Check(t, is.Contains(resp.Header.Get("Content-Type"), "text/event-stream"))
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			assert.NilError(t, json.Unmarshal([]byte(data), &m))
			out = append(out, m)
		} else {
			assert.Check(t, is.Equal(line, ""), "unexpected SSE line")
		}
	}
	assert.NilError(t, sc.Err())
	return out
}

// candidate is a response's first candidate.
func candidate(r map[string]any) map[string]any {
	return r["candidates"].([]any)[0].(map[string]any)
}

func partsOf(r map[string]any) []any {
	return candidate(r)["content"].(map[string]any)["parts"].([]any)
}

// geminiTools declares the named functions as Gemini CLI does.
func geminiTools(names ...string) []any {
	var decls []any
	for _, n := range names {
		decls = append(decls, map[string]any{"name": n, "description": n, "parametersJsonSchema": map[string]any{"type": "object"}})
	}
	return []any{map[string]any{"functionDeclarations": decls}}
}

// TestGeminiStreamGenerateContent checks the SSE a Gemini API client sees: the text in chunks
// that add up, the scenario's calls as the CLI's tools in the last chunk with finishReason and
// usage, and the function responses of the next request recorded as tool results.
func TestGeminiStreamGenerateContent(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{
		Run("Looking around the project.", Bash("ls -la"), Write("/w/a.txt", "one\n"),
			Edit("/w/a.txt", "one", "two"), Read("/w/a.txt"), ToolCall{Name: "glob", Input: map[string]any{"pattern": "*.md"}}),
	}, FinalText: "All done.\nSUCCESS"})
	assert.NilError(t, err)
	defer srv.Close()
	user := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "go"}}}
	body := map[string]any{
		"contents":          []any{user},
		"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are Gemini CLI."}}},
		"tools":             geminiTools("run_shell_command", "write_file", "replace", "read_file", "glob"),
	}
	chunks := geminiSSE(t, geminiPost(t, srv.URL(), "gemini-3.8-flash:streamGenerateContent", "alt=sse", body))

	assert.Assert(t, len(chunks) >= 2)
	var text strings.Builder
	for i, c := range chunks {
		last := i == len(chunks)-1
		_, hasFinish := candidate(c)["finishReason"]
		assert.Check(t, is.Equal(hasFinish, last), "finishReason only in the last chunk (chunk %d)", i)
		_, hasUsage := c["usageMetadata"]
		assert.Check(t, is.Equal(hasUsage, last), "usage only in the last chunk (chunk %d)", i)
		assert.Check(t, is.Equal(c["modelVersion"], "gemini-3.8-flash"))
		if !last {
			assert.Assert(t, is.Len(partsOf(c), 1))
			text.WriteString(partsOf(c)[0].(map[string]any)["text"].(string))
		}
	}
	assert.Check(t, is.Equal(text.String(), "Looking around the project."))
	last := chunks[len(chunks)-1]
	assert.Check(t, is.Equal(candidate(last)["finishReason"], "STOP"))
	usage := last["usageMetadata"].(map[string]any)
	assert.Check(t, is.Equal(usage["promptTokenCount"], float64(UsageInputTokens)))
	assert.Check(t, is.Equal(usage["candidatesTokenCount"], float64(UsageOutputTokens)))
	var calls []map[string]any
	for _, p := range partsOf(last) {
		fc := p.(map[string]any)["functionCall"].(map[string]any)
		_, hasID := fc["id"]
		assert.Check(t, !hasID, "the real API sends no call id")
		calls = append(calls, fc)
	}
	assert.Check(t, is.DeepEqual(calls, []map[string]any{
		{"name": "run_shell_command", "args": map[string]any{"command": "ls -la", "description": "Run ls -la"}},
		{"name": "write_file", "args": map[string]any{"file_path": "/w/a.txt", "content": "one\n"}},
		{"name": "replace", "args": map[string]any{"file_path": "/w/a.txt", "old_string": "one", "new_string": "two", "instruction": "Replace the text as asked."}},
		{"name": "read_file", "args": map[string]any{"file_path": "/w/a.txt"}},
		{"name": "glob", "args": map[string]any{"pattern": "*.md"}},
	}))

	// The CLI's next request carries the function responses; the turns are exhausted, so the
	// answer is the final text.
	body["contents"] = []any{user,
		map[string]any{"role": "model", "parts": partsOf(last)},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "run_shell_command", "response": map[string]any{"output": "Output: total 0"}}},
			map[string]any{"functionResponse": map[string]any{"id": "c2", "name": "replace", "response": map[string]any{"error": "no match"}}},
		}},
	}
	final := geminiSSE(t, geminiPost(t, srv.URL(), "gemini-3.8-flash:streamGenerateContent", "alt=sse", body))
	text.Reset()
	for _, c := range final {
		for _, p := range partsOf(c) {
			text.WriteString(p.(map[string]any)["text"].(string))
		}
	}
	assert.Check(t, is.Equal(text.String(), "All done.\nSUCCESS"))
	reqs := srv.Requests()
	assert.Assert(t, is.Len(reqs, 2))
	assert.Check(t, is.Equal(reqs[0].Kind, KindTurn))
	assert.Check(t, is.Equal(reqs[0].Model, "gemini-3.8-flash"))
	assert.Check(t, reqs[0].Stream)
	assert.Check(t, is.Equal(reqs[0].System, "You are Gemini CLI."))
	assert.Check(t, is.DeepEqual(reqs[0].Tools, []string{"run_shell_command", "write_file", "replace", "read_file", "glob"}))
	assert.Check(t, is.Equal(reqs[1].Kind, KindFinal))
	assert.Check(t, is.DeepEqual(reqs[1].ToolResults, []ToolResult{
		{ToolUseID: "c1", Content: "Output: total 0"},
		{ToolUseID: "c2", Content: "no match", IsError: true},
	}))
}

// TestGeminiSideRequests: requests without function declarations consume no turn. A JSON
// request (the CLI's model router, next-speaker and loop checks) gets an object shaped by its
// schema; generateContent answers one JSON response, streamGenerateContent without alt=sse a
// JSON array; countTokens and unknown methods are answered and recorded.
func TestGeminiSideRequests(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{Say("SUCCESS")}})
	assert.NilError(t, err)
	defer srv.Close()
	jsonReq := func(schema map[string]any) map[string]any {
		return map[string]any{
			"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "route this"}}}},
			"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": schema},
		}
	}
	decode := func(resp *http.Response, v any) {
		t.Helper()
		assert.Equal(t, resp.StatusCode, http.StatusOK)
		assert.NilError(t, json.NewDecoder(resp.Body).Decode(v))
	}
	tests := []struct {
		name   string
		schema map[string]any
		want   map[string]any
	}{
		{"router (Gemini schema types)", map[string]any{"type": "OBJECT", "properties": map[string]any{
			"complexity_reasoning": map[string]any{"type": "STRING"}, "complexity_score": map[string]any{"type": "INTEGER"}}},
			map[string]any{"complexity_reasoning": "mock", "complexity_score": float64(1)}},
		{"next speaker is the user", map[string]any{"type": "object", "properties": map[string]any{
			"reasoning": map[string]any{"type": "string"}, "next_speaker": map[string]any{"type": "string", "enum": []any{"model", "user"}}}},
			map[string]any{"reasoning": "mock", "next_speaker": "user"}},
		{"enum, array, boolean, nullable", map[string]any{"type": "object", "properties": map[string]any{
			"choice": map[string]any{"type": "string", "enum": []any{"flash", "pro"}},
			"list":   map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
			"flag":   map[string]any{"type": "boolean"},
			"maybe":  map[string]any{"type": []any{"null", "integer"}}}},
			map[string]any{"choice": "flash", "list": []any{float64(1)}, "flag": false, "maybe": float64(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			decode(geminiPost(t, srv.URL(), "gemini-3.5-flash-lite:generateContent", "", jsonReq(tc.schema)), &got)
			text := partsOf(got)[0].(map[string]any)["text"].(string)
			var answer map[string]any
			assert.NilError(t, json.Unmarshal([]byte(text), &answer))
			assert.Check(t, is.DeepEqual(answer, tc.want))
			assert.Check(t, is.Equal(candidate(got)["finishReason"], "STOP"))
		})
	}

	// A plain side request, streamed without alt=sse: a JSON array of chunks.
	var arr []map[string]any
	decode(geminiPost(t, srv.URL(), "gemini-3.5-flash-lite:streamGenerateContent", "", map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "title?"}}}},
	}), &arr)
	assert.Assert(t, is.Len(arr, 1))
	assert.Check(t, is.Equal(partsOf(arr[0])[0].(map[string]any)["text"], "OK"))

	var count map[string]any
	decode(geminiPost(t, srv.URL(), "gemini-3.8-flash:countTokens", "", map[string]any{"contents": []any{}}), &count)
	assert.Check(t, is.Equal(count["totalTokens"], float64(UsageInputTokens)))

	resp := geminiPost(t, srv.URL(), "gemini-3.8-flash:embedContent", "", map[string]any{})
	b, _ := io.ReadAll(resp.Body)
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusNotFound))
	assert.Check(t, is.Contains(string(b), "no such method embedContent"))

	assert.Check(t, is.Equal(srv.TurnsServed(), 0), "side requests must not consume a turn")
	var kinds []RequestKind
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Kind)
	}
	assert.Check(t, is.DeepEqual(kinds, []RequestKind{KindSide, KindSide, KindSide, KindSide, KindCountTokens, KindUnknown}))
}
