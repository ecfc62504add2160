package engines_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func openHands(t *testing.T) engines.AgentEngine {
	t.Helper()
	eng, err := engines.Lookup(engines.OpenHandsName)
	assert.NilError(t, err)
	return eng
}

func parseOH(t *testing.T, transcript string) *commandlog.Log {
	t.Helper()
	l, err := openHands(t).ParseTranscript(strings.NewReader(transcript))
	assert.NilError(t, err)
	assert.NilError(t, commandlog.Validate(l))
	return l
}

// TestOpenHandsShapesAgree: one trajectory written as a JSON array, an
// {"events"} wrapper, a {"trajectory"} wrapper, JSONL, the CLI's
// `--JSON Event--` blocks and (V1) event search pages in every container
// gives the same command log, byte for byte.
func TestOpenHandsShapesAgree(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "fixtures", "openhands")
	for _, name := range []string{"v0-adjusted-success", "v1-blocked"} {
		t.Run(name, func(t *testing.T) {
			want := encode(t, parseFile(t, openHands(t), filepath.Join(dir, name+".jsonl")))
			assert.Assert(t, strings.Contains(want, `"command"`), "the trajectory must hold commands")
			shapes := []string{".array.json", ".events.json", ".trajectory.json", ".cli.log"}
			if strings.HasPrefix(name, "v1-") {
				// V1 event search pages: one page, pages one per line (newest
				// first, as sort_order=TIMESTAMP_DESC gives them), a JSON array of pages
				shapes = append(shapes, ".page.json", ".pages.jsonl", ".pages-array.json")
			}
			for _, shape := range shapes {
				got := encode(t, parseFile(t, openHands(t), filepath.Join(dir, name+shape)))
				assert.Equal(t, got, want, "shape %s", shape)
			}
		})
	}
}

