package transcriptgen

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
)

// Synthetic shapes are made-up transcripts at the extremes a real one can
// reach, for the memory tests: one huge line, huge outputs, or millions of
// tiny commands.
var Synthetic = []string{
	"foreign-line",             // one JSON line of size bytes no engine knows
	"claude-line",              // a Claude Code Bash call whose result is one line of size bytes
	"claude-1MiB-outputs",      // Claude Code Bash calls with 1 MiB outputs, size bytes in all
	"claude-256MiB-outputs",    // the same with 256 MiB outputs
	"claude-small-commands",    // Claude Code Bash calls with 100-byte outputs: millions of commands
	"codex-line",               // a Codex command_execution whose output is one line of size bytes
	"codex-1MiB-outputs",       // Codex commands with 1 MiB outputs
	"codex-small-commands",     // Codex commands with 100-byte outputs
	"gemini-small-commands",    // Gemini CLI stream-json shell calls with 100-byte outputs
	"openhands-small-commands", // OpenHands V1 terminal actions and observations, 100-byte outputs
	"markdown-small-commands",  // readme2demo runner start/end records, 100-byte outputs
}

// SyntheticEngine is the engine that reads a synthetic shape.
func SyntheticEngine(shape string) string {
	if e, _, ok := strings.Cut(shape, "-"); ok && slices.Contains(engines.Names(), e) {
		return e
	}
	return engines.ClaudeCodeName
}

// outputChunk is JSON string content: printable text with escaped newlines.
var outputChunk = strings.Repeat("build output line 0123456789 abcdefghij\\n", 1600) // 64000 bytes

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteSynthetic writes about size bytes of a synthetic shape to dst and
// returns the number of commands in it.
func WriteSynthetic(dst io.Writer, shape string, size int64) (commands int64, err error) {
	w := &countingWriter{w: dst}
	put := func(s string) {
		if err == nil {
			_, err = io.WriteString(w, s)
		}
	}
	body := func(n int64) {
		for n > 0 && err == nil {
			k := min(n, int64(len(outputChunk)))
			put(outputChunk[:k])
			n -= k
		}
	}
	claudeCall := func(id string, out int64) {
		put(`{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"toolu_` + id + `","name":"Bash","input":{"command":"make all ` + id + `"}}]}}` + "\n")
		put(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_` + id + `","is_error":false,"content":"`)
		body(out)
		put(`"}]}}` + "\n")
		commands++
	}
	codexCall := func(id string, out int64) {
		put(`{"type":"item.started","item":{"id":"item_` + id + `","type":"command_execution","command":"/bin/bash -lc make","aggregated_output":"","exit_code":null,"status":"in_progress"}}` + "\n")
		put(`{"type":"item.completed","item":{"id":"item_` + id + `","type":"command_execution","command":"/bin/bash -lc make","aggregated_output":"`)
		body(out)
		put(`","exit_code":0,"status":"completed"}}` + "\n")
		commands++
	}
	geminiCall := func(id string, out int64) {
		put(`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t` + id + `","parameters":{"command":"make ` + id + `"}}` + "\n")
		put(`{"type":"tool_result","tool_id":"t` + id + `","status":"success","output":"`)
		body(out)
		put(`"}` + "\n")
		commands++
	}
	openHandsCall := func(id string, out int64) {
		put(`{"kind":"ActionEvent","id":"a` + id + `","source":"agent","tool_name":"terminal","tool_call_id":"c` + id + `","action":{"kind":"TerminalAction","command":"make ` + id + `"}}` + "\n")
		put(`{"kind":"ObservationEvent","id":"o` + id + `","source":"environment","tool_name":"terminal","tool_call_id":"c` + id + `","action_id":"a` + id + `","observation":{"kind":"TerminalObservation","content":[{"type":"text","text":"`)
		body(out)
		put(`"}],"exit_code":0}}` + "\n")
		commands++
	}
	runnerCall := func(id string, _ int64) {
		put(`{"type":"start","id":"c` + id + `","command":"make ` + id + `"}` + "\n")
		put(`{"type":"end","id":"c` + id + `","exit_code":0,"output_head_b64":"YnVpbGQgb3V0cHV0IGxpbmUgMDEyMzQ1Njc4OSBhYmNkZWZnaGlqCmJ1aWxkIG91dHB1dCBsaW5lIDAxMjM0NTY3ODkgYWJjZGVmZ2hpago="}` + "\n")
		commands++
	}
	many := func(per int64, call func(string, int64)) {
		for i := int64(0); w.n < size && err == nil; i++ {
			call(strconv.FormatInt(i, 10), min(per, max(size-w.n, 1)))
		}
	}
	switch shape {
	case "foreign-line":
		put(`{"type":"unknown_event","payload":{"text":"`)
		body(size)
		put(`"}}` + "\n")
	case "claude-line":
		claudeCall("1", size)
		put(`{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"SUCCESS"}` + "\n")
	case "claude-1MiB-outputs":
		many(1<<20, claudeCall)
	case "claude-256MiB-outputs":
		many(256<<20, claudeCall)
	case "claude-small-commands":
		many(100, func(id string, _ int64) { claudeCall(id, 100) })
	case "codex-line":
		codexCall("1", size)
	case "codex-1MiB-outputs":
		many(1<<20, codexCall)
	case "codex-small-commands":
		many(100, func(id string, _ int64) { codexCall(id, 100) })
	case "gemini-small-commands":
		many(100, func(id string, _ int64) { geminiCall(id, 100) })
	case "openhands-small-commands":
		many(100, func(id string, _ int64) { openHandsCall(id, 100) })
	case "markdown-small-commands":
		many(100, runnerCall)
	default:
		return 0, fmt.Errorf("unknown synthetic shape %q (known: %s)", shape, strings.Join(Synthetic, ", "))
	}
	return commands, err
}
