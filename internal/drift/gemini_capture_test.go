package drift_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

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
			for _, n := range []string{scriptedllm.ScenarioSuccess, scriptedllm.ScenarioFailures, scenarioEdit, scenarioSignals,
				scenarioMaxTurns, scriptedllm.ScenarioBigOut, scriptedllm.ScenarioKilled} {
				runs = append(runs, run{n, n, ""})
			}
			if pinned {
				runs = append(runs, run{"model-success", scriptedllm.ScenarioSuccess, geminiCaptureModel})
			}
			for _, r := range runs {
				t.Run(r.name, func(t *testing.T) {
					t.Parallel() // the CLI mostly waits: its startup, the mock, the commands
					turns := 20
					if r.scenario == scenarioMaxTurns {
						turns = captureMaxTurns
					}
					c := captureRun(t, drift.CaptureRun{CLI: cli, Binary: bin, Model: r.model, MaxTurns: turns}, r.scenario, 4*time.Minute)
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
func checkGeminiSession(t *testing.T, c *drift.Captured, stream *commandlog.Log, pinned bool) bool {
	t.Helper()
	if !assert.Check(t, len(c.Session) > 0, "gemini wrote no chat session file under its home") {
		return false
	}
	assert.Check(t, !bytes.Contains(c.Session, []byte(scriptedllm.DummyAPIKey)), "session leaks the API key")
	eng, _ := engines.Lookup(engines.GeminiName)
	merged := *stream
	merged.Commands = append([]commandlog.Command(nil), stream.Commands...)
	_, err := eng.(engines.SessionMerger).MergeSession(&merged, bytes.NewReader(c.Session))
	assert.NilError(t, err)
	if pinned {
		switch c.Scenario.Name {
		case scriptedllm.ScenarioSuccess, scriptedllm.ScenarioFailures, scenarioEdit, scriptedllm.ScenarioBigOut, scenarioMaxTurns:
			for _, cmd := range merged.Commands {
				assert.Check(t, cmd.ExitCode != nil, "%s: the session states no exit code", cmd.Command)
			}
		case scriptedllm.ScenarioKilled:
			assert.Check(t, is.Equal(merged.Commands[0].Status, commandlog.StatusUnknown), "a killed command stays unknown")
		}
	}
	return !t.Failed()
}

// checkGeminiRun checks what the mock saw and how the CLI ended.
func checkGeminiRun(t *testing.T, c *drift.Captured, model string) bool {
	t.Helper()
	turns := 0
	for i, r := range c.Requests {
		assert.Check(t, r.Kind != scriptedllm.KindUnknown, "request %d to %s %s", i, r.Path, r.Query)
		switch {
		case r.Kind == scriptedllm.KindSide:
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
	case scenarioMaxTurns:
		assert.Check(t, is.Equal(turns, captureMaxTurns))
		assert.Check(t, is.Equal(c.ExitCode, 53), "FatalTurnLimitedError exit status")
	case scriptedllm.ScenarioKilled:
		assert.Check(t, is.Equal(turns, len(sc.Turns)))
		assert.Check(t, c.Killed, "the harness did not kill the CLI")
	default:
		assert.Check(t, is.Equal(turns, len(sc.Turns)))
		assert.Check(t, is.Equal(c.ExitCode, 0))
	}
	assert.Check(t, !bytes.Contains(c.Transcript, []byte(scriptedllm.DummyAPIKey)), "transcript leaks the API key")
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
func checkGeminiLog(t *testing.T, c *drift.Captured, l *commandlog.Log) bool {
	t.Helper()
	assert.Check(t, is.Equal(l.Engine, "gemini"))
	assert.Check(t, l.CostUSD == nil, "gemini reports tokens, not dollars")
	got := make([]cmdWant, len(l.Commands))
	for i, cmd := range l.Commands {
		got[i] = cmdWant{command: cmd.Command, exit: cmd.ExitCode, status: cmd.Status, output: cmd.Output}
	}
	var want []cmdWant
	var edits []commandlog.FileEdit
	project := drift.CaptureRoot + "/project/"
	unknown := commandlog.StatusUnknown
	switch c.Scenario.Name {
	case scriptedllm.ScenarioSuccess:
		want = []cmdWant{{"ls", nil, unknown, "README.md"}, {"echo hi", nil, unknown, "hi"}, {"cat README.md", nil, unknown, "# Demo"}}
		edits = []commandlog.FileEdit{{Path: project + "NOTES.md", Tool: "write_file", OK: true}, {Path: project + "NOTES.md", Tool: "replace", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
		assert.Check(t, is.DeepEqual(l.Markers, []commandlog.Marker{{Kind: "FIX", Text: "README step 2 needs mkdir build first"}, {Kind: "ADJUSTED_SUCCESS"}}))
	case scriptedllm.ScenarioFailures:
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
	case scenarioEdit:
		want = []cmdWant{{"cat config.env", nil, unknown, "PORT=8080\nDEBUG=1"}}
		edits = []commandlog.FileEdit{{Path: project + "config.env", Tool: "write_file", OK: true},
			{Path: project + "config.env", Tool: "replace", OK: true}, {Path: project + "config.env", Tool: "replace", OK: false}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
	case scenarioSignals:
		want = []cmdWant{
			{"kill -TERM $$", nil, "failed", "terminated by signal: 15"},
			// the SIGKILL is told to the model only; the transcript shows the output
			{"echo partial output; kill -KILL $$", nil, unknown, "partial output"},
			{"echo compiling; echo 'error: missing header' >&2; exit 1", nil, unknown, "error: missing header"},
		}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
	case scenarioMaxTurns:
		want = []cmdWant{{"echo step one", nil, unknown, "step one"}, {"echo step two", nil, unknown, "step two"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "the turn limit stopped the run after an early SUCCESS")
		assert.Check(t, is.Contains(l.OutcomeReason, "max session turns"))
	case scriptedllm.ScenarioBigOut:
		want = []cmdWant{{"seq 1 20000", nil, unknown, "20000"}, {"echo SUCCESS", nil, unknown, "SUCCESS"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "SUCCESS printed by a command is not the agent's marker")
		assert.Check(t, is.Len(l.Markers, 0))
	case scriptedllm.ScenarioKilled:
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

func writeGeminiFixture(t *testing.T, version, name string, c *drift.Captured) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(geminiFixtureDir, 0o755))
	base := filepath.Join(geminiFixtureDir, fmt.Sprintf("real-%s-%s", version, name))
	for _, b := range [][]byte{c.Transcript, c.Session} {
		assert.Assert(t, !bytes.Contains(b, []byte("r2d-capture-")), "capture holds its temporary directory")
		if home := os.Getenv("HOME"); len(home) > 1 {
			assert.Assert(t, !bytes.Contains(b, []byte(home+"/.")), "capture holds a path under the host's home")
		}
		assert.Assert(t, !bytes.Contains(b, []byte(scriptedllm.DummyAPIKey)), "capture leaks the API key")
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
