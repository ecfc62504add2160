package engines

// OpenHands engine: `openhands --headless --json --override-with-envs
// --file PROMPT` (OpenHands CLI, PyPI package `openhands`, the version
// pinned in internal/agentcli: software-agent-sdk events; its --json output is
// the `--JSON Event--` block format, and the parser also reads the later JSONL
// form), stdout saved as the transcript.
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
// V1 event search pages {"items": [...], "next_page_id": …} (the app
// server's /api/v1/conversation/{id}/events/search and the agent server's
// /events/search: one page, pages one after another, a JSON array of pages;
// `readme2demo parse` reads a directory of page files as pages one after
// another), whose events are read in timestamp order whatever order the
// pages came in (sort_order=TIMESTAMP_DESC gives them newest first);
// JSONL of events; evaluation/resolver JSONL whose lines carry "history" (a
// list of events or of [action, observation] pairs; each line is its own
// trajectory and its ids are prefixed "<instance_id>/" or "history-N/" so
// that instances cannot collide); and the CLI's stdout, where each event is a
// pretty-printed JSON block after a `--JSON Event--` line, mixed with other
// text. A wrapper object is decoded whole (bounded per string by jsonv, but
// not per event).
//
// Drift tolerance:
//   - Before decoding, text lines between JSON values (CLI banners, spinner
//     output, the `--JSON Event--` marker lines, "Goodbye!") are dropped. They
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
//     0.0). Turns: agent actions, one per LLM response id. Duration: each
//     trajectory's latest minus earliest timestamp, summed over trajectories
//     (an evaluation file's instances ran apart: the span across them is no
//     one's duration), null without two timestamps in a trajectory.
//   - ParseInstances (engines.InstanceParser) gives each evaluation line its
//     own log: its own commands, cost, turns and duration.
//
// The parser is split by what it reads: this file holds the engine, the
// state shared by both generations (trajectories, pairing, commands) and the
// outcome; openhands_container.go the line filter and the container shapes;
// openhands_v0.go and openhands_v1.go the two event generations.

import (
	"cmp"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

var (
	_ AgentEngine = (*openHands)(nil)
	_ APIUser     = (*openHands)(nil)
)

// OpenHandsName is the --engine value of the OpenHands engine.
const OpenHandsName = "openhands"

type openHands struct {
	noClip bool // decode output whole (tests compare the two)
}

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
	copyEnv(env, getenv, "LLM_MODEL", "LLM_BASE_URL")
	return env, nil
}

// APIAccess: OpenHands' LLM_API_KEY enters the container. Its CLI calls
// the provider through LiteLLM, which picks the credential header by
// provider, and it has not been run through the key-holding proxy (it is
// not in the test image: its registry is out of this project's reach).
// The API host is LLM_BASE_URL's, else the provider prefix of LLM_MODEL's.
func (*openHands) APIAccess(env map[string]string) APIAccess {
	a := APIAccess{InContainer: []string{"LLM_API_KEY"},
		Why: "OpenHands has not been run with a placeholder key through the key-holding proxy"}
	if b := env["LLM_BASE_URL"]; b != "" {
		if u, err := url.Parse(b); err == nil && u.Host != "" {
			a.Hosts = []string{u.Host}
		} else {
			a.HostsFrom = "LLM_BASE_URL, which is not a URL"
		}
		return a
	}
	m := env["LLM_MODEL"]
	a.HostsFrom = "LLM_MODEL=" + strconv.Quote(m)
	for _, p := range []struct{ prefix, host string }{
		{"anthropic/", "api.anthropic.com"}, {"openai/", "api.openai.com"}, {"gemini/", "generativelanguage.googleapis.com"},
	} {
		if strings.HasPrefix(m, p.prefix) {
			a.Hosts = []string{p.host}
		}
	}
	return a
}

// BuildCommand runs the OpenHands CLI headless in the workspace. The CLI has
// no turn or cost flag: MaxTurns and MaxCostUSD are enforced by the runner
// (timeout) and the budget check on the parsed cost. Limits.Model overrides
// LLM_MODEL.
func (*openHands) BuildCommand(l Limits) string {
	args := []string{"env", "OPENHANDS_WORK_DIR=" + WorkspaceContainerPath}
	if l.Model != "" {
		args = append(args, "LLM_MODEL="+l.Model)
	}
	args = append(args, "openhands", "--headless", "--json", "--override-with-envs", "--file", PromptContainerPath)
	return "cd " + ShellQuote(WorkspaceContainerPath) + " && " + shellJoin(args) +
		" > " + ShellQuote(TranscriptContainerPath) + " 2> " + ShellQuote(StderrContainerPath)
}

