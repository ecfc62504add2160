package drift_test

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/mockllm"
)

var fixtureDir = filepath.Join("..", "..", "testdata", "fixtures", "claude-code")

func readFixture(t *testing.T, version, scenario string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "real-"+version+"-"+scenario+".jsonl"))
	assert.NilError(t, err)
	return b
}

// fixtureReport checks the committed real captures of one Claude Code
// version (mockllm CaptureClaude runs) exactly as drift checks a fresh host run.
func fixtureReport(t *testing.T, version string, edit func(scenario string, tr []byte) []byte) (*drift.Report, drift.Capabilities) {
	t.Helper()
	eng, err := engines.Lookup("claude-code")
	assert.NilError(t, err)
	scs, err := drift.Scenarios("claude-code", path.Join(mockllm.CaptureRoot, "project"), version)
	assert.NilError(t, err)
	rep := &drift.Report{Engine: "claude-code", Version: version, Mode: "fixtures"}
	for _, sc := range scs {
		tr := readFixture(t, version, sc.Name)
		if edit != nil {
			tr = edit(sc.Name, tr)
		}
		rep.Results = append(rep.Results, drift.Evaluate(eng, sc, tr, nil))
	}
	return rep, rep.Classify()
}

func TestScenariosCoverTheCapturesOfEveryVersion(t *testing.T) {
	for _, v := range []string{mockllm.ClaudePinnedVersion, "2.0.77"} {
		t.Run(v, func(t *testing.T) {
			rep, caps := fixtureReport(t, v, nil)
			var out bytes.Buffer
			rep.WriteTables(&out)
			rep.WriteSummary(&out, caps)
			assert.Assert(t, !rep.Drifted(), out.String())
			assert.Check(t, is.Len(rep.Results, 4))
			assert.Check(t, is.DeepEqual(caps, drift.Capabilities{ExitCodes: true, AgentVersion: true}))
			assert.Check(t, is.Equal(rep.FirstLine(), "no drift"))
			assert.Check(t, is.Contains(out.String(), "no drift: claude-code "+v+" matches every expectation in 4 scenarios"))
			assert.Check(t, !strings.Contains(out.String(), "DIFF"))
		})
	}
}

// Claude Code 1.0.x states no exit codes and no version: drift names exactly
// that, as capabilities, plus the "Error" placeholder it gives as output.
func TestOlderMajorReportsExactlyWhatDiffers(t *testing.T) {
	rep, caps := fixtureReport(t, "1.0.128", nil)
	assert.Assert(t, rep.Drifted())
	assert.Check(t, is.DeepEqual(caps, drift.Capabilities{ExitCodes: false, AgentVersion: false}))
	assert.Check(t, is.Equal(rep.FirstLine(),
		`first changed field: agent_version in scenario success: want "1.0.128", got null [agent_version missing]`))
	assert.Check(t, is.DeepEqual(rep.Differences(), []string{
		`agent_version missing: want "1.0.128", got null (4 fields) — in success, failures, bigoutput, killed`,
		`exit codes not stated: failed commands have status failed and exit_code null (5 fields) — in failures`,
		`commands[0].output (false): want "", got "Error" — in failures`,
		`commands[1].output (exit 3): want "", got "Error" — in failures`,
		`commands[4].output (false): want "", got "Error" — in failures`,
	}))
	assert.Check(t, is.DeepEqual(rep.DriftedScenarios(), []string{"bigoutput", "failures", "killed", "success"}))
	var out bytes.Buffer
	rep.WriteTables(&out)
	rep.WriteSummary(&out, caps)
	for _, want := range []string{
		"== claude-code 1.0.128, scenario failures (fixtures): 41 fields, 9 differ",
		"DIFF (exit codes not stated)",
		"DRIFT: claude-code 1.0.128 differs from what the parser expects",
		"capabilities: exit codes stated: no; agent version stated: no",
	} {
		assert.Check(t, is.Contains(out.String(), want))
	}
}

