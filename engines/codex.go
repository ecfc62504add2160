package engines

// Codex engine: OpenAI Codex CLI, `codex exec --json`, and the session
// rollouts codex writes for every session.
//
// Transcript format assumed (TRANSCRIPT-FORMATS.md, section 3): JSONL of
// events. Three stream envelopes are accepted, because all three are in the
// wild:
//
//   - The current "thread events" (codex ≥ 0.44, tested with real captures of
//     0.171.0 and the corpus' 0.147.0 samples): thread.started, turn.started,
//     item.started / item.updated / item.completed carrying an item with
//     "type" (command_execution {command, aggregated_output, exit_code,
//     status}, file_change {changes[{path, kind}], status}, agent_message
//     {text}, reasoning, mcp_tool_call, web_search, todo_list, plan, error),
//     turn.completed {usage}, turn.failed {error}, and a top-level error.
//   - The short-lived --experimental-json variant (0.41–0.43):
//     session.created, and items keyed "item_type" with "assistant_message".
//   - The legacy stream (≤ 0.41): a config-summary line, a {"prompt"} line,
//     then {"id", "msg": {"type": …}} lines: exec_command_begin/end (argv
//     command, call_id, exit_code, stdout/stderr/aggregated_output, duration),
//     patch_apply_begin/end, agent_message, task_complete, error. The same
//     payloads without the "msg" wrapper are accepted too.
//
// Session rollouts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl; read in
// codex_rollout.go), every generation tested with real files written by the
// real CLI against internal/scriptedllm (0.20.0, 0.39.0, 0.45.0, 0.80.0, 0.125.0,
// 0.171.0, each beside the exec --json stream of the same run) and real
// files published by other projects (0.77.0, 0.125.0 interactive):
//   - first generation (≤ ~0.2x): a {id, timestamp, instructions} line, then
//     the bare Responses API items, and {"record_type":"state"} lines;
//   - the TypeScript CLI (spring 2025): one JSON object {session, items};
//   - RolloutLine {timestamp, type, payload} (≥ ~0.3x): session_meta
//     (cli_version → agent_version, cwd), turn_context (cwd), response_item
//     (message, reasoning, function_call, local_shell_call, custom_tool_call
//     and their outputs, web_search_call, …), event_msg (agent_message,
//     user_message, token_count; task_started/task_complete, and in some
//     versions exec_command_end and patch_apply_end), compacted; 0.17x adds
//     "ordinal", world_state, token_usage_record and event_msg item_completed
//     with typed items (CommandExecution, FileChange, AgentMessage).
// Commands are the shell calls (shell {command: argv}, shell_command
// {command}, exec_command {cmd}, local_shell_call, container.exec); a shell
// call running apply_patch is a patch, as codex treats it. Results pair by
// call_id: an end event (exec_command_end, CommandExecution) is exact and
// wins; otherwise the output the model was given is read: the JSON
// {output, metadata: {exit_code}} of the old shell tool (its "command timed
// out after N milliseconds" note removed), or the header of shell_command
// and unified exec ("Exit code: N", "Process exited with code N", "Process
// running with session ID S") and the text after "Output:". A unified exec
// session polled with write_stdin gets the polls' output and exit code.
// Anything else is the output itself, with no exit code. Edits are the
// files an apply_patch patch names (relative paths resolved against the
// session cwd), replaced by the exact list of an end event (patch_apply_end,
// FileChange) when there is one; a patch is ok when an end event says so,
// or its output states exit code 0 or starts with "Success.". Compared with
// the stream of the same run, a rollout also shows patches codex refused
// before applying them (failed edits), and the output a command printed
// before it was stopped; a run killed mid-command may not have recorded
// that command yet. Markers come from assistant messages, agent_message
// events and task_complete.last_agent_message, each text scanned once.
// Turns count task_complete and turn_aborted (before codex recorded task
// events: the user turns that ended); duration_ms is the sum of
// task_complete.duration_ms, null without it.
//
// Drift tolerance:
//   - Records are decoded with internal/jsonv: malformed lines are counted and
//     skipped, every field is optional, unknown event, record and item types
//     are counted in parse_stats.unknown_events and otherwise ignored.
//   - Commands pair with their results by item id (call_id in the legacy
//     stream), never by position. A command that was started and never
//     completed (the agent was killed) stays "unknown" with a null exit code.
//   - A null exit code is unknown, whatever the status says: codex reports a
//     command abandoned at the end of a turn as status "completed" with
//     exit_code null (openai/codex#14691). Exit code -1 is codex's "none" (a
//     command it stopped or that timed out in its sandbox): null and unknown,
//     never a failure code. Status "failed" or "declined" without an exit
//     code is "failed" with a null exit code.
//   - Commands are shown as a human would type them: codex records them as
//     `/bin/bash -lc '…'`, `bash -lc '…'` or an argv array; only a leading
//     POSIX-shell `-c`/`-lc` wrapper whose argument is exactly one quoted
//     word is removed, so the text shown is the text the shell ran. Anything
//     else (pwsh, a wrapper followed by more words) is kept verbatim.
//   - file_change carries paths and kinds only (no diff); each path is one
//     file edit named "apply_patch:<kind>".
//   - Markers come from agent_message / assistant_message text and the legacy
//     agent_message and task_complete.last_agent_message, never from
//     reasoning or command output.
//   - Codex reports tokens, not dollars: cost_usd stays null. Turns counts
//     turn.completed and turn.failed (task_complete in the legacy stream);
//     duration is not in the transcript and stays null.
//   - A transcript with no turn.completed, turn.failed or task_complete is a
//     run that was cut off; its markers alone decide the outcome.

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

