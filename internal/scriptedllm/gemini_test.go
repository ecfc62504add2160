package scriptedllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// geminiPost posts body to the mock's models/{call} path and returns the response.
func geminiPost(t *testing.T, url, call, query string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	assert.NilError(t, err)
	if query != "" {
		query = "?" + query
	}
	resp, err := http.Post(url+"/v1beta/models/"+call+query, "application/json", bytes.NewReader(b))
	assert.NilError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// geminiSSE reads the "data:" payloads of an SSE response.
func geminiSSE(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	assert.Check(t, is.Contains(resp.Header.Get("Content-Type"), "text/event-stream"))
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			assert.NilError(t, json.Unmarshal([]byte(data), &m))
			out = append(out, m)
		} else {
			assert.Check(t, is.Equal(line, ""), "unexpected SSE line")
		}
	}
	assert.NilError(t, sc.Err())
	return out
}

// candidate is a response's first candidate.
func candidate(r map[string]any) map[string]any {
	return r["candidates"].([]any)[0].(map[string]any)
}

func partsOf(r map[string]any) []any {
	return candidate(r)["content"].(map[string]any)["parts"].([]any)
}

// geminiTools declares the named functions as Gemini CLI does.
func geminiTools(names ...string) []any {
	var decls []any
	for _, n := range names {
		decls = append(decls, map[string]any{"name": n, "description": n, "parametersJsonSchema": map[string]any{"type": "object"}})
	}
	return []any{map[string]any{"functionDeclarations": decls}}
}

// TestGeminiStreamGenerateContent checks the SSE a Gemini API client sees: the text in chunks
// that add up, the scenario's calls as the CLI's tools in the last chunk with finishReason and
// usage, and the function responses of the next request recorded as tool results.
func TestGeminiStreamGenerateContent(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{
		Run("Looking around the project.", Bash("ls -la"), Write("/w/a.txt", "one\n"),
			Edit("/w/a.txt", "one", "two"), Read("/w/a.txt"), ToolCall{Name: "glob", Input: map[string]any{"pattern": "*.md"}}),
	}, FinalText: "All done.\nSUCCESS"})
	assert.NilError(t, err)
	defer srv.Close()
	user := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "go"}}}
	body := map[string]any{
		"contents":          []any{user},
		"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are Gemini CLI."}}},
		"tools":             geminiTools("run_shell_command", "write_file", "replace", "read_file", "glob"),
	}
	chunks := geminiSSE(t, geminiPost(t, srv.URL(), "gemini-3.8-flash:streamGenerateContent", "alt=sse", body))

	assert.Assert(t, len(chunks) >= 2)
	var text strings.Builder
	for i, c := range chunks {
		last := i == len(chunks)-1
		_, hasFinish := candidate(c)["finishReason"]
		assert.Check(t, is.Equal(hasFinish, last), "finishReason only in the last chunk (chunk %d)", i)
		_, hasUsage := c["usageMetadata"]
		assert.Check(t, is.Equal(hasUsage, last), "usage only in the last chunk (chunk %d)", i)
		assert.Check(t, is.Equal(c["modelVersion"], "gemini-3.8-flash"))
		if !last {
			assert.Assert(t, is.Len(partsOf(c), 1))
			text.WriteString(partsOf(c)[0].(map[string]any)["text"].(string))
		}
	}
	assert.Check(t, is.Equal(text.String(), "Looking around the project."))
	last := chunks[len(chunks)-1]
	assert.Check(t, is.Equal(candidate(last)["finishReason"], "STOP"))
	usage := last["usageMetadata"].(map[string]any)
	assert.Check(t, is.Equal(usage["promptTokenCount"], float64(UsageInputTokens)))
	assert.Check(t, is.Equal(usage["candidatesTokenCount"], float64(UsageOutputTokens)))
	var calls []map[string]any
	for _, p := range partsOf(last) {
		fc := p.(map[string]any)["functionCall"].(map[string]any)
		_, hasID := fc["id"]
		assert.Check(t, !hasID, "the real API sends no call id")
		calls = append(calls, fc)
	}
	assert.Check(t, is.DeepEqual(calls, []map[string]any{
		{"name": "run_shell_command", "args": map[string]any{"command": "ls -la", "description": "Run ls -la"}},
		{"name": "write_file", "args": map[string]any{"file_path": "/w/a.txt", "content": "one\n"}},
		{"name": "replace", "args": map[string]any{"file_path": "/w/a.txt", "old_string": "one", "new_string": "two", "instruction": "Replace the text as asked."}},
		{"name": "read_file", "args": map[string]any{"file_path": "/w/a.txt"}},
		{"name": "glob", "args": map[string]any{"pattern": "*.md"}},
	}))

	// The CLI's next request carries the function responses; the turns are exhausted, so the
	// answer is the final text.
	body["contents"] = []any{user,
		map[string]any{"role": "model", "parts": partsOf(last)},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "run_shell_command", "response": map[string]any{"output": "Output: total 0"}}},
			map[string]any{"functionResponse": map[string]any{"id": "c2", "name": "replace", "response": map[string]any{"error": "no match"}}},
		}},
	}
	final := geminiSSE(t, geminiPost(t, srv.URL(), "gemini-3.8-flash:streamGenerateContent", "alt=sse", body))
	text.Reset()
	for _, c := range final {
		for _, p := range partsOf(c) {
			text.WriteString(p.(map[string]any)["text"].(string))
		}
	}
	assert.Check(t, is.Equal(text.String(), "All done.\nSUCCESS"))
	reqs := srv.Requests()
	assert.Assert(t, is.Len(reqs, 2))
	assert.Check(t, is.Equal(reqs[0].Kind, KindTurn))
	assert.Check(t, is.Equal(reqs[0].Model, "gemini-3.8-flash"))
	assert.Check(t, reqs[0].Stream)
	assert.Check(t, is.Equal(reqs[0].System, "You are Gemini CLI."))
	assert.Check(t, is.DeepEqual(reqs[0].Tools, []string{"run_shell_command", "write_file", "replace", "read_file", "glob"}))
	assert.Check(t, is.Equal(reqs[1].Kind, KindFinal))
	assert.Check(t, is.DeepEqual(reqs[1].ToolResults, []ToolResult{
		{ToolUseID: "c1", Content: "Output: total 0"},
		{ToolUseID: "c2", Content: "no match", IsError: true},
	}))
}

