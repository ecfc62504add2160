package scriptedllm

// The OpenAI Responses API, as the Codex CLI uses it.
//
//   - POST /v1/responses (also /responses, for a base_url without /v1): streaming SSE when
//     "stream": true (response.created, response.in_progress, per output item
//     response.output_item.added / deltas / response.output_item.done, response.completed with
//     usage), otherwise the finished response object as JSON.
//   - A request that offers tools is a main-conversation request and consumes the next Turn
//     (a retry, with the same input, gets the same answer again; see Server.take); one without
//     tools is a side request and gets a short text answer.
//
// Scenario tool calls are translated to the tools the request offers, so the same scenario
// drives every Codex generation:
//   - Bash(cmd) becomes exec_command {cmd} (codex ≥ 0.1xx with gpt-5.x models),
//     shell_command {command} (0.5x–0.9x), or shell {command: ["bash","-lc",cmd]} (older);
//   - Write(path, content) and Edit(path, old, new) become an apply_patch patch, sent as a
//     freeform custom_tool_call when apply_patch is offered as a custom tool, as a
//     function_call {"input": patch} when it is offered as a function, else through the shell
//     tool as {command: ["apply_patch", patch]} (what older codex expects of its models);
//   - any other ToolCall is sent verbatim as a function_call named ToolCall.Name whose
//     arguments are Input (a custom tool gets Input["input"] as its raw input).

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
)

func init() {
	registerRoutes(func(s *Server, mux *http.ServeMux) {
		mux.HandleFunc("POST /v1/responses", s.openaiResponses)
		mux.HandleFunc("POST /responses", s.openaiResponses)
	})
}

type openaiRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	// PreviousResponseID continues a stored conversation (the input then holds only what is
	// new); with the input it identifies the conversation (see take).
	PreviousResponseID string `json:"previous_response_id"`
}

// openaiTool is the part of a tool definition the mock needs.
type openaiTool struct {
	Type  string       `json:"type"` // function, custom, namespace, local_shell, web_search, ...
	Name  string       `json:"name"`
	Tools []openaiTool `json:"tools"` // a namespace's tools
}

// addTools records the offered tools (namespaces flattened) as name → type.
func addTools(into map[string]string, names *[]string, tools []openaiTool) {
	for _, t := range tools {
		if t.Type == "namespace" {
			addTools(into, names, t.Tools)
			continue
		}
		name := t.Name
		if name == "" {
			name = t.Type // local_shell, web_search have no name
		}
		into[name] = t.Type
		*names = append(*names, name)
	}
}

// openaiItem is an input item of a request (message, function_call_output, ...).
type openaiItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
	Content json.RawMessage `json:"content"`
	// Tools are the tools of an "additional_tools" item: codex ≥ 0.17x offers its default
	// model a namespace of tools there instead of in the request's "tools".
	Tools []openaiTool `json:"tools"`
}