var (
	_ AgentEngine = (*codex)(nil)
	_ APIUser     = (*codex)(nil)
)

// CodexName is the --engine value of the Codex engine.
const CodexName = "codex"

// CodexProvider is the name of the model provider BuildCommand defines when
// OPENAI_BASE_URL is set (codex reaches a custom endpoint only through a
// model_providers entry).
const CodexProvider = "readme2demo"

type codex struct{}

func (*codex) Name() string { return CodexName }

func (*codex) RequiredEnv() []string {
	return []string{"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"}
}

func (c *codex) ResolveEnv(getenv func(string) string) (map[string]string, error) {
	errf := func(v, reason string) error { return &EngineError{Engine: c.Name(), Var: v, Reason: reason} }
	key, alt := getenv("OPENAI_API_KEY"), getenv("CODEX_API_KEY")
	env := map[string]string{}
	switch {
	case key != "":
		if reason := checkCredential(key); reason != "" {
			return nil, errf("OPENAI_API_KEY", reason)
		}
		env["OPENAI_API_KEY"] = key
	case alt != "":
		if reason := checkCredential(alt); reason != "" {
			return nil, errf("CODEX_API_KEY", reason)
		}
		env["CODEX_API_KEY"] = alt
	default:
		return nil, errf("OPENAI_API_KEY", "not set: set OPENAI_API_KEY (or CODEX_API_KEY) to an OpenAI API key")
	}
	if u := getenv("OPENAI_BASE_URL"); u != "" {
		if reason := checkBaseURL(u); reason != "" {
			return nil, errf("OPENAI_BASE_URL", reason)
		}
		env["OPENAI_BASE_URL"] = u
	}
	return env, nil
}

// APIAccess: with OPENAI_BASE_URL set, BuildCommand defines a model
// provider at that URL whose key is read from the key variable, so the
// egress proxy holds the key (Authorization: Bearer).
func (*codex) APIAccess(env map[string]string) APIAccess {
	var a APIAccess
	for _, v := range []string{"OPENAI_API_KEY", "CODEX_API_KEY"} {
		if env[v] != "" {
			a.Routes = append(a.Routes, APIRoute{API: "openai", KeyVar: v, BaseVar: "OPENAI_BASE_URL",
				DefaultBase: "https://api.openai.com/v1", Header: "Authorization", Prefix: "Bearer "})
		}
	}
	return a
}