// TestOpenHandsFixtures checks what a reader of each fixture would list.
func TestOpenHandsFixtures(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "fixtures", "openhands")
	type cmd struct {
		command string
		exit    *int
		status  commandlog.Status
	}
	code := func(n int) *int { return &n }
	tests := []struct {
		file     string
		outcome  commandlog.Outcome
		adjusted bool
		cmds     []cmd
		edits    []commandlog.FileEdit
		markers  []commandlog.MarkerKind
		cost     *float64
		stats    commandlog.ParseStats
	}{
		{
			file: "v0-adjusted-success.array.json", outcome: commandlog.OutcomeSuccess, adjusted: true,
			cmds: []cmd{
				{"pip install -r requirements.txt", code(0), commandlog.StatusOK},
				{"make test", code(2), commandlog.StatusFailed},                            // extras.exit_code
				{"python -m app serve --port 8000", code(130), commandlog.StatusFailed},    // -1, then Ctrl-C
				{"curl -s http://localhost:8000/health", code(7), commandlog.StatusFailed}, // message only
				{"python -m app --version", code(0), commandlog.StatusOK},                  // content only
			},
			edits:   []commandlog.FileEdit{{Path: "/workspace/Makefile", Tool: "create", OK: true}, {Path: "/workspace/README.md", Tool: "str_replace", OK: false}},
			markers: []commandlog.MarkerKind{commandlog.MarkerFix, commandlog.MarkerAdjustedSuccess},
			cost:    ptrF(0.0954),
			stats:   commandlog.ParseStats{Lines: 21},
		},
		{
			file: "v1-blocked.jsonl", outcome: commandlog.OutcomeBlocked,
			cmds: []cmd{
				{"npm ci", code(0), commandlog.StatusOK},
				{"npm test", code(1), commandlog.StatusFailed},                       // exit_code null, metadata.exit_code 1
				{"npm start", nil, commandlog.StatusUnknown},                         // timed out, -1
				{"curl -s localhost:3000/pay", nil, commandlog.StatusFailed},         // AgentErrorEvent
				{"sudo apt-get install -y stripe-cli", nil, commandlog.StatusFailed}, // UserRejectObservation
			},
			edits:   []commandlog.FileEdit{{Path: "/workspace/.env", Tool: "create", OK: true}, {Path: "/workspace/config.js", Tool: "str_replace", OK: false}},
			markers: []commandlog.MarkerKind{commandlog.MarkerFix, commandlog.MarkerBlocked},
			cost:    ptrF(0.0463),
			stats:   commandlog.ParseStats{Lines: 23},
		},
		{
			file: "v0-eval-pairs-failed.history.jsonl", outcome: commandlog.OutcomeFailed,
			cmds: []cmd{
				{"./configure", code(0), commandlog.StatusOK},
				{"make", code(2), commandlog.StatusFailed},
				{"sudo apt-get install -y zlib1g-dev", code(100), commandlog.StatusFailed},
			},
			cost:  ptrF(0.0412),
			stats: commandlog.ParseStats{Lines: 8},
		},
		{
			file: "v0-drift-malformed-failed.jsonl", outcome: commandlog.OutcomeFailed,
			cmds: []cmd{
				{"git clone https://example.com/demo.git && cd demo", code(0), commandlog.StatusOK},
				{"echo SUCCESS", code(0), commandlog.StatusOK}, // output SUCCESS is not a marker
				{"./demo --selftest", code(3), commandlog.StatusFailed},
				{"npm run build", nil, commandlog.StatusUnknown}, // no exit code stated: no 0 invented
				{"./demo serve", nil, commandlog.StatusUnknown},  // killed: no observation
			},
			stats: commandlog.ParseStats{Lines: 12, Malformed: 1, UnknownEvents: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			l := parseFile(t, openHands(t), filepath.Join(dir, tc.file))
			assert.Equal(t, l.Outcome, tc.outcome)
			assert.Equal(t, l.Adjusted, tc.adjusted)
			assert.Equal(t, len(l.Commands), len(tc.cmds), "commands: %+v", l.Commands)
			for i, want := range tc.cmds {
				got := l.Commands[i]
				assert.Equal(t, got.Command, want.command)
				assert.DeepEqual(t, got.ExitCode, want.exit)
				assert.Equal(t, got.Status, want.status, "command %q", got.Command)
			}
			if tc.edits == nil {
				tc.edits = []commandlog.FileEdit{}
			}
			assert.DeepEqual(t, l.FileEdits, tc.edits)
			var kinds []commandlog.MarkerKind
			for _, m := range l.Markers {
				kinds = append(kinds, m.Kind)
			}
			assert.DeepEqual(t, kinds, tc.markers)
			if tc.cost == nil {
				assert.Assert(t, l.CostUSD == nil, "cost must be null when no trajectory states it")
			} else {
				assert.Assert(t, l.CostUSD != nil)
				assert.Assert(t, *l.CostUSD > *tc.cost-1e-9 && *l.CostUSD < *tc.cost+1e-9, "cost %v", *l.CostUSD)
			}
			assert.Equal(t, l.ParseStats, tc.stats)
		})
	}
}

func ptrF(f float64) *float64 { return &f }

