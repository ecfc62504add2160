package scriptedllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func startMock(t *testing.T, sc Scenario) *Server {
	t.Helper()
	srv, err := Start("127.0.0.1:0", sc)
	assert.NilError(t, err)
	t.Cleanup(func() { assert.Check(t, srv.Close()) })
	return srv
}

// conversation is a Messages API message list as a CLI sends it: the prompt, then for every
// earlier answer the assistant message (a Bash tool call) and the user message carrying its
// result. A CLI's next request carries one more exchange than the one before; a retried request
// carries the same list again.
func conversation(prompt any, results ...any) []any {
	msgs := []any{map[string]any{"role": "user", "content": prompt}}
	for i, r := range results {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{
				"type": "tool_use", "id": ToolUseID(i, 0), "name": "Bash", "input": map[string]any{"command": fmt.Sprint("step ", i)},
			}}},
			map[string]any{"role": "user", "content": r})
	}
	return msgs
}

// body is a Messages API request body carrying msgs. No tools means none are offered.
func body(msgs []any, stream bool, tools ...string) map[string]any {
	b := map[string]any{"model": "claude-test", "max_tokens": 100, "stream": stream, "messages": msgs,
		"system": []any{map[string]any{"type": "text", "text": "You are a test."}}}
	if len(tools) > 0 {
		var ts []any
		for _, n := range tools {
			ts = append(ts, map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}})
		}
		b["tools"] = ts
	}
	return b
}

func post(t *testing.T, url string, v any) *http.Response {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	assert.NilError(t, err)
	req.Header.Set("x-api-key", "anything")
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	assert.NilError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	name string
	data map[string]any
}

// readSSE parses an SSE body strictly: every event is "event: X\ndata: {json}\n\n" and X equals
// the data's "type".
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, ok := strings.CutPrefix(line, "event: ")
		assert.Assert(t, ok, "want an event line, got %q", line)
		assert.Assert(t, sc.Scan(), "event %s has no data line", name)
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		assert.Assert(t, ok, "want a data line, got %q", sc.Text())
		var obj map[string]any
		assert.NilError(t, json.Unmarshal([]byte(data), &obj))
		assert.Check(t, is.Equal(obj["type"], name))
		assert.Assert(t, sc.Scan() && sc.Text() == "", "event %s not terminated by a blank line", name)
		events = append(events, sseEvent{name, obj})
	}
	assert.NilError(t, sc.Err())
	return events
}

// assemble rebuilds the message from SSE events as a client must, checking the order.
func assemble(t *testing.T, events []sseEvent) map[string]any {
	t.Helper()
	assert.Assert(t, len(events) >= 4)
	assert.Equal(t, events[0].name, "message_start")
	assert.Equal(t, events[len(events)-1].name, "message_stop")
	msg := events[0].data["message"].(map[string]any)
	assert.Check(t, is.Nil(msg["stop_reason"]))
	var content []map[string]any
	var partial []string
	open := -1
	for _, ev := range events[1 : len(events)-1] {
		d := ev.data
		switch ev.name {
		case "ping":
		case "content_block_start":
			assert.Assert(t, is.Equal(open, -1), "block started while %d is open", open)
			open = int(d["index"].(float64))
			assert.Assert(t, is.Equal(open, len(content)))
			content = append(content, d["content_block"].(map[string]any))
			partial = append(partial, "")
		case "content_block_delta":
			assert.Assert(t, is.Equal(int(d["index"].(float64)), open))
			delta := d["delta"].(map[string]any)
			switch delta["type"] {
			case "text_delta":
				content[open]["text"] = content[open]["text"].(string) + delta["text"].(string)
			case "input_json_delta":
				partial[open] += delta["partial_json"].(string)
			default:
				t.Fatalf("unexpected delta %v", delta)
			}
		case "content_block_stop":
			assert.Assert(t, is.Equal(int(d["index"].(float64)), open))
			if content[open]["type"] == "tool_use" {
				var input map[string]any
				assert.NilError(t, json.Unmarshal([]byte(partial[open]), &input))
				content[open]["input"] = input
			}
			open = -1
		case "message_delta":
			assert.Assert(t, is.Equal(open, -1))
			msg["stop_reason"] = d["delta"].(map[string]any)["stop_reason"]
			msg["usage"] = d["usage"]
		default:
			t.Fatalf("unexpected event %s", ev.name)
		}
	}
	msg["content"] = content
	return msg
}

