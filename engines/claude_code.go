package engines

// Claude Code engine: `claude -p --output-format stream-json --verbose`.
//
// Transcript format assumed (see docs in TRANSCRIPT-FORMATS.md, section 1):
// NDJSON of events with a top-level "type" — system (init carries
// claude_code_version), assistant (message.content blocks: text, thinking,
// tool_use), user (tool_result blocks, plus tool_use_result with the
// structured output), result (cost, turns, duration). Tested against real
// captures of CLI 1.0.x, 2.0.x and 2.1.x and the corpus of other projects'
// transcripts. Also accepted: the whole stream saved as one JSON array (the
// claude-code-action execution file), a single pretty-printed result object,
// and the on-disk session format (~/.claude/projects/*.jsonl: camelCase
// toolUseResult, a "version" field on every line, no result line).
//
// Drift tolerance:
//   - Records are decoded with internal/jsonv: malformed records are counted
//     and skipped, a line of any size costs bounded memory, and every field
//     is optional (missing or wrongly typed means unknown).
//   - Unknown event types are counted in parse_stats.unknown_events and
//     otherwise ignored; so are the known ones that carry no command
//     (stream_event, rate_limit_event, control_*, tool_progress — 2.1.x
//     prints it while a Bash command runs long or a hook beats — and
//     session-file bookkeeping).
//   - Calls pair with results by id only. A call without a result stays
//     "unknown" with a null exit code.
//   - The exit code is stated only as text: "Exit code N" at the start of an
//     error result, or "Error: Exit code N" in tool_use_result. No error means
//     0; an error without a stated code is "failed" with a null exit code.
//   - tool_result.content may be a string, a list of blocks, or such a list
//     serialised into a string; all three give the same text. When
//     tool_use_result carries stdout/stderr, that real output wins over the
//     content, which may be only a preview of a large output.
//   - One API message spread over several lines (same message.id) is one
//     turn; text repeated on those lines is scanned for markers once.
//   - Cost: total_cost_usd, else the older cost_usd. Without a result line
//     (the agent was killed) cost, turns and duration stay null and the
//     markers alone decide the outcome.
//   - Only top-level agent text (parent_tool_use_id null) carries markers;
//     sub-agents' commands are logged with their parent's id.

import (
	"io"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

var (
	_ AgentEngine = (*claudeCode)(nil)
	_ APIUser     = (*claudeCode)(nil)
)

// ClaudeCodeName is the --engine value of the Claude Code engine.
const ClaudeCodeName = "claude-code"

// DefaultMaxTurns caps an agent run when the user sets no limit.
const DefaultMaxTurns = 50

type claudeCode struct {
	noClip bool // decode output whole (tests compare the two)
}

func (*claudeCode) Name() string { return ClaudeCodeName }

func (*claudeCode) RequiredEnv() []string {
	return []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"}
}

// Credential shapes: an API key starts sk-ant-api, an OAuth token from
// `claude setup-token` starts sk-ant-oat.
const (
	anthropicOAuthPrefix  = "sk-ant-oat"
	anthropicAPIKeyPrefix = "sk-ant-api"
)

func (c *claudeCode) ResolveEnv(getenv func(string) string) (map[string]string, error) {
	key, token := getenv("ANTHROPIC_API_KEY"), getenv("CLAUDE_CODE_OAUTH_TOKEN")
	errf := func(v, reason string) error { return &EngineError{Engine: c.Name(), Var: v, Reason: reason} }
	if key == "" && token == "" {
		return nil, errf("ANTHROPIC_API_KEY", "not set: set ANTHROPIC_API_KEY to an Anthropic API key (sk-ant-api…), or CLAUDE_CODE_OAUTH_TOKEN to a token from `claude setup-token` (sk-ant-oat…)")
	}
	env := map[string]string{}
	if key != "" {
		if err := checkCredential(key); err != "" {
			return nil, errf("ANTHROPIC_API_KEY", err)
		}
		if strings.HasPrefix(key, anthropicOAuthPrefix) {
			return nil, errf("ANTHROPIC_API_KEY", "holds an OAuth token (sk-ant-oat…), not an API key: put it in CLAUDE_CODE_OAUTH_TOKEN instead")
		}
		env["ANTHROPIC_API_KEY"] = key
	}
	if token != "" {
		if err := checkCredential(token); err != "" {
			return nil, errf("CLAUDE_CODE_OAUTH_TOKEN", err)
		}
		if strings.HasPrefix(token, anthropicAPIKeyPrefix) {
			return nil, errf("CLAUDE_CODE_OAUTH_TOKEN", "holds an API key (sk-ant-api…), not an OAuth token: put it in ANTHROPIC_API_KEY instead")
		}
		if key == "" { // with both set, the API key is the one used
			env["CLAUDE_CODE_OAUTH_TOKEN"] = token
		}
	}
	copyEnv(env, getenv, "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL")
	return env, nil
}

// APIAccess: Claude Code reads its base URL from ANTHROPIC_BASE_URL and
// sends whatever key it is given, so the egress proxy holds the API key
// (x-api-key) or the OAuth token (Authorization: Bearer; its placeholder
// keeps the sk-ant-oat01- prefix the CLI looks at to pick the header).
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC keeps it off its telemetry
// hosts where only the API is reachable.
func (*claudeCode) APIAccess(env map[string]string) APIAccess {
	a := APIAccess{Quiet: map[string]string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}}
	base := APIRoute{API: "anthropic", BaseVar: "ANTHROPIC_BASE_URL", DefaultBase: "https://api.anthropic.com"}
	if env["ANTHROPIC_API_KEY"] != "" {
		r := base
		r.KeyVar, r.Header = "ANTHROPIC_API_KEY", "x-api-key"
		a.Routes = append(a.Routes, r)
	}
	if env["CLAUDE_CODE_OAUTH_TOKEN"] != "" {
		r := base
		r.KeyVar, r.Header, r.Prefix = "CLAUDE_CODE_OAUTH_TOKEN", "Authorization", "Bearer "
		r.Placeholder = "sk-ant-oat01-" + PlaceholderKey
		a.Routes = append(a.Routes, r)
	}
	return a
}