// TestGeminiSideRequests: requests without function declarations consume no turn. A JSON
// request (the CLI's model router, next-speaker and loop checks) gets an object shaped by its
// schema; generateContent answers one JSON response, streamGenerateContent without alt=sse a
// JSON array; countTokens and unknown methods are answered and recorded.
func TestGeminiSideRequests(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{Say("SUCCESS")}})
	assert.NilError(t, err)
	defer srv.Close()
	jsonReq := func(schema map[string]any) map[string]any {
		return map[string]any{
			"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "route this"}}}},
			"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": schema},
		}
	}
	decode := func(resp *http.Response, v any) {
		t.Helper()
		assert.Equal(t, resp.StatusCode, http.StatusOK)
		assert.NilError(t, json.NewDecoder(resp.Body).Decode(v))
	}
	tests := []struct {
		name   string
		schema map[string]any
		want   map[string]any
	}{
		{"router (Gemini schema types)", map[string]any{"type": "OBJECT", "properties": map[string]any{
			"complexity_reasoning": map[string]any{"type": "STRING"}, "complexity_score": map[string]any{"type": "INTEGER"}}},
			map[string]any{"complexity_reasoning": "mock", "complexity_score": float64(1)}},
		{"next speaker is the user", map[string]any{"type": "object", "properties": map[string]any{
			"reasoning": map[string]any{"type": "string"}, "next_speaker": map[string]any{"type": "string", "enum": []any{"model", "user"}}}},
			map[string]any{"reasoning": "mock", "next_speaker": "user"}},
		{"enum, array, boolean, nullable", map[string]any{"type": "object", "properties": map[string]any{
			"choice": map[string]any{"type": "string", "enum": []any{"flash", "pro"}},
			"list":   map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
			"flag":   map[string]any{"type": "boolean"},
			"maybe":  map[string]any{"type": []any{"null", "integer"}}}},
			map[string]any{"choice": "flash", "list": []any{float64(1)}, "flag": false, "maybe": float64(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			decode(geminiPost(t, srv.URL(), "gemini-3.5-flash-lite:generateContent", "", jsonReq(tc.schema)), &got)
			text := partsOf(got)[0].(map[string]any)["text"].(string)
			var answer map[string]any
			assert.NilError(t, json.Unmarshal([]byte(text), &answer))
			assert.Check(t, is.DeepEqual(answer, tc.want))
			assert.Check(t, is.Equal(candidate(got)["finishReason"], "STOP"))
		})
	}

	// A plain side request, streamed without alt=sse: a JSON array of chunks.
	var arr []map[string]any
	decode(geminiPost(t, srv.URL(), "gemini-3.5-flash-lite:streamGenerateContent", "", map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "title?"}}}},
	}), &arr)
	assert.Assert(t, is.Len(arr, 1))
	assert.Check(t, is.Equal(partsOf(arr[0])[0].(map[string]any)["text"], "OK"))

	var count map[string]any
	decode(geminiPost(t, srv.URL(), "gemini-3.8-flash:countTokens", "", map[string]any{"contents": []any{}}), &count)
	assert.Check(t, is.Equal(count["totalTokens"], float64(UsageInputTokens)))

	resp := geminiPost(t, srv.URL(), "gemini-3.8-flash:embedContent", "", map[string]any{})
	b, _ := io.ReadAll(resp.Body)
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusNotFound))
	assert.Check(t, is.Contains(string(b), "no such method embedContent"))

	assert.Check(t, is.Equal(srv.TurnsServed(), 0), "side requests must not consume a turn")
	var kinds []RequestKind
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Kind)
	}
	assert.Check(t, is.DeepEqual(kinds, []RequestKind{KindSide, KindSide, KindSide, KindSide, KindCountTokens, KindUnknown}))
}