func TestStreamFraming(t *testing.T) {
	sc := Scenario{Turns: []Turn{
		Run("Ünïcode text — split into deltas.", Bash("echo 'héllo wörld' && ls -la"), Write("/p/a.txt", "x\ny\n")),
	}}
	srv := startMock(t, sc)
	resp := post(t, srv.URL()+"/v1/messages?beta=true", body(conversation("go"), true, "Bash", "Write"))
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	assert.Check(t, is.Contains(resp.Header.Get("Content-Type"), "text/event-stream"))

	events := readSSE(t, resp.Body)
	var names []string
	for _, ev := range events {
		names = append(names, ev.name)
	}
	assert.Check(t, is.DeepEqual(names[:3], []string{"message_start", "ping", "content_block_start"}))
	assert.Check(t, is.DeepEqual(names[len(names)-2:], []string{"message_delta", "message_stop"}))

	msg := assemble(t, events)
	assert.Check(t, is.Equal(msg["id"], MessageID(0)))
	assert.Check(t, is.Equal(msg["model"], "claude-test"))
	assert.Check(t, is.Equal(msg["stop_reason"], "tool_use"))
	assert.Check(t, is.DeepEqual(msg["usage"], map[string]any{"output_tokens": float64(UsageOutputTokens)}))
	content := msg["content"].([]map[string]any)
	assert.Assert(t, is.Len(content, 3))
	assert.Check(t, is.Equal(content[0]["text"], sc.Turns[0].Text))
	for i, call := range sc.Turns[0].Tools {
		b := content[i+1]
		assert.Check(t, is.Equal(b["type"], "tool_use"))
		assert.Check(t, is.Equal(b["id"], ToolUseID(0, i)))
		assert.Check(t, is.Equal(b["name"], call.Name))
		assert.Check(t, is.DeepEqual(b["input"], call.Input))
	}
}

func TestNonStreamingMessage(t *testing.T) {
	srv := startMock(t, Scenario{Turns: []Turn{Run("hi", Bash("true"))}})
	resp := post(t, srv.URL()+"/v1/messages", body(conversation("go"), false, "Bash"))
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	var msg struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text, ID, Name string
			Input                map[string]any
		} `json:"content"`
		Usage map[string]int `json:"usage"`
	}
	assert.NilError(t, json.NewDecoder(resp.Body).Decode(&msg))
	assert.Check(t, is.Equal(msg.Type, "message"))
	assert.Check(t, is.Equal(msg.Role, "assistant"))
	assert.Check(t, is.Equal(msg.StopReason, "tool_use"))
	assert.Assert(t, is.Len(msg.Content, 2))
	assert.Check(t, is.Equal(msg.Content[1].Input["command"], "true"))
	assert.Check(t, is.Equal(msg.Usage["input_tokens"], UsageInputTokens))
	assert.Check(t, is.Equal(msg.Usage["output_tokens"], UsageOutputTokens))
}