func (s *Server) openaiResponses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		openaiError(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	var in openaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		s.record(Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Kind: KindUnknown, Body: body})
		openaiError(w, http.StatusBadRequest, "decode body: "+err.Error())
		return
	}
	tools := map[string]string{} // name → type
	req := Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Model: in.Model, Stream: in.Stream, Kind: KindSide,
		System: truncate(in.Instructions, 300), Body: body,
	}
	for _, raw := range in.Tools {
		var t openaiTool
		if json.Unmarshal(raw, &t) == nil {
			addTools(tools, &req.Tools, []openaiTool{t})
		}
	}
	var items []openaiItem
	_ = json.Unmarshal(in.Input, &items)
	for _, it := range items {
		if it.Type == "additional_tools" {
			addTools(tools, &req.Tools, it.Tools)
		}
	}
	req.ToolResults = openaiToolResults(items)
	main := len(tools) > 0
	prev, _ := json.Marshal(in.PreviousResponseID)
	req, turn, msgID := s.take(req, main, conversationKey(in.Input, prev))
	if !main {
		turn = Turn{Text: "OK"}
	}
	resp := openaiResponse("resp_"+msgID, cmp.Or(in.Model, "gpt-mock"), max(req.Turn, 0), turn, tools)
	if in.Stream {
		streamOpenAI(w, resp)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// openaiToolResults returns the tool outputs at the end of a request's input: what the CLI
// reports back for the previous turn's calls.
func openaiToolResults(items []openaiItem) []ToolResult {
	end := len(items)
	start := end
	for start > 0 && strings.HasSuffix(items[start-1].Type, "_output") {
		start--
	}
	var out []ToolResult
	for _, it := range items[start:end] {
		out = append(out, ToolResult{ToolUseID: it.CallID, Content: openaiOutputText(it.Output)})
	}
	return out
}

// openaiOutputText is a tool output: a string, or the text of a list of content items.
func openaiOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// openaiResponse builds the finished response object for turn.
func openaiResponse(id, model string, turnIdx int, turn Turn, tools map[string]string) map[string]any {
	output := []map[string]any{}
	if turn.Text != "" {
		output = append(output, map[string]any{
			"id": fmt.Sprintf("msg_%s", strings.TrimPrefix(id, "resp_")), "type": "message",
			"status": "completed", "role": "assistant",
			"content": []map[string]any{{"type": "output_text", "text": turn.Text, "annotations": []any{}}},
		})
	}
	for i, tc := range turn.Tools {
		output = append(output, openaiToolItem(ToolUseID(turnIdx, i), tc, tools))
	}
	return map[string]any{
		"id": id, "object": "response", "created_at": 1700000000, "status": "completed",
		"model": model, "output": output, "parallel_tool_calls": true,
		"usage": map[string]any{
			"input_tokens": UsageInputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": UsageOutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": UsageInputTokens + UsageOutputTokens,
		},
	}
}

// openaiToolItem translates a scenario tool call into the item for the offered tools.
func openaiToolItem(callID string, tc ToolCall, tools map[string]string) map[string]any {
	name, args := tc.Name, tc.Input
	if args == nil {
		args = map[string]any{}
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch tc.Name {
	case "Bash", "bash":
		cmd, _ := args["command"].(string)
		switch {
		case tools["exec_command"] == "" && tools["exec"] == "custom":
			// code mode: the model writes JavaScript that calls the nested tools
			name, args = "exec", map[string]any{"input": "const r = await tools.exec_command(" + js(map[string]any{"cmd": cmd}) + ");\ntext(r);\n"}
		case tools["exec_command"] != "":
			name, args = "exec_command", map[string]any{"cmd": cmd}
		case tools["shell_command"] != "":
			name, args = "shell_command", map[string]any{"command": cmd}
		default:
			name, args = "shell", map[string]any{"command": []string{"bash", "-lc", cmd}}
		}
	case "Write", "Edit":
		name, args = "apply_patch", map[string]any{"input": patchFor(tc)}
		switch {
		case tools["apply_patch"] != "":
		case tools["exec"] == "custom":
			name, args = "exec", map[string]any{"input": "const r = await tools.apply_patch(" + js(patchFor(tc)) + ");\ntext(r);\n"}
		case tools["shell"] != "":
			// no apply_patch tool (codex ≤ 0.8x): models run it through the shell, and codex
			// intercepts it as a patch
			name, args = "shell", map[string]any{"command": []string{"apply_patch", patchFor(tc)}}
		}
	}
	if tools[name] == "custom" {
		input, _ := args["input"].(string)
		return map[string]any{
			"id": "ctc_" + callID, "type": "custom_tool_call", "status": "completed",
			"call_id": callID, "name": name, "input": input,
		}
	}
	return map[string]any{
		"id": "fc_" + callID, "type": "function_call", "status": "completed",
		"call_id": callID, "name": name, "arguments": js(args),
	}
}

// patchFor renders a Write or Edit scenario call as an apply_patch patch.
func patchFor(tc ToolCall) string {
	path, _ := tc.Input["file_path"].(string)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if tc.Name == "Write" {
		content, _ := tc.Input["content"].(string)
		fmt.Fprintf(&b, "*** Add File: %s\n", path)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	} else {
		old, _ := tc.Input["old_string"].(string)
		repl, _ := tc.Input["new_string"].(string)
		fmt.Fprintf(&b, "*** Update File: %s\n@@\n", path)
		for _, line := range strings.Split(old, "\n") {
			b.WriteString("-" + line + "\n")
		}
		for _, line := range strings.Split(repl, "\n") {
			b.WriteString("+" + line + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// streamOpenAI writes resp as the Responses API SSE stream.
func streamOpenAI(w http.ResponseWriter, resp map[string]any) {
	w.Header().Set("x-request-id", "req_mock_"+resp["id"].(string))
	sse := startSSE(w, "text/event-stream; charset=utf-8", "\n")
	seq := 0
	send := func(data map[string]any) {
		data["sequence_number"] = seq
		seq++
		sse(data["type"].(string), data)
	}
	pending := maps.Clone(resp)
	pending["status"] = "in_progress"
	pending["output"] = []any{}
	delete(pending, "usage")
	send(map[string]any{"type": "response.created", "response": pending})
	send(map[string]any{"type": "response.in_progress", "response": pending})
	for i, item := range resp["output"].([]map[string]any) {
		id := item["id"]
		added := maps.Clone(item)
		added["status"] = "in_progress"
		switch item["type"] {
		case "message":
			added["content"] = []any{}
			send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			text := item["content"].([]map[string]any)[0]["text"].(string)
			send(map[string]any{"type": "response.content_part.added", "item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, part := range split(text) {
				send(map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": i, "content_index": 0, "delta": part})
			}
			send(map[string]any{"type": "response.output_text.done", "item_id": id, "output_index": i, "content_index": 0, "text": text})
			send(map[string]any{"type": "response.content_part.done", "item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
		case "function_call", "custom_tool_call":
			field, event := "arguments", "response.function_call_arguments"
			if item["type"] == "custom_tool_call" {
				field, event = "input", "response.custom_tool_call_input"
			}
			value := item[field].(string)
			added[field] = ""
			send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			for _, part := range split(value) {
				send(map[string]any{"type": event + ".delta", "item_id": id, "output_index": i, "delta": part})
			}
			send(map[string]any{"type": event + ".done", "item_id": id, "output_index": i, field: value})
		}
		send(map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	send(map[string]any{"type": "response.completed", "response": resp})
}

func openaiError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"type": "invalid_request_error", "message": message, "param": nil, "code": nil,
	}})
}

// CodexModel is the model the harness asks for: codex offers it the exec_command and
// apply_patch tools directly (its default model gets a JavaScript `exec` tool instead).
const CodexModel = "gpt-5.5"
