package drift_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

var claudeFixtureDir = filepath.Join(repoRoot, "testdata", "fixtures", "claude-code")

// claudeCaptureVersions are the Claude Code versions whose real-* fixtures are committed
// (newest first); -capture rewrites all of them.
var claudeCaptureVersions = []string{"2.1.332", "2.0.77", "1.0.128"}

// TestRealClaudeCLI runs the pinned REAL Claude Code CLI against the mock for every capture
// scenario and checks the transcript at JSON level. With -capture (or R2D_CAPTURE=1) it runs
// every claudeCaptureVersions CLI and rewrites the committed real-* fixtures.
func TestRealClaudeCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real CLI; skipped with -short")
	}
	capture := capturing()
	versions := []string{agentcli.ClaudeCodeVersion}
	if capture {
		versions = claudeCaptureVersions
	}
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			cli, bin := cliOrSkip(t, "claude-code", version)
			for _, name := range scriptedllm.CaptureScenarioNames {
				t.Run(name, func(t *testing.T) {
					// --max-turns 10, as the committed captures were made (CAPTURES.md).
					c := captureRun(t, drift.CaptureRun{CLI: cli, Binary: bin, MaxTurns: 10}, name, 3*time.Minute)
					t.Logf("exit %d, killed %v, %v, %d requests: %s", c.ExitCode, c.Killed,
						c.Duration.Round(time.Millisecond), len(c.Requests), summarize(c.Requests))
					if t.Failed() || !checkCapture(t, version, c) {
						t.Logf("stderr:\n%s\ntranscript:\n%s", c.Stderr, c.Transcript)
						return
					}
					if capture {
						writeFixture(t, version, name, c)
					}
				})
			}
		})
	}
}

func writeFixture(t *testing.T, version, name string, c *drift.Captured) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(claudeFixtureDir, 0o755))
	base := filepath.Join(claudeFixtureDir, fmt.Sprintf("real-%s-%s", version, name))
	assert.Assert(t, !bytes.Contains(c.Transcript, []byte(scriptedllm.DummyAPIKey)), "transcript leaks the API key")
	assert.Assert(t, !bytes.Contains(c.Transcript, []byte("/root")), "transcript holds a home path")
	assert.NilError(t, os.WriteFile(base+".jsonl", c.Transcript, 0o644))
	if len(bytes.TrimSpace(c.Stderr)) > 0 {
		assert.NilError(t, os.WriteFile(base+".stderr", c.Stderr, 0o644))
	} else {
		_ = os.Remove(base + ".stderr")
	}
	t.Logf("wrote %s.jsonl (%d bytes)", base, len(c.Transcript))
}

// transcript is a decoded stream-json transcript: the JSON objects, in order.
type transcript []map[string]any

func decodeTranscript(t *testing.T, b []byte) transcript {
	t.Helper()
	var out transcript
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var obj map[string]any
		assert.NilError(t, json.Unmarshal(line, &obj), "line %q", line)
		out = append(out, obj)
	}
	return out
}

func (tr transcript) ofType(typ string) []map[string]any {
	var out []map[string]any
	for _, o := range tr {
		if o["type"] == typ {
			out = append(out, o)
		}
	}
	return out
}

// blocks returns the content blocks of the given type in assistant or user lines.
func (tr transcript) blocks(lineType, blockType string) []map[string]any {
	var out []map[string]any
	for _, o := range tr.ofType(lineType) {
		msg, _ := o["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			if b, ok := c.(map[string]any); ok && b["type"] == blockType {
				out = append(out, b)
			}
		}
	}
	return out
}

// toolResults maps tool_use_id to its tool_result block.
func (tr transcript) toolResults() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, b := range tr.blocks("user", "tool_result") {
		out[b["tool_use_id"].(string)] = b
	}
	return out
}