// TestOpenHandsExitCodes pins the exit-code rules: where the code is read
// from, -1 is unknown, and no code is invented.
func TestOpenHandsExitCodes(t *testing.T) {
	const act0 = `{"id":1,"source":"agent","action":"run","args":{"command":"make"}}` + "\n"
	const act1 = `{"id":"a1","source":"agent","kind":"ActionEvent","tool_name":"terminal","tool_call_id":"c1","action":{"kind":"TerminalAction","command":"make"}}` + "\n"
	tests := []struct {
		name   string
		obs    string
		exit   *int
		status commandlog.Status
	}{
		{"v0 metadata", act0 + `{"id":2,"cause":1,"observation":"run","content":"ok","extras":{"metadata":{"exit_code":0}}}`, intP(0), commandlog.StatusOK},
		{"v0 metadata non-zero", act0 + `{"id":2,"cause":1,"observation":"run","content":"","extras":{"metadata":{"exit_code":2}}}`, intP(2), commandlog.StatusFailed},
		{"v0 moved: extras.exit_code", act0 + `{"id":2,"cause":1,"observation":"run","content":"","extras":{"exit_code":1,"command_id":-1}}`, intP(1), commandlog.StatusFailed},
		{"v0 moved: top-level exit_code", act0 + `{"id":2,"cause":1,"observation":"run","content":"","exit_code":3}`, intP(3), commandlog.StatusFailed},
		{"v0 moved: message only", act0 + `{"id":2,"cause":1,"observation":"run","content":"","message":"Command ` + "`make`" + ` executed with exit code 4."}`, intP(4), commandlog.StatusFailed},
		{"v0 moved: content only", act0 + `{"id":2,"cause":1,"observation":"run","content":"x\n[The command completed with exit code 5.]"}`, intP(5), commandlog.StatusFailed},
		{"v0 moved: metadata suffix only", act0 + `{"id":2,"cause":1,"observation":"run","content":"","extras":{"metadata":{"suffix":"\n[The command completed with exit code 0.]"}}}`, intP(0), commandlog.StatusOK},
		{"v0 -1 is unknown, not a failure code", act0 + `{"id":2,"cause":1,"observation":"run","content":"still running","message":"Command ` + "`make`" + ` executed with exit code -1.","extras":{"metadata":{"exit_code":-1}},"success":false}`, nil, commandlog.StatusUnknown},
		{"v0 -1 then a stated code", act0 + `{"id":2,"cause":1,"observation":"run","content":"","extras":{"metadata":{"exit_code":-1},"exit_code":6}}`, intP(6), commandlog.StatusFailed},
		{"v0 no exit code anywhere: no 0 invented", act0 + `{"id":2,"cause":1,"observation":"run","content":"done","success":true}`, nil, commandlog.StatusUnknown},
		{"v0 unpaired: no 0 invented", act0, nil, commandlog.StatusUnknown},
		{"v0 error observation", act0 + `{"id":2,"cause":1,"observation":"error","content":"runtime died"}`, nil, commandlog.StatusFailed},
		{"v0 paired by tool_call_id", `{"id":1,"action":"run","tool_call_metadata":{"tool_call_id":"t1"},"args":{"command":"make"}}` + "\n" + `{"id":9,"observation":"run","tool_call_metadata":{"tool_call_id":"t1"},"extras":{"metadata":{"exit_code":0}}}`, intP(0), commandlog.StatusOK},
		{"v0 paired by order", `{"action":"run","command":"make"}` + "\n" + `{"observation":"run","content":"","exit_code":0}`, intP(0), commandlog.StatusOK},
		{"v0 cause wins over order", act0 + `{"id":5,"action":"run","args":{"command":"ls"}}` + "\n" + `{"id":6,"cause":1,"observation":"run","extras":{"metadata":{"exit_code":2}}}`, intP(2), commandlog.StatusFailed},
		{"v1 exit_code", act1 + `{"kind":"ObservationEvent","action_id":"a1","tool_call_id":"c1","observation":{"kind":"TerminalObservation","content":[{"type":"text","text":"ok"}],"exit_code":0,"metadata":{"exit_code":0}}}`, intP(0), commandlog.StatusOK},
		{"v1 moved: metadata.exit_code", act1 + `{"kind":"ObservationEvent","action_id":"a1","observation":{"kind":"TerminalObservation","content":[],"exit_code":null,"metadata":{"exit_code":7}}}`, intP(7), commandlog.StatusFailed},
		{"v1 is_error with -1", act1 + `{"kind":"ObservationEvent","tool_call_id":"c1","observation":{"kind":"TerminalObservation","content":[{"type":"text","text":"Cannot execute multiple commands at once."}],"is_error":true,"exit_code":null,"metadata":{"exit_code":-1}}}`, nil, commandlog.StatusFailed},
		{"v1 timeout -1 is unknown", act1 + `{"kind":"ObservationEvent","action_id":"a1","observation":{"kind":"TerminalObservation","content":[],"exit_code":-1,"timeout":true,"metadata":{"exit_code":-1}}}`, nil, commandlog.StatusUnknown},
		{"v1 no exit code: no 0 invented", act1 + `{"kind":"ObservationEvent","action_id":"a1","observation":{"kind":"TerminalObservation","content":"done"}}`, nil, commandlog.StatusUnknown},
		{"v1 AgentErrorEvent", act1 + `{"kind":"AgentErrorEvent","tool_call_id":"c1","error":"boom"}`, nil, commandlog.StatusFailed},
		{"v1 UserRejectObservation", act1 + `{"kind":"UserRejectObservation","action_id":"a1","rejection_reason":"no"}`, nil, commandlog.StatusFailed},
		{"v1 unpaired", act1, nil, commandlog.StatusUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := parseOH(t, tc.obs)
			want := 1
			if strings.Contains(tc.obs, `"ls"`) {
				want = 2 // the second command stays unpaired
			}
			assert.Equal(t, len(l.Commands), want, "%+v", l.Commands)
			assert.Equal(t, l.Commands[0].Command, "make")
			assert.DeepEqual(t, l.Commands[0].ExitCode, tc.exit)
			assert.Equal(t, l.Commands[0].Status, tc.status)
		})
	}
}

