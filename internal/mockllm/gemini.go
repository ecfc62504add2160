package mockllm

// The Gemini API (generativelanguage), as Gemini CLI uses it, and RunGemini, the harness that
// runs a REAL `gemini` binary against the mock.
//
//   - POST /{v1beta,v1,v1alpha}/models/{model}:streamGenerateContent: SSE when the query says
//     alt=sse (what the CLI asks for: "data: {GenerateContentResponse}" events, the text in
//     chunks, the function calls, finishReason and usageMetadata in the last one), else the
//     chunks as one JSON array.
//   - POST …:generateContent: the finished GenerateContentResponse as JSON.
//   - POST …:countTokens: {"totalTokens": N}.
//   - A request that declares functions (tools[].functionDeclarations) is a main-conversation
//     request and consumes the next Turn. One without is a side request and does not: when it
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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
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
		geminiError(w, http.StatusBadRequest, "mockllm: cannot read "+r.URL.Path)
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
		geminiError(w, http.StatusNotFound, "mockllm: no such method "+method)
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
	req, turn, msgID := s.take(req, main)
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
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if flusher != nil {
			flusher.Flush()
		}
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

// GeminiAuthType is the auth type the harness selects (engines.GeminiSettings' %s).
const GeminiAuthType = "gemini-api-key"

// GeminiSettings is the settings.json the harness writes in GEMINI_CLI_HOME/.gemini, %d being
// the turn limit: the same as the engine's (engines.GeminiSettings with GeminiAuthType; a test
// keeps them equal).
const GeminiSettings = `{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false},` +
	`"environmentVariableRedaction":{"enabled":true,"blocked":["GEMINI_API_KEY","GOOGLE_API_KEY"]}},` +
	`"model":{"maxSessionTurns":%d},"privacy":{"usageStatisticsEnabled":false}}`

// GeminiMaxTurns is the harness's default turn limit (model.maxSessionTurns).
const GeminiMaxTurns = 20

// GeminiRun configures RunGemini.
type GeminiRun struct {
	Binary  string  // path to the gemini executable (required)
	Server  *Server // the mock to talk to (required)
	Workdir string  // the CLI's working directory (required)
	// Home is GEMINI_CLI_HOME (where .gemini/settings.json is written) and HOME; empty means a
	// fresh temporary directory.
	Home   string
	Prompt string // the -p argument; empty means a short default prompt
	Model  string // --model; empty leaves the CLI on its default ("auto", which routes first)
	// MaxTurns is model.maxSessionTurns; 0 means GeminiMaxTurns.
	MaxTurns int
	// KillAfter > 0 SIGKILLs the CLI's process tree KillAfter after the mock has served the
	// scenario's last scripted turn.
	KillAfter time.Duration
	// Env holds extra "K=V" entries. The CLI otherwise gets PATH, HOME, GEMINI_CLI_HOME, LANG,
	// GEMINI_API_KEY=DummyAPIKey, GOOGLE_GEMINI_BASE_URL (the mock) and
	// GEMINI_CLI_TRUST_WORKSPACE=true.
	Env []string
}

// GeminiResult is what a run produced.
type GeminiResult struct {
	Transcript []byte // stdout: the stream-json events
	Stderr     []byte
	ExitCode   int  // -1 when killed by a signal
	Killed     bool // the harness killed the CLI (KillAfter)
	Duration   time.Duration
}

// GeminiArgs are the gemini arguments the harness uses, as engines' BuildCommand does:
// stream-json events, --yolo (without it headless mode offers no shell or edit tool).
func GeminiArgs(model, prompt string) []string {
	args := []string{"--output-format", "stream-json", "--yolo"}
	if model != "" {
		args = append(args, "--model", model)
	}
	return append(args, "-p", prompt)
}

