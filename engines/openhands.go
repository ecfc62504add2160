package engines

// OpenHands engine: `openhands --headless --json --override-with-envs
// --file PROMPT` (OpenHands CLI, PyPI package `openhands`, pinned to
// OpenHandsCLIVersion), stdout saved as the transcript.
//
// Transcript format assumed (TRANSCRIPT-FORMATS.md, section 2). OpenHands has
// two event generations, detected per event:
//   - V0 (OpenHands ≤ 0.6x, openhands.events.serialization): events with an
//     "action" or "observation" key. `run` actions pair with `run`
//     observations by `cause` (= the action's id), then by
//     tool_call_metadata.tool_call_id, then — for the old flattened format
//     with neither — by order (the oldest unanswered action of the same type).
//   - V1 (software-agent-sdk, OpenHands ≥ 1.0, the CLI above): events with a
//     "kind" key. ActionEvent (TerminalAction, or ExecuteBashAction before
//     the Nov 2025 rename) pairs with ObservationEvent by action_id, then by
//     tool_call_id; AgentErrorEvent and UserRejectObservation close a call as
//     failed.
//
// Containers, detected from the content and never from the file name: a JSON
// array of events; {"events": [...], "has_more": …}; {"trajectory": [...]};
// JSONL of events; evaluation/resolver JSONL whose lines carry "history" (a
// list of events or of [action, observation] pairs; each line is its own
// trajectory and its ids are prefixed "<instance_id>/" or "history-N/" so
// that instances cannot collide); and the CLI's stdout, where each event is a
// pretty-printed JSON block after a `--JSON Event--` line, mixed with other
// text. A wrapper object is decoded whole (bounded per string by jsonv, but
// not per event). Fields the parser never reads (the model's raw response,
// tool definitions, per-call metric lists: ohSkipKeys) are stepped over.
//
// Drift tolerance:
//   - Text lines between JSON values (CLI banners, spinner output, the
//     `--JSON Event--` marker lines, "Goodbye!") are skipped by the decoder
//     (jsonv.Options.TextLines). They
//     are not events of the trajectory, so they are counted neither in
//     parse_stats.lines nor as malformed. A line that starts like JSON ("{" or
//     "[" followed by JSON) and fails to decode is malformed. parse_stats.lines
//     counts events: the elements of a wrapper or history are counted one by
//     one, so every container shape of one trajectory gives the same stats.
//   - Every field is optional; unknown action, observation and event kinds are
//     counted in parse_stats.unknown_events and otherwise ignored.
//   - Exit code (V0): extras.metadata.exit_code, else extras.exit_code (before
//     Jan 2025), else a top-level exit_code (flattened format), else the
//     message "executed with exit code N", else "[The command completed with
//     exit code N.]" in the content or metadata suffix. The first stated code
//     other than -1 wins. V1: observation.exit_code, else metadata.exit_code.
//     -1 means "no exit code" (still running, timed out): exit_code null, and
//     never a failure code. No exit code is ever invented: a command without
//     a stated code is "unknown", or "failed" when the agent reported an error.
//   - A `run` with is_input true (or an empty command) is input to the running
//     command (Ctrl-C, an answer to a prompt, "show more output"); its output
//     and exit code complete the earlier command instead of adding one.
//   - An observation whose action is missing from the transcript still
//     records its command when it names one (extras.command /
//     observation.command).
//   - run_ipython / IPython cells are Python, not shell, and are not logged as
//     commands (a replay of the command log runs shell); `read`/`view` are not
//     edits. Edits: V0 `edit`/`write` (failed when the observation content
//     starts with "ERROR:" or an error observation answers it), V1
//     FileEditorAction (failed on is_error).
//   - Markers come from the agent's own text only: V0 `finish` (final_thought,
//     outputs, thought), agent `message` actions and action thoughts; V1
//     FinishAction.message, agent MessageEvent text and ActionEvent thoughts
//     (<think>…</think> reasoning removed).
//   - Cost: per trajectory, the top-level metrics.accumulated_cost of an
//     eval/resolver line, else the V1 "stats" state update (summed over usage
//     ids), else the last V0 llm_metrics.accumulated_cost; summed over
//     trajectories; null when no trajectory states one (a stated 0.0 stays
//     0.0). Turns: agent actions, one per LLM response id. Duration: latest
//     minus earliest timestamp, null without two timestamps.

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

