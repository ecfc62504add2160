package mockllm

// The OpenAI Responses API, as the Codex CLI uses it, and RunCodex, the harness that runs a
// REAL `codex` binary against the mock.
//
//   - POST /v1/responses (also /responses, for a base_url without /v1): streaming SSE when
//     "stream": true (response.created, response.in_progress, per output item
//     response.output_item.added / deltas / response.output_item.done, response.completed with
//     usage), otherwise the finished response object as JSON.
//   - A request that offers tools is a main-conversation request and consumes the next Turn;
//     one without tools is a side request and gets a short text answer.
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
	"bytes"
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
	"syscall"
	"time"
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
	req, turn, msgID := s.take(req, main)
	if !main {
		turn = Turn{Text: "OK"}
	}
	model := in.Model
	if model == "" {
		model = "gpt-mock"
	}
	resp := openaiResponse("resp_"+msgID, model, max(req.Turn, 0), turn, tools)
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
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("x-request-id", "req_mock_"+resp["id"].(string))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	seq := 0
	send := func(data map[string]any) {
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	pending := map[string]any{}
	for k, v := range resp {
		pending[k] = v
	}
	pending["status"] = "in_progress"
	pending["output"] = []any{}
	delete(pending, "usage")
	send(map[string]any{"type": "response.created", "response": pending})
	send(map[string]any{"type": "response.in_progress", "response": pending})
	for i, item := range resp["output"].([]map[string]any) {
		id := item["id"]
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
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
		case "function_call":
			args := item["arguments"].(string)
			added["arguments"] = ""
			send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			for _, part := range split(args) {
				send(map[string]any{"type": "response.function_call_arguments.delta", "item_id": id, "output_index": i, "delta": part})
			}
			send(map[string]any{"type": "response.function_call_arguments.done", "item_id": id, "output_index": i, "arguments": args})
		case "custom_tool_call":
			input := item["input"].(string)
			added["input"] = ""
			send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": added})
			for _, part := range split(input) {
				send(map[string]any{"type": "response.custom_tool_call_input.delta", "item_id": id, "output_index": i, "delta": part})
			}
			send(map[string]any{"type": "response.custom_tool_call_input.done", "item_id": id, "output_index": i, "input": input})
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

// CodexProviderArgs are the `-c` flags that point codex at baseURL (ending in /v1) through a
// custom model provider whose key is read from envKey.
func CodexProviderArgs(baseURL, envKey string) []string {
	return []string{
		"-c", "model_provider=mock",
		"-c", fmt.Sprintf(`model_providers.mock={name="mock",base_url=%q,env_key=%q,wire_api="responses"}`, baseURL, envKey),
	}
}

// CodexRun configures RunCodex.
type CodexRun struct {
	Binary  string  // path to the codex executable (required)
	Server  *Server // the mock to talk to (required)
	Workdir string  // the CLI's working directory (required)
	// Home is HOME and CODEX_HOME's parent; empty means a fresh temporary directory.
	Home   string
	Prompt string // sent on stdin; empty means a short default prompt
	Model  string // -m; empty means CodexModel
	// CLIDefaultModel passes no -m, so codex uses its own default model (which it offers a
	// JavaScript `exec` tool that calls the others; the mock speaks that too).
	CLIDefaultModel bool
	// KillAfter > 0 SIGKILLs the CLI's process tree KillAfter after the mock has served the
	// scenario's last scripted turn.
	KillAfter time.Duration
	// Args are extra codex exec arguments (before the "-" prompt argument).
	Args []string
	// Env holds extra "K=V" entries. The CLI otherwise gets PATH, HOME, CODEX_HOME, LANG and
	// OPENAI_API_KEY=DummyAPIKey.
	Env []string
}

// CodexResult is what a run produced.
type CodexResult struct {
	Transcript []byte // stdout: the --json events
	Stderr     []byte
	ExitCode   int  // -1 when killed by a signal
	Killed     bool // the harness killed the CLI (KillAfter)
	Duration   time.Duration
}

// CodexArgs are the codex arguments the harness uses: non-interactive JSON events, no
// approvals and no codex sandbox, the mock as the model provider, the prompt on stdin. An
// empty model leaves codex on its default model.
func CodexArgs(serverURL, model string, extra ...string) []string {
	args := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if model != "" {
		args = append(args, "-m", model)
	}
	args = append(args, CodexProviderArgs(serverURL+"/v1", "OPENAI_API_KEY")...)
	args = append(args, extra...)
	return append(args, "-")
}

// RunCodex runs the CLI to completion (or until ctx is done or KillAfter fires). A non-zero
// exit is reported in the result, not as an error.
func RunCodex(ctx context.Context, o CodexRun) (*CodexResult, error) {
	if o.Binary == "" || o.Server == nil || o.Workdir == "" {
		return nil, errors.New("run codex: Binary, Server and Workdir are required")
	}
	bin, err := filepath.Abs(o.Binary) // the CLI runs in Workdir
	if err != nil {
		return nil, fmt.Errorf("find codex binary: %w", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("find codex binary: %w", err)
	}
	if o.Home == "" {
		home, err := os.MkdirTemp("", "r2d-codex-home-")
		if err != nil {
			return nil, fmt.Errorf("create codex home: %w", err)
		}
		defer os.RemoveAll(home)
		o.Home = home
	}
	codexHome := filepath.Join(o.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return nil, fmt.Errorf("create codex home: %w", err)
	}
	if o.Model == "" && !o.CLIDefaultModel {
		o.Model = CodexModel
	}
	if o.Prompt == "" {
		o.Prompt = "Follow the README in this directory and run its demo."
	}
	cmd := exec.Command(bin, CodexArgs(o.Server.URL(), o.Model, o.Args...)...)
	cmd.Dir = o.Workdir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + o.Home,
		"CODEX_HOME=" + codexHome,
		"LANG=C.UTF-8",
		"OPENAI_API_KEY=" + DummyAPIKey,
	}, o.Env...)
	cmd.Stdin = bytes.NewBufferString(o.Prompt)
	run, err := runSupervised(ctx, cmd, o.Server, o.KillAfter, "codex")
	if run == nil {
		return nil, err
	}
	res := &CodexResult{Transcript: run.transcript, Stderr: run.stderr, Duration: run.duration, ExitCode: run.exitCode, Killed: run.killed}
	return res, err
}

// cliRun is what runSupervised saw of one CLI run.
type cliRun struct {
	transcript, stderr []byte
	exitCode           int
	killed             bool
	duration           time.Duration
}

// runSupervised starts cmd with stdout and stderr captured, in its own
// process group, and supervises it with superviseKill. A run that ended with
// a non-zero exit is not an error; a run that could not start or be waited
// for is (with what it wrote so far, when it started).
func runSupervised(ctx context.Context, cmd *exec.Cmd, srv *Server, killAfter time.Duration, name string) (*cliRun, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	run := &cliRun{}
	werr, err := superviseKill(ctx, cmd, srv, killAfter, &run.killed)
	run.transcript, run.stderr, run.duration = stdout.Bytes(), stderr.Bytes(), time.Since(start)
	if err != nil {
		return run, fmt.Errorf("run %s: %w", name, err)
	}
	run.exitCode = cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return run, fmt.Errorf("wait %s: %w", name, werr)
	}
	return run, nil
}

