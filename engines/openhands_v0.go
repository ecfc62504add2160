package engines

// OpenHands V0 events (OpenHands ≤ 0.6x, openhands.events.serialization):
// "action" and "observation" events paired by cause, tool call id or order.
// The format and its drift tolerance are described in openhands.go.

import (
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

var v0ActionTypes = map[string]bool{
	"message": true, "system": true, "start": true, "read": true, "write": true, "edit": true, "run": true,
	"run_ipython": true, "browse": true, "browse_interactive": true, "call_tool_mcp": true, "delegate": true,
	"think": true, "finish": true, "reject": true, "null": true, "pause": true, "resume": true, "stop": true,
	"change_agent_state": true, "push": true, "send_pr": true, "recall": true, "condensation": true,
	"condensation_request": true, "task_tracking": true, "loop_recovery": true,
}

// Actions that are not LLM responses.
var v0NonTurnActions = map[string]bool{"system": true, "recall": true, "change_agent_state": true, "null": true,
	"start": true, "pause": true, "resume": true, "stop": true, "condensation": true, "condensation_request": true}

var v0ObservationTypes = map[string]bool{
	"read": true, "write": true, "edit": true, "browse": true, "run": true, "run_ipython": true, "chat": true,
	"delegate": true, "message": true, "error": true, "success": true, "null": true, "think": true,
	"agent_state_changed": true, "user_rejected": true, "condense": true, "recall": true, "mcp": true,
	"download": true, "task_tracking": true, "loop_detection": true,
}

func (p *openHandsParser) v0Action(t *trajectory, e *jsonv.Value) {
	typ := e.Get("action").Str()
	source := e.Get("source").Str()
	args := e.Get("args")
	if args == nil {
		args = e // the old flattened format keeps arguments at the top
	}
	eventID := idString(e.Get("id"))
	toolCallID := e.Path("tool_call_metadata", "tool_call_id").Str()
	if f, ok := e.Path("llm_metrics", "accumulated_cost").Float(); ok {
		t.llmCost = float64Ptr(f)
	}
	agent := source == "agent" || (source == "" && typ != "message")
	if agent && !v0NonTurnActions[typ] {
		p.turn(t, e.Path("tool_call_metadata", "model_response", "id").Str())
	}
	if agent && typ != "think" && typ != "system" {
		p.agentText(args.Get("thought").Str())
	}
	var c *toolCall
	switch typ {
	case "run":
		c = p.startCommand(t, args.Get("command").Str(), args.Get("is_input").True(), p.newID(t, toolCallID, eventID))
	case "edit", "write":
		sub := args.Get("command").Str()
		if sub == "view" {
			c = &toolCall{kind: callOther}
			break
		}
		tool := typ
		if sub != "" {
			tool = sub
		}
		id := p.b.edit(p.newID(t, toolCallID, eventID), args.Get("path").Str(), tool)
		c = &toolCall{kind: callEdit, id: id}
	case "finish":
		t.finished = true
		p.agentText(args.Get("final_thought").Str(), joinedStrings(args.Get("outputs")), e.Get("message").Str())
		return
	case "message":
		if source == "agent" {
			text, _ := args.Get("content").Whole() // agent text: markers anywhere count
			p.agentText(text)
		}
		return
	default:
		if !v0ActionTypes[typ] {
			p.b.unknownEvent()
			return
		}
		if source == "user" || source == "environment" || typ == "think" || typ == "system" {
			return
		}
		c = &toolCall{kind: callOther}
	}
	c.action = typ
	t.register(c, eventID, toolCallID)
}

// joinedStrings joins the string values found in v (finish outputs is an object).
func joinedStrings(v *jsonv.Value) string {
	if v.IsString() {
		s, _ := v.Whole() // agent text, whole even where "content" is clipped
		return s
	}
	var parts []string
	add := func(x *jsonv.Value) {
		if s := joinedStrings(x); s != "" {
			parts = append(parts, s)
		}
	}
	for _, x := range v.Items() {
		add(x)
	}
	for _, m := range v.Members() {
		add(m.Val)
	}
	return strings.Join(parts, "\n")
}

var (
	executedWithExitCode  = lazyre.New(`executed with exit code (-?\d+)`)
	completedWithExitCode = lazyre.New(`\[(?:The command|Command) (?:completed|finished) with exit code (-?\d+)\.?\]`)
)

// firstExitCode picks the first stated exit code other than -1 from sources in
// order; -1 (or nothing) gives nil.
func firstExitCode(sources ...func() (int64, bool)) *int {
	for _, s := range sources {
		if n, ok := s(); ok && n != -1 {
			return intPtr(int(n))
		}
	}
	return nil
}

func regexpSource(re *lazyre.Regexp, s string) func() (int64, bool) {
	return wholeRegexpSource(re, func() string { return s })
}

// wholeRegexpSource is regexpSource on text read only when the source is:
// the whole text of clipped content (Value.Whole decodes it again).
func wholeRegexpSource(re *lazyre.Regexp, text func() string) func() (int64, bool) {
	return func() (int64, bool) {
		m := re.FindAllStringSubmatch(text(), -1)
		if m == nil {
			return 0, false
		}
		n, err := strconv.ParseInt(m[len(m)-1][1], 10, 64)
		return n, err == nil
	}
}

func (p *openHandsParser) v0Observation(t *trajectory, e *jsonv.Value) {
	typ := e.Get("observation").Str()
	extras := e.Get("extras")
	if extras == nil {
		extras = e
	}
	cause := idString(e.Get("cause"))
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
		if c.kind != callCommand && c.kind != callInput {
			return
		}
		meta := extras.Get("metadata")
		code := firstExitCode(
			meta.Get("exit_code").Int,
			extras.Get("exit_code").Int,
			e.Get("exit_code").Int,
			regexpSource(executedWithExitCode, e.Get("message").Str()),
			wholeRegexpSource(completedWithExitCode, func() string { s, _ := content.Whole(); return s }),
			regexpSource(completedWithExitCode, meta.Get("suffix").Str()),
		)
		r := cmdResult{ExitCode: code}
		if content.IsString() {
			r.Output, r.Omitted = content.Text()
		}
		p.finishCommand(t, c, r)
	case "edit", "write":
		c := t.lookup(cause, toolCallID, typ)
		if c != nil && c.kind == callEdit {
			p.b.editResult(c.id, !strings.HasPrefix(strings.TrimSpace(content.Str()), "ERROR:"))
		}
	case "error", "user_rejected":
		c := t.lookup(cause, toolCallID, "")
		msg, _ := content.Whole()
		p.failCall(t, c, msg)
	case "agent_state_changed":
		if s := extras.Get("agent_state").Str(); s != "" {
			t.state = s
		}
	default:
		if !v0ObservationTypes[typ] {
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
func (p *openHandsParser) failCall(t *trajectory, c *toolCall, msg string) {
	if c == nil {
		return
	}
	switch c.kind {
	case callCommand:
		p.finishCommand(t, c, cmdResult{Output: msg, Failed: true})
	case callEdit:
		p.b.editResult(c.id, false)
	}
}