var geminiFixtureDir = filepath.Join(repoRoot, "testdata", "fixtures", "gemini")

// geminiCaptureVersions are the versions whose real-* fixtures (the stream-json transcript and
// the chat session file of the same run) are committed, newest first: 0.61.0 writes JSONL
// sessions, 0.35.0 one JSON document with the newer shell output, 0.20.2 the older one.
var geminiCaptureVersions = []string{agentcli.GeminiCLIVersion, "0.35.0", "0.20.2"}

// geminiCaptureModel is the model the "model-" capture asks for with --model (no routing).
const geminiCaptureModel = "gemini-2.5-flash"

// TestRealGeminiCLI runs the pinned REAL Gemini CLI against the mock for every capture
// scenario (on the CLI's default model, which sends a routing request first, and once with
// --model), parses each transcript with the gemini engine and checks the command log a user
// would read, and checks that the chat session file the CLI wrote for the same run, merged
// into it, gives the exit codes the stream does not state. With -capture (or R2D_CAPTURE=1)
// it runs every geminiCaptureVersions CLI and rewrites testdata/fixtures/gemini/real-*.
func TestRealGeminiCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real CLI; skipped with -short")
	}
	versions := []string{agentcli.GeminiCLIVersion}
	if capturing() {
		versions = geminiCaptureVersions
	}
	eng, err := engines.Lookup(engines.GeminiName)
	assert.NilError(t, err)
	type run struct{ name, scenario, model string }
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			cli, bin := cliOrSkip(t, engines.GeminiName, version)
			pinned := version == agentcli.GeminiCLIVersion
			var runs []run
			for _, n := range []string{ScenarioSuccess, ScenarioFailures, ScenarioEdit, ScenarioSignals,
				ScenarioMaxTurns, ScenarioBigOut, ScenarioKilled} {
				runs = append(runs, run{n, n, ""})
			}
			if pinned {
				runs = append(runs, run{"model-success", ScenarioSuccess, geminiCaptureModel})
			}
			for _, r := range runs {
				t.Run(r.name, func(t *testing.T) {
					t.Parallel() // the CLI mostly waits: its startup, the mock, the commands
					turns := 20
					if r.scenario == ScenarioMaxTurns {
						turns = CaptureMaxTurns
					}
					c := captureRun(t, CaptureRun{CLI: cli, Binary: bin, Model: r.model, MaxTurns: turns}, r.scenario, 4*time.Minute)
					l, err := eng.ParseTranscript(bytes.NewReader(c.Transcript))
					assert.NilError(t, err)
					assert.NilError(t, commandlog.Validate(l))
					if pinned && (!checkGeminiRun(t, c, r.model) || !checkGeminiLog(t, c, l)) || !checkGeminiSession(t, c, l, pinned) {
						t.Logf("exit %d, stderr:\n%s\ntranscript:\n%s\nsession:\n%s", c.ExitCode, c.Stderr, c.Transcript, c.Session)
						return
					}
					if capturing() {
						writeGeminiFixture(t, version, r.name, c)
					}
				})
			}
		})
	}
}