var _ AgentEngine = (*openHands)(nil)

// OpenHandsName is the --engine value of the OpenHands engine.
const OpenHandsName = "openhands"

// OpenHandsCLIVersion is the OpenHands CLI release BuildCommand targets (PyPI
// package `openhands`, software-agent-sdk events). Its --json output is the
// `--JSON Event--` block format; the parser also reads the later JSONL form.
const OpenHandsCLIVersion = "1.11.0"

type openHands struct{}

func (*openHands) Name() string { return OpenHandsName }

func (*openHands) RequiredEnv() []string {
	return []string{"LLM_API_KEY", "LLM_MODEL", "LLM_BASE_URL"}
}

func (o *openHands) ResolveEnv(getenv func(string) string) (map[string]string, error) {
	errf := func(v, reason string) error { return &EngineError{Engine: o.Name(), Var: v, Reason: reason} }
	key := getenv("LLM_API_KEY")
	if key == "" {
		return nil, errf("LLM_API_KEY", "not set: set LLM_API_KEY to the API key of the LLM provider OpenHands should use (with LLM_MODEL, e.g. anthropic/claude-sonnet-4-5, and LLM_BASE_URL for a proxy)")
	}
	if reason := checkCredential(key); reason != "" {
		return nil, errf("LLM_API_KEY", reason)
	}
	env := map[string]string{"LLM_API_KEY": key}
	for _, name := range []string{"LLM_MODEL", "LLM_BASE_URL"} {
		if v := getenv(name); v != "" {
			env[name] = v
		}
	}
	return env, nil
}

// BuildCommand runs the OpenHands CLI headless in the workspace. The CLI has
// no turn or cost flag: MaxTurns and MaxCostUSD are enforced by the runner
// (timeout) and the budget check on the parsed cost. Limits.Model overrides
// LLM_MODEL.
func (*openHands) BuildCommand(l Limits) string {
	env := []string{"OPENHANDS_WORK_DIR=" + WorkspaceContainerPath}
	if l.Model != "" {
		env = append(env, "LLM_MODEL="+l.Model)
	}
	args := append([]string{"env"}, env...)
	args = append(args, "openhands", "--headless", "--json", "--override-with-envs", "--file", PromptContainerPath)
	return "cd " + ShellQuote(WorkspaceContainerPath) + " && " + shellJoin(args) +
		" > " + ShellQuote(TranscriptContainerPath) + " 2> " + ShellQuote(StderrContainerPath)
}

func (o *openHands) ParseTranscript(r io.Reader) (*commandlog.Log, error) { return o.parse(r, nil) }

func (o *openHands) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	return o.parse(r, s)
}

func (o *openHands) parse(r io.Reader, s Sink) (*commandlog.Log, error) {
	p := newOHParser(newLogBuilderTo(o.Name(), s))
	err := readRecords(r, jsonv.Options{Skip: ohSkipKeys, TextLines: true}, p.b, p.top)
	if err != nil {
		return nil, err
	}
	return p.b.done(p.finish())
}

// ohSkipKeys are fields the parser never reads, at any depth: the model's
// raw response (tool_call_metadata.model_response.choices, usage), the tool
// definitions of the system prompt, and the per-call lists that
// llm_metrics repeats, growing, on every event. The decoder steps over
// them without decoding them.
var ohSkipKeys = map[string]bool{
	"choices": true, "usage": true, "tools": true, "token_usages": true, "response_latencies": true,
	"costs": true, "accumulated_token_usage": true,
}

// ---------------------------------------------------------------------------
// Parser

type ohCallKind int

const (
	ohOther ohCallKind = iota
	ohCmd
	ohEdit
	ohInput // input to the running command Target
)

type ohCall struct {
	kind   ohCallKind
	id     string // builder id of the command or edit
	target string // ohInput: the command fed
	action string // V0 action type, for pairing by order
}