func (o *openHands) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return o.ParseTranscriptTo(r, nil)
}

func (o *openHands) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	p := newOpenHandsParser(newLogBuilderTo(o.Name(), s))
	err := readRecords(r, unclipped(openHandsOptions, o.noClip), p.b, p.topLevel)
	if err != nil {
		return nil, err
	}
	return p.b.done(p.finish())
}

// openHandsOptions are how the engine reads its transcripts: text lines
// between JSON values (CLI banners, spinner output, the --JSON Event--
// marker lines, "Goodbye!") are skipped, and only the fields the parser
// reads are decoded — the model's raw response, the tool definitions of the
// system prompt and llm_metrics' growing per-call lists are stepped over.
// TestEngineKeysListed fails when the parser reads a field missing here
// ("type" is read by claudeContentText, for V1 message content). The
// finish action's outputs and the per-model stats are decoded whole: their
// keys are data.
var openHandsOptions = jsonv.Options{
	TextLines: true,
	Keep: map[string]bool{
		"accumulated_cost": true, "action": true, "action_id": true, "agent_state": true, "args": true, "cause": true,
		"command": true, "content": true, "error": true, "events": true, "exit_code": true, "extras": true,
		"final_thought": true, "history": true, "id": true, "instance_id": true, "is_error": true, "is_input": true,
		"items": true, "key": true, "kind": true, "llm_message": true, "llm_metrics": true, "llm_response_id": true,
		"message": true, "metadata": true, "metrics": true, "model_response": true, "next_page_id": true,
		"observation": true, "output": true, "path": true, "reason": true, "rejection_reason": true, "source": true,
		"suffix": true, "text": true, "thought": true, "timeout": true, "timestamp": true, "tool_call_id": true,
		"tool_call_metadata": true, "tool_name": true, "trajectory": true, "type": true, "value": true,
	},
	KeepAll: map[string]bool{"outputs": true, "usage_to_metrics": true},
	// "content" holds an observation's output (V0; V1 when it is a
	// string), of which the log keeps only the head and the tail: the
	// decoder keeps those of a long value and skips decoding the rest
	// (jsonv.Options.Clip). Where the parser reads more — an exit code
	// stated anywhere in V0 content, the agent's own text (a V0 message
	// action's content, a V1 message's string content, finish outputs),
	// an error observation — it reads the whole text (Value.Whole).
	Clip: map[string]bool{"content": true}, ClipHead: OutputHeadBytes + openHandsClipSlack, ClipTail: OutputTailBytes + openHandsClipSlack,
}

// openHandsClipSlack is how much more than the log's head and tail the
// decoder keeps of clipped content: an "ERROR:" prefix after white space is
// read from the head.
const openHandsClipSlack = 64

// callKind says what an agent action became in the command log.
type callKind int

const (
	callOther   callKind = iota // not logged (read, think, browse, …)
	callCommand                 // a shell command
	callEdit                    // a file edit
	callInput                   // input to the running command (toolCall.target)
)

// toolCall is an agent action waiting for its observation.
type toolCall struct {
	kind   callKind
	id     string // builder id of the command or edit
	target string // callInput: the command fed
	action string // V0 action type, for pairing by order
}

// trajectory is one trajectory: the top-level stream, or one eval/resolver line.
type trajectory struct {
	prefix     string
	byEvent    *window[string, *toolCall]
	byToolCall *window[string, *toolCall]
	pending    []*toolCall // V0 actions without ids, oldest first (at most maxPending)
	lastCmd    string      // the command an input goes to
	lastRaw    string      // lastCmd's output so far (clipped: see clipRaw)
	lastClip   int64       // bytes clipRaw dropped from lastRaw
	llmCost    *float64    // last V0 llm_metrics.accumulated_cost
	statsCost  *float64    // last V1 stats update
	evalCost   *float64    // eval/resolver metrics.accumulated_cost
	finished   bool        // a finish action was seen
	state      string      // last agent_state / execution_status
	evalError  string
	events     int
	tsMin      time.Time // the trajectory's time span
	tsMax      time.Time
	tsCount    int
}

func newTrajectory(prefix string) *trajectory {
	return &trajectory{prefix: prefix, byEvent: newWindow[string, *toolCall](idWindow), byToolCall: newWindow[string, *toolCall](idWindow)}
}

// maxPending bounds the V0 actions without ids waiting for an observation;
// past it the oldest is forgotten.
const maxPending = 4096