// TestRequestClassification sends requests in order and checks which consume turns: side
// requests never do, each new main-conversation request (one more exchange than the last) takes
// the next turn, and a retried request gets the answer its conversation got before.
func TestRequestClassification(t *testing.T) {
	sc := Scenario{Turns: []Turn{Run("", Bash("a")), Run("", Bash("b"))}, FinalText: "all done"}
	readme := "follow the README"
	steps := []struct {
		name       string
		body       map[string]any
		wantKind   RequestKind
		wantTurn   int
		wantRepeat bool
		wantText   string // expected text block of the answer, when checked
	}{
		{name: "side request without tools (topic detection)", body: body(conversation(`Reply with JSON {"isNewTopic": bool, "title": string}`), true),
			wantKind: KindSide, wantTurn: -1, wantText: `{"isNewTopic": false, "title": null}`},
		{name: "warmup of a sub-agent, with tools", body: body(conversation("Warmup"), true, "Bash"), wantKind: KindSide, wantTurn: -1, wantText: "OK"},
		{name: "first main request", body: body(conversation(readme), true, "Bash", "Edit"), wantKind: KindTurn, wantTurn: 0},
		{name: "1.0.x command prefix side request", body: body(conversation("Your task is to process Bash commands that an AI coding agent wants to run."), false),
			wantKind: KindSide, wantTurn: -1, wantText: "none"},
		{name: "1.0.x file path side request", body: body(conversation("Command: cat x\nFormat: <filepaths>"), true),
			wantKind: KindSide, wantTurn: -1, wantText: "<is_displaying_contents>\nfalse\n</is_displaying_contents>\n\n<filepaths>\n</filepaths>"},
		{name: "sub-agent conversation, with tools", body: body(conversation("explore the repo"), true, "Bash"), wantKind: KindSide, wantTurn: -1, wantText: "OK"},
		{name: "second main request", body: body(conversation(readme, "a done"), true, "Bash", "Edit"), wantKind: KindTurn, wantTurn: 1},
		{name: "the second request retried", body: body(conversation(readme, "a done"), true, "Bash", "Edit"),
			wantKind: KindTurn, wantTurn: 1, wantRepeat: true},
		{name: "after the last turn", body: body(conversation(readme, "a done", "b done"), true, "Bash", "Edit"),
			wantKind: KindFinal, wantTurn: -1, wantText: "all done"},
		{name: "and on", body: body(conversation(readme, "a done", "b done", "go on"), false, "Bash", "Edit"),
			wantKind: KindFinal, wantTurn: -1, wantText: "all done"},
	}
	srv := startMock(t, sc)
	for i, step := range steps {
		resp := post(t, srv.URL()+"/v1/messages?beta=true", step.body)
		assert.Assert(t, is.Equal(resp.StatusCode, http.StatusOK), step.name)
		var msg map[string]any
		if step.body["stream"] == true {
			msg = assemble(t, readSSE(t, resp.Body))
		} else {
			assert.NilError(t, json.NewDecoder(resp.Body).Decode(&msg))
		}
		reqs := srv.Requests()
		assert.Assert(t, is.Len(reqs, i+1), step.name)
		got := reqs[i]
		assert.Check(t, is.Equal(got.Kind, step.wantKind), step.name)
		assert.Check(t, is.Equal(got.Turn, step.wantTurn), step.name)
		assert.Check(t, is.Equal(got.Repeat, step.wantRepeat), step.name)
		assert.Check(t, is.Equal(got.ConsumedTurn(), step.wantKind == KindTurn && !step.wantRepeat), step.name)
		if step.wantText != "" {
			blocks, _ := json.Marshal(msg["content"])
			assert.Check(t, is.Contains(string(blocks), mustJSONString(step.wantText)), step.name)
			assert.Check(t, is.Equal(msg["stop_reason"], "end_turn"), step.name)
		}
	}
	assert.Check(t, is.Equal(srv.TurnsServed(), 2))
	select {
	case <-srv.Exhausted():
	default:
		t.Error("Exhausted not closed after the last turn")
	}
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRecordsToolResults(t *testing.T) {
	srv := startMock(t, Scenario{Turns: []Turn{Run("", Bash("x"))}})
	last := []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_a", "content": "Exit code 2\nboom", "is_error": true},
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_b", "content": []any{
			map[string]any{"type": "text", "text": "one"}, map[string]any{"type": "image"}, map[string]any{"type": "text", "text": "two"},
		}},
		map[string]any{"type": "text", "text": "<system-reminder>ignored</system-reminder>"},
	}
	post(t, srv.URL()+"/v1/messages", body(conversation("go", last), false, "Bash"))
	reqs := srv.Requests()
	assert.Assert(t, is.Len(reqs, 1))
	assert.Check(t, is.DeepEqual(reqs[0].ToolResults, []ToolResult{
		{ToolUseID: "toolu_a", Content: "Exit code 2\nboom", IsError: true},
		{ToolUseID: "toolu_b", Content: "one\ntwo"},
	}))
	assert.Check(t, is.DeepEqual(reqs[0].Tools, []string{"Bash"}))
	assert.Check(t, is.Equal(reqs[0].System, "You are a test."))
	assert.Check(t, is.Equal(reqs[0].Model, "claude-test"))
	assert.Check(t, is.Equal(reqs[0].Stream, false))
}

