package scriptedllm

// The Anthropic Messages API, as Claude Code uses it:
//   - POST /v1/messages (query "?beta=true" is ignored): streaming SSE when "stream": true,
//     otherwise one JSON message.
//   - POST /v1/messages/count_tokens: {"input_tokens": N}.
// A request is a side request, answered with a short fitting text without consuming a turn,
// when it offers no tools (titles, topic detection, quota checks, command-prefix and file-path
// extraction in 1.0.x), when its last user message is "Warmup" (2.0.x warms up its sub-agents
// at startup, with tools), or when its first message differs from the main conversation's
// (sub-agents). The first other request fixes the main conversation and consumes Turns[0].
// The message list identifies the conversation: a retry (the same messages) gets the same
// answer again (see Server.take).

import (
	"cmp"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strings"
	"unicode/utf8"
)

func init() {
	registerRoutes(func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
		mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCountTokens)
	})
}

type anthropicRequest struct {
	Model     string          `json:"model"`
	Stream    bool            `json:"stream"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicBlock is a content block in a request (text, tool_result, ...).
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "read body: "+err.Error())
		return
	}
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Kind: KindUnknown, Body: body})
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "decode body: "+err.Error())
		return
	}
	req := Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Model: in.Model, Stream: in.Stream, Kind: KindSide,
		System: truncate(joinText(in.System), 300), Body: body,
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "user" {
		req.ToolResults = toolResults(in.Messages[n-1].Content)
	}
	main := len(in.Tools) > 0 && len(in.Messages) > 0 &&
		strings.TrimSpace(joinText(in.Messages[len(in.Messages)-1].Content)) != "Warmup" &&
		s.claimMain(joinText(in.Messages[0].Content))
	var conv struct {
		Messages json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &conv)
	req, turn, msgID := s.take(req, main, conversationKey(conv.Messages))
	if !main {
		turn = Turn{Text: sideAnswer(in)}
	}
	msg := anthropicMessage(msgID, in.Model, req.Turn, turn)
	if in.Stream {
		streamAnthropic(w, msg)
		return
	}
	writeJSON(w, http.StatusOK, msg)
}

func (s *Server) anthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in anthropicRequest
	_ = json.Unmarshal(body, &in)
	s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Model: in.Model, Kind: KindCountTokens, Body: body})
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": UsageInputTokens})
}

// sideAnswer is a sensible short answer for a request that is not the main conversation.
func sideAnswer(in anthropicRequest) string {
	var all strings.Builder
	all.WriteString(joinText(in.System))
	for _, m := range in.Messages {
		all.WriteString(joinText(m.Content))
	}
	text := all.String()
	switch {
	case strings.Contains(text, "<filepaths>"): // 1.0.x: paths a command displayed
		return "<is_displaying_contents>\nfalse\n</is_displaying_contents>\n\n<filepaths>\n</filepaths>"
	case strings.Contains(text, "process Bash commands that an AI coding agent wants to run"): // 1.0.x: command prefix
		return "none"
	case strings.Contains(text, "isNewTopic"):
		return `{"isNewTopic": false, "title": null}`
	case strings.Contains(strings.ToLower(text), "title"):
		return "Mock session"
	default:
		return "OK"
	}
}

// anthropicMessage builds the full (non-streaming) message for turn; turnIdx < 0 for
// unscripted answers.
func anthropicMessage(id, model string, turnIdx int, turn Turn) map[string]any {
	content := []map[string]any{}
	if turn.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": turn.Text})
	}
	for i, tc := range turn.Tools {
		input := tc.Input
		if input == nil {
			input = map[string]any{}
		}
		content = append(content, map[string]any{
			"type": "tool_use", "id": ToolUseID(max(turnIdx, 0), i), "name": tc.Name, "input": input,
		})
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": cmp.Or(model, "claude-mock"),
		"content": content, "stop_reason": turn.stopReason(), "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": UsageInputTokens, "output_tokens": UsageOutputTokens,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
		},
	}
}

// streamAnthropic writes msg as the Messages API SSE stream: message_start, ping, per block
// content_block_start / delta(s) / stop, message_delta (stop_reason, usage), message_stop.
func streamAnthropic(w http.ResponseWriter, msg map[string]any) {
	w.Header().Set("Connection", "keep-alive")
	w.Header().Set("request-id", "req_mock_"+msg["id"].(string))
	send := startSSE(w, "text/event-stream; charset=utf-8", "\n")
	start := maps.Clone(msg)
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = map[string]any{
		"input_tokens": UsageInputTokens, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
	}
	send("message_start", map[string]any{"type": "message_start", "message": start})
	send("ping", map[string]any{"type": "ping"})
	for i, block := range msg["content"].([]map[string]any) {
		switch block["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range split(block["text"].(string)) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(block["input"])
			for _, part := range append([]string{""}, split(string(js))...) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": UsageOutputTokens}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicError(w http.ResponseWriter, status int, typ, message string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message}})
}

// split cuts s into at most three chunks on byte boundaries that keep UTF-8 intact, so
// clients must concatenate deltas as the real API requires.
func split(s string) []string {
	if len(s) < 8 {
		return []string{s}
	}
	var parts []string
	cut := func(n int) int {
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		return n
	}
	a := cut(len(s) / 3)
	b := cut(2 * len(s) / 3)
	for _, p := range []string{s[:a], s[a:b], s[b:]} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// toolResults extracts the tool_result blocks of a user message's content.
func toolResults(content json.RawMessage) []ToolResult {
	var blocks []anthropicBlock
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []ToolResult
	for _, b := range blocks {
		if b.Type == "tool_result" {
			out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: joinText(b.Content), IsError: b.IsError})
		}
	}
	return out
}

// joinText returns a string, or the "\n"-joined text of a list of blocks.
func joinText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
