// Package scriptedllm owns the scripted LLM servers (Anthropic, OpenAI and Gemini APIs) that drive
// REAL agent CLIs at no cost — a shipped part of `readme2demo drift` and `readme2demo pin`, not
// only a test double — and their capture scenarios. Running a real CLI against them on the host
// (drift.Capture) belongs to internal/drift.
//
// A Scenario is a list of Turns; every new main-conversation request the CLI sends gets the
// next Turn as the model's answer, so the CLI runs real commands and writes a real transcript
// with no API key and no cost. A request that repeats a conversation already answered (a CLI
// retrying on a loaded machine) gets the same answer again, so retries never shift the
// scenario. Requests the CLI sends on the side (titles, topic detection, quota checks, token
// counting, unknown paths) get a harmless answer and do not consume a turn.
// Every request is recorded (see Request) so tests can assert on what the CLI sent back.
//
// Files:
//   - scenario.go: the API-neutral scenario types and tool-call helpers (shared by every mock).
//   - server.go: the HTTP server, request recording and turn bookkeeping by conversation
//     (shared).
//   - anthropic.go: the Anthropic Messages API (POST /v1/messages, SSE and JSON) for Claude Code
//     (and OpenHands through LiteLLM).
//   - openai.go: the OpenAI Responses API for Codex.
//   - gemini.go: the Gemini API for Gemini CLI.
//   - scenarios.go: the capture scenarios (success, failures, bigoutput, killed) per engine.
//
// How to start and run each CLI lives in internal/agentcli; the real-CLI tests, which capture
// the committed fixtures, and their test-only scenarios are in internal/drift.
//
// Everything is deterministic: ids are derived from the turn and call index, and usage numbers
// are fixed constants.
package scriptedllm

import (
	"cmp"
	"fmt"
)

// Scenario is a scripted conversation: the i-th new main-conversation request gets Turns[i].
type Scenario struct {
	Name  string
	Turns []Turn
	// FinalText answers main-conversation requests after Turns are exhausted (end_turn).
	// Empty means DefaultFinalText.
	FinalText string
}

// Turn is one assistant message: optional text first, then the tool calls in order.
type Turn struct {
	Text  string
	Tools []ToolCall
	// StopReason defaults to "tool_use" when Tools is non-empty and "end_turn" otherwise.
	StopReason string
}

// ToolCall is one tool_use block. Name is the CLI's tool name (e.g. "Bash"); Input is sent as
// the tool input JSON object.
type ToolCall struct {
	Name  string
	Input map[string]any
}

// DefaultFinalText is the answer once a scenario's turns are exhausted.
const DefaultFinalText = "Done."

// Bash is a Claude Code Bash tool call running cmd.
func Bash(cmd string) ToolCall {
	return ToolCall{Name: "Bash", Input: map[string]any{
		"command":     cmd,
		"description": "Run " + cmd,
	}}
}

// Write is a Claude Code Write tool call. path should be absolute.
func Write(path, content string) ToolCall {
	return ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

// Edit is a Claude Code Edit tool call replacing old with new in path (absolute).
func Edit(path, old, new string) ToolCall {
	return ToolCall{Name: "Edit", Input: map[string]any{
		"file_path": path, "old_string": old, "new_string": new,
	}}
}

// Read is a Claude Code Read tool call for path (absolute).
func Read(path string) ToolCall {
	return ToolCall{Name: "Read", Input: map[string]any{"file_path": path}}
}

// Say is a text-only turn (end_turn).
func Say(text string) Turn { return Turn{Text: text} }

// Run is a turn that calls the given tools, with optional leading text.
func Run(text string, tools ...ToolCall) Turn { return Turn{Text: text, Tools: tools} }

func (t Turn) stopReason() string {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case len(t.Tools) > 0:
		return "tool_use"
	default:
		return "end_turn"
	}
}

func (s Scenario) finalTurn() Turn {
	return Turn{Text: cmp.Or(s.FinalText, DefaultFinalText)}
}

// ToolUseID is the deterministic id of the call-th tool call (0-based) of turn (0-based).
func ToolUseID(turn, call int) string {
	return fmt.Sprintf("toolu_mock_t%02d_c%02d", turn+1, call+1)
}

// MessageID is the deterministic id of the n-th (0-based) message the server answered.
func MessageID(n int) string { return fmt.Sprintf("msg_mock_%04d", n+1) }

// Fixed usage numbers reported for every answer.
const (
	UsageInputTokens  = 100
	UsageOutputTokens = 20
)