func (t *trajectory) cost() *float64 {
	switch {
	case t.evalCost != nil:
		return t.evalCost
	case t.statsCost != nil:
		return t.statsCost
	}
	return t.llmCost
}

// openHandsParser reads one transcript: the top-level stream and the
// trajectories of its evaluation lines.
type openHandsParser struct {
	b         *logBuilder
	main      *trajectory   // the top-level stream
	trajs     []*trajectory // every trajectory, top-level first
	histories int
	responses *seenSet
	turns     int
	sawAgent  bool
	pages     []*jsonv.Value // events of V1 event pages, ordered at the end
}

func newOpenHandsParser(b *logBuilder) *openHandsParser {
	t := newTrajectory("")
	return &openHandsParser{b: b, main: t, trajs: []*trajectory{t}, responses: newSeenSet()}
}

func (p *openHandsParser) event(t *trajectory, e *jsonv.Value) {
	if e.Kind != jsonv.Object {
		p.b.unknownEvent()
		return
	}
	t.events++
	t.timestamp(e.Get("timestamp").Str())
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

// timestamp widens the trajectory's time span by an event's timestamp.
func (t *trajectory) timestamp(s string) {
	ts, ok := parseEventTime(s)
	if !ok {
		return
	}
	if t.tsCount == 0 || ts.Before(t.tsMin) {
		t.tsMin = ts
	}
	if t.tsCount == 0 || ts.After(t.tsMax) {
		t.tsMax = ts
	}
	t.tsCount++
}

// parseEventTime reads an OpenHands timestamp: ISO 8601, with or without a
// zone (V0 and V1 write none).
func parseEventTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if ts, ok := fastEventTime(s); ok {
		return ts, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts, true
		}
	}
	return time.Time{}, false
}

