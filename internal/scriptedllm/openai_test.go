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
	"sort"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// sseEvents posts body to the mock and returns the SSE data payloads.
func sseEvents(t *testing.T, url string, body map[string]any) []map[string]any {
	t.Helper()
	b, err := json.Marshal(body)
	assert.NilError(t, err)
	resp, err := http.Post(url+"/v1/responses", "application/json", bytes.NewReader(b))
	assert.NilError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, resp.StatusCode, http.StatusOK)
	assert.Check(t, is.Contains(resp.Header.Get("Content-Type"), "text/event-stream"))
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
			continue
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			assert.NilError(t, json.Unmarshal([]byte(data), &m))
			assert.Check(t, is.Equal(m["type"], event), "event name and data type differ")
			out = append(out, m)
		}
	}
	assert.NilError(t, sc.Err())
	return out
}

func eventsOf(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestOpenAIResponsesStream checks the SSE a Responses API client sees, for every tool set
// codex generations offer: the scenario's Bash and Write become the offered tools' calls, the
// deltas add up to the finished items, and the usage arrives in response.completed.
func TestOpenAIResponsesStream(t *testing.T) {
	fn := func(name string) map[string]any { return map[string]any{"type": "function", "name": name} }
	custom := func(name string) map[string]any { return map[string]any{"type": "custom", "name": name} }
	patch := "*** Begin Patch\n*** Add File: /w/a.txt\n+one\n+two\n*** End Patch\n"
	tests := []struct {
		name      string
		tools     []any // request "tools"
		extra     []any // request input items before the user message (additional_tools)
		bashName  string
		bashKind  string // function_call or custom_tool_call
		bashArgs  string // arguments JSON or custom input
		patchName string
		patchKind string
		patchBody string
	}{
		{name: "exec_command+custom apply_patch (gpt-5.x)", tools: []any{fn("exec_command"), custom("apply_patch")},
			bashName: "exec_command", bashKind: "function_call", bashArgs: `{"cmd":"ls -la"}`,
			patchName: "apply_patch", patchKind: "custom_tool_call", patchBody: patch},
		{name: "shell_command+function apply_patch", tools: []any{fn("shell_command"), fn("apply_patch")},
			bashName: "shell_command", bashKind: "function_call", bashArgs: `{"command":"ls -la"}`,
			patchName: "apply_patch", patchKind: "function_call", patchBody: mustJSON(map[string]any{"input": patch})},
		{name: "shell argv (older codex)", tools: []any{fn("shell")},
			bashName: "shell", bashKind: "function_call", bashArgs: `{"command":["bash","-lc","ls -la"]}`,
			patchName: "shell", patchKind: "function_call", patchBody: mustJSON(map[string]any{"command": []string{"apply_patch", patch}})},
		{name: "code mode exec (codex default model)",
			extra: []any{map[string]any{"type": "additional_tools", "role": "developer", "tools": []any{
				map[string]any{"type": "namespace", "name": "functions", "tools": []any{custom("exec"), fn("wait")}}}}},
			bashName: "exec", bashKind: "custom_tool_call", bashArgs: "const r = await tools.exec_command({\"cmd\":\"ls -la\"});\ntext(r);\n",
			patchName: "exec", patchKind: "custom_tool_call", patchBody: "const r = await tools.apply_patch(" + mustJSON(patch) + ");\ntext(r);\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{
				Run("Looking around.", Bash("ls -la"), Write("/w/a.txt", "one\ntwo\n")),
			}, FinalText: "All done.\nSUCCESS"})
			assert.NilError(t, err)
			defer srv.Close()
			input := append(append([]any{}, tc.extra...), map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": "go"}}})
			body := map[string]any{"model": "gpt-5.5", "stream": true, "input": input}
			if tc.tools != nil {
				body["tools"] = tc.tools
			}
			evs := sseEvents(t, srv.URL(), body)

			assert.Assert(t, len(evs) > 4)
			assert.Check(t, is.Equal(evs[0]["type"], "response.created"))
			assert.Check(t, is.Equal(evs[len(evs)-1]["type"], "response.completed"))
			for i, e := range evs {
				assert.Check(t, is.Equal(e["sequence_number"], float64(i)))
			}
			done := eventsOf(evs, "response.output_item.done")
			assert.Assert(t, is.Len(done, 3))
			msg, bash, edit := done[0]["item"].(map[string]any), done[1]["item"].(map[string]any), done[2]["item"].(map[string]any)
			assert.Check(t, is.Equal(msg["type"], "message"))
			assert.Check(t, is.Equal(deltaText(evs, "response.output_text.delta", msg["id"]), "Looking around."))
			for _, c := range []struct {
				item               map[string]any
				name, kind, body   string
				wantCallID, wantID string
			}{
				{bash, tc.bashName, tc.bashKind, tc.bashArgs, ToolUseID(0, 0), ""},
				{edit, tc.patchName, tc.patchKind, tc.patchBody, ToolUseID(0, 1), ""},
			} {
				assert.Check(t, is.Equal(c.item["type"], c.kind))
				assert.Check(t, is.Equal(c.item["name"], c.name))
				assert.Check(t, is.Equal(c.item["call_id"], c.wantCallID))
				field, delta := "arguments", "response.function_call_arguments.delta"
				if c.kind == "custom_tool_call" {
					field, delta = "input", "response.custom_tool_call_input.delta"
				}
				assert.Check(t, is.Equal(c.item[field], c.body))
				assert.Check(t, is.Equal(deltaText(evs, delta, c.item["id"]), c.body), "deltas must add up")
			}
			completed := evs[len(evs)-1]["response"].(map[string]any)
			usage := completed["usage"].(map[string]any)
			assert.Check(t, is.Equal(usage["input_tokens"], float64(UsageInputTokens)))
			assert.Check(t, is.Equal(usage["output_tokens"], float64(UsageOutputTokens)))
			assert.Check(t, is.Len(completed["output"], 3))

			// The CLI's answer carries the tool outputs; the mock records them and answers with
			// the final text once the turns are exhausted.
			body["input"] = append(input,
				map[string]any{"type": "function_call_output", "call_id": ToolUseID(0, 0), "output": "total 0"},
				map[string]any{"type": "custom_tool_call_output", "call_id": ToolUseID(0, 1),
					"output": []any{map[string]any{"type": "input_text", "text": "Success."}}})
			evs = sseEvents(t, srv.URL(), body)
			final := eventsOf(evs, "response.output_item.done")
			assert.Assert(t, is.Len(final, 1))
			assert.Check(t, is.Equal(deltaText(evs, "response.output_text.delta", final[0]["item"].(map[string]any)["id"]), "All done.\nSUCCESS"))
			reqs := srv.Requests()
			assert.Assert(t, is.Len(reqs, 2))
			assert.Check(t, is.Equal(reqs[0].Kind, KindTurn))
			assert.Check(t, is.Equal(reqs[1].Kind, KindFinal))
			assert.Check(t, is.DeepEqual(reqs[1].ToolResults, []ToolResult{
				{ToolUseID: ToolUseID(0, 0), Content: "total 0"},
				{ToolUseID: ToolUseID(0, 1), Content: "Success."},
			}))
		})
	}
}