// ohTraj is one trajectory: the top-level stream, or one eval/resolver line.
type ohTraj struct {
	prefix     string
	byEvent    *window[string, *ohCall]
	byToolCall *window[string, *ohCall]
	pending    []*ohCall // V0 actions without ids, oldest first (at most ohMaxPending)
	lastCmd    string    // the command an input goes to
	lastRaw    string    // lastCmd's output so far (clipped: see clipRaw)
	lastClip   int64     // bytes clipRaw dropped from lastRaw
	llmCost    *float64  // last V0 llm_metrics.accumulated_cost
	statsCost  *float64  // last V1 stats update
	evalCost   *float64  // eval/resolver metrics.accumulated_cost
	finished   bool      // a finish action was seen
	state      string    // last agent_state / execution_status
	evalError  string
	events     int
}

func newOHTraj(prefix string) *ohTraj {
	return &ohTraj{prefix: prefix, byEvent: newWindow[string, *ohCall](idWindow), byToolCall: newWindow[string, *ohCall](idWindow)}
}

// ohMaxPending bounds the V0 actions without ids waiting for an
// observation; past it the oldest is forgotten.
const ohMaxPending = 4096

func (t *ohTraj) cost() *float64 {
	switch {
	case t.evalCost != nil:
		return t.evalCost
	case t.statsCost != nil:
		return t.statsCost
	}
	return t.llmCost
}

type ohParser struct {
	b         *logBuilder
	top0      *ohTraj // the top-level stream
	histories int
	// What finish needs from the eval/resolver lines' trajectories, which
	// are folded in as each line ends.
	histCost     float64
	histCostSeen bool
	histFinished bool
	histReason   string // the first line's failure
	responses    *seenSet
	turns        int
	sawAgent     bool
	tsMin        time.Time
	tsMax        time.Time
	tsCount      int
}

func newOHParser(b *logBuilder) *ohParser {
	t := newOHTraj("")
	return &ohParser{b: b, top0: t, responses: newSeenSet()}
}

// top handles one decoded value of the stream.
func (p *ohParser) top(v *jsonv.Value) {
	switch {
	case v.Kind == jsonv.Array: // an [action, observation] pair on its own line
		for _, e := range v.Items() {
			p.b.record()
			p.event(p.top0, e)
		}
	case ohIsEvent(v):
		p.b.record()
		p.event(p.top0, v)
	case v.Get("history") != nil && v.Get("history").Kind == jsonv.Array:
		p.history(v)
	case ohWrapped(v) != nil:
		for _, e := range ohWrapped(v).Items() {
			p.element(p.top0, e)
		}
	default:
		p.b.record()
		p.b.unknownEvent()
	}
}

func ohIsEvent(v *jsonv.Value) bool {
	return v.Kind == jsonv.Object && (v.Has("action") || v.Has("observation") || v.Get("kind").IsString())
}

// ohWrapped returns the event list of an {"events"} or {"trajectory"}
// wrapper, or nil.
func ohWrapped(v *jsonv.Value) *jsonv.Value {
	for _, k := range []string{"events", "trajectory"} {
		if l := v.Get(k); l != nil && l.Kind == jsonv.Array {
			return l
		}
	}
	return nil
}

// element handles one element of an event list: an event, or an [action,
// observation] pair.
func (p *ohParser) element(t *ohTraj, e *jsonv.Value) {
	if e.Kind == jsonv.Array {
		for _, x := range e.Items() {
			p.b.record()
			p.event(t, x)
		}
		return
	}
	p.b.record()
	p.event(t, e)
}

// history handles an evaluation or resolver output line.
func (p *ohParser) history(v *jsonv.Value) {
	p.histories++
	prefix := v.Get("instance_id").Str()
	if prefix == "" {
		if n, ok := v.Get("instance_id").Int(); ok {
			prefix = strconv.FormatInt(n, 10)
		}
	}
	if prefix == "" {
		prefix = "history-" + strconv.Itoa(p.histories)
	}
	t := newOHTraj(prefix + "/")
	if f, ok := v.Path("metrics", "accumulated_cost").Float(); ok {
		t.evalCost = float64Ptr(f)
	}
	if e := v.Get("error").Str(); e != "" {
		t.evalError = e
	}
	for _, e := range v.Get("history").Items() {
		p.element(t, e)
	}
	if c := t.cost(); c != nil {
		p.histCost += *c
		p.histCostSeen = true
	}
	p.histFinished = p.histFinished || t.finished
	if p.histReason == "" {
		p.histReason = t.failure()
	}
}