// checkGeminiSession merges the run's session file into its stream log: every command the
// session records gets the exit code it states (the pinned CLI states one for every command
// that ran to an end; engines' TestGeminiSessionMerge checks the committed pairs in detail).
func checkGeminiSession(t *testing.T, c *Captured, stream *commandlog.Log, pinned bool) bool {
	t.Helper()
	if !assert.Check(t, len(c.Session) > 0, "gemini wrote no chat session file under its home") {
		return false
	}
	assert.Check(t, !bytes.Contains(c.Session, []byte(DummyAPIKey)), "session leaks the API key")
	eng, _ := engines.Lookup(engines.GeminiName)
	merged := *stream
	merged.Commands = append([]commandlog.Command(nil), stream.Commands...)
	_, err := eng.(engines.SessionMerger).MergeSession(&merged, bytes.NewReader(c.Session))
	assert.NilError(t, err)
	if pinned {
		switch c.Scenario.Name {
		case ScenarioSuccess, ScenarioFailures, ScenarioEdit, ScenarioBigOut, ScenarioMaxTurns:
			for _, cmd := range merged.Commands {
				assert.Check(t, cmd.ExitCode != nil, "%s: the session states no exit code", cmd.Command)
			}
		case ScenarioKilled:
			assert.Check(t, is.Equal(merged.Commands[0].Status, commandlog.StatusUnknown), "a killed command stays unknown")
		}
	}
	return !t.Failed()
}

