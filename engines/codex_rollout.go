package engines

// Codex session rollouts: the file codex writes for every session under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl, read by the codex engine
// beside its `exec --json` stream. The generations and how each is read are
// described at the top of codex.go.

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// codexRolloutLineTypes are the record types of a rollout line
// {timestamp, type, payload}.
var codexRolloutLineTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
}

// codexResponseItemTypes are the Responses API items a rollout records
// (response_item payloads, and the bare lines of the first generation).
var codexResponseItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"local_shell_call": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"web_search_call": true, "ghost_snapshot": true, "compaction": true, "compaction_summary": true,
	"image_generation_call": true, "additional_tools": true, "tool_search_call": true,
	"tool_search_output": true, "mcp_tool_call": true, "other": true, "local_shell_call_output": true,
}

// codexShellTools are the function names codex gives its shell tool across
// versions: shell {command: argv} (≤ 0.8x), container.exec (older alias),
// shell_command {command: string}, local_shell, and the unified exec tool
// exec_command {cmd} (≥ 0.1xx).
var codexShellTools = map[string]bool{
	"shell": true, "container.exec": true, "shell_command": true, "local_shell": true,
	"exec_command": true, "unified_exec": true,
}

// rolloutCall is a tool call of a rollout waiting for its output.
type rolloutCall struct {
	kind    string // "cmd", "edit", "stdin" or "other"
	session string // stdin: the unified exec session it writes to
	exact   bool   // cmd: an end event gave the result; outputs no longer change it
	output  string // cmd: the output so far (unified exec returns it in chunks)
	omitted int64
}

// rolloutEdits are the files one patch call touched.
type rolloutEdits struct {
	changes []rolloutChange
	ok      bool
	exact   bool // from an end event (FileChange, patch_apply_end), not the patch text
}

type rolloutChange struct{ path, kind string }

// rollout is the state of a rollout being read.
type rollout struct {
	seen       bool
	cwd        string
	calls      *window[string, *rolloutCall]
	sessions   *window[string, string] // unified exec session id → the call that started it
	edits      []*rolloutEdits         // every patch, in call order: kept to the end
	editsByID  *window[string, *rolloutEdits]
	texts      *seenSet // agent texts already scanned
	taskEvents bool     // task_started / task_complete are recorded (codex ≥ 0.1xx)
	userTurns  int
	lastReply  bool // the last response item was an assistant message
	durationMS int64
	duration   bool
	aborted    string
}

func (p *codexParser) ro() *rollout {
	if !p.roll.seen {
		p.roll = rollout{seen: true, calls: newWindow[string, *rolloutCall](idWindow), sessions: newWindow[string, string](idWindow),
			editsByID: newWindow[string, *rolloutEdits](idWindow), texts: newSeenSet()}
	}
	return &p.roll
}

// rolloutLine handles one rollout line {timestamp, type, payload}.
func (p *codexParser) rolloutLine(typ string, payload *jsonv.Value) {
	r := p.ro()
	switch typ {
	case "session_meta":
		meta := payload
		if m := payload.Get("meta"); isObject(m) {
			meta = m
		}
		if v := meta.Get("cli_version").Str(); v != "" {
			p.b.log.AgentVersion = stringPtr(v)
		}
		if c := meta.Get("cwd").Str(); c != "" {
			r.cwd = c
		}
	case "turn_context":
		if c := payload.Get("cwd").Str(); c != "" {
			r.cwd = c
		}
	case "response_item":
		p.responseItem(payload)
	case "event_msg":
		p.rolloutEvent(payload)
	}
}

// responseItem handles one Responses API item of a rollout.
func (p *codexParser) responseItem(it *jsonv.Value) {
	r := p.ro()
	if !isObject(it) {
		p.b.unknownEvent()
		return
	}
	typ := it.Get("type").Str()
	callID := firstString(it, "call_id", "id")
	r.lastReply = false
	switch typ {
	case "message":
		if it.Get("role").Str() == "assistant" {
			r.lastReply = true
			p.rolloutText(codexMessageText(it.Get("content")))
		}
	case "function_call":
		p.functionCall(callID, it.Get("name").Str(), codexArguments(it.Get("arguments")))
	case "local_shell_call":
		p.shellCall(callID, it.Path("action", "command"))
	case "custom_tool_call":
		if it.Get("name").Str() == "apply_patch" {
			p.patchCall(callID, it.Get("input").Str())
			return
		}
		r.calls.put(callID, &rolloutCall{kind: "other"})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		p.callOutput(callID, it.Get("output"))
	default:
		if !codexResponseItemTypes[typ] {
			p.b.unknownEvent()
		}
	}
}