func (p *ohParser) event(t *ohTraj, e *jsonv.Value) {
	if e.Kind != jsonv.Object {
		p.b.unknownEvent()
		return
	}
	t.events++
	p.timestamp(e.Get("timestamp").Str())
	switch {
	case e.Get("kind").IsString():
		p.v1(t, e)
	case e.Has("action"):
		p.v0Action(t, e)
	case e.Has("observation"):
		p.v0Observation(t, e)
	default:
		p.b.unknownEvent()
	}
}

func (p *ohParser) timestamp(s string) {
	if s == "" {
		return
	}
	ts, ok := ohFastTime(s)
	if !ok {
		var err error
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
			if ts, err = time.Parse(layout, s); err == nil {
				break
			}
		}
		if err != nil {
			return
		}
	}
	if p.tsCount == 0 || ts.Before(p.tsMin) {
		p.tsMin = ts
	}
	if p.tsCount == 0 || ts.After(p.tsMax) {
		p.tsMax = ts
	}
	p.tsCount++
}

// ohFastTime reads the timestamps OpenHands writes —
// 2006-01-02T15:04:05, a fraction of up to nine digits, then nothing
// (UTC), Z or ±hh:mm — as time.Parse would with timestamp's layouts, at a
// fraction of its cost (every event has one). Anything else is left to
// time.Parse (ok false).
func ohFastTime(s string) (t time.Time, ok bool) {
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || month < 1 || month > 12 || day < 1 ||
		day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	rest := s[19:]
	nsec := 0
	if rest != "" && rest[0] == '.' {
		digits := 1
		for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
			digits++
		}
		if digits == 1 || digits > 10 {
			return time.Time{}, false
		}
		f, _ := num(rest[1:digits])
		for i := digits; i <= 9; i++ {
			f *= 10
		}
		nsec, rest = f, rest[digits:]
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	switch {
	case rest == "" || rest == "Z":
		return t, true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := num(rest[1:3])
		om, ok2 := num(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return time.Time{}, false
		}
		off := time.Duration(oh)*time.Hour + time.Duration(om)*time.Minute
		if rest[0] == '+' {
			off = -off
		}
		return t.Add(off), true
	}
	return time.Time{}, false
}

// turn counts one LLM response; actions of one response share respID.
func (p *ohParser) turn(t *ohTraj, respID string) {
	p.sawAgent = true
	if respID != "" && !p.responses.add(t.prefix, respID) {
		return
	}
	p.turns++
}

// ohID renders an event id: a number or a string; "" when missing or -1.
func ohID(v *jsonv.Value) string {
	switch {
	case v == nil:
		return ""
	case v.Kind == jsonv.Number:
		if n, ok := v.Int(); ok && n >= 0 {
			return strconv.FormatInt(n, 10)
		}
		return ""
	case v.Kind == jsonv.String:
		return v.S
	}
	return ""
}

func (t *ohTraj) register(c *ohCall, eventID, toolCallID string) {
	if eventID != "" {
		t.byEvent.put(eventID, c)
	}
	if toolCallID != "" {
		t.byToolCall.put(toolCallID, c)
	}
	if eventID == "" && toolCallID == "" {
		if len(t.pending) == ohMaxPending {
			t.pending = append(t.pending[:0], t.pending[1:]...)
		}
		t.pending = append(t.pending, c)
	}
}

// lookup finds the call an observation answers: by the action's event id,
// then by tool call id, then (only when the observation names neither) the
// oldest pending action of the same type.
func (t *ohTraj) lookup(eventID, toolCallID, obsType string) *ohCall {
	if c := t.byEvent.at(eventID); eventID != "" && c != nil {
		return c
	}
	if c := t.byToolCall.at(toolCallID); toolCallID != "" && c != nil {
		return c
	}
	if eventID != "" || toolCallID != "" {
		return nil
	}
	for i, c := range t.pending {
		if obsType == "" || c.action == obsType || (obsType == "edit" && c.action == "write") {
			t.pending = append(t.pending[:i:i], t.pending[i+1:]...)
			return c
		}
	}
	return nil
}

func (p *ohParser) newID(t *ohTraj, ids ...string) string {
	for _, id := range ids {
		if id != "" {
			return t.prefix + id
		}
	}
	return ""
}