// copyEnv adds to env the variables among names that getenv sets.
func copyEnv(env map[string]string, getenv func(string) string, names ...string) {
	for _, name := range names {
		if v := getenv(name); v != "" {
			env[name] = v
		}
	}
}

// checkCredential catches copy-paste accidents common to every credential.
// It returns a reason, never the value.
func checkCredential(v string) string {
	if strings.TrimSpace(v) != v {
		return "has leading or trailing white space or a newline (a copy-paste accident?): store the secret without it"
	}
	if strings.ContainsAny(v, " \t\r\n") {
		return "contains white space: a credential is one word"
	}
	return ""
}

func (*claudeCode) BuildCommand(l Limits) string {
	turns := l.MaxTurns
	if turns <= 0 {
		turns = DefaultMaxTurns
	}
	args := []string{"claude", "-p", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--max-turns", strconv.Itoa(turns)}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	if l.MaxCostUSD > 0 {
		// The CLI stops itself at the cap (2.x); the pipeline also checks the
		// final cost, for CLIs without the flag's effect.
		args = append(args, "--max-budget-usd", strconv.FormatFloat(l.MaxCostUSD, 'f', -1, 64))
	}
	return shellJoin(args) + " < " + ShellQuote(PromptContainerPath) +
		" > " + ShellQuote(TranscriptContainerPath) + " 2> " + ShellQuote(StderrContainerPath)
}

func (c *claudeCode) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return c.ParseTranscriptTo(r, nil)
}

func (c *claudeCode) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	p := &claudeParser{b: newLogBuilderTo(c.Name(), s), calls: newWindow[string, string](idWindow), texts: newSeenSet()}
	opt := jsonv.Options{Keep: claudeKeys, Skip: claudeSkipKeys,
		Clip: claudeClipKeys, ClipHead: OutputHeadBytes + claudeClipSlack, ClipTail: OutputTailBytes + claudeClipSlack}
	err := readRecords(r, unclipped(opt, c.noClip), p.b, func(v *jsonv.Value) {
		p.b.record()
		p.event(v)
	})
	if err != nil {
		return nil, err
	}
	return p.b.done(p.finish())
}

// claudeKeys are the only fields the parser reads: the decoder steps over
// every other one (token usage, tool and plugin lists, thinking text, file
// snapshots, ids of lines and sessions, and whatever a new CLI adds).
// TestEngineKeysListed fails when the parser reads a field missing here.
var claudeKeys = map[string]bool{
	"type": true, "version": true, "sessionId": true, "claude_code_version": true, "message": true,
	"parent_tool_use_id": true, "isSidechain": true, "id": true, "content": true, "text": true, "name": true,
	"input": true, "command": true, "cmd": true, "command_line": true, "file_path": true, "path": true,
	"notebook_path": true, "tool_use_id": true, "is_error": true, "tool_use_result": true, "toolUseResult": true,
	"interrupted": true, "backgroundTaskId": true, "run_in_background": true, "stdout": true, "stderr": true, "persistedOutputSize": true,
	"result": true, "total_cost_usd": true, "cost_usd": true, "num_turns": true, "duration_ms": true, "subtype": true,
}