// Drift a real pinned capture the way a new CLI version might, and check the
// report names the right field first.
func TestChangedTranscriptsNameTheFirstChangedField(t *testing.T) {
	replaceIn := func(scenario, old, new string) func(string, []byte) []byte {
		return func(name string, tr []byte) []byte {
			if name != scenario {
				return tr
			}
			out := bytes.ReplaceAll(tr, []byte(old), []byte(new))
			assert.Assert(t, !bytes.Equal(out, tr), "%q not in the %s capture", old, scenario)
			return out
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(string, []byte) []byte
		first string
		caps  drift.Capabilities
	}{
		{
			name: "a new event type",
			edit: func(_ string, tr []byte) []byte {
				return append(tr, []byte(`{"type":"brand_new_event","x":1}`+"\n")...)
			},
			first: "first changed field: parse_stats.unknown_events in scenario success: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			name:  "a malformed record",
			edit:  func(_ string, tr []byte) []byte { return append([]byte("{\"type\":\"system\",\n"), tr...) },
			first: "first changed field: parse_stats.malformed in scenario success: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			// One failure's exit code reworded: the others still state
			// theirs, so this is a parser miss, not a missing capability.
			name:  "exit code text reworded once",
			edit:  replaceIn("failures", "Exit code 3", "Process exited with status 3"),
			first: `first changed field: commands[1].exit_code in scenario failures (exit 3): want 3, got null`,
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			// A format this parser does not know at all: what `parse`
			// refuses with exit status 4 is drift, named first.
			name: "every record renamed",
			edit: func(_ string, tr []byte) []byte {
				return bytes.ReplaceAll(tr, []byte(`{"type":"`), []byte(`{"event":"`))
			},
			first: "first changed field: transcript in scenario success (claude-code): want understood by the claude-code parser, got 1 of 15 records understood",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: false},
		},
		{
			name:  "the result line renamed",
			edit:  replaceIn("bigoutput", `"type":"result","duration`, `"type":"final_result","duration`),
			first: "first changed field: parse_stats.unknown_events in scenario bigoutput: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, caps := fixtureReport(t, mockllm.ClaudePinnedVersion, tc.edit)
			assert.Check(t, rep.Drifted())
			assert.Check(t, is.Equal(rep.FirstLine(), tc.first))
			assert.Check(t, is.DeepEqual(caps, tc.caps))
		})
	}
}

func TestUnrunnableScenarioIsDriftNotACrash(t *testing.T) {
	eng, err := engines.Lookup("claude-code")
	assert.NilError(t, err)
	scs, err := drift.Scenarios("claude-code", "/workspace", "9.9.9")
	assert.NilError(t, err)
	res := drift.Evaluate(eng, scs[0], nil, nil)
	assert.NilError(t, res.Err)
	assert.Check(t, res.Drifted(), "an empty transcript matches nothing")
	rep := &drift.Report{Engine: "claude-code", Version: "9.9.9", Results: []drift.Result{res}}
	rep.Classify()
	assert.Check(t, is.Equal(rep.FirstLine(), `first changed field: agent_version in scenario success: want "9.9.9", got null [agent_version missing]`))
	assert.Check(t, is.Contains(strings.Join(rep.Differences(), "\n"), `commands[0].command (ls): want "ls", got missing`))
}

func TestDiffShowsWhatChangedBetweenVersions(t *testing.T) {
	pinned, _ := fixtureReport(t, mockllm.ClaudePinnedVersion, nil)
	old, _ := fixtureReport(t, "1.0.128", nil)
	rows := drift.Diff(pinned.Results[1].Log, old.Results[1].Log) // failures
	got := map[string][2]string{}
	for _, r := range rows {
		got[r.Field] = [2]string{r.A, r.B}
	}
	assert.Check(t, is.DeepEqual(got["agent_version"], [2]string{`"2.1.332"`, "null"}))
	assert.Check(t, is.DeepEqual(got["commands[toolu_mock_t02_c01].exit_code"], [2]string{"3", "null"}))
	assert.Check(t, is.DeepEqual(got["commands[toolu_mock_t01_c01].output"], [2]string{`""`, `"Error"`}))
	assert.Check(t, is.DeepEqual(got["turns"], [2]string{"7", "15"}))
	_, same := got["commands[toolu_mock_t05_c02].status"]
	assert.Check(t, !same, "an unchanged field is not listed")
	assert.Check(t, is.Len(drift.Diff(pinned.Results[1].Log, pinned.Results[1].Log), 0))

	var out bytes.Buffer
	drift.WriteDiff(&out, pinned, old)
	assert.Check(t, is.Contains(out.String(), "== command logs side by side: claude-code 2.1.332 | 1.0.128"))
	assert.Check(t, is.Contains(out.String(), "-- scenario failures: "))
}