// checkBaseURL rejects a base URL that would not survive being spliced into
// a quoted TOML or JSON string. It returns a reason, never the value.
func checkBaseURL(u string) string {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "must start with http:// or https://"
	}
	if strings.ContainsAny(u, "\"'\\ \t\r\n`$") {
		return "contains quotes, white space or shell characters: give a plain URL"
	}
	return ""
}

// codexSecretEnv are the variables codex must not hand on to the commands it
// runs: codex ≥ 0.80 passes its whole environment, API key included, to
// every command unless shell_environment_policy excludes it. A TOML array.
const codexSecretEnv = `["OPENAI_API_KEY","CODEX_API_KEY"]`

// BuildCommand runs the pinned codex non-interactively, with approvals and
// codex's own sandbox off (the container is the sandbox), the prompt on
// stdin and the JSON events on stdout. With OPENAI_BASE_URL set at exec time
// it defines a custom model provider that speaks the Responses API there
// (codex ignores the variable for its built-in provider in some versions).
// Codex has no turn limit; Limits.MaxTurns is not enforced by the CLI (the
// sandbox timeout bounds the run).
func (*codex) BuildCommand(l Limits) string {
	args := []string{"codex", "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-approvals-and-sandbox", "--cd", WorkspaceContainerPath,
		"-c", "shell_environment_policy.inherit=all",
		"-c", "shell_environment_policy.exclude=" + codexSecretEnv,
	}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	// The provider block only when a base URL is given; its env_key names the
	// variable that holds the key (OPENAI_API_KEY, else CODEX_API_KEY).
	provider := `set --; if [ -n "${OPENAI_BASE_URL:-}" ]; then ` +
		`k=OPENAI_API_KEY; [ -n "${OPENAI_API_KEY:-}" ] || k=CODEX_API_KEY; ` +
		`set -- -c model_provider=` + CodexProvider +
		` -c "model_providers.` + CodexProvider + `={name=\"readme2demo\",base_url=\"$OPENAI_BASE_URL\",env_key=\"$k\",wire_api=\"responses\"}"; fi; `
	return provider + shellJoin(args) + ` "$@" - < ` + ShellQuote(PromptContainerPath) +
		" > " + ShellQuote(TranscriptContainerPath) + " 2> " + ShellQuote(StderrContainerPath)
}

func (c *codex) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return c.ParseTranscriptTo(r, nil)
}

func (c *codex) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	p := &codexParser{b: newLogBuilderTo(c.Name(), s), kinds: newWindow[string, string](idWindow), texts: newSeenSet()}
	err := readRecords(r, codexOptions, p.b, p.event)
	if err != nil {
		return nil, err
	}
	return p.b.done(p.finish())
}

// codexOptions decode only the fields the parser reads (exec events, the
// legacy stream, rollouts); TestEngineKeysListed fails when it reads one
// missing here. A patch's changes are decoded whole: their keys are paths.
var codexOptions = jsonv.Options{
	Keep: map[string]bool{
		"action": true, "aggregated_output": true, "approval": true, "arguments": true, "call_id": true,
		"cli_version": true, "cmd": true, "command": true, "content": true, "cwd": true, "duration": true,
		"duration_ms": true, "encrypted_content": true, "error": true, "exit_code": true, "id": true, "input": true,
		"instructions": true, "item": true, "item_type": true, "items": true, "kind": true, "last_agent_message": true,
		"message": true, "meta": true, "metadata": true, "model": true, "msg": true, "name": true, "nanos": true,
		"output": true, "path": true, "payload": true, "prompt": true, "provider": true, "reason": true,
		"record_type": true, "role": true, "sandbox": true, "secs": true, "session": true, "session_id": true,
		"status": true, "stderr": true, "stdout": true, "success": true, "summary": true, "text": true,
		"timestamp": true, "type": true,
	},
	KeepAll: map[string]bool{"changes": true},
}

type codexParser struct {
	b        *logBuilder
	kinds    *window[string, string] // call id → "cmd" or "edit"
	texts    *seenSet                // agent message ids already scanned
	edits    *window[string, int]    // legacy patch call id → number of files
	turns    int
	ended    bool   // a turn.completed, turn.failed or task_complete was seen
	errorMsg string // the last fatal error
	roll     rollout
}