// claudeClipKeys hold command output, of which the log keeps only the head
// and the tail (TruncateOutput): the decoder keeps a little more than those
// of a long value and skips decoding the rest (jsonv.Options.Clip), which
// leaves the log as it would be from the whole text. "content" is also an
// assistant message's text when it is a string: read whole (Value.Whole).
var claudeClipKeys = map[string]bool{"content": true, "stdout": true, "stderr": true}

// claudeClipSlack is how much more than the log's head and tail the decoder
// keeps of a clipped output: room for the "Exit code N" prefix that
// toolResult cuts from the head (a longer one reads the whole text).
const claudeClipSlack = 64

// claudeSkipKeys are fields the parser never reads; the decoder steps over
// them (token usage, tool and plugin lists, thinking text, file snapshots).
var claudeSkipKeys = map[string]bool{
	"usage": true, "modelUsage": true, "tools": true, "slash_commands": true, "mcp_servers": true,
	"agents": true, "skills": true, "plugins": true, "signature": true, "thinking": true,
	"structuredPatch": true, "originalFile": true, "permission_denials": true, "rate_limit_info": true,
	"snapshot": true, "context_management": true,
	"uuid": true, "session_id": true, "parentUuid": true, "leafUuid": true, "timestamp": true, "requestId": true,
	"stop_sequence": true, "persistedOutputPath": true, "cwd": true, "gitBranch": true, "userType": true,
}

type claudeParser struct {
	b      *logBuilder
	calls  *window[string, string] // call id → "bash", "edit" or "other"
	texts  *seenSet                // message id + text already scanned
	result *jsonv.Value            // the result line, nil until one is read
}

func (p *claudeParser) event(v *jsonv.Value) {
	if v.Kind != jsonv.Object {
		p.b.unknownEvent()
		return
	}
	if p.b.log.AgentVersion == nil {
		// Session files carry "version" on every line.
		if ver := v.Get("version").Str(); ver != "" && v.Has("sessionId") {
			p.b.log.AgentVersion = stringPtr(ver)
		}
	}
	switch v.Get("type").Str() {
	case "system":
		if ver := v.Get("claude_code_version").Str(); ver != "" {
			p.b.log.AgentVersion = stringPtr(ver)
		}
	case "assistant":
		p.assistant(v)
	case "user":
		p.user(v)
	case "result":
		p.result = v.Clone()
		if text := v.Get("result").Str(); text != "" {
			p.b.agentTextOnce(text)
		}
	case "stream_event", "rate_limit_event", "control_request", "control_response", "control_cancel_request",
		"conversation_reset", "keep_alive", "tool_progress",
		// session-file bookkeeping
		"progress", "file-history-snapshot", "queue-operation", "summary", "last-prompt", "custom-title":
	default:
		p.b.unknownEvent()
	}
}

func (p *claudeParser) assistant(v *jsonv.Value) {
	msg := v.Get("message")
	parent := v.Get("parent_tool_use_id").Str()
	topLevel := parent == "" && !v.Get("isSidechain").True()
	msgID := msg.Get("id").Str()
	content := msg.Get("content")
	if content.IsString() {
		if topLevel {
			text, _ := content.Whole() // agent text: markers anywhere count
			p.text(msgID, text)
		}
		return
	}
	for _, block := range content.Items() {
		switch block.Get("type").Str() {
		case "text":
			if topLevel {
				p.text(msgID, block.Get("text").Str())
			}
		case "tool_use", "server_tool_use":
			p.toolUse(block, parent)
		}
	}
}

// text scans agent text for markers once per message, however many lines
// repeat the message.
func (p *claudeParser) text(msgID, text string) {
	if text == "" {
		return
	}
	if msgID != "" && !p.texts.add(msgID, text) {
		return
	}
	p.b.agentText(text)
}

var claudeEditTools = map[string]string{
	"Edit": "Edit", "MultiEdit": "MultiEdit", "Write": "Write", "NotebookEdit": "NotebookEdit",
	"create_file": "Write", "write_file": "Write", "edit_file": "Edit", "multi_edit": "MultiEdit",
}