// TestOpenAISideAndErrors: a request without tools is answered without consuming a turn; a
// non-streaming request gets the response object; a bad body is a 400 in the API's shape.
func TestOpenAISideAndErrors(t *testing.T) {
	srv, err := Start("127.0.0.1:0", Scenario{Turns: []Turn{Say("SUCCESS")}})
	assert.NilError(t, err)
	defer srv.Close()

	resp, err := http.Post(srv.URL()+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"title?"}`))
	assert.NilError(t, err)
	var got map[string]any
	assert.NilError(t, json.NewDecoder(resp.Body).Decode(&got))
	resp.Body.Close()
	assert.Check(t, is.Equal(got["status"], "completed"))
	assert.Check(t, is.Equal(srv.TurnsServed(), 0), "a side request must not consume a turn")

	resp, err = http.Post(srv.URL()+"/v1/responses", "application/json", strings.NewReader(`{"tools":[`))
	assert.NilError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Check(t, is.Equal(resp.StatusCode, http.StatusBadRequest))
	assert.Check(t, is.Contains(string(b), `"invalid_request_error"`))
}

func deltaText(evs []map[string]any, typ string, itemID any) string {
	var b strings.Builder
	for _, e := range eventsOf(evs, typ) {
		if e["item_id"] == itemID {
			b.WriteString(e["delta"].(string))
		}
	}
	return b.String()
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var codexFixtureDir = filepath.Join(repoRoot, "testdata", "fixtures", "codex")

// codexCaptureVersions are the versions whose real-* fixtures (the exec --json stream and the
// session rollout of the same run) are committed, newest first: one per rollout generation.
var codexCaptureVersions = []string{agentcli.CodexVersion, "0.125.0", "0.80.0", "0.45.0", "0.39.0", "0.20.0"}

// TestRealCodexCLI runs the pinned REAL codex CLI against the mock for every capture scenario
// (with -m CodexModel, which codex offers exec_command and apply_patch directly, and once on
// codex's default model, which is driven through its JavaScript exec tool), parses each
// transcript with the codex engine and checks the command log a user would read, and checks
// that the session rollout the CLI wrote for the same run gives the same commands. With
// -capture (or R2D_CAPTURE=1) it runs every codexCaptureVersions CLI and rewrites
// testdata/fixtures/codex/real-* (stream and rollout).
func TestRealCodexCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real CLI; skipped with -short")
	}
	versions := []string{agentcli.CodexVersion}
	if capturing() {
		versions = codexCaptureVersions
	}
	eng, err := engines.Lookup(engines.CodexName)
	assert.NilError(t, err)
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			cli, bin := cliOrSkip(t, engines.CodexName, version)
			pinned := version == agentcli.CodexVersion
			type run struct{ name, scenario, model string }
			var runs []run
			for _, n := range []string{ScenarioSuccess, ScenarioFailures, ScenarioEdit, ScenarioAbandoned, ScenarioKilled} {
				runs = append(runs, run{n, n, CodexModel})
			}
			if pinned {
				runs = append(runs, run{ScenarioBigOut, ScenarioBigOut, CodexModel}, run{"codemode-success", ScenarioSuccess, ""})
			}
			for _, r := range runs {
				t.Run(r.name, func(t *testing.T) {
					c := captureRun(t, CaptureRun{CLI: cli, Binary: bin, Model: r.model}, r.scenario, 3*time.Minute)
					l, err := eng.ParseTranscript(bytes.NewReader(c.Transcript))
					assert.NilError(t, err)
					assert.NilError(t, commandlog.Validate(l))
					if pinned && !checkCodexLog(t, c, l) || !checkCodexRollout(t, c, l) {
						t.Logf("stderr:\n%s\ntranscript:\n%s\nrollout:\n%s", c.Stderr, c.Transcript, c.Session)
						return
					}
					if capturing() {
						writeCodexFixture(t, version, r.name, c)
					}
				})
			}
		})
	}
}

// checkCodexRollout checks that the rollout of the run gives the stream's commands and exit
// codes (engines' TestCodexRolloutMatchesStream compares the committed pairs in full).
func checkCodexRollout(t *testing.T, c *Captured, stream *commandlog.Log) bool {
	t.Helper()
	if !assert.Check(t, len(c.Session) > 0, "codex wrote no session rollout under its HOME") {
		return false
	}
	assert.Check(t, !bytes.Contains(c.Session, []byte(DummyAPIKey)), "rollout leaks the API key")
	eng, _ := engines.Lookup(engines.CodexName)
	l, err := eng.ParseTranscript(bytes.NewReader(c.Session))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(l.ParseStats.UnknownEvents, 0))
	key := func(l *commandlog.Log) []string {
		var out []string
		for _, c := range l.Commands {
			if c.Status == commandlog.StatusUnknown && c.ExitCode == nil && c.Output == "" {
				continue // never completed in the stream; the rollout may not have recorded it yet
			}
			out = append(out, fmt.Sprintf("%s → %v %s", c.Command, deref(c.ExitCode), c.Status))
		}
		sort.Strings(out)
		return out
	}
	if c.Scenario.Name != ScenarioKilled && c.Scenario.Name != ScenarioAbandoned {
		assert.Check(t, is.DeepEqual(key(l), key(stream)))
	}
	return !t.Failed()
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

type cmdWant struct {
	command string
	exit    *int
	status  commandlog.Status
	output  string // a substring
}

func ip(n int) *int { return &n }

// checkCodexLog asserts the command log of a scenario; it reports success.
func checkCodexLog(t *testing.T, c *Captured, l *commandlog.Log) bool {
	t.Helper()
	assert.Check(t, is.Equal(l.Engine, "codex"))
	assert.Check(t, l.CostUSD == nil, "codex reports tokens, not dollars")
	assert.Check(t, !bytes.Contains(c.Transcript, []byte(DummyAPIKey)), "transcript leaks the API key")
	// parallel calls of one turn may finish in either order: compare sorted by command
	got := make([]cmdWant, len(l.Commands))
	for i, cmd := range l.Commands {
		got[i] = cmdWant{command: cmd.Command, exit: cmd.ExitCode, status: cmd.Status, output: cmd.Output}
	}
	var want []cmdWant
	var edits []commandlog.FileEdit
	project := CaptureRoot + "/project/"
	switch c.Scenario.Name {
	case ScenarioSuccess:
		want = []cmdWant{{"cat README.md", ip(0), "ok", "# Demo"}, {"echo hi", ip(0), "ok", "hi\n"}, {"ls", ip(0), "ok", "README.md"}}
		edits = []commandlog.FileEdit{{Path: project + "NOTES.md", Tool: "apply_patch:add", OK: true}, {Path: project + "NOTES.md", Tool: "apply_patch:update", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
		assert.Check(t, is.DeepEqual(l.Markers, []commandlog.Marker{{Kind: "FIX", Text: "README step 2 needs mkdir build first"}, {Kind: "ADJUSTED_SUCCESS"}}))
	case ScenarioFailures:
		want = []cmdWant{
			{"echo 'error: cannot connect to database' >&2; exit 2", ip(2), "failed", "cannot connect to database"},
			{"echo after-parallel", ip(0), "ok", "after-parallel"},
			{"exit 3", ip(3), "failed", ""},
			{"false", ip(1), "failed", ""}, {"false", ip(1), "failed", ""},
			{"r2d-no-such-command --version", ip(127), "failed", "command not found"},
		}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
		assert.Check(t, is.Equal(l.OutcomeReason, "needs a database"))
	case ScenarioEdit:
		want = []cmdWant{{"cat config.env", ip(0), "ok", "PORT=8080\nDEBUG=1\n"}}
		// the patch of a missing file fails verification and leaves no item in the transcript
		edits = []commandlog.FileEdit{{Path: project + "config.env", Tool: "apply_patch:add", OK: true}, {Path: project + "config.env", Tool: "apply_patch:update", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
	case ScenarioAbandoned:
		// still running when the turn ended: no exit code, never a fabricated 0
		want = []cmdWant{{"echo server starting; sleep 20; echo server stopped", nil, "unknown", ""}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
	case ScenarioBigOut:
		// codex carries the whole output; the parser keeps head and tail
		want = []cmdWant{{"echo SUCCESS", ip(0), "ok", "SUCCESS"}, {"seq 1 20000", ip(0), "ok", "1\n2\n3\n"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "SUCCESS printed by a command is not the agent's marker")
		assert.Check(t, is.Len(l.Markers, 0))
		for _, cmd := range l.Commands {
			assert.Check(t, is.Equal(cmd.Truncated, cmd.Command == "seq 1 20000"), cmd.Command)
		}
	case ScenarioKilled:
		assert.Check(t, c.Killed, "the harness did not kill the CLI")
		want = []cmdWant{{"echo waiting for the server; sleep 60; echo done", nil, "unknown", ""}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
		assert.Check(t, is.Contains(l.OutcomeReason, "killed"))
		assert.Check(t, l.Turns == nil)
	}
	sortCmds := func(cs []cmdWant) {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].command < cs[j].command })
	}
	sortCmds(got)
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

func writeCodexFixture(t *testing.T, version, name string, c *Captured) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(codexFixtureDir, 0o755))
	base := filepath.Join(codexFixtureDir, fmt.Sprintf("real-%s-%s", version, name))
	for _, b := range [][]byte{c.Transcript, c.Session} {
		// the capture's temporary root is rewritten to CaptureRoot; nothing of the host's
		// home may remain (codex's own tool descriptions mention "/root/task1": not a path)
		assert.Assert(t, !bytes.Contains(b, []byte("r2d-capture-")), "capture holds its temporary directory")
		if home := os.Getenv("HOME"); len(home) > 1 {
			assert.Assert(t, !bytes.Contains(b, []byte(home+"/.")), "capture holds a path under the host's home")
		}
		assert.Assert(t, !bytes.Contains(b, []byte(DummyAPIKey)), "capture leaks the API key")
	}
	assert.NilError(t, os.WriteFile(base+".jsonl", c.Transcript, 0o644))
	assert.NilError(t, os.WriteFile(base+".rollout.jsonl", c.Session, 0o644))
	t.Logf("wrote %s.jsonl (%d bytes) and .rollout.jsonl (%d bytes)", base, len(c.Transcript), len(c.Session))
}