func (p *codexParser) event(v *jsonv.Value) {
	if items := v.Get("items"); isObject(v) && isObject(v.Get("session")) && items != nil && items.Kind == jsonv.Array {
		// The TypeScript CLI's session file (spring 2025): one JSON object
		// {session, items} whose items are Responses API items.
		p.ro()
		for _, it := range items.Items() {
			p.b.record()
			p.responseItem(it)
		}
		return
	}
	p.b.record()
	if !isObject(v) {
		p.b.unknownEvent()
		return
	}
	if msg := v.Get("msg"); isObject(msg) {
		p.legacy(msg)
		return
	}
	typ := v.Get("type").Str()
	if payload := v.Get("payload"); payload != nil && codexRolloutLineTypes[typ] {
		p.rolloutLine(typ, payload)
		return
	}
	if isBareResponseItem(v) {
		p.responseItem(v) // a rollout line of the first generation: the bare item
		return
	}
	switch typ {
	case "thread.started", "session.created", "turn.started", "item.plan.delta", "request_user_input":
	case "item.started", "item.updated", "item.completed":
		p.item(typ, v.Get("item"))
	case "turn.completed":
		p.turns++
		p.ended = true
	case "turn.failed":
		p.turns++
		p.ended = true
		p.setError(v.Path("error", "message"))
	case "error":
		p.setError(v.Get("message"))
	case "":
		switch {
		case v.Has("prompt"), v.Has("model") && (v.Has("sandbox") || v.Has("provider") || v.Has("approval")):
			// legacy header lines: the prompt and the config summary
		case v.Has("record_type"), v.Has("id") && v.Has("timestamp") && v.Has("instructions"):
			// a rollout of the first generation: its state lines and its
			// first line, the session meta
			p.ro()
		default:
			p.b.unknownEvent()
		}
	default:
		if codexEventTypes[typ] {
			p.legacy(v) // legacy payload without the msg wrapper
			return
		}
		p.b.unknownEvent()
	}
}

// setError records a fatal error's message, when it has one, unwrapping
// the JSON API error codex sometimes embeds in the string.
func (p *codexParser) setError(m *jsonv.Value) {
	s := strings.TrimSpace(m.Str())
	if strings.HasPrefix(s, "{") {
		if inner, err := jsonv.ParseString(s, jsonv.Options{}); err == nil {
			s = firstNonEmpty(inner.Path("error", "message").Str(), inner.Get("message").Str(), s)
		}
	}
	if s != "" {
		p.errorMsg = s
	}
}

func (p *codexParser) item(event string, it *jsonv.Value) {
	if !isObject(it) {
		p.b.unknownEvent()
		return
	}
	id := it.Get("id").Str()
	typ := firstString(it, "type", "item_type")
	completed := event == "item.completed"
	switch typ {
	case "command_execution":
		if id == "" || !p.b.hasCommand(id) { // started and completed both name it
			id = p.b.command(id, codexCommand(it.Get("command")), "")
		}
		p.kinds.put(id, "cmd")
		if completed {
			p.commandDone(id, it)
		}
	case "file_change":
		p.fileChange(id, it, completed)
	case "agent_message", "assistant_message":
		if completed && (id == "" || p.texts.add(id)) {
			p.b.agentText(it.Get("text").Str())
		}
	case "reasoning", "plan", "todo_list", "mcp_tool_call", "collab_tool_call", "web_search", "error",
		"image_generation", "image_view":
	default:
		p.b.unknownEvent()
	}
}

func (p *codexParser) commandDone(id string, it *jsonv.Value) {
	out := cmdResult{}
	agg := it.Get("aggregated_output")
	out.Output, out.Omitted = agg.Text()
	n, ok := it.Get("exit_code").Int()
	if ok && n != -1 {
		out.ExitCode = intPtr(int(n))
	}
	switch it.Get("status").Str() {
	case "declined":
		out.Failed = true
	case "failed":
		out.Failed = !ok || n != -1 // -1 is codex's "none": stopped, not failed
	}
	p.b.result(id, out)
}