func (p *claudeParser) toolUse(block *jsonv.Value, parent string) {
	id := block.Get("id").Str()
	name := block.Get("name").Str()
	input := block.Get("input")
	if id != "" && p.calls.has(id) {
		return // the same call repeated on another line of a split message
	}
	switch {
	case name == "Bash" || name == "bash":
		cmd := firstString(input, "command", "cmd", "command_line")
		id = p.b.command(id, cmd, parent)
		if input.Get("run_in_background").True() {
			// Left running (a server): its result says only that it started.
			p.b.setHowRan(id, commandlog.Command{Background: &commandlog.Background{}})
		}
		p.calls.put(id, "bash")
	case claudeEditTools[name] != "":
		id = p.b.edit(id, firstString(input, "file_path", "path", "notebook_path"), claudeEditTools[name])
		p.calls.put(id, "edit")
	default:
		if id != "" {
			p.calls.put(id, "other")
		}
	}
}

func firstString(v *jsonv.Value, keys ...string) string {
	for _, k := range keys {
		if s := v.Get(k).Str(); s != "" {
			return s
		}
	}
	return ""
}

func (p *claudeParser) user(v *jsonv.Value) {
	content := v.Path("message", "content")
	var results []*jsonv.Value
	for _, block := range content.Items() {
		if block.Get("type").Str() == "tool_result" {
			results = append(results, block)
		}
	}
	// tool_use_result belongs to the line's tool_result only when there is
	// exactly one.
	var structured *jsonv.Value
	if len(results) == 1 {
		structured = v.Get("tool_use_result")
		if structured == nil {
			structured = v.Get("toolUseResult")
		}
	}
	for _, res := range results {
		p.toolResult(res, structured)
	}
}

// failedExitCode is the exit code an error result states, nil when it
// states 0: the result is a failure all the same, and a failed command
// with exit code 0 says two contradicting things.
func failedExitCode(digits string) *int {
	if c := atoiPtr(digits); c != nil && *c != 0 {
		return c
	}
	return nil
}

var claudeExitCode = lazyre.New(`^(?:Error: )?Exit code (-?\d+)\s*(?:\n|$)`)

func (p *claudeParser) toolResult(res, structured *jsonv.Value) {
	id := res.Get("tool_use_id").Str()
	kind, ok := p.calls.get(id)
	if !ok {
		p.b.unknownEvent()
		return
	}
	isError := res.Get("is_error").True()
	switch kind {
	case "edit":
		p.b.editResult(id, !isError)
		return
	case "other":
		return
	}
	content := res.Get("content")
	text, omitted := claudeContentText(content)
	if isError && omitted > 0 && !claudeExitSettled(text, claudeClipSlack-8) {
		// The exit code prefix may run past the head the decoder kept.
		text, omitted = content.Whole()
	}
	out := cmdResult{Output: text, Omitted: omitted}
	if structured.IsString() && out.Output == "" {
		out.Output, out.Omitted = structured.Text()
	}
	if isError {
		out.Failed = true
		if m := claudeExitCode.FindStringSubmatch(text); m != nil {
			out.ExitCode = failedExitCode(m[1])
			out.Output = text[len(m[0]):]
		} else if m := claudeExitCode.FindStringSubmatch(structured.Str()); m != nil {
			out.ExitCode = failedExitCode(m[1])
		}
	} else {
		switch {
		case structured.Get("interrupted").True():
			// killed before it ended: no exit code
		case structured.Get("backgroundTaskId").Str() != "":
			// still running in the background: no exit code yet
		default:
			out.ExitCode = intPtr(0)
		}
	}
	// The structured stdout/stderr is the real output; content may be a
	// preview of it (<persisted-output>) or carry the "Exit code N" prefix.
	if structured.Get("stdout").IsString() || structured.Get("stderr").IsString() {
		stdout, stderr := structured.Get("stdout"), structured.Get("stderr")
		joined := joinStreams(stdout.Str(), stderr.Str())
		if joined != "" || out.Output == "" {
			out.Output, out.Omitted = joined, stdout.Clipped()+stderr.Clipped()
			// CLI 2.1.x keeps only the first 30,000 characters of a large
			// output and states the real size: count what it dropped.
			if size, ok := structured.Get("persistedOutputSize").Int(); ok {
				if dropped := size - int64(len(joined)) - out.Omitted; dropped > 0 {
					out.Omitted += dropped
				}
			}
		}
	}
	p.b.result(id, out)
}

// claudeExitHead is the start of claudeExitCode: the prefix and the number.
var claudeExitHead = lazyre.New(`^(?:Error: )?Exit code -?\d+`)

// claudeExitSettled reports whether claudeExitCode's match on text depends
// only on its first n bytes: text does not start with the prefix and a
// number, or they and the white space after them end before n.
func claudeExitSettled(text string, n int) bool {
	loc := claudeExitHead.FindStringIndex(text)
	if loc == nil {
		return true
	}
	e := loc[1]
	for e < len(text) && strings.IndexByte("\t\n\f\r ", text[e]) >= 0 {
		e++
	}
	return e < n
}

