package scriptedllm

// The Gemini API (generativelanguage), as Gemini CLI uses it.
//
//   - POST /{v1beta,v1,v1alpha}/models/{model}:streamGenerateContent: SSE when the query says
//     alt=sse (what the CLI asks for: "data: {GenerateContentResponse}" events, the text in
//     chunks, the function calls, finishReason and usageMetadata in the last one), else the
//     chunks as one JSON array.
//   - POST …:generateContent: the finished GenerateContentResponse as JSON.
//   - POST …:countTokens: {"totalTokens": N}.
//   - A request that declares functions (tools[].functionDeclarations) is a main-conversation
//     request and consumes the next Turn (a retry, with the same contents, gets the same
//     answer again; see Server.take). One without is a side request and does not: when it
//     asks for JSON (generationConfig.responseMimeType application/json, as the CLI's model
//     router, next-speaker and loop checks do) it gets an object built from its
//     responseJsonSchema (see geminiJSONFor), otherwise a short text.
//
// Scenario tool calls are translated to Gemini CLI's tools: Bash(cmd) becomes
// run_shell_command {command, description}, Write becomes write_file {file_path, content},
// Edit becomes replace {file_path, old_string, new_string, instruction}, Read becomes
// read_file {file_path}; any other ToolCall is sent verbatim as a functionCall named
// ToolCall.Name with Input as its args. Function calls carry no id, as the real API's do not:
// the CLI makes its own.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