// RunGemini runs the CLI to completion (or until ctx is done or KillAfter fires). A non-zero
// exit is reported in the result, not as an error.
func RunGemini(ctx context.Context, o GeminiRun) (*GeminiResult, error) {
	if o.Binary == "" || o.Server == nil || o.Workdir == "" {
		return nil, errors.New("run gemini: Binary, Server and Workdir are required")
	}
	bin, err := filepath.Abs(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("find gemini binary: %w", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("find gemini binary: %w", err)
	}
	if o.Home == "" {
		home, err := os.MkdirTemp("", "r2d-gemini-home-")
		if err != nil {
			return nil, fmt.Errorf("create gemini home: %w", err)
		}
		defer os.RemoveAll(home)
		o.Home = home
	}
	if err := os.MkdirAll(filepath.Join(o.Home, ".gemini"), 0o700); err != nil {
		return nil, fmt.Errorf("create gemini home: %w", err)
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = GeminiMaxTurns
	}
	settings := fmt.Sprintf(GeminiSettings, o.MaxTurns) + "\n"
	if err := os.WriteFile(filepath.Join(o.Home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		return nil, fmt.Errorf("write gemini settings: %w", err)
	}
	if o.Prompt == "" {
		o.Prompt = "Follow the README in this directory and run its demo."
	}
	cmd := exec.Command(bin, GeminiArgs(o.Model, o.Prompt)...)
	cmd.Dir = o.Workdir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + o.Home,
		"GEMINI_CLI_HOME=" + o.Home,
		"LANG=C.UTF-8",
		"GEMINI_API_KEY=" + DummyAPIKey,
		"GOOGLE_GEMINI_BASE_URL=" + o.Server.URL(),
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}, o.Env...)
	cmd.Stdin = nil // /dev/null: headless, nothing to read
	run, err := runSupervised(ctx, cmd, o.Server, o.KillAfter, "gemini")
	if run == nil {
		return nil, err
	}
	res := &GeminiResult{Transcript: run.transcript, Stderr: run.stderr, Duration: run.duration, ExitCode: run.exitCode, Killed: run.killed}
	return res, err
}

// GeminiPinnedVersion is the @google/gemini-cli version the project pins (engines.GeminiVersion).
const GeminiPinnedVersion = "0.61.0"

// GeminiCaptureVersions are the versions whose real-* fixtures (the stream-json transcript and
// the chat session file of the same run) are committed, newest first: 0.61.0 writes JSONL
// sessions, 0.35.0 one JSON document with the newer shell output, 0.20.2 the older one.
var GeminiCaptureVersions = []string{GeminiPinnedVersion, "0.35.0", "0.20.2"}

// GeminiBinary is where an npm-installed gemini is expected:
// <cliDir>/gemini-cli-<version>/node_modules/.bin/gemini.
func GeminiBinary(cliDir, version string) string {
	return filepath.Join(cliDir, "gemini-cli-"+version, "node_modules", ".bin", "gemini")
}

// GeminiInstallCommand is the shell command that installs version where GeminiBinary looks.
func GeminiInstallCommand(cliDir, version string) string {
	return fmt.Sprintf("npm install --prefix %s @google/gemini-cli@%s",
		filepath.Join(cliDir, "gemini-cli-"+version), version)
}

// GeminiCapture is the outcome of CaptureGemini.
type GeminiCapture struct {
	*GeminiResult
	Scenario Scenario
	Requests []Request // what the mock received
	// Session is the chat session file the CLI wrote under its home
	// (~/.gemini/tmp/<project>/chats/session-*.json), paths sanitized like
	// the transcript; nil when it wrote none.
	Session []byte
}

