package drift_test

// Test helpers shared by the real-CLI tests (claude_, codex_ and gemini_capture_test.go): where
// the pinned CLIs are, the test-only capture scenarios, and the -capture flag that rewrites the
// committed fixtures.

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/agentcli/clitest"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

var captureFlag = flag.Bool("capture", false,
	"rewrite testdata/fixtures/<engine>/real-* by running the real CLIs (also R2D_CAPTURE=1)")

func capturing() bool { return *captureFlag || os.Getenv("R2D_CAPTURE") == "1" }

const repoRoot = "../.."

// cliOrSkip finds an installed CLI version (clitest.Require): a long test,
// failing in CI when the version is missing; a capture runs it whatever
// R2D_LONG_TESTS says.
func cliOrSkip(t *testing.T, engine, version string) (agentcli.CLI, string) {
	t.Helper()
	find := clitest.Require
	if capturing() {
		find = clitest.Find
	}
	cli, _, bin := find(t, engine, version, repoRoot)
	return cli, bin
}

// captureRun runs a scenario (testScenario) with a real CLI; run.Scenario and run.Kill are set
// from the name.
func captureRun(t *testing.T, run drift.CaptureRun, scenario string, timeout time.Duration) *drift.Captured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	run.Scenario = func(dir string) (scriptedllm.Scenario, error) { return testScenario(run.CLI.Engine, scenario, dir) }
	run.Kill = scenario == scriptedllm.ScenarioKilled
	c, err := drift.Capture(ctx, run)
	assert.NilError(t, err)
	return c
}

// Names of the test-only capture scenarios (testScenario), beside the drift ones.
const (
	// scenarioEdit: file edits, one of which cannot apply; ADJUSTED_SUCCESS.
	scenarioEdit = "edit"
	// scenarioAbandoned runs a command that outlives codex's exec_command 10 s yield, then ends
	// the turn while it still runs.
	scenarioAbandoned = "abandoned"
	// scenarioSignals: commands killed by a signal, and one that fails after printing.
	scenarioSignals = "signals"
	// scenarioMaxTurns: more turns than captureMaxTurns allows; the agent said SUCCESS early.
	scenarioMaxTurns = "maxturns"
)

// captureMaxTurns is the turn limit of the maxturns capture.
const captureMaxTurns = 2

// testScenario is CaptureScenario plus the test-only scenarios.
func testScenario(engine, name, dir string) (scriptedllm.Scenario, error) {
	switch name {
	case scenarioAbandoned:
		return scriptedllm.Scenario{Name: name, Turns: []scriptedllm.Turn{
			scriptedllm.Run("Starting the server.", scriptedllm.Bash("echo server starting; sleep 20; echo server stopped")),
		}, FinalText: "The server is starting in the background.\nSUCCESS"}, nil
	case scenarioEdit:
		// codex: a patch of a missing file; gemini: a replace whose text is not there.
		bad := scriptedllm.Edit(filepath.Join(dir, "missing.txt"), "nothing", "here")
		if engine == "gemini" {
			bad = scriptedllm.Edit(filepath.Join(dir, "config.env"), "NO_SUCH_LINE=1", "here")
		}
		return scriptedllm.Scenario{Name: name, Turns: []scriptedllm.Turn{
			scriptedllm.Run("Adding the missing config.", scriptedllm.Write(filepath.Join(dir, "config.env"), "PORT=8080\nDEBUG=0\n")),
			scriptedllm.Run("", scriptedllm.Edit(filepath.Join(dir, "config.env"), "DEBUG=0", "DEBUG=1")),
			scriptedllm.Run("", scriptedllm.Bash("cat config.env")),
			scriptedllm.Run("", bad),
		}, FinalText: "FIX: README must say to create config.env\nADJUSTED_SUCCESS"}, nil
	case scenarioSignals:
		return scriptedllm.Scenario{Name: name, Turns: []scriptedllm.Turn{
			scriptedllm.Run("Starting the worker.", scriptedllm.Bash("kill -TERM $$")),
			scriptedllm.Run("", scriptedllm.Bash("echo partial output; kill -KILL $$")),
			scriptedllm.Run("", scriptedllm.Bash("echo compiling; echo 'error: missing header' >&2; exit 1")),
		}, FinalText: "The worker dies.\nBLOCKED: the worker is killed at start"}, nil
	case scenarioMaxTurns:
		return scriptedllm.Scenario{Name: name, Turns: []scriptedllm.Turn{
			scriptedllm.Run("SUCCESS", scriptedllm.Bash("echo step one")),
			scriptedllm.Run("", scriptedllm.Bash("echo step two")),
			scriptedllm.Run("", scriptedllm.Bash("echo step three")),
			scriptedllm.Run("", scriptedllm.Bash("echo step four")),
		}, FinalText: "SUCCESS"}, nil
	}
	return scriptedllm.CaptureScenario(engine, name, dir)
}