func (p *codexParser) fileChange(id string, it *jsonv.Value, completed bool) {
	changes := it.Get("changes").Items()
	status := it.Get("status").Str()
	for i, ch := range changes {
		path := ch.Get("path").Str()
		tool := "apply_patch:" + firstNonEmpty(ch.Get("kind").Str(), ch.Path("kind", "type").Str(), "update")
		key := id + "#" + strconv.Itoa(i)
		if id == "" {
			key = p.b.nextID()
		}
		p.b.edit(key, path, tool)
		if completed {
			p.b.editResult(key, status == "completed" || status == "")
		}
	}
}

func isObject(v *jsonv.Value) bool { return v != nil && v.Kind == jsonv.Object }

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (p *codexParser) legacy(msg *jsonv.Value) {
	typ := msg.Get("type").Str()
	switch typ {
	case "exec_command_begin":
		id := p.b.command(msg.Get("call_id").Str(), codexCommand(msg.Get("command")), "")
		p.kinds.put(id, "cmd")
	case "exec_command_end":
		id := msg.Get("call_id").Str()
		if p.kinds.at(id) != "cmd" {
			// an end without a begin still names its command when it can
			cmd := codexCommand(msg.Get("command"))
			if cmd == "" {
				p.b.unknownEvent()
				return
			}
			id = p.b.command(id, cmd, "")
			p.kinds.put(id, "cmd")
		}
		p.b.result(id, codexExecEnd(msg))
	case "patch_apply_begin":
		id := msg.Get("call_id").Str()
		var changes []jsonv.Member
		if c := msg.Get("changes"); isObject(c) {
			changes = c.Members()
		}
		for i, m := range changes {
			kind := "update"
			if isObject(m.Val) && len(m.Val.Members()) > 0 {
				kind = m.Val.Members()[0].Key
			}
			key := id + "#" + strconv.Itoa(i)
			p.b.edit(key, m.Key, "apply_patch:"+kind)
		}
		p.kinds.put(id, "edit")
		if p.edits == nil {
			p.edits = newWindow[string, int](idWindow)
		}
		p.edits.put(id, len(changes))
	case "patch_apply_end":
		id := msg.Get("call_id").Str()
		if p.kinds.at(id) != "edit" {
			p.b.unknownEvent()
			return
		}
		ok := msg.Get("success").True()
		for i := 0; i < p.edits.at(id); i++ {
			p.b.editResult(id+"#"+strconv.Itoa(i), ok)
		}
	case "agent_message":
		p.b.agentText(msg.Get("message").Str())
	case "task_complete":
		p.turns++
		p.ended = true
		p.b.agentTextOnce(msg.Get("last_agent_message").Str())
	case "error":
		p.setError(msg.Get("message"))
	default:
		if !codexEventTypes[typ] {
			p.b.unknownEvent()
		}
	}
}

// codexCommand renders a command (a string or an argv array) as the command
// a human would recognise, removing only a leading shell -c wrapper.
func codexCommand(v *jsonv.Value) string {
	if v.IsString() {
		return unwrapShellString(v.S)
	}
	items := v.Items()
	if len(items) == 0 {
		return ""
	}
	argv := make([]string, len(items))
	for i, it := range items {
		argv[i] = it.Str()
	}
	if len(argv) == 3 && isShellWrapper(argv[0], argv[1]) {
		return argv[2]
	}
	return shellJoin(argv)
}

// isShellWrapper reports whether shell flag is `<posix shell> -c` or `-lc`.
func isShellWrapper(shell, flag string) bool {
	base := shell[strings.LastIndexByte(shell, '/')+1:]
	switch base {
	case "bash", "sh", "zsh", "dash":
	default:
		return false
	}
	return flag == "-c" || flag == "-lc"
}

// unwrapShellString turns `/bin/bash -lc 'echo hi'` into `echo hi`. The
// wrapper is removed only when it is followed by exactly one shell word
// whose quoting is understood; the string is returned unchanged otherwise.
func unwrapShellString(s string) string {
	fields := strings.SplitN(s, " ", 3)
	if len(fields) != 3 || !isShellWrapper(fields[0], fields[1]) {
		return s
	}
	if word, ok := singleShellWord(fields[2]); ok {
		return word
	}
	return s
}