func intP(n int) *int { return &n }

// TestOpenHandsInputContinuesCommand: a run with is_input is input to the
// running command, not a new one.
func TestOpenHandsInputContinuesCommand(t *testing.T) {
	l := parseOH(t, strings.Join([]string{
		`{"id":1,"source":"agent","action":"run","args":{"command":"npm start"}}`,
		`{"id":2,"cause":1,"observation":"run","content":"listening","extras":{"metadata":{"exit_code":-1}}}`,
		`{"id":3,"source":"agent","action":"run","args":{"command":"C-c","is_input":true}}`,
		`{"id":4,"cause":3,"observation":"run","content":"^C","extras":{"metadata":{"exit_code":130}}}`,
	}, "\n"))
	assert.Equal(t, len(l.Commands), 1)
	c := l.Commands[0]
	assert.Equal(t, c.Command, "npm start")
	assert.Equal(t, c.Output, "listening\n^C")
	assert.DeepEqual(t, c.ExitCode, intP(130))
}

// TestOpenHandsTextLines: CLI text around the JSON is not an event and not
// malformed; a broken JSON line is malformed.
func TestOpenHandsTextLines(t *testing.T) {
	l := parseOH(t, "OpenHands CLI\n[12:00] starting\n--JSON Event--\n{\n  \"id\": 1,\n  \"action\": \"run\",\n  \"args\": {\"command\": \"ls\"}\n}\n⠋ working\n{\"id\": 2, \"cause\": 1, \"observation\": \"run\", \"content\": \"a\", \"extras\": {\"metadata\": {\"exit_code\": 0}}}\n{\"id\": 3, \"action\": \"run\", \"args\": {\"comm\nGoodbye!\n")
	assert.Equal(t, l.ParseStats, commandlog.ParseStats{Lines: 3, Malformed: 1})
	assert.Equal(t, len(l.Commands), 1)
	assert.DeepEqual(t, l.Commands[0].ExitCode, intP(0))
}

