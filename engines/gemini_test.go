package engines_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func TestGeminiResolveEnv(t *testing.T) {
	g := eng(t, "gemini")
	const key = "AIzaSyAbcdefghijklmnopqrstuvwxyz0123456"
	tests := []struct {
		name    string
		env     map[string]string
		want    map[string]string
		errVar  string
		errText string
	}{
		{name: "GEMINI_API_KEY", env: map[string]string{"GEMINI_API_KEY": key},
			want: map[string]string{"GEMINI_API_KEY": key}},
		{name: "base URL and model pass through",
			env:  map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": "http://172.17.0.1:9/", "GEMINI_MODEL": "gemini-2.5-pro"},
			want: map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": "http://172.17.0.1:9/", "GEMINI_MODEL": "gemini-2.5-pro"}},
		{name: "Vertex with API key", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": key},
			want: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": key}},
		{name: "Vertex with project and location",
			env:  map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"},
			want: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"}},
		{name: "Vertex without credentials", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"},
			errVar: "GOOGLE_CLOUD_PROJECT", errText: "GOOGLE_CLOUD_LOCATION"},
		{name: "Vertex flag not true", env: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_API_KEY": key},
			errVar: "GOOGLE_GENAI_USE_VERTEXAI", errText: `"true"`},
		{name: "GOOGLE_API_KEY without Vertex", env: map[string]string{"GOOGLE_API_KEY": key},
			errVar: "GOOGLE_API_KEY", errText: "GOOGLE_GENAI_USE_VERTEXAI=true"},
		{name: "missing", env: map[string]string{}, errVar: "GEMINI_API_KEY", errText: "not set"},
		{name: "trailing newline", env: map[string]string{"GEMINI_API_KEY": key + "\n"}, errVar: "GEMINI_API_KEY", errText: "white space"},
		{name: "bad base URL", env: map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": "http://x/$(id)"},
			errVar: "GOOGLE_GEMINI_BASE_URL", errText: "shell"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := g.ResolveEnv(envOf(tc.env))
			if tc.errVar == "" {
				assert.NilError(t, err)
				assert.DeepEqual(t, got, tc.want)
				for k := range got {
					assert.Check(t, is.Contains(g.RequiredEnv(), k))
				}
				return
			}
			var ee *engines.EngineError
			assert.Assert(t, errors.As(err, &ee), "want *EngineError, got %v", err)
			assert.Check(t, is.Equal(ee.Var, tc.errVar))
			assert.Check(t, is.Contains(err.Error(), tc.errText))
			for _, v := range tc.env {
				if len(v) > 4 {
					assert.Check(t, !strings.Contains(err.Error(), v), "error echoes a value")
				}
			}
		})
	}
}

func TestGeminiBuildCommand(t *testing.T) {
	t.Parallel()
	g := eng(t, "gemini")
	for _, tc := range []struct {
		name      string
		limits    engines.Limits
		env       []string
		wantArgs  []string
		wantAuth  string
		wantTurns float64
	}{
		{name: "api key, defaults", env: []string{"GEMINI_API_KEY=k"},
			wantArgs: []string{"--output-format", "stream-json", "--yolo"}, wantAuth: "gemini-api-key", wantTurns: engines.DefaultMaxTurns},
		{name: "vertex, model and turns", limits: engines.Limits{Model: "gemini-2.5-pro", MaxTurns: 7}, env: []string{"GOOGLE_GENAI_USE_VERTEXAI=true"},
			wantArgs: []string{"--output-format", "stream-json", "--yolo", "--model", "gemini-2.5-pro"}, wantAuth: "vertex-ai", wantTurns: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := g.BuildCommand(tc.limits)
			for _, p := range []string{engines.PromptContainerPath, engines.TranscriptContainerPath, engines.StderrContainerPath} {
				assert.Check(t, is.Contains(cmd, p))
			}
			argv := runBuildCommand(t, cmd, "gemini", tc.env)
			want := append(append([]string{}, tc.wantArgs...), "-p", "Follow the README.\nIt's \"quoted\" $HOME `x`")
			assert.DeepEqual(t, argv, want)
			var settings map[string]map[string]any
			assert.NilError(t, json.Unmarshal([]byte(settingsSeen[t.Name()]), &settings), settingsSeen[t.Name()])
			sec := settings["security"]
			assert.Check(t, is.DeepEqual(sec["auth"], map[string]any{"selectedType": tc.wantAuth}))
			assert.Check(t, is.DeepEqual(sec["folderTrust"], map[string]any{"enabled": false}))
			// the CLI would hand the key to every command it runs
			assert.Check(t, is.DeepEqual(sec["environmentVariableRedaction"], map[string]any{
				"enabled": true, "blocked": []any{"GEMINI_API_KEY", "GOOGLE_API_KEY"}}))
			assert.Check(t, is.Equal(settings["model"]["maxSessionTurns"], tc.wantTurns))
			assert.Check(t, is.Equal(settingsSeen[t.Name()+"/trust"], "true\n"))
		})
	}
}

// How a run ends, as Gemini CLI 0.61 reports it: a turn limit is a result
// with status "error" (FatalTurnLimitedError, exit 53), older builds and the
// vendor's snapshots send an error event and a "success" result. Either way
// a SUCCESS said before the cut does not make the run a success.
func TestGeminiRunEnd(t *testing.T) {
	const (
		init0   = `{"type":"init","session_id":"s","model":"auto"}` + "\n"
		success = `{"type":"message","role":"assistant","content":"SUCCESS","delta":true}` + "\n"
		blocked = `{"type":"message","role":"assistant","content":"BLOCKED: no db","delta":true}` + "\n"
		limit   = `{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns for this session."},"stats":{"duration_ms":0}}` + "\n"
		loop    = `{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}` + "\n"
		okEnd   = `{"type":"result","status":"success","stats":{"duration_ms":1234}}` + "\n"
	)
	g := eng(t, "gemini")
	for _, tc := range []struct {
		name       string
		transcript string
		outcome    commandlog.Outcome
		reason     string // a substring
		duration   *int64
	}{
		{"success", init0 + success + okEnd, commandlog.OutcomeSuccess, "", ptr64(1234)},
		{"turn limit after SUCCESS", init0 + success + limit, commandlog.OutcomeFailed, "Reached max session turns for this session. (after the agent's success marker)", nil},
		{"turn limit without a marker", init0 + limit, commandlog.OutcomeFailed, "gemini reported an error: Reached max session turns", nil},
		{"BLOCKED wins over the turn limit", init0 + blocked + limit, commandlog.OutcomeBlocked, "no db", nil},
		{"loop detected after SUCCESS", init0 + success + loop + okEnd, commandlog.OutcomeFailed, "gemini stopped the run: Loop detected", ptr64(1234)},
		{"cut off after SUCCESS: markers decide", init0 + success, commandlog.OutcomeSuccess, "", nil},
		{"cut off without a marker", init0, commandlog.OutcomeFailed, "without a result event", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := parse(t, g, []byte(tc.transcript))
			assert.Check(t, is.Equal(l.Outcome, tc.outcome))
			assert.Check(t, is.Contains(l.OutcomeReason, tc.reason))
			assert.Check(t, is.DeepEqual(l.DurationMS, tc.duration), "a duration of 0 is not a duration")
			assert.Check(t, l.CostUSD == nil)
		})
	}
}

func ptr64(n int64) *int64 { return &n }

// A shell command the agent starts in the background (is_background) is
// logged with background: {}, so demo.sh and a replay start it in the
// background too.
func TestGeminiBackgroundCommand(t *testing.T) {
	in := `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"a","parameters":{"command":"npm start","is_background":true}}
{"type":"tool_result","tool_id":"a","status":"success","output":"Command moved to background"}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"b","parameters":{"command":"curl -s localhost:3000","is_background":false}}
{"type":"tool_result","tool_id":"b","status":"success","output":"Command exited with code: 0"}
`
	l, err := eng(t, "gemini").ParseTranscript(strings.NewReader(in))
	assert.NilError(t, err)
	assert.Equal(t, len(l.Commands), 2)
	assert.DeepEqual(t, l.Commands[0].Background, &commandlog.Background{})
	assert.Assert(t, l.Commands[1].Background == nil)
	assert.Assert(t, l.Commands[0].OnSuccessfulPath())
}