// shellSpecial marks the bytes that end a plain run in singleShellWord:
// quotes, backslashes, and what the shell would split on or expand.
var shellSpecial = func() (t [256]bool) {
	for _, c := range []byte(" \t\n;&|<>()$`*?[#~{}'\"\\") {
		t[c] = true
	}
	return t
}()

// singleShellWord decodes s when it is exactly one POSIX shell word made of
// single-quoted parts, double-quoted parts without expansions, and plain
// characters.
func singleShellWord(s string) (string, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			out = append(out, s[i+1:i+1+j]...)
			i += j + 2
		case '"':
			i++
			for {
				if i >= len(s) {
					return "", false
				}
				d := s[i]
				if d == '"' {
					i++
					break
				}
				if d == '$' || d == '`' {
					return "", false // an expansion: the outer shell changed the text
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					out = append(out, s[i+1])
					i += 2
					continue
				}
				out = append(out, d)
				i++
			}
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			out = append(out, s[i+1])
			i += 2
		default:
			if shellSpecial[c] {
				return "", false
			}
			j := i + 1
			for j < len(s) && !shellSpecial[s[j]] {
				j++
			}
			out = append(out, s[i:j]...)
			i = j
		}
	}
	return string(out), len(out) > 0
}

func (p *codexParser) finish() *commandlog.Log {
	if p.roll.seen {
		p.finishRollout()
	}
	l := &p.b.log
	if p.turns > 0 {
		l.Turns = intPtr(p.turns)
	}
	reason := ""
	switch {
	case p.errorMsg != "":
		msg, _ := TruncateOutput(p.errorMsg)
		reason = "codex stopped with an error: " + firstLine(msg)
	case !p.ended:
		reason = "the transcript ends without a completed turn (the agent was killed or cut off) and no marker decides"
	}
	return p.b.finish(reason)
}

// codexSpec is what the rest of the program knows about Codex.
var codexSpec = Spec{
	CLI: &CLISpec{
		Name: "codex", Registry: NPM, Package: "@openai/codex",
		Bin: "codex", PinConst: "CodexVersion", Scheduled: true,
		SessionFiles:  []string{".codex/sessions/*/*/*/rollout-*.jsonl", ".codex/sessions/rollout-*.json*"},
		SessionSuffix: ".rollout.jsonl",
		APIEnv: func(baseURL, key string) map[string]string {
			return map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": baseURL + "/v1"}
		},
		Headless: codexHeadless,
	},
	Image: ImageSpec{Flavour: "codex"},
	// codex reports tokens, not dollars, and no duration; turns counts
	// turn.completed.
	Drift: &DriftProfile{Cost: PresenceNever, Turns: PresenceFinal, Duration: PresenceNever,
		WriteTool: "apply_patch:add", EditTool: "apply_patch:update"},
	// A static (musl) binary.
	Devcontainer: &DevcontainerSpec{
		Copies: []DevcontainerCopy{{From: "/usr/local/lib/node_modules/@openai/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", To: "/usr/local/bin/codex"}},
		Checks: []string{"codex --version"},
	},
}

// codexHeadless runs `codex exec` with the prompt on stdin and a private
// CODEX_HOME.
func codexHeadless(r HeadlessRun) Headless {
	codexHome := filepath.Join(r.Home, ".codex")
	args := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if r.Model != "" {
		args = append(args, "-m", r.Model)
	}
	// codex reaches a custom endpoint only through a model provider.
	args = append(args, "-c", "model_provider=mock",
		"-c", fmt.Sprintf(`model_providers.mock={name="mock",base_url=%q,env_key="OPENAI_API_KEY",wire_api="responses"}`, r.BaseURL+"/v1"))
	return Headless{
		Args:          append(append(args, r.Args...), "-"),
		Env:           []string{"CODEX_HOME=" + codexHome, "OPENAI_API_KEY=" + r.APIKey},
		PromptOnStdin: true,
		Dirs:          []string{codexHome},
	}
}

func init() { Register(&codex{}, codexSpec) }
