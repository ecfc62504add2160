package drift_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
			for _, n := range []string{scriptedllm.ScenarioSuccess, scriptedllm.ScenarioFailures, scenarioEdit, scenarioAbandoned, scriptedllm.ScenarioKilled} {
				runs = append(runs, run{n, n, scriptedllm.CodexModel})
			}
			if pinned {
				runs = append(runs, run{scriptedllm.ScenarioBigOut, scriptedllm.ScenarioBigOut, scriptedllm.CodexModel}, run{"codemode-success", scriptedllm.ScenarioSuccess, ""})
			}
			for _, r := range runs {
				t.Run(r.name, func(t *testing.T) {
					c := captureRun(t, drift.CaptureRun{CLI: cli, Binary: bin, Model: r.model}, r.scenario, 3*time.Minute)
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
func checkCodexRollout(t *testing.T, c *drift.Captured, stream *commandlog.Log) bool {
	t.Helper()
	if !assert.Check(t, len(c.Session) > 0, "codex wrote no session rollout under its HOME") {
		return false
	}
	assert.Check(t, !bytes.Contains(c.Session, []byte(scriptedllm.DummyAPIKey)), "rollout leaks the API key")
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
	if c.Scenario.Name != scriptedllm.ScenarioKilled && c.Scenario.Name != scenarioAbandoned {
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
func checkCodexLog(t *testing.T, c *drift.Captured, l *commandlog.Log) bool {
	t.Helper()
	assert.Check(t, is.Equal(l.Engine, "codex"))
	assert.Check(t, l.CostUSD == nil, "codex reports tokens, not dollars")
	assert.Check(t, !bytes.Contains(c.Transcript, []byte(scriptedllm.DummyAPIKey)), "transcript leaks the API key")
	// parallel calls of one turn may finish in either order: compare sorted by command
	got := make([]cmdWant, len(l.Commands))
	for i, cmd := range l.Commands {
		got[i] = cmdWant{command: cmd.Command, exit: cmd.ExitCode, status: cmd.Status, output: cmd.Output}
	}
	var want []cmdWant
	var edits []commandlog.FileEdit
	project := drift.CaptureRoot + "/project/"
	switch c.Scenario.Name {
	case scriptedllm.ScenarioSuccess:
		want = []cmdWant{{"cat README.md", ip(0), "ok", "# Demo"}, {"echo hi", ip(0), "ok", "hi\n"}, {"ls", ip(0), "ok", "README.md"}}
		edits = []commandlog.FileEdit{{Path: project + "NOTES.md", Tool: "apply_patch:add", OK: true}, {Path: project + "NOTES.md", Tool: "apply_patch:update", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
		assert.Check(t, is.DeepEqual(l.Markers, []commandlog.Marker{{Kind: "FIX", Text: "README step 2 needs mkdir build first"}, {Kind: "ADJUSTED_SUCCESS"}}))
	case scriptedllm.ScenarioFailures:
		want = []cmdWant{
			{"echo 'error: cannot connect to database' >&2; exit 2", ip(2), "failed", "cannot connect to database"},
			{"echo after-parallel", ip(0), "ok", "after-parallel"},
			{"exit 3", ip(3), "failed", ""},
			{"false", ip(1), "failed", ""}, {"false", ip(1), "failed", ""},
			{"r2d-no-such-command --version", ip(127), "failed", "command not found"},
		}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
		assert.Check(t, is.Equal(l.OutcomeReason, "needs a database"))
	case scenarioEdit:
		want = []cmdWant{{"cat config.env", ip(0), "ok", "PORT=8080\nDEBUG=1\n"}}
		// the patch of a missing file fails verification and leaves no item in the transcript
		edits = []commandlog.FileEdit{{Path: project + "config.env", Tool: "apply_patch:add", OK: true}, {Path: project + "config.env", Tool: "apply_patch:update", OK: true}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
		assert.Check(t, l.Adjusted)
	case scenarioAbandoned:
		// still running when the turn ended: no exit code, never a fabricated 0
		want = []cmdWant{{"echo server starting; sleep 20; echo server stopped", nil, "unknown", ""}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess))
	case scriptedllm.ScenarioBigOut:
		// codex carries the whole output; the parser keeps head and tail
		want = []cmdWant{{"echo SUCCESS", ip(0), "ok", "SUCCESS"}, {"seq 1 20000", ip(0), "ok", "1\n2\n3\n"}}
		assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed), "SUCCESS printed by a command is not the agent's marker")
		assert.Check(t, is.Len(l.Markers, 0))
		for _, cmd := range l.Commands {
			assert.Check(t, is.Equal(cmd.Truncated, cmd.Command == "seq 1 20000"), cmd.Command)
		}
	case scriptedllm.ScenarioKilled:
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

func writeCodexFixture(t *testing.T, version, name string, c *drift.Captured) {
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
		assert.Assert(t, !bytes.Contains(b, []byte(scriptedllm.DummyAPIKey)), "capture leaks the API key")
	}
	assert.NilError(t, os.WriteFile(base+".jsonl", c.Transcript, 0o644))
	assert.NilError(t, os.WriteFile(base+".rollout.jsonl", c.Session, 0o644))
	t.Logf("wrote %s.jsonl (%d bytes) and .rollout.jsonl (%d bytes)", base, len(c.Transcript), len(c.Session))
}