// TestOpenHandsCost: null when unknown, a stated 0.0 stays 0.0.
func TestOpenHandsCost(t *testing.T) {
	l := parseOH(t, `{"id":1,"source":"agent","action":"run","args":{"command":"ls"}}`)
	assert.Assert(t, l.CostUSD == nil)
	l = parseOH(t, `{"id":1,"source":"agent","action":"run","llm_metrics":{"accumulated_cost":0.0},"args":{"command":"ls"}}`)
	assert.Assert(t, l.CostUSD != nil && *l.CostUSD == 0)
	l = parseOH(t, `{"id":"s","kind":"ConversationStateUpdateEvent","key":"stats","value":{"usage_to_metrics":{"default":{"accumulated_cost":0.5},"condenser":{"accumulated_cost":0.25}}}}`)
	assert.Assert(t, l.CostUSD != nil && *l.CostUSD == 0.75)
}

func TestOpenHandsEmpty(t *testing.T) {
	l := parseOH(t, "")
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, l.CostUSD == nil && l.Turns == nil && l.DurationMS == nil)
	assert.Assert(t, is.Contains(l.OutcomeReason, "no OpenHands events"))
}

func TestOpenHandsResolveEnv(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		vars    map[string]string
		want    map[string]string
		errVar  string
		errText string
	}{
		{name: "missing key", vars: map[string]string{"LLM_MODEL": "anthropic/claude-sonnet-4-5"}, errVar: "LLM_API_KEY", errText: "not set"},
		{name: "key with newline", vars: map[string]string{"LLM_API_KEY": key + "\n"}, errVar: "LLM_API_KEY", errText: "white space"},
		{name: "key only", vars: map[string]string{"LLM_API_KEY": key}, want: map[string]string{"LLM_API_KEY": key}},
		{name: "model and base url pass through", vars: map[string]string{"LLM_API_KEY": key, "LLM_MODEL": "openai/gpt-5", "LLM_BASE_URL": "http://proxy:4000", "OTHER": "x"},
			want: map[string]string{"LLM_API_KEY": key, "LLM_MODEL": "openai/gpt-5", "LLM_BASE_URL": "http://proxy:4000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := openHands(t).ResolveEnv(env(tc.vars))
			if tc.errVar != "" {
				var ee *engines.EngineError
				assert.Assert(t, errors.As(err, &ee), "want *EngineError, got %v", err)
				assert.Equal(t, ee.Var, tc.errVar)
				assert.Assert(t, is.Contains(err.Error(), tc.errText))
				assert.Assert(t, !strings.Contains(err.Error(), key), "error must not echo the key")
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestOpenHandsBuildCommand(t *testing.T) {
	eng := openHands(t)
	cmd := eng.BuildCommand(engines.Limits{})
	for _, want := range []string{
		"openhands --headless --json --override-with-envs --file " + engines.PromptContainerPath,
		"> " + engines.TranscriptContainerPath,
		"2> " + engines.StderrContainerPath,
		"cd " + engines.WorkspaceContainerPath + " &&",
	} {
		assert.Assert(t, is.Contains(cmd, want))
	}
	assert.Assert(t, !strings.Contains(cmd, "LLM_MODEL="), "no model override without Limits.Model")
	assert.Assert(t, !strings.Contains(cmd, "LLM_API_KEY"), "the key travels in the environment, never in the command")
	cmd = eng.BuildCommand(engines.Limits{Model: "anthropic/claude-sonnet-4-5"})
	assert.Assert(t, is.Contains(cmd, "LLM_MODEL=anthropic/claude-sonnet-4-5 openhands "))
}

// TestOpenHandsCorpusPresent guards the acceptance claim that every corpus
// file has a golden command log.
func TestOpenHandsCorpusPresent(t *testing.T) {
	corpus := filepath.Join(repoRoot(t), "testdata", "corpus", "openhands")
	entries, err := os.ReadDir(corpus)
	assert.NilError(t, err)
	assert.Check(t, len(entries) > 0, "no openhands corpus transcripts")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		_, err := os.Stat(filepath.Join(repoRoot(t), "testdata", "golden", "corpus", "openhands", e.Name()+".json"))
		assert.NilError(t, err, "corpus file %s has no golden", e.Name())
	}
}