// fastEventTime reads the timestamps OpenHands writes —
// 2006-01-02T15:04:05, a fraction of up to nine digits, then nothing
// (UTC), Z or ±hh:mm — as time.Parse would with timestamp's layouts, at a
// fraction of its cost (every event has one). Anything else is left to
// time.Parse (ok false).
func fastEventTime(s string) (t time.Time, ok bool) {
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
func (p *openHandsParser) turn(t *trajectory, respID string) {
	p.sawAgent = true
	if respID != "" && !p.responses.add(t.prefix, respID) {
		return
	}
	p.turns++
}

// idString renders an event id: a number or a string; "" when missing or -1.
func idString(v *jsonv.Value) string {
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

func (t *trajectory) register(c *toolCall, eventID, toolCallID string) {
	if eventID != "" {
		t.byEvent.put(eventID, c)
	}
	if toolCallID != "" {
		t.byToolCall.put(toolCallID, c)
	}
	if eventID == "" && toolCallID == "" {
		if len(t.pending) == maxPending {
			t.pending = append(t.pending[:0], t.pending[1:]...)
		}
		t.pending = append(t.pending, c)
	}
}

// lookup finds the call an observation answers: by the action's event id,
// then by tool call id, then (only when the observation names neither) the
// oldest pending action of the same type.
func (t *trajectory) lookup(eventID, toolCallID, obsType string) *toolCall {
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

func (p *openHandsParser) newID(t *trajectory, ids ...string) string {
	for _, id := range ids {
		if id != "" {
			return t.prefix + id
		}
	}
	return ""
}

// startCommand records a shell command, or an input to the running one.
func (p *openHandsParser) startCommand(t *trajectory, cmd string, isInput bool, id string) *toolCall {
	if isInput || strings.TrimSpace(cmd) == "" {
		if t.lastCmd == "" {
			return &toolCall{kind: callOther}
		}
		return &toolCall{kind: callInput, target: t.lastCmd}
	}
	id = p.b.command(id, cmd, "")
	t.lastCmd, t.lastRaw = id, ""
	return &toolCall{kind: callCommand, id: id}
}

// finishCommand records how a command (or an input to it) ended.
func (p *openHandsParser) finishCommand(t *trajectory, c *toolCall, r cmdResult) {
	id := c.id
	var inherited int64 // bytes clipped from the earlier output r now holds
	if c.kind == callInput {
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
		// What r.Output lacks: the bytes the decoder or an earlier output
		// dropped (r.Omitted), and what clipRaw drops now.
		var clipped int64
		t.lastRaw, clipped = clipRaw(r.Output)
		t.lastClip = r.Omitted + clipped
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
func (p *openHandsParser) agentText(texts ...string) {
	for _, s := range texts {
		if s != "" {
			p.b.agentTextOnce(s)
		}
	}
}

// finish sums what the trajectories state and decides the outcome.
func (p *openHandsParser) finish() *commandlog.Log {
	p.flushPages()
	l := &p.b.log
	var total float64
	var known bool
	finished := false
	reason := ""
	// Each trajectory's own span; an evaluation file's instances ran apart
	// (or side by side), so the span across them is no one's duration.
	var duration int64
	spans := 0
	for _, t := range p.trajs {
		if c := t.cost(); c != nil {
			total += *c
			known = true
		}
		if t.tsCount >= 2 {
			duration += t.tsMax.Sub(t.tsMin).Milliseconds()
			spans++
		}
		if t.finished {
			finished = true
		}
		if reason == "" && t.evalError != "" {
			reason = "the agent stopped with an error: " + firstLine(t.evalError)
		}
		if reason == "" && !t.finished && t.events > 0 {
			switch t.state {
			case "error":
				reason = "the agent stopped with an error (agent state \"error\")"
			case "stuck":
				reason = "the agent got stuck (execution status \"stuck\")"
			case "stopped", "paused":
				reason = "the agent was stopped before it finished (state \"" + t.state + "\")"
			}
		}
	}
	if known {
		l.CostUSD = float64Ptr(total)
	}
	if p.sawAgent {
		l.Turns = intPtr(p.turns)
	}
	if spans > 0 {
		l.DurationMS = int64Ptr(duration)
	}
	if reason == "" && l.ParseStats.Lines == 0 {
		reason = "the transcript holds no OpenHands events (the agent did not start, or its output was lost)"
	}
	if reason == "" && !finished {
		reason = "the trajectory ends without a finish action (the agent was stopped, hit its iteration limit or crashed) and no marker decides"
	}
	return p.b.finish(reason)
}

// OpenHandsModel is the LiteLLM model a headless OpenHands run asks for when
// none is given: an Anthropic model, so LiteLLM speaks the Messages API to
// the base URL.
const OpenHandsModel = "anthropic/claude-sonnet-4-5"

// openHandsSpec is what the rest of the program knows about OpenHands.
var openHandsSpec = Spec{
	// PyPI is not reachable from this project's CI: the driver is tested
	// against a fake CLI only, and the weekly workflow leaves it out.
	CLI: &CLISpec{
		Name: "openhands", Registry: PyPI, Package: "openhands",
		Bin: "openhands", PinConst: "OpenHandsVersion",
		APIEnv: func(baseURL, key string) map[string]string {
			return map[string]string{"LLM_API_KEY": key, "LLM_BASE_URL": baseURL, "LLM_MODEL": OpenHandsModel}
		},
		Headless: openHandsHeadless,
	},
	// The OpenHands CLI (PyPI package "openhands") needs Python >= 3.12:
	// a Debian bookworm base with Python 3.12 (Node comes from Debian).
	Image: ImageSpec{Flavour: "openhands", BuildArgs: []BuildArg{
		{"BASE_IMAGE", "python:3.12-slim-bookworm"},
		{"PYTHON_VERSION", "3.12"}, // the base's own Python (images/base/Dockerfile keeps it)
		{"OPENHANDS_PACKAGE", "openhands"},
	}},
	// Not verified against the real CLI (PyPI is not reachable here): the
	// V1 event stream as this file reads it, with the "stats" state updates
	// the CLI prints during a run (the committed v1-*.cli.log); turns and
	// duration come from the events.
	Drift: &DriftProfile{Cost: PresenceAlways, Turns: PresenceAlways, Duration: PresenceAlways,
		WriteTool: "create", EditTool: "str_replace", Tools: ToolsOpenHands},
	// No Devcontainer: the CLI needs Python >= 3.12 from its own base image.
}

// openHandsHeadless runs openhands --headless with the prompt in a file.
func openHandsHeadless(r HeadlessRun) Headless {
	prompt := filepath.Join(r.Home, "prompt.md")
	return Headless{
		Args: append([]string{"--headless", "--json", "--override-with-envs", "--file", prompt}, r.Args...),
		Env: []string{"LLM_API_KEY=" + r.APIKey, "LLM_BASE_URL=" + r.BaseURL, "LLM_MODEL=" + cmp.Or(r.Model, OpenHandsModel),
			"OPENHANDS_WORK_DIR=" + r.Workdir},
		Files: []HeadlessFile{{Path: prompt, What: "prompt", Content: r.Prompt}},
	}
}

func init() { Register(&openHands{}, openHandsSpec) }