// startCommand records a shell command, or an input to the running one.
func (p *ohParser) startCommand(t *ohTraj, cmd string, isInput bool, id string) *ohCall {
	if isInput || strings.TrimSpace(cmd) == "" {
		if t.lastCmd == "" {
			return &ohCall{kind: ohOther}
		}
		return &ohCall{kind: ohInput, target: t.lastCmd}
	}
	id = p.b.command(id, cmd, "")
	t.lastCmd, t.lastRaw = id, ""
	return &ohCall{kind: ohCmd, id: id}
}

// finishCommand records how a command (or an input to it) ended.
func (p *ohParser) finishCommand(t *ohTraj, c *ohCall, r cmdResult) {
	id := c.id
	var inherited int64 // bytes clipped from the earlier output r now holds
	if c.kind == ohInput {
		id = c.target
		if id == t.lastCmd && t.lastRaw != "" && r.Output != "" {
			r.Output = t.lastRaw + "\n" + r.Output
			inherited = t.lastClip
		} else if r.Output == "" {
			r.Output = t.lastRaw
			inherited = t.lastClip
		}
	}
	r.Omitted += inherited
	if id == t.lastCmd {
		var clipped int64
		t.lastRaw, clipped = clipRaw(r.Output)
		t.lastClip = inherited + clipped
	}
	p.b.result(id, r)
}

// clipRaw bounds the output a command collects from its inputs: past 64
// KiB it keeps the first and last 16 KiB and says how many bytes it
// dropped. The command log keeps less than that of each end (OutputHeadBytes,
// OutputTailBytes), so the logged output is the same as unclipped.
func clipRaw(s string) (string, int64) {
	const keep = 16 << 10
	if len(s) <= 4*keep {
		return s, 0
	}
	return s[:keep] + s[len(s)-keep:], int64(len(s) - 2*keep)
}

// agentText scans agent text for markers once, however often it repeats.
func (p *ohParser) agentText(texts ...string) {
	for _, s := range texts {
		if s != "" {
			p.b.agentTextOnce(s)
		}
	}
}

// --- V0 ---------------------------------------------------------------------

var ohV0Actions = map[string]bool{
	"message": true, "system": true, "start": true, "read": true, "write": true, "edit": true, "run": true,
	"run_ipython": true, "browse": true, "browse_interactive": true, "call_tool_mcp": true, "delegate": true,
	"think": true, "finish": true, "reject": true, "null": true, "pause": true, "resume": true, "stop": true,
	"change_agent_state": true, "push": true, "send_pr": true, "recall": true, "condensation": true,
	"condensation_request": true, "task_tracking": true, "loop_recovery": true,
}

// Actions that are not LLM responses.
var ohV0NotTurns = map[string]bool{"system": true, "recall": true, "change_agent_state": true, "null": true,
	"start": true, "pause": true, "resume": true, "stop": true, "condensation": true, "condensation_request": true}

var ohV0Observations = map[string]bool{
	"read": true, "write": true, "edit": true, "browse": true, "run": true, "run_ipython": true, "chat": true,
	"delegate": true, "message": true, "error": true, "success": true, "null": true, "think": true,
	"agent_state_changed": true, "user_rejected": true, "condense": true, "recall": true, "mcp": true,
	"download": true, "task_tracking": true, "loop_detection": true,
}