// superviseKill waits for a started cmd, SIGKILLing its whole process tree killAfter after the
// server's scenario is exhausted (when killAfter > 0) or when ctx is done. It returns Wait's
// error, and ctx's error when the context ended the run.
func superviseKill(ctx context.Context, cmd *exec.Cmd, srv *Server, killAfter time.Duration, killed *bool) (error, error) {
	killTree := func() {
		tree := descendants(cmd.Process.Pid)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, pid := range tree {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timer <-chan time.Time
	exhausted := srv.Exhausted()
	if killAfter <= 0 {
		exhausted = nil
	}
	for {
		select {
		case werr := <-waited:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // reap what the CLI left behind
			return werr, nil
		case <-exhausted:
			exhausted = nil
			timer = time.After(killAfter)
		case <-timer:
			*killed = true
			killTree()
		case <-ctx.Done():
			killTree()
			return <-waited, ctx.Err()
		}
	}
}

// CodexBinary is where an npm-installed codex is expected:
// <cliDir>/codex-<version>/node_modules/.bin/codex.
func CodexBinary(cliDir, version string) string {
	return filepath.Join(cliDir, "codex-"+version, "node_modules", ".bin", "codex")
}

// CodexPinnedVersion is the @openai/codex version the project pins (engines.CodexVersion).
const CodexPinnedVersion = "0.171.0"

// CodexCaptureVersions are the versions whose real-* fixtures (the exec --json stream and the
// session rollout of the same run) are committed, newest first: one per rollout generation.
var CodexCaptureVersions = []string{CodexPinnedVersion, "0.125.0", "0.80.0", "0.45.0", "0.39.0", "0.20.0"}

// CodexInstallCommand is the shell command that installs version where CodexBinary looks.
func CodexInstallCommand(cliDir, version string) string {
	return fmt.Sprintf("npm install --prefix %s @openai/codex@%s",
		filepath.Join(cliDir, "codex-"+version), version)
}

// CodexCapture is the outcome of CaptureCodex.
type CodexCapture struct {
	*CodexResult
	Scenario Scenario
	Requests []Request // what the mock received
	// Rollout is the session rollout the CLI wrote under its HOME
	// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), paths sanitized like
	// the transcript; nil when it wrote none.
	Rollout []byte
}

// CaptureCodex runs the named capture scenario (see CodexScenario) with a real codex binary
// against a fresh mock on 127.0.0.1, in a fresh project holding CaptureReadme, with a fresh
// HOME, and returns the run with the temporary root rewritten to CaptureRoot. model "" means
// CodexModel; CLIDefault leaves codex on its own default model.
func CaptureCodex(ctx context.Context, binary, scenario string, cliDefaultModel bool) (*CodexCapture, error) {
	root, project, home, err := captureDirs()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	sc, err := CodexScenario(scenario, project)
	if err != nil {
		return nil, fmt.Errorf("capture codex: %w", err)
	}
	srv, err := Start("127.0.0.1:0", sc)
	if err != nil {
		return nil, fmt.Errorf("capture codex: %w", err)
	}
	run := CodexRun{Binary: binary, Server: srv, Workdir: project, Home: home, Prompt: CapturePrompt,
		CLIDefaultModel: cliDefaultModel}
	if scenario == ScenarioKilled {
		run.KillAfter = CaptureKillAfter
	}
	res, runErr := RunCodex(ctx, run)
	closeErr := srv.Close()
	if res == nil {
		return nil, runErr
	}
	res.Transcript = sanitizePaths(res.Transcript, root)
	res.Stderr = sanitizePaths(res.Stderr, root)
	c := &CodexCapture{CodexResult: res, Scenario: sc, Requests: srv.Requests()}
	rollout, rolloutErr := sessionFile(home, ".codex/sessions/*/*/*/rollout-*.jsonl", ".codex/sessions/rollout-*.json*")
	if rollout != nil {
		c.Rollout = sanitizePaths(rollout, root)
	}
	if err := errors.Join(runErr, closeErr, rolloutErr); err != nil {
		return c, fmt.Errorf("capture codex: %w", err)
	}
	return c, nil
}

// Names of the Codex capture scenarios (CodexScenario), beside the Claude ones.
const (
	ScenarioEdit = "edit" // apply_patch adding then updating a file, a failing patch, ADJUSTED_SUCCESS
	// ScenarioAbandoned runs a command that outlives exec_command's 10 s yield, then ends the
	// turn while it still runs.
	ScenarioAbandoned = "abandoned"
)

// CodexScenarioNames lists the Codex capture scenarios in a stable order.
var CodexScenarioNames = []string{ScenarioSuccess, ScenarioFailures, ScenarioEdit, ScenarioAbandoned, ScenarioKilled}

// CodexScenario returns a named capture scenario for a project at dir. The Claude scenarios
// are reused (their Bash, Write and Edit calls are translated to codex's tools); "edit" adds a
// relative-path patch, which is how codex's own model writes them.
func CodexScenario(name, dir string) (Scenario, error) {
	if name == ScenarioAbandoned {
		return Scenario{Name: name, Turns: []Turn{
			Run("Starting the server.", Bash("echo server starting; sleep 20; echo server stopped")),
		}, FinalText: "The server is starting in the background.\nSUCCESS"}, nil
	}
	if name == ScenarioEdit {
		return Scenario{Name: name, Turns: []Turn{
			Run("Adding the missing config.", Write(filepath.Join(dir, "config.env"), "PORT=8080\nDEBUG=0\n")),
			Run("", Edit(filepath.Join(dir, "config.env"), "DEBUG=0", "DEBUG=1")),
			Run("", Bash("cat config.env")),
			Run("", Edit(filepath.Join(dir, "missing.txt"), "nothing", "here")),
		}, FinalText: "FIX: README must say to create config.env\nADJUSTED_SUCCESS"}, nil
	}
	return ClaudeScenario(name, dir)
}