// isBareResponseItem reports whether v is a Responses API item as the first
// rollout generation writes it, bare on its line: a message with a content
// list (not another CLI's message event with a string), a call or output
// with its call_id, a reasoning item.
func isBareResponseItem(v *jsonv.Value) bool {
	switch v.Get("type").Str() {
	case "message":
		return v.Has("role") && isArray(v.Get("content"))
	case "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call_output":
		return v.Has("call_id")
	case "local_shell_call":
		return isObject(v.Get("action"))
	case "reasoning":
		return v.Has("summary") || v.Has("encrypted_content")
	case "web_search_call", "ghost_snapshot", "compaction", "compaction_summary", "image_generation_call":
		return true
	}
	return false
}

// codexArguments decodes a function call's arguments: a JSON string, or
// (in some serializations) the object itself.
func codexArguments(v *jsonv.Value) *jsonv.Value {
	if v.IsString() {
		if a, err := jsonv.ParseString(v.S, jsonv.Options{}); err == nil {
			return a
		}
		return nil
	}
	return v
}

func (p *codexParser) functionCall(id, name string, args *jsonv.Value) {
	r := p.ro()
	switch {
	case codexShellTools[name]:
		cmd := args.Get("cmd")
		if cmd == nil {
			cmd = args.Get("command")
		}
		p.shellCall(id, cmd)
	case name == "write_stdin":
		r.calls.put(id, &rolloutCall{kind: "stdin", session: idText(args.Get("session_id"))})
	case name == "apply_patch":
		patch := args.Get("input").Str()
		if patch == "" && args.IsString() {
			patch = args.S
		}
		p.patchCall(id, patch)
	default:
		r.calls.put(id, &rolloutCall{kind: "other"})
	}
}

// shellCall records a shell call, or a patch when the shell runs
// apply_patch (codex intercepts it and reports a file change).
func (p *codexParser) shellCall(id string, command *jsonv.Value) {
	text := codexCommand(command)
	if patch, ok := applyPatchInvocation(command, text); ok {
		p.patchCall(id, patch)
		return
	}
	id = p.b.command(id, text, "")
	p.kinds.put(id, "cmd")
	p.ro().calls.put(id, &rolloutCall{kind: "cmd"})
}

// applyPatchInvocation returns the patch of a shell call that runs
// apply_patch: argv ["apply_patch", PATCH], or a script starting with
// apply_patch (a heredoc holding the patch).
func applyPatchInvocation(command *jsonv.Value, text string) (string, bool) {
	items := command.Items()
	if len(items) == 2 && (items[0].Str() == "apply_patch" || items[0].Str() == "applypatch") {
		return items[1].Str(), true
	}
	t := strings.TrimSpace(text)
	if (strings.HasPrefix(t, "apply_patch") || strings.HasPrefix(t, "applypatch")) && strings.Contains(t, "*** Begin Patch") {
		return t, true
	}
	return "", false
}

// patchHeader matches the file lines of an apply_patch patch.
var patchHeader = lazyre.New(`(?m)^\*\*\* (Add|Update|Delete) File: (.+?)\s*$`)

// patchCall records the files a patch names; its output, or a later end
// event, says whether it applied.
func (p *codexParser) patchCall(id, patch string) {
	r := p.ro()
	e := &rolloutEdits{}
	for _, m := range patchHeader.FindAllStringSubmatch(patch, -1) {
		e.changes = append(e.changes, rolloutChange{path: r.resolve(m[2]), kind: strings.ToLower(m[1])})
	}
	if len(e.changes) == 0 {
		p.b.unknownEvent() // a patch naming no file
	}
	r.addEdits(id, e)
	r.calls.put(id, &rolloutCall{kind: "edit"})
}

func (r *rollout) addEdits(id string, e *rolloutEdits) {
	if old := r.editsByID.at(id); old != nil && id != "" {
		*old = *e
		return
	}
	r.edits = append(r.edits, e)
	if id != "" {
		r.editsByID.put(id, e)
	}
}