func TestOtherEndpoints(t *testing.T) {
	srv := startMock(t, Scenario{Turns: []Turn{Say("x")}})
	tests := []struct {
		method, path string
		wantStatus   int
		wantKind     RequestKind
		wantBody     string
	}{
		{http.MethodPost, "/v1/messages/count_tokens?beta=true", 200, KindCountTokens, `"input_tokens":100`},
		{http.MethodHead, "/api/hello", 200, KindOther, ""},
		{http.MethodPost, "/api/event_logging/batch", 200, KindOther, "{}"},
		{http.MethodGet, "/v1/models", 404, KindUnknown, `"not_found_error"`},
		{http.MethodPost, "/v2/whatever", 404, KindUnknown, `"type":"error"`},
	}
	for i, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL()+tc.path, strings.NewReader(`{"model":"m"}`))
			assert.NilError(t, err)
			resp, err := http.DefaultClient.Do(req)
			assert.NilError(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			assert.Check(t, is.Equal(resp.StatusCode, tc.wantStatus))
			assert.Check(t, is.Contains(string(b), tc.wantBody))
			got := srv.Requests()[i]
			assert.Check(t, is.Equal(got.Kind, tc.wantKind))
			assert.Check(t, !got.ConsumedTurn())
		})
	}
	assert.Check(t, is.Equal(srv.TurnsServed(), 0))
}

func TestBadRequestBody(t *testing.T) {
	srv := startMock(t, Scenario{Turns: []Turn{Say("x")}})
	resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader("{not json"))
	assert.NilError(t, err)
	defer resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusBadRequest))
	assert.Check(t, is.Equal(srv.TurnsServed(), 0))
}

// TestConcurrentRequests: under concurrency every turn is served exactly once, and a request
// sent twice at the same time (a CLI retrying while the first is still answered) gets the same
// turn both times (run with -race).
func TestConcurrentRequests(t *testing.T) {
	const n = 16
	var turns []Turn
	for i := range n {
		turns = append(turns, Run("", Bash(fmt.Sprintf("echo %d", i))))
	}
	srv := startMock(t, Scenario{Turns: turns})
	var wg sync.WaitGroup
	for i := range n {
		results := make([]any, i) // conversation i: the prompt and i exchanges
		for j := range results {
			results[j] = fmt.Sprint("result ", j)
		}
		for try := range 2 {
			wg.Go(func() { post(t, srv.URL()+"/v1/messages", body(conversation("main", results...), try == 0, "Bash")) })
		}
		if i%2 == 0 {
			wg.Go(func() { post(t, srv.URL()+"/v1/messages", body(conversation(fmt.Sprint("side ", i)), true)) })
		}
	}
	wg.Wait()
	served := map[int]bool{}
	byConversation := map[int][]Request{} // by number of messages
	kinds := map[RequestKind]int{}
	for _, r := range srv.Requests() {
		kinds[r.Kind]++
		if r.ConsumedTurn() {
			assert.Check(t, !served[r.Turn], "turn %d served twice", r.Turn)
			served[r.Turn] = true
		}
		if r.Kind == KindTurn {
			var in anthropicRequest
			assert.NilError(t, json.Unmarshal(r.Body, &in))
			byConversation[len(in.Messages)] = append(byConversation[len(in.Messages)], r)
		}
	}
	assert.Check(t, is.Len(served, n))
	assert.Check(t, is.DeepEqual(kinds, map[RequestKind]int{KindTurn: 2 * n, KindSide: n / 2}))
	assert.Check(t, is.Len(byConversation, n))
	for depth, rs := range byConversation {
		assert.Assert(t, is.Len(rs, 2), "conversation of %d messages", depth)
		assert.Check(t, is.Equal(rs[0].Turn, rs[1].Turn), "conversation of %d messages got two turns", depth)
		assert.Check(t, rs[0].Repeat != rs[1].Repeat, "conversation of %d messages: exactly one repeat", depth)
	}
}

func TestSplitKeepsUTF8(t *testing.T) {
	for _, s := range []string{"", "short", "ééééééééééé", "a€b€c€d€e€f€", strings.Repeat("日本語", 7)} {
		parts := split(s)
		assert.Check(t, is.Equal(strings.Join(parts, ""), s))
		for _, p := range parts {
			assert.Check(t, utf8.ValidString(p), "%q", p)
		}
	}
}

func TestStopReasonDefaults(t *testing.T) {
	tests := []struct {
		turn Turn
		want string
	}{
		{Say("x"), "end_turn"},
		{Run("", Bash("x")), "tool_use"},
		{Turn{Text: "x", StopReason: "max_tokens"}, "max_tokens"},
	}
	for _, tc := range tests {
		assert.Check(t, is.Equal(tc.turn.stopReason(), tc.want))
	}
}
