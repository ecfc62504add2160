package engines

// OpenHands V1 events (software-agent-sdk, OpenHands ≥ 1.0): events with a
// "kind", ActionEvent and ObservationEvent paired by action_id or
// tool_call_id. The format and its drift tolerance are described in
// openhands.go.

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// v1Kinds are the V1 event kinds the parser knows: the first six carry
// what it reads, the others nothing it needs.
var v1Kinds = map[string]bool{
	"ActionEvent": true, "ObservationEvent": true, "MessageEvent": true, "AgentErrorEvent": true,
	"UserRejectObservation": true, "ConversationStateUpdateEvent": true, "SystemPromptEvent": true,
	"PauseEvent": true, "InterruptEvent": true, "Condensation": true, "CondensationRequest": true,
	"CondensationSummaryEvent": true, "TokenEvent": true, "StreamingDeltaEvent": true,
	"HookExecutionEvent": true, "LLMCompletionLogEvent": true, "ACPToolCallEvent": true,
}

var v1TerminalActions = map[string]bool{"TerminalAction": true, "ExecuteBashAction": true, "BashAction": true}
var v1TerminalTools = map[string]bool{"terminal": true, "execute_bash": true, "bash": true}
var v1EditorActions = map[string]bool{"FileEditorAction": true, "StrReplaceEditorAction": true, "PlanningFileEditorAction": true}

// noThink drops the <think> blocks of a model's text: each <think> up to
// the first </think> after it, as the regular expression
// (?s)<think>.*?</think> replaced by nothing would, without the
// backtracking matcher, which cost a tenth of the parse on long texts
// (TestNoThinkMatchesRegexp).
func noThink(s string) string {
	const open, end = "<think>", "</think>"
	if !strings.Contains(s, open) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(open):], end)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(open)+j+len(end):]
	}
	b.WriteString(s)
	return b.String()
}

func (p *openHandsParser) v1(t *trajectory, e *jsonv.Value) {
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
		content := e.Path("llm_message", "content")
		text, _ := claudeContentText(content)
		if content.IsString() && content.Clipped() > 0 {
			text, _ = content.Whole() // agent text: markers anywhere count
		}
		p.agentText(noThink(text))
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
		if !v1Kinds[kind] {
			p.b.unknownEvent()
		}
	}
}

func (p *openHandsParser) v1Action(t *trajectory, e *jsonv.Value) {
	eventID := e.Get("id").Str()
	toolCallID := e.Get("tool_call_id").Str()
	p.turn(t, e.Get("llm_response_id").Str())
	var thoughts []string
	for _, b := range e.Get("thought").Items() {
		thoughts = append(thoughts, b.Get("text").Str())
	}
	p.agentText(noThink(strings.Join(thoughts, "\n")))
	action := e.Get("action")
	akind := action.Get("kind").Str()
	tool := e.Get("tool_name").Str()
	id := p.newID(t, toolCallID, eventID)
	var c *toolCall
	switch {
	case v1TerminalActions[akind] || (akind == "" && v1TerminalTools[tool] && action.Get("command").IsString()):
		c = p.startCommand(t, action.Get("command").Str(), action.Get("is_input").True(), id)
	case v1EditorActions[akind] || ((tool == "file_editor" || tool == "str_replace_editor") && akind == ""):
		sub := action.Get("command").Str()
		if sub == "view" || action == nil {
			c = &toolCall{kind: callOther}
			break
		}
		id = p.b.edit(id, action.Get("path").Str(), firstNonEmpty(sub, tool))
		c = &toolCall{kind: callEdit, id: id}
	case akind == "FinishAction":
		t.finished = true
		p.agentText(action.Get("message").Str())
		c = &toolCall{kind: callOther}
	default:
		c = &toolCall{kind: callOther}
	}
	c.action = "\x00" // V1 never pairs by order
	if eventID == "" && toolCallID == "" {
		return
	}
	t.register(c, eventID, toolCallID)
}

func (p *openHandsParser) v1Observation(t *trajectory, e *jsonv.Value) {
	obs := e.Get("observation")
	okind := obs.Get("kind").Str()
	actionID, toolCallID := e.Get("action_id").Str(), e.Get("tool_call_id").Str()
	c := t.lookup(actionID, toolCallID, "\x00")
	terminal := okind == "TerminalObservation" || okind == "ExecuteBashObservation" ||
		(okind == "" && v1TerminalTools[e.Get("tool_name").Str()])
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
		if c.kind != callCommand && c.kind != callInput {
			return
		}
		code := firstExitCode(obs.Get("exit_code").Int, obs.Path("metadata", "exit_code").Int)
		timedOut := obs.Get("timeout").True()
		p.finishCommand(t, c, cmdResult{Output: text, Omitted: omitted, ExitCode: code, Failed: isError && !timedOut})
	case c != nil && c.kind == callEdit:
		p.b.editResult(c.id, !isError && !strings.HasPrefix(strings.TrimSpace(text), "ERROR:"))
	case c != nil && c.kind == callCommand:
		// a non-terminal observation for a terminal call: keep what it says
		p.finishCommand(t, c, cmdResult{Output: text, Omitted: omitted, Failed: isError})
	}
}