// claudeContentText joins the text of a tool_result content: a string, a
// list of blocks, or a list of blocks serialised into a string.
func claudeContentText(c *jsonv.Value) (string, int64) {
	if c.IsString() {
		s := strings.TrimSpace(c.S)
		if c.Omitted == 0 && strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && strings.Contains(s, `"type"`) {
			if inner, err := jsonv.ParseString(s, jsonv.Options{}); err == nil && inner.Kind == jsonv.Array && allTextBlocks(inner) {
				return claudeContentText(inner)
			}
		}
		return c.Text()
	}
	var parts []string
	var omitted int64
	for _, b := range c.Items() {
		if b.Get("type").Str() == "text" {
			parts = append(parts, b.Get("text").Str())
			omitted += b.Get("text").Clipped()
		}
	}
	return strings.Join(parts, "\n"), omitted
}

func allTextBlocks(v *jsonv.Value) bool {
	for _, b := range v.Items() {
		if b.Kind != jsonv.Object || b.Get("type").Str() == "" {
			return false
		}
	}
	return len(v.Items()) > 0
}

func (p *claudeParser) finish() *commandlog.Log {
	l := &p.b.log
	reason := ""
	if p.result == nil {
		reason = "the transcript ends without a final result (the agent was killed or cut off) and no marker decides"
	} else {
		r := p.result
		cost := r.Get("total_cost_usd")
		if cost.IsNull() {
			cost = r.Get("cost_usd")
		}
		// A negative number is not a cost, a count or a duration: unknown.
		if f, ok := cost.Float(); ok && f >= 0 {
			l.CostUSD = float64Ptr(f)
		}
		if n, ok := r.Get("num_turns").Int(); ok && n >= 0 {
			l.Turns = intPtr(int(n))
		}
		if n, ok := r.Get("duration_ms").Int(); ok && n >= 0 {
			l.DurationMS = int64Ptr(n)
		}
		sub := r.Get("subtype").Str()
		switch {
		case strings.HasPrefix(sub, "error_max_turns"):
			reason = "the agent hit its turn limit (error_max_turns)"
		case strings.HasPrefix(sub, "error_max_budget"):
			reason = "the agent hit its cost budget (" + sub + ")"
		case strings.HasPrefix(sub, "error"):
			reason = "the agent stopped with an error (" + sub + ")"
		case r.Get("is_error").True():
			msg, _ := TruncateOutput(r.Get("result").Str())
			reason = "the agent reported an error: " + firstLine(msg)
		}
	}
	return p.b.finish(reason)
}

func atoiPtr(s string) *int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return &n
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// claudeCodeSpec is what the rest of the program knows about Claude Code.
var claudeCodeSpec = Spec{
	Default: true,
	CLI: &CLISpec{
		Name: "claude-code", Registry: NPM, Package: "@anthropic-ai/claude-code",
		Bin: "claude", PinConst: "ClaudeCodeVersion", Scheduled: true,
		APIEnv: func(baseURL, key string) map[string]string {
			return map[string]string{"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": baseURL}
		},
		Headless: claudeCodeHeadless,
	},
	Image: ImageSpec{Flavour: "claude-code"},
	Drift: &DriftProfile{AgentVersion: true, Cost: PresenceFinal, Turns: PresenceFinal, Duration: PresenceFinal,
		WriteTool: "Write", EditTool: "Edit",
		BigOutputLines: 200000}, // 1.2 MB: Claude Code moves such an output into a file
	// A native (glibc) binary.
	Devcontainer: &DevcontainerSpec{
		Copies: []DevcontainerCopy{{From: "/usr/local/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", To: "/usr/local/bin/claude"}},
		Checks: []string{"claude --version"},
	},
}

// claudeCodeHeadless runs claude with the prompt on stdin.
func claudeCodeHeadless(r HeadlessRun) Headless {
	args := []string{"-p", "--output-format", "stream-json", "--verbose",
		"--max-turns", strconv.Itoa(r.MaxTurns), "--dangerously-skip-permissions"}
	if r.Model != "" {
		args = append(args, "--model", r.Model)
	}
	return Headless{
		Args: append(args, r.Args...),
		// IS_SANDBOX=1: --dangerously-skip-permissions is refused as root otherwise.
		Env: []string{"ANTHROPIC_BASE_URL=" + r.BaseURL, "ANTHROPIC_API_KEY=" + r.APIKey,
			"IS_SANDBOX=1", "DISABLE_AUTOUPDATER=1"},
		PromptOnStdin: true,
	}
}

func init() { Register(&claudeCode{}, claudeCodeSpec) }