// CaptureGemini runs the named capture scenario (see GeminiScenario) with a real gemini binary
// against a fresh mock on 127.0.0.1, in a fresh project holding CaptureReadme, with a fresh
// home, and returns the run with the temporary root rewritten to CaptureRoot. model "" leaves
// the CLI on its default model.
func CaptureGemini(ctx context.Context, binary, scenario, model string) (*GeminiCapture, error) {
	root, project, home, err := captureDirs()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	sc, err := GeminiScenario(scenario, project)
	if err != nil {
		return nil, fmt.Errorf("capture gemini: %w", err)
	}
	srv, err := Start("127.0.0.1:0", sc)
	if err != nil {
		return nil, fmt.Errorf("capture gemini: %w", err)
	}
	run := GeminiRun{Binary: binary, Server: srv, Workdir: project, Home: home, Prompt: CapturePrompt, Model: model}
	switch scenario {
	case ScenarioKilled:
		run.KillAfter = CaptureKillAfter
	case ScenarioMaxTurns:
		run.MaxTurns = CaptureMaxTurns
	}
	res, runErr := RunGemini(ctx, run)
	closeErr := srv.Close()
	if res == nil {
		return nil, runErr
	}
	res.Transcript = sanitizePaths(res.Transcript, root)
	res.Stderr = sanitizePaths(res.Stderr, root)
	c := &GeminiCapture{GeminiResult: res, Scenario: sc, Requests: srv.Requests()}
	session, sessionErr := sessionFile(home, ".gemini/tmp/*/chats/session-*.json", ".gemini/tmp/*/chats/session-*.jsonl")
	if session != nil {
		c.Session = sanitizePaths(session, root)
	}
	if err := errors.Join(runErr, closeErr, sessionErr); err != nil {
		return c, fmt.Errorf("capture gemini: %w", err)
	}
	return c, nil
}

// Names of the Gemini-only capture scenarios (GeminiScenario).
const (
	// ScenarioSignals: commands killed by a signal, and one that fails after printing.
	ScenarioSignals = "signals"
	// ScenarioMaxTurns: more turns than CaptureMaxTurns allows; the agent said SUCCESS early.
	ScenarioMaxTurns = "maxturns"
)

// CaptureMaxTurns is the turn limit of the maxturns capture.
const CaptureMaxTurns = 2

// GeminiScenarioNames lists the Gemini capture scenarios in a stable order.
var GeminiScenarioNames = []string{ScenarioSuccess, ScenarioFailures, ScenarioEdit, ScenarioSignals,
	ScenarioMaxTurns, ScenarioBigOut, ScenarioKilled}

// GeminiScenario returns a named capture scenario for a project at dir. The Claude scenarios
// are reused (their Bash, Write and Edit calls become run_shell_command, write_file and
// replace); "edit" adds a replace that cannot apply.
func GeminiScenario(name, dir string) (Scenario, error) {
	switch name {
	case ScenarioSignals:
		return Scenario{Name: name, Turns: []Turn{
			Run("Starting the worker.", Bash("kill -TERM $$")),
			Run("", Bash("echo partial output; kill -KILL $$")),
			Run("", Bash("echo compiling; echo 'error: missing header' >&2; exit 1")),
		}, FinalText: "The worker dies.\nBLOCKED: the worker is killed at start"}, nil
	case ScenarioBigOut:
		// Gemini CLI's stream-json carries a command's whole output (seq 1 200000, Claude's
		// size, gave a 1.5 MB transcript); a tenth of it is big enough to be truncated.
		return Scenario{Name: name, Turns: []Turn{
			Run("Printing a lot.", Bash("seq 1 20000")),
			Run("", Bash("echo SUCCESS")),
		}, FinalText: "I printed the numbers and the word from the README, nothing more to report."}, nil
	case ScenarioMaxTurns:
		return Scenario{Name: name, Turns: []Turn{
			Run("SUCCESS", Bash("echo step one")),
			Run("", Bash("echo step two")),
			Run("", Bash("echo step three")),
			Run("", Bash("echo step four")),
		}, FinalText: "SUCCESS"}, nil
	}
	if name == ScenarioEdit {
		return Scenario{Name: name, Turns: []Turn{
			Run("Adding the missing config.", Write(filepath.Join(dir, "config.env"), "PORT=8080\nDEBUG=0\n")),
			Run("", Edit(filepath.Join(dir, "config.env"), "DEBUG=0", "DEBUG=1")),
			Run("", Bash("cat config.env")),
			Run("", Edit(filepath.Join(dir, "config.env"), "NO_SUCH_LINE=1", "here")),
		}, FinalText: "FIX: README must say to create config.env\nADJUSTED_SUCCESS"}, nil
	}
	return ClaudeScenario(name, dir)
}