// checkGeminiRun checks what the mock saw and how the CLI ended.
func checkGeminiRun(t *testing.T, c *Captured, model string) bool {
	t.Helper()
	turns := 0
	for i, r := range c.Requests {
		assert.Check(t, r.Kind != KindUnknown, "request %d to %s %s", i, r.Path, r.Query)
		switch {
		case r.Kind == KindSide:
			// the default model routes first with a small JSON request
			assert.Check(t, model == "" && i == 0, "side request %d to %s", i, r.Path)
		case model != "":
			assert.Check(t, is.Equal(r.Model, model))
		}
		if r.ConsumedTurn() {
			turns++
			assert.Check(t, is.Equal(r.Query, "alt=sse"))
			assert.Check(t, slicesContain(r.Tools, "run_shell_command"), "tools offered: %v", r.Tools)
		}
	}
	sc := c.Scenario
	switch sc.Name {
	case ScenarioMaxTurns:
		assert.Check(t, is.Equal(turns, CaptureMaxTurns))
		assert.Check(t, is.Equal(c.ExitCode, 53), "FatalTurnLimitedError exit status")
	case ScenarioKilled:
		assert.Check(t, is.Equal(turns, len(sc.Turns)))
		assert.Check(t, c.Killed, "the harness did not kill the CLI")
	default:
		assert.Check(t, is.Equal(turns, len(sc.Turns)))
		assert.Check(t, is.Equal(c.ExitCode, 0))
	}
	assert.Check(t, !bytes.Contains(c.Transcript, []byte(DummyAPIKey)), "transcript leaks the API key")
	return !t.Failed()
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// checkGeminiLog asserts the command log of a scenario, as a reader of the transcript would
// list it; it reports success. Gemini states an exit code only for a command that printed
// nothing, so every other command is unknown (or failed, for a signal) with no exit code.
func checkGeminiLog(t *testing.T, c *Captured, l *commandlog.Log) bool {
	t.Helper()
	assert.Check(t, is.Equal(l.Engine, "gemini"))
	assert.Check(t, l.CostUSD == nil, "gemini reports tokens, not dollars")
	got := make([]cmdWant, len(l.Commands))
	for i, cmd := range l.Commands {
		got[i] = cmdWant{command: cmd.Command, exit: cmd.ExitCode, status: cmd.Status, output: cmd.Output}
	}
	var want []cmdWant
	var edits []commandlog.FileEdit
	project := CaptureRoot + "/project/"
	unknown := commandlog.StatusUnknown
	switch c.Scenario.Name {
	case ScenarioSuccess:
		want = []cmdWant{{"ls", nil, unknown, "README.md"}, {"echo hi", nil, unknown, "hi"}, {"cat README.md", nil, unknown, "# Demo"}}
		edits = []commandlog.FileEdit{{Path: project + "NOTES.md", Tool: "write_file", OK: true}, {Path: project + "NOTES.md", Tool: "replace", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
		assert.Check(t, is.DeepEqual(l.Markers, []commandlog.Marker{{Kind: "FIX", Text: "README step 2 needs mkdir build first"}, {Kind: "ADJUSTED_SUCCESS"}}))
	case ScenarioFailures:
		want = []cmdWant{
			{"false", ip(1), "failed", ""},
			{"exit 3", ip(3), "failed", ""},
			{"r2d-no-such-command --version", nil, unknown, "command not found"},
			{"echo 'error: cannot connect to database' >&2; exit 2", nil, unknown, "cannot connect to database"},
			{"false", ip(1), "failed", ""},
			{"echo after-parallel", nil, unknown, "after-parallel"},
		}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
		assert.Check(t, is.Equal(l.OutcomeReason, "needs a database"))
	case ScenarioEdit:
		want = []cmdWant{{"cat config.env", nil, unknown, "PORT=8080\nDEBUG=1"}}
		edits = []commandlog.FileEdit{{Path: project + "config.env", Tool: "write_file", OK: true},
			{Path: project + "config.env", Tool: "replace", OK: true}, {Path: project + "config.env", Tool: "replace", OK: false}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
	case ScenarioSignals:
		want = []cmdWant{
			{"kill -TERM $$", nil, "failed", "terminated by signal: 15"},
			// the SIGKILL is told to the model only; the transcript shows the output
			{"echo partial output; kill -KILL $$", nil, unknown, "partial output"},
			{"echo compiling; echo 'error: missing header' >&2; exit 1", nil, unknown, "error: missing header"},
		}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
	case ScenarioMaxTurns:
		want = []cmdWant{{"echo step one", nil, unknown, "step one"}, {"echo step two", nil, unknown, "step two"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "the turn limit stopped the run after an early SUCCESS")
		assert.Check(t, is.Contains(l.OutcomeReason, "max session turns"))
	case ScenarioBigOut:
		want = []cmdWant{{"seq 1 20000", nil, unknown, "20000"}, {"echo SUCCESS", nil, unknown, "SUCCESS"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "SUCCESS printed by a command is not the agent's marker")
		assert.Check(t, is.Len(l.Markers, 0))
	case ScenarioKilled:
		want = []cmdWant{{"echo waiting for the server; sleep 60; echo done", nil, unknown, ""}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
		assert.Check(t, is.Contains(l.OutcomeReason, "killed"))
	}
	if assert.Check(t, is.Equal(len(got), len(want)), "commands: %+v", got) {
		for i := range want {
			assert.Check(t, is.Equal(got[i].command, want[i].command))
			assert.Check(t, is.DeepEqual(got[i].exit, want[i].exit), got[i].command)
			assert.Check(t, is.Equal(got[i].status, want[i].status), got[i].command)
			assert.Check(t, is.Contains(got[i].output, want[i].output), got[i].command)
		}
	}
	if edits != nil {
		assert.Check(t, is.DeepEqual(l.FileEdits, edits))
	}
	return !t.Failed()
}

func writeGeminiFixture(t *testing.T, version, name string, c *Captured) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(geminiFixtureDir, 0o755))
	base := filepath.Join(geminiFixtureDir, fmt.Sprintf("real-%s-%s", version, name))
	for _, b := range [][]byte{c.Transcript, c.Session} {
		assert.Assert(t, !bytes.Contains(b, []byte("r2d-capture-")), "capture holds its temporary directory")
		if home := os.Getenv("HOME"); len(home) > 1 {
			assert.Assert(t, !bytes.Contains(b, []byte(home+"/.")), "capture holds a path under the host's home")
		}
		assert.Assert(t, !bytes.Contains(b, []byte(DummyAPIKey)), "capture leaks the API key")
	}
	assert.NilError(t, os.WriteFile(base+".jsonl", c.Transcript, 0o644))
	// The session keeps the CLI's own format: one JSON document (older CLIs) or JSONL.
	ext := ".session.jsonl"
	if bytes.HasPrefix(bytes.TrimSpace(c.Session), []byte("{\n")) {
		ext = ".session.json"
	}
	assert.NilError(t, os.WriteFile(base+ext, c.Session, 0o644))
	t.Logf("wrote %s.jsonl (%d bytes) and %s (%d bytes)", base, len(c.Transcript), ext, len(c.Session))
}