// resolve makes a patch path absolute against the session's working
// directory, as codex does when it applies the patch.
func (r *rollout) resolve(p string) string {
	if path.IsAbs(p) || r.cwd == "" || !path.IsAbs(r.cwd) || strings.Contains(p, `\`) {
		return p
	}
	return path.Join(r.cwd, p)
}

// callOutput pairs a tool call's output with its call by call_id.
func (p *codexParser) callOutput(id string, out *jsonv.Value) {
	r := p.ro()
	c := r.calls.at(id)
	if c == nil {
		p.b.unknownEvent()
		return
	}
	o := codexToolOutput(out)
	switch c.kind {
	case "cmd":
		if o.session != "" {
			r.sessions.put(o.session, id)
		}
		if !c.exact {
			c.output, c.omitted = o.text, o.omitted
			p.b.result(id, cmdResult{Output: c.output, Omitted: c.omitted, ExitCode: o.exit})
		}
	case "stdin":
		target := r.sessions.at(c.session)
		t := r.calls.at(target)
		if t == nil || t.exact {
			return
		}
		t.output += o.text
		t.omitted += o.omitted
		p.b.result(target, cmdResult{Output: t.output, Omitted: t.omitted, ExitCode: o.exit})
	case "edit":
		if e := r.editsByID.at(id); e != nil && !e.exact {
			e.ok = o.exit != nil && *o.exit == 0 || o.exit == nil && strings.HasPrefix(strings.TrimSpace(o.text), "Success.")
		}
	}
}

// codexOutput is what a tool output says.
type codexOutput struct {
	text    string
	omitted int64
	exit    *int
	session string // a unified exec session still running
}

var (
	codexTimedOut    = lazyre.New(`^command timed out after \d+ milliseconds\n`)
	codexExitCodeRe  = lazyre.New(`^(?:Exit code:|Process exited with code) (-?\d+)$`)
	codexRunningRe   = lazyre.New(`^Process running with session ID (\S+)$`)
	codexOutputHeads = []string{"Chunk ID:", "Wall time:", "Original token count:", "Total output lines:", "Exit code:",
		"Process exited with code", "Process running with session ID", "Signal:"}
)

// codexToolOutput reads a tool output in every form codex has written:
//   - a JSON string {"output": …, "metadata": {"exit_code": N, …}} (the shell
//     tool up to about 0.8x; a timeout note may lead the output);
//   - text with a header ("Exit code: N" / "Process exited with code N" /
//     "Process running with session ID S", "Wall time: …", …) and the
//     output after an "Output:" line (shell_command and unified exec);
//   - an array of content items or an object {content}; anything else is
//     the output itself, with no exit code.
//
// An exit code of -1 is codex's "none" (the process was stopped): nil.
func codexToolOutput(v *jsonv.Value) codexOutput {
	var o codexOutput
	switch {
	case v.IsString():
		o.text, o.omitted = v.Text()
	case v != nil && v.Kind == jsonv.Array:
		var parts []string
		for _, it := range v.Items() {
			if s := it.Get("text").Str(); s != "" {
				parts = append(parts, s)
				o.omitted += it.Get("text").Clipped()
			}
		}
		o.text = strings.Join(parts, "")
	case isObject(v):
		t := v.Get("content")
		if t == nil {
			t = v.Get("output")
		}
		return codexToolOutput(t)
	}
	if t := strings.TrimSpace(o.text); o.omitted == 0 && strings.HasPrefix(t, "{") {
		if inner, err := jsonv.ParseString(t, jsonv.Options{}); err == nil && inner.Get("output").IsString() {
			text := codexTimedOut.ReplaceAllString(inner.Get("output").Str(), "")
			out := codexOutput{text: text}
			if n, ok := inner.Path("metadata", "exit_code").Int(); ok && n != -1 {
				out.exit = intPtr(int(n))
			}
			return out
		}
	}
	header, body, ok := strings.Cut(o.text, "Output:\n")
	if !ok && strings.HasSuffix(o.text, "\nOutput:") {
		header, body, ok = strings.TrimSuffix(o.text, "Output:"), "", true
	}
	if !ok || (header != "" && !strings.HasSuffix(header, "\n")) {
		return o
	}
	var exit *int
	session := ""
	for _, line := range strings.Split(strings.TrimSuffix(header, "\n"), "\n") {
		if line == "" {
			continue
		}
		if !slices.ContainsFunc(codexOutputHeads, func(h string) bool { return strings.HasPrefix(line, h) }) {
			return o // not codex's header: the output itself
		}
		if m := codexExitCodeRe.FindStringSubmatch(line); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n != -1 {
				exit = intPtr(n)
			}
		}
		if m := codexRunningRe.FindStringSubmatch(line); m != nil {
			session = m[1]
		}
	}
	return codexOutput{text: body, omitted: o.omitted, exit: exit, session: session}
}

// codexMessageText joins the text parts of a message's content.
func codexMessageText(content *jsonv.Value) string {
	if content.IsString() {
		return content.S
	}
	var parts []string
	for _, c := range content.Items() {
		if s := c.Get("text").Str(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// rolloutText scans an agent text for markers once: a rollout records the
// same message as a response item and as an event.
func (p *codexParser) rolloutText(s string) {
	r := p.ro()
	if strings.TrimSpace(s) == "" || !r.texts.add(s) {
		return
	}
	p.b.agentText(s)
}

// codexEventTypes are the event messages codex records (in rollouts as
// event_msg, in the legacy stream as msg) that the parser knows; only some
// carry what a command log needs.
var codexEventTypes = map[string]bool{
	"error": true, "warning": true, "context_compacted": true, "task_started": true, "task_complete": true,
	"turn_started": true, "turn_complete": true, "token_count": true, "agent_message": true, "user_message": true,
	"agent_message_delta": true, "agent_reasoning": true, "agent_reasoning_delta": true,
	"agent_reasoning_raw_content": true, "agent_reasoning_raw_content_delta": true,
	"agent_reasoning_section_break": true, "session_configured": true, "mcp_startup_update": true,
	"mcp_startup_complete": true, "mcp_tool_call_begin": true, "mcp_tool_call_end": true,
	"web_search_begin": true, "web_search_end": true, "exec_command_begin": true, "exec_command_output_delta": true,
	"terminal_interaction": true, "exec_command_end": true, "view_image_tool_call": true,
	"exec_approval_request": true, "elicitation_request": true, "apply_patch_approval_request": true,
	"deprecation_notice": true, "background_event": true, "undo_started": true, "undo_completed": true,
	"stream_error": true, "patch_apply_begin": true, "patch_apply_end": true, "turn_diff": true,
	"get_history_entry_response": true, "mcp_list_tools_response": true, "list_custom_prompts_response": true,
	"list_skills_response": true, "skills_update_available": true, "plan_update": true, "turn_aborted": true,
	"shutdown_complete": true, "entered_review_mode": true, "exited_review_mode": true, "raw_response_item": true,
	"item_started": true, "item_completed": true, "agent_message_content_delta": true,
	"reasoning_content_delta": true, "reasoning_raw_content_delta": true, "thread_settings_applied": true,
	"thread_name_updated": true, "thread_rolled_back": true, "model_reroute": true, "collab_agent_spawn_begin": true,
	"collab_agent_spawn_end": true, "collab_agent_interaction_begin": true, "collab_agent_interaction_end": true,
	"collab_waiting_begin": true, "collab_waiting_end": true, "collab_close_begin": true, "collab_close_end": true,
	"request_user_input": true, "dynamic_tool_call_request": true, "ext": true,
}

// rolloutEvent handles a rollout's event_msg payload.
func (p *codexParser) rolloutEvent(ev *jsonv.Value) {
	r := p.ro()
	if !isObject(ev) {
		p.b.unknownEvent()
		return
	}
	switch typ := ev.Get("type").Str(); typ {
	case "exec_command_begin":
		id := ev.Get("call_id").Str()
		if p.kinds.at(id) != "cmd" {
			p.shellCall(id, ev.Get("command"))
		}
	case "exec_command_end":
		id := ev.Get("call_id").Str()
		if p.kinds.at(id) != "cmd" {
			p.shellCall(id, ev.Get("command"))
		}
		p.exactResult(id, codexExecEnd(ev))
	case "patch_apply_end":
		p.exactEdits(ev.Get("call_id").Str(), ev.Get("changes"), ev.Get("success").True())
	case "item_completed":
		p.rolloutItem(ev.Get("item"))
	case "agent_message":
		p.rolloutText(ev.Get("message").Str())
	case "user_message":
		r.userTurns++
	case "task_started", "turn_started":
		r.taskEvents = true
	case "task_complete", "turn_complete":
		r.taskEvents = true
		p.turns++
		p.ended = true
		p.rolloutText(ev.Get("last_agent_message").Str())
		if n, ok := ev.Get("duration_ms").Int(); ok && n >= 0 {
			r.durationMS += n
			r.duration = true
		}
	case "turn_aborted":
		p.turns++
		p.ended = true
		r.aborted = firstNonEmpty(ev.Get("reason").Str(), "aborted")
	case "error":
		p.setError(ev.Get("message"))
	default:
		if !codexEventTypes[typ] {
			p.b.unknownEvent()
		}
	}
}

// rolloutItem handles a typed turn item (event_msg item_completed, codex ≥
// 0.17x): CommandExecution and FileChange carry exact results, AgentMessage
// the agent's text.
func (p *codexParser) rolloutItem(it *jsonv.Value) {
	switch it.Get("type").Str() {
	case "CommandExecution":
		id := it.Get("id").Str()
		if p.kinds.at(id) != "cmd" {
			p.shellCall(id, it.Get("command"))
		}
		p.exactResult(id, codexExecEnd(it))
	case "FileChange":
		p.exactEdits(it.Get("id").Str(), it.Get("changes"), it.Get("status").Str() == "completed")
	case "AgentMessage":
		p.rolloutText(codexMessageText(it.Get("content")))
	}
}

// exactResult records a command's result from an end event; the call's
// text outputs no longer change it.
func (p *codexParser) exactResult(id string, res cmdResult) {
	r := p.ro()
	c := r.calls.at(id)
	if c == nil || c.kind != "cmd" {
		return // an intercepted apply_patch
	}
	c.exact = true
	p.b.result(id, res)
}

// codexExecEnd reads an exec end event (exec_command_end, or a
// CommandExecution item): aggregated output (else stdout and stderr), exit
// code (-1, codex's "none", is nil), status and duration.
func codexExecEnd(ev *jsonv.Value) cmdResult {
	out := cmdResult{}
	if agg := ev.Get("aggregated_output"); agg.IsString() {
		out.Output, out.Omitted = agg.Text()
	} else {
		stdout, stderr := ev.Get("stdout"), ev.Get("stderr")
		out.Output, out.Omitted = joinStreams(stdout.Str(), stderr.Str()), stdout.Clipped()+stderr.Clipped()
	}
	n, ok := ev.Get("exit_code").Int()
	if ok && n != -1 {
		out.ExitCode = intPtr(int(n))
	}
	switch ev.Get("status").Str() {
	case "declined":
		out.Failed = true
	case "failed":
		out.Failed = !ok // -1: stopped, not failed
	}
	if d := ev.Get("duration"); isObject(d) {
		secs, ok1 := d.Get("secs").Int()
		nanos, ok2 := d.Get("nanos").Int()
		if ok1 || ok2 {
			out.DurationMS = int64Ptr(secs*1000 + nanos/1e6)
		}
	}
	return out
}

// exactEdits records the files an end event says a patch changed:
// changes is {path: {type: add|update|delete, …}} (or, in older events,
// {path: {add|update|delete: {…}}}).
func (p *codexParser) exactEdits(id string, changes *jsonv.Value, ok bool) {
	r := p.ro()
	e := &rolloutEdits{ok: ok, exact: true}
	for _, m := range changes.Members() {
		kind := m.Val.Get("type").Str()
		if kind == "" && len(m.Val.Members()) > 0 {
			kind = m.Val.Members()[0].Key
		}
		e.changes = append(e.changes, rolloutChange{path: r.resolve(m.Key), kind: firstNonEmpty(kind, "update")})
	}
	if len(e.changes) == 0 {
		if old := r.editsByID.at(id); old != nil {
			e.changes = old.changes // the event names no file: keep the patch's
		}
	}
	r.addEdits(id, e)
	if r.calls.at(id) == nil {
		r.calls.put(id, &rolloutCall{kind: "edit"})
	}
}

// finishRollout settles what only the whole rollout tells: the edits (in
// call order), the turns, whether the last turn ended, the duration.
func (p *codexParser) finishRollout() {
	r := &p.roll
	for i, e := range r.edits {
		for j, c := range e.changes {
			key := "rollout-edit-" + strconv.Itoa(i) + "#" + strconv.Itoa(j)
			p.b.edit(key, c.path, "apply_patch:"+c.kind)
			p.b.editResult(key, e.ok)
		}
	}
	if !r.taskEvents && p.turns == 0 {
		// Before codex recorded task events, a user turn is a user_message
		// and a turn that ended leaves the assistant's reply last; a turn cut
		// off is not counted, as the stream counts only turns that ended.
		p.turns, p.ended = r.userTurns, r.lastReply
		if !p.ended && p.turns > 0 {
			p.turns--
		}
	}
	if r.duration {
		p.b.log.DurationMS = int64Ptr(r.durationMS)
	}
	if r.aborted != "" && p.errorMsg == "" {
		p.errorMsg = "the turn was aborted (" + r.aborted + ")"
	}
}