func init() {
	registerRoutes(func(s *Server, mux *http.ServeMux) {
		for _, v := range []string{"v1beta", "v1", "v1alpha"} {
			mux.HandleFunc("POST /"+v+"/models/{call}", s.geminiModels)
		}
	})
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

func (s *Server) geminiModels(w http.ResponseWriter, r *http.Request) {
	model, method, ok := strings.Cut(r.PathValue("call"), ":")
	body, err := io.ReadAll(r.Body)
	if err != nil {
		geminiError(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Model: model, Body: body}
	var in geminiRequest
	if !ok || json.Unmarshal(body, &in) != nil {
		req.Kind = KindUnknown
		s.record(req)
		geminiError(w, http.StatusBadRequest, "scriptedllm: cannot read "+r.URL.Path)
		return
	}
	switch method {
	case "countTokens":
		req.Kind = KindCountTokens
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": UsageInputTokens})
		return
	case "generateContent", "streamGenerateContent":
	default:
		req.Kind = KindUnknown
		s.record(req)
		geminiError(w, http.StatusNotFound, "scriptedllm: no such method "+method)
		return
	}
	req.Stream = method == "streamGenerateContent"
	req.Kind = KindSide
	req.System = truncate(geminiSystemText(in.SystemInstruction), 300)
	offered := map[string]bool{}
	for _, t := range in.Tools {
		for _, fd := range t.FunctionDeclarations {
			offered[fd.Name] = true
			req.Tools = append(req.Tools, fd.Name)
		}
	}
	req.ToolResults = geminiToolResults(in.Contents)
	main := len(offered) > 0
	var conv struct {
		Contents json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(body, &conv)
	req, turn, msgID := s.take(req, main, conversationKey(conv.Contents))
	var parts []map[string]any
	switch {
	case main:
		parts = geminiParts(turn, offered)
	case strings.HasPrefix(in.GenerationConfig.ResponseMimeType, "application/json"):
		schema := in.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = in.GenerationConfig.ResponseSchema
		}
		b, _ := json.Marshal(geminiJSONFor(schema))
		parts = []map[string]any{{"text": string(b)}}
	default:
		parts = []map[string]any{{"text": "OK"}}
	}
	chunks := geminiChunks(parts, model, "resp_"+msgID)
	switch {
	case !req.Stream:
		writeJSON(w, http.StatusOK, geminiMerge(chunks))
	case r.URL.Query().Get("alt") == "sse":
		streamGemini(w, chunks)
	default:
		writeJSON(w, http.StatusOK, chunks)
	}
}

// geminiSystemText is the text of a systemInstruction (a Content, or a bare string).
func geminiSystemText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c geminiContent
	_ = json.Unmarshal(raw, &c)
	var texts []string
	for _, p := range c.Parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// geminiToolResults are the function responses of the last content: what the CLI reports back
// for the previous turn's calls. Content is response.output (or response.error, IsError).
func geminiToolResults(contents []geminiContent) []ToolResult {
	if len(contents) == 0 {
		return nil
	}
	var out []ToolResult
	for _, p := range contents[len(contents)-1].Parts {
		fr := p.FunctionResponse
		if fr == nil {
			continue
		}
		var resp struct {
			Output json.RawMessage `json:"output"`
			Error  json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(fr.Response, &resp)
		tr := ToolResult{ToolUseID: fr.ID}
		switch {
		case len(resp.Error) > 0:
			tr.Content, tr.IsError = rawText(resp.Error), true
		case len(resp.Output) > 0:
			tr.Content = rawText(resp.Output)
		default:
			tr.Content = string(fr.Response)
		}
		out = append(out, tr)
	}
	return out
}

// rawText is a JSON string's value, or the raw JSON of anything else.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// geminiParts are the model's parts for turn: its text, then its function calls.
func geminiParts(turn Turn, offered map[string]bool) []map[string]any {
	var parts []map[string]any
	if turn.Text != "" {
		parts = append(parts, map[string]any{"text": turn.Text})
	}
	for _, tc := range turn.Tools {
		name, args := geminiCall(tc)
		if !offered[name] {
			name, args = tc.Name, tc.Input // let the CLI report the unknown tool
		}
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": name, "args": args}})
	}
	return parts
}

// geminiCall translates a scenario tool call to Gemini CLI's tool and arguments.
func geminiCall(tc ToolCall) (string, map[string]any) {
	in := tc.Input
	switch tc.Name {
	case "Bash", "bash":
		cmd, _ := in["command"].(string)
		return "run_shell_command", map[string]any{"command": cmd, "description": "Run " + cmd}
	case "Write":
		return "write_file", map[string]any{"file_path": in["file_path"], "content": in["content"]}
	case "Edit":
		return "replace", map[string]any{
			"file_path": in["file_path"], "old_string": in["old_string"], "new_string": in["new_string"],
			"instruction": "Replace the text as asked.",
		}
	case "Read":
		return "read_file", map[string]any{"file_path": in["file_path"]}
	}
	return tc.Name, in
}

// geminiChunks splits a turn's parts into streamed responses: the text in a few chunks, then
// the function calls with finishReason and usage in the last chunk.
func geminiChunks(parts []map[string]any, model, id string) []map[string]any {
	chunk := func(ps []map[string]any) map[string]any {
		return map[string]any{
			"candidates": []map[string]any{{
				"content": map[string]any{"role": "model", "parts": ps},
				"index":   0,
			}},
			"modelVersion": model,
			"responseId":   id,
		}
	}
	var chunks []map[string]any
	var calls []map[string]any
	for _, p := range parts {
		text, isText := p["text"].(string)
		if !isText {
			calls = append(calls, p)
			continue
		}
		for _, piece := range split(text) {
			chunks = append(chunks, chunk([]map[string]any{{"text": piece}}))
		}
	}
	if calls == nil {
		calls = []map[string]any{}
	}
	last := chunk(calls)
	if len(calls) == 0 && len(chunks) > 0 {
		last = chunks[len(chunks)-1]
		chunks = chunks[:len(chunks)-1]
	}
	cand := last["candidates"].([]map[string]any)[0]
	cand["finishReason"] = "STOP"
	last["usageMetadata"] = map[string]any{
		"promptTokenCount":     UsageInputTokens,
		"candidatesTokenCount": UsageOutputTokens,
		"totalTokenCount":      UsageInputTokens + UsageOutputTokens,
	}
	return append(chunks, last)
}

// geminiMerge joins streamed chunks into one response (generateContent).
func geminiMerge(chunks []map[string]any) map[string]any {
	var parts []map[string]any
	var text strings.Builder
	for _, c := range chunks {
		for _, p := range c["candidates"].([]map[string]any)[0]["content"].(map[string]any)["parts"].([]map[string]any) {
			if t, ok := p["text"].(string); ok {
				text.WriteString(t)
				continue
			}
			parts = append(parts, p)
		}
	}
	if text.Len() > 0 {
		parts = append([]map[string]any{{"text": text.String()}}, parts...)
	}
	last := chunks[len(chunks)-1]
	cand := last["candidates"].([]map[string]any)[0]
	return map[string]any{
		"candidates": []map[string]any{{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": cand["finishReason"],
			"index":        0,
		}},
		"usageMetadata": last["usageMetadata"],
		"modelVersion":  last["modelVersion"],
		"responseId":    last["responseId"],
	}
}

// streamGemini writes chunks as the API's SSE stream ("data: {…}" events, no event names).
func streamGemini(w http.ResponseWriter, chunks []map[string]any) {
	send := startSSE(w, "text/event-stream", "\r\n")
	for _, c := range chunks {
		send("", c)
	}
}

// geminiJSONFor builds a value matching a (Gemini or JSON) schema: every property filled,
// the first enum value, "mock" strings, 1 for numbers. Two answers are chosen so the CLI
// carries on quietly: next_speaker is "user" (the model is not asked to continue) and any
// confidence or loop verdict is negative.
func geminiJSONFor(raw json.RawMessage) any {
	var sc geminiSchema
	if json.Unmarshal(raw, &sc) != nil {
		return map[string]any{}
	}
	return sc.value("")
}

type geminiSchema struct {
	Type       any                      `json:"type"` // "OBJECT", "object" or ["string","null"]
	Properties map[string]*geminiSchema `json:"properties"`
	Items      *geminiSchema            `json:"items"`
	Enum       []any                    `json:"enum"`
}

func (sc *geminiSchema) typ() string {
	switch t := sc.Type.(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return strings.ToLower(s)
			}
		}
	}
	if sc.Properties != nil {
		return "object"
	}
	return "string"
}

func (sc *geminiSchema) value(name string) any {
	switch name {
	case "next_speaker":
		return "user"
	case "confidence", "loop_confidence":
		return 0
	case "is_loop", "loop_detected":
		return false
	}
	if len(sc.Enum) > 0 {
		return sc.Enum[0]
	}
	switch sc.typ() {
	case "object":
		obj := map[string]any{}
		for k, p := range sc.Properties {
			if p != nil {
				obj[k] = p.value(k)
			}
		}
		return obj
	case "array":
		if sc.Items == nil {
			return []any{}
		}
		return []any{sc.Items.value("")}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "mock"
}

func geminiError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": message, "status": "INVALID_ARGUMENT",
	}})
}