func (p *ohParser) v0Action(t *ohTraj, e *jsonv.Value) {
	typ := e.Get("action").Str()
	source := e.Get("source").Str()
	args := e.Get("args")
	if args == nil {
		args = e // the old flattened format keeps arguments at the top
	}
	eventID := ohID(e.Get("id"))
	toolCallID := e.Path("tool_call_metadata", "tool_call_id").Str()
	if f, ok := e.Path("llm_metrics", "accumulated_cost").Float(); ok {
		t.llmCost = float64Ptr(f)
	}
	agent := source == "agent" || (source == "" && typ != "message")
	if agent && !ohV0NotTurns[typ] {
		p.turn(t, e.Path("tool_call_metadata", "model_response", "id").Str())
	}
	if agent && typ != "think" && typ != "system" {
		p.agentText(args.Get("thought").Str())
	}
	var c *ohCall
	switch typ {
	case "run":
		c = p.startCommand(t, args.Get("command").Str(), args.Get("is_input").True(), p.newID(t, toolCallID, eventID))
	case "edit", "write":
		sub := args.Get("command").Str()
		if sub == "view" {
			c = &ohCall{kind: ohOther}
			break
		}
		tool := typ
		if sub != "" {
			tool = sub
		}
		id := p.newID(t, toolCallID, eventID)
		if id == "" {
			id = p.b.nextID()
		}
		p.b.edit(id, args.Get("path").Str(), tool)
		c = &ohCall{kind: ohEdit, id: id}
	case "finish":
		t.finished = true
		p.agentText(args.Get("final_thought").Str(), ohStrings(args.Get("outputs")), e.Get("message").Str())
		return
	case "message":
		if source == "agent" {
			p.agentText(args.Get("content").Str())
		}
		return
	default:
		if !ohV0Actions[typ] {
			p.b.unknownEvent()
			return
		}
		if source == "user" || source == "environment" || typ == "think" || typ == "system" {
			return
		}
		c = &ohCall{kind: ohOther}
	}
	c.action = typ
	t.register(c, eventID, toolCallID)
}