func resultText(b map[string]any) string {
	switch c := b["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, x := range c {
			if m, ok := x.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// checkCapture asserts what every version must show for the scenario; it reports success.
func checkCapture(t *testing.T, version string, c *drift.Captured) bool {
	t.Helper()
	tr := decodeTranscript(t, c.Transcript)
	sc := c.Scenario

	inits := tr.ofType("system")
	assert.Assert(t, len(inits) > 0, "no system/init line")
	assert.Check(t, is.Equal(inits[0]["subtype"], "init"))
	if v, ok := inits[0]["claude_code_version"]; ok { // absent before 2.x
		assert.Check(t, is.Equal(v, version))
	}

	// Every scripted tool call appears as a tool_use with its id, and the mock consumed every
	// scripted turn exactly once (side requests must not).
	uses := map[string]map[string]any{}
	for _, b := range tr.blocks("assistant", "tool_use") {
		uses[b["id"].(string)] = b
	}
	turns := 0
	for _, r := range c.Requests {
		if r.ConsumedTurn() {
			assert.Check(t, is.Equal(r.Turn, turns))
			turns++
		}
	}
	assert.Check(t, is.Equal(turns, len(sc.Turns)), "turns consumed")
	for i, turn := range sc.Turns {
		for j, call := range turn.Tools {
			id := scriptedllm.ToolUseID(i, j)
			if assert.Check(t, uses[id] != nil, "tool_use %s (%s) missing", id, call.Name) {
				assert.Check(t, is.Equal(uses[id]["name"], call.Name))
			}
		}
	}

	results := tr.toolResults()
	final := tr.ofType("result")
	hasExitCodeText := !strings.HasPrefix(version, "1.")
	switch sc.Name {
	case scriptedllm.ScenarioSuccess:
		for id, r := range results {
			assert.Check(t, r["is_error"] != true, "%s failed: %v", id, r["content"])
		}
		assert.Check(t, is.Equal(resultText(results[scriptedllm.ToolUseID(0, 1)]), "hi"))
		assert.Check(t, is.Contains(resultText(results[scriptedllm.ToolUseID(1, 0)]), "# Demo"))
		assert.Check(t, is.Len(final, 1))
		if len(final) == 1 {
			assert.Check(t, is.Equal(final[0]["subtype"], "success"))
			assert.Check(t, is.Contains(final[0]["result"], "FIX: README step 2 needs mkdir build first"))
			assert.Check(t, is.Contains(final[0]["result"], "ADJUSTED_SUCCESS"))
		}
	case scriptedllm.ScenarioFailures:
		for _, want := range []struct {
			id, text string
			exit     int
		}{
			{scriptedllm.ToolUseID(0, 0), "", 1},
			{scriptedllm.ToolUseID(1, 0), "", 3},
			{scriptedllm.ToolUseID(2, 0), "command not found", 127},
			{scriptedllm.ToolUseID(3, 0), "cannot connect to database", 2},
		} {
			r := results[want.id]
			if !assert.Check(t, r != nil, "no tool_result for %s", want.id) {
				continue
			}
			assert.Check(t, is.Equal(r["is_error"], true), want.id)
			if hasExitCodeText {
				assert.Check(t, strings.HasPrefix(resultText(r), fmt.Sprintf("Exit code %d", want.exit)),
					"%s: %q", want.id, resultText(r))
			}
			assert.Check(t, is.Contains(resultText(r), want.text))
		}
		assert.Check(t, is.Len(final, 1))
		if len(final) == 1 {
			assert.Check(t, is.Contains(final[0]["result"], "BLOCKED: needs a database"))
		}
	case scriptedllm.ScenarioBigOut:
		big := results[scriptedllm.ToolUseID(0, 0)]
		if assert.Check(t, big != nil, "no tool_result for the big output") {
			assert.Check(t, big["is_error"] != true)
		}
		assert.Check(t, is.Equal(strings.TrimSpace(resultText(results[scriptedllm.ToolUseID(1, 0)])), "SUCCESS"))
		assert.Check(t, is.Len(final, 1))
		if len(final) == 1 {
			assert.Check(t, !strings.Contains(final[0]["result"].(string), "SUCCESS"))
		}
	case scriptedllm.ScenarioKilled:
		assert.Check(t, c.Killed, "the harness did not kill the CLI")
		assert.Check(t, is.Len(final, 0), "a killed run has no result line")
		assert.Check(t, results[scriptedllm.ToolUseID(0, 0)] == nil, "the killed command has no result")
	}
	return !t.Failed()
}

// summarize counts requests by kind, e.g. "turn=4 side=2".
func summarize(reqs []scriptedllm.Request) string {
	counts := map[scriptedllm.RequestKind]int{}
	for _, r := range reqs {
		counts[r.Kind]++
	}
	var parts []string
	for _, k := range []scriptedllm.RequestKind{scriptedllm.KindTurn, scriptedllm.KindFinal, scriptedllm.KindSide, scriptedllm.KindCountTokens, scriptedllm.KindOther, scriptedllm.KindUnknown} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
		}
	}
	return strings.Join(parts, " ")
}