// ohStrings joins the string values found in v (finish outputs is an object).
func ohStrings(v *jsonv.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case jsonv.String:
		return v.S
	case jsonv.Object:
		var parts []string
		for _, m := range v.Members() {
			if s := ohStrings(m.Val); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	case jsonv.Array:
		var parts []string
		for _, x := range v.Items() {
			if s := ohStrings(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

var (
	ohExecutedWith = regexp.MustCompile(`executed with exit code (-?\d+)`)
	ohCompleted    = regexp.MustCompile(`\[(?:The command|Command) (?:completed|finished) with exit code (-?\d+)\.?\]`)
)

// ohExitCode picks the first stated exit code other than -1 from sources in
// order; -1 (or nothing) gives nil.
func ohExitCode(sources ...func() (int64, bool)) *int {
	for _, s := range sources {
		if n, ok := s(); ok && n != -1 {
			return intPtr(int(n))
		}
	}
	return nil
}

func ohNum(v *jsonv.Value) func() (int64, bool) { return v.Int }

func ohMatch(re *regexp.Regexp, s string) func() (int64, bool) {
	return func() (int64, bool) {
		m := re.FindAllStringSubmatch(s, -1)
		if m == nil {
			return 0, false
		}
		n, err := strconv.ParseInt(m[len(m)-1][1], 10, 64)
		return n, err == nil
	}
}

func (p *ohParser) v0Observation(t *ohTraj, e *jsonv.Value) {
	typ := e.Get("observation").Str()
	extras := e.Get("extras")
	if extras == nil {
		extras = e
	}
	cause := ohID(e.Get("cause"))
	toolCallID := e.Path("tool_call_metadata", "tool_call_id").Str()
	content := e.Get("content")
	switch typ {
	case "run":
		c := t.lookup(cause, toolCallID, "run")
		if c == nil {
			cmd := extras.Get("command").Str()
			if cmd == "" {
				p.b.unknownEvent()
				return
			}
			c = p.startCommand(t, cmd, false, p.newID(t, cause, toolCallID))
		}
		if c.kind != ohCmd && c.kind != ohInput {
			return
		}
		meta := extras.Get("metadata")
		code := ohExitCode(
			ohNum(meta.Get("exit_code")),
			ohNum(extras.Get("exit_code")),
			ohNum(e.Get("exit_code")),
			ohMatch(ohExecutedWith, e.Get("message").Str()),
			ohMatch(ohCompleted, content.Str()),
			ohMatch(ohCompleted, meta.Get("suffix").Str()),
		)
		r := cmdResult{ExitCode: code}
		if content.IsString() {
			r.Output, r.Omitted = content.Text()
		}
		p.finishCommand(t, c, r)
	case "edit", "write":
		c := t.lookup(cause, toolCallID, typ)
		if c != nil && c.kind == ohEdit {
			p.b.editResult(c.id, !strings.HasPrefix(strings.TrimSpace(content.Str()), "ERROR:"))
		}
	case "error", "user_rejected":
		c := t.lookup(cause, toolCallID, "")
		p.failCall(t, c, content.Str())
	case "agent_state_changed":
		if s := extras.Get("agent_state").Str(); s != "" {
			t.state = s
		}
	default:
		if !ohV0Observations[typ] {
			p.b.unknownEvent()
			return
		}
		// answers to other actions: drop the pending entry it answers
		if cause == "" && toolCallID == "" {
			t.lookup("", "", typ)
		}
	}
}

// failCall closes a call the agent runtime refused or that errored.
func (p *ohParser) failCall(t *ohTraj, c *ohCall, msg string) {
	if c == nil {
		return
	}
	switch c.kind {
	case ohCmd:
		p.finishCommand(t, c, cmdResult{Output: msg, Failed: true})
	case ohEdit:
		p.b.editResult(c.id, false)
	}
}

// --- V1 ---------------------------------------------------------------------

var ohV1Known = map[string]bool{
	"SystemPromptEvent": true, "PauseEvent": true, "InterruptEvent": true, "Condensation": true,
	"CondensationRequest": true, "CondensationSummaryEvent": true, "TokenEvent": true, "StreamingDeltaEvent": true,
	"HookExecutionEvent": true, "LLMCompletionLogEvent": true, "ACPToolCallEvent": true,
}

var ohV1Terminal = map[string]bool{"TerminalAction": true, "ExecuteBashAction": true, "BashAction": true}
var ohV1TerminalTools = map[string]bool{"terminal": true, "execute_bash": true, "bash": true}
var ohV1Editors = map[string]bool{"FileEditorAction": true, "StrReplaceEditorAction": true, "PlanningFileEditorAction": true}

var ohThink = regexp.MustCompile(`(?s)<think>.*?</think>`)

// ohNoThink drops the <think> blocks of a model's text.
func ohNoThink(s string) string {
	if !strings.Contains(s, "<think>") {
		return s
	}
	return ohThink.ReplaceAllString(s, "")
}

func (p *ohParser) v1(t *ohTraj, e *jsonv.Value) {
	switch kind := e.Get("kind").Str(); kind {
	case "ActionEvent":
		p.v1Action(t, e)
	case "ObservationEvent":
		p.v1Observation(t, e)
	case "AgentErrorEvent":
		c := t.lookup(e.Get("action_id").Str(), e.Get("tool_call_id").Str(), "\x00")
		p.failCall(t, c, e.Get("error").Str())
	case "UserRejectObservation":
		c := t.lookup(e.Get("action_id").Str(), e.Get("tool_call_id").Str(), "\x00")
		p.failCall(t, c, firstString(e, "rejection_reason", "reason"))
	case "MessageEvent":
		if e.Get("source").Str() != "agent" {
			return
		}
		p.turn(t, e.Get("llm_response_id").Str())
		text, _ := claudeContentText(e.Path("llm_message", "content"))
		p.agentText(ohNoThink(text))
	case "ConversationStateUpdateEvent":
		switch e.Get("key").Str() {
		case "stats":
			var sum float64
			var any bool
			for _, m := range e.Path("value", "usage_to_metrics").Members() {
				if f, ok := m.Val.Get("accumulated_cost").Float(); ok {
					sum += f
					any = true
				}
			}
			if any {
				t.statsCost = float64Ptr(sum)
			}
		case "execution_status":
			if s := e.Get("value").Str(); s != "" {
				t.state = s
			}
		}
	default:
		if !ohV1Known[kind] {
			p.b.unknownEvent()
		}
	}
}

func (p *ohParser) v1Action(t *ohTraj, e *jsonv.Value) {
	eventID := e.Get("id").Str()
	toolCallID := e.Get("tool_call_id").Str()
	p.turn(t, e.Get("llm_response_id").Str())
	var thoughts []string
	for _, b := range e.Get("thought").Items() {
		thoughts = append(thoughts, b.Get("text").Str())
	}
	p.agentText(ohNoThink(strings.Join(thoughts, "\n")))
	action := e.Get("action")
	akind := action.Get("kind").Str()
	tool := e.Get("tool_name").Str()
	id := p.newID(t, toolCallID, eventID)
	var c *ohCall
	switch {
	case ohV1Terminal[akind] || (akind == "" && ohV1TerminalTools[tool] && action.Get("command").IsString()):
		c = p.startCommand(t, action.Get("command").Str(), action.Get("is_input").True(), id)
	case ohV1Editors[akind] || ((tool == "file_editor" || tool == "str_replace_editor") && akind == ""):
		sub := action.Get("command").Str()
		if sub == "view" || action == nil {
			c = &ohCall{kind: ohOther}
			break
		}
		if id == "" {
			id = p.b.nextID()
		}
		name := sub
		if name == "" {
			name = tool
		}
		p.b.edit(id, action.Get("path").Str(), name)
		c = &ohCall{kind: ohEdit, id: id}
	case akind == "FinishAction":
		t.finished = true
		p.agentText(action.Get("message").Str())
		c = &ohCall{kind: ohOther}
	default:
		c = &ohCall{kind: ohOther}
	}
	c.action = "\x00" // V1 never pairs by order
	if eventID == "" && toolCallID == "" {
		return
	}
	t.register(c, eventID, toolCallID)
}

func (p *ohParser) v1Observation(t *ohTraj, e *jsonv.Value) {
	obs := e.Get("observation")
	okind := obs.Get("kind").Str()
	actionID, toolCallID := e.Get("action_id").Str(), e.Get("tool_call_id").Str()
	c := t.lookup(actionID, toolCallID, "\x00")
	terminal := okind == "TerminalObservation" || okind == "ExecuteBashObservation" ||
		(okind == "" && ohV1TerminalTools[e.Get("tool_name").Str()])
	text, omitted := claudeContentText(obs.Get("content"))
	if text == "" && obs.Get("output").IsString() {
		text, omitted = obs.Get("output").Text()
	}
	isError := obs.Get("is_error").True()
	switch {
	case terminal:
		if c == nil {
			cmd := obs.Get("command").Str()
			if cmd == "" {
				p.b.unknownEvent()
				return
			}
			c = p.startCommand(t, cmd, false, p.newID(t, toolCallID, actionID))
		}
		if c.kind != ohCmd && c.kind != ohInput {
			return
		}
		code := ohExitCode(ohNum(obs.Get("exit_code")), ohNum(obs.Path("metadata", "exit_code")))
		timedOut := obs.Get("timeout").True()
		p.finishCommand(t, c, cmdResult{Output: text, Omitted: omitted, ExitCode: code, Failed: isError && !timedOut})
	case c != nil && c.kind == ohEdit:
		p.b.editResult(c.id, !isError && !strings.HasPrefix(strings.TrimSpace(text), "ERROR:"))
	case c != nil && c.kind == ohCmd:
		// a non-terminal observation for a terminal call: keep what it says
		p.finishCommand(t, c, cmdResult{Output: text, Omitted: omitted, Failed: isError})
	}
}

// ---------------------------------------------------------------------------

// failure says why this trajectory's run failed, when it says so.
func (t *ohTraj) failure() string {
	if t.evalError != "" {
		return "the agent stopped with an error: " + firstLine(t.evalError)
	}
	if !t.finished && t.events > 0 {
		switch t.state {
		case "error":
			return "the agent stopped with an error (agent state \"error\")"
		case "stuck":
			return "the agent got stuck (execution status \"stuck\")"
		case "stopped", "paused":
			return "the agent was stopped before it finished (state \"" + t.state + "\")"
		}
	}
	return ""
}

func (p *ohParser) finish() *commandlog.Log {
	l := &p.b.log
	var total float64
	var known bool
	if c := p.top0.cost(); c != nil {
		total += *c
		known = true
	}
	if p.histCostSeen {
		total += p.histCost
		known = true
	}
	finished := p.top0.finished || p.histFinished
	reason := p.top0.failure()
	if reason == "" {
		reason = p.histReason
	}
	if known {
		l.CostUSD = float64Ptr(total)
	}
	if p.sawAgent {
		l.Turns = intPtr(p.turns)
	}
	if p.tsCount >= 2 {
		l.DurationMS = int64Ptr(p.tsMax.Sub(p.tsMin).Milliseconds())
	}
	if reason == "" && l.ParseStats.Lines == 0 {
		reason = "the transcript holds no OpenHands events (the agent did not start, or its output was lost)"
	}
	if reason == "" && !finished {
		reason = "the trajectory ends without a finish action (the agent was stopped, hit its iteration limit or crashed) and no marker decides"
	}
	return p.b.finish(reason)
}

func init() { Register(&openHands{}) }
