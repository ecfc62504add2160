package scriptedllm

// Test helpers shared by the real-CLI tests: where the pinned CLIs are, the test-only capture
// scenarios, and the -capture flag that rewrites the committed fixtures.

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/agentcli/clitest"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/agentcli"
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
func captureRun(t *testing.T, run CaptureRun, scenario string, timeout time.Duration) *Captured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	run.Scenario = func(dir string) (Scenario, error) { return testScenario(run.CLI.Engine, scenario, dir) }
	run.Kill = scenario == ScenarioKilled
	c, err := Capture(ctx, run)
	assert.NilError(t, err)
	return c
}

// Names of the test-only capture scenarios (testScenario), beside the drift ones.
const (
	// ScenarioEdit: file edits, one of which cannot apply; ADJUSTED_SUCCESS.
	ScenarioEdit = "edit"
	// ScenarioAbandoned runs a command that outlives codex's exec_command 10 s yield, then ends
	// the turn while it still runs.
	ScenarioAbandoned = "abandoned"
	// ScenarioSignals: commands killed by a signal, and one that fails after printing.
	ScenarioSignals = "signals"
	// ScenarioMaxTurns: more turns than CaptureMaxTurns allows; the agent said SUCCESS early.
	ScenarioMaxTurns = "maxturns"
)

// CaptureMaxTurns is the turn limit of the maxturns capture.
const CaptureMaxTurns = 2

// testScenario is CaptureScenario plus the test-only scenarios.
func testScenario(engine, name, dir string) (Scenario, error) {
	switch name {
	case ScenarioAbandoned:
		return Scenario{Name: name, Turns: []Turn{
			Run("Starting the server.", Bash("echo server starting; sleep 20; echo server stopped")),
		}, FinalText: "The server is starting in the background.\nSUCCESS"}, nil
	case ScenarioEdit:
		// codex: a patch of a missing file; gemini: a replace whose text is not there.
		bad := Edit(filepath.Join(dir, "missing.txt"), "nothing", "here")
		if engine == "gemini" {
			bad = Edit(filepath.Join(dir, "config.env"), "NO_SUCH_LINE=1", "here")
		}
		return Scenario{Name: name, Turns: []Turn{
			Run("Adding the missing config.", Write(filepath.Join(dir, "config.env"), "PORT=8080\nDEBUG=0\n")),
			Run("", Edit(filepath.Join(dir, "config.env"), "DEBUG=0", "DEBUG=1")),
			Run("", Bash("cat config.env")),
			Run("", bad),
		}, FinalText: "FIX: README must say to create config.env\nADJUSTED_SUCCESS"}, nil
	case ScenarioSignals:
		return Scenario{Name: name, Turns: []Turn{
			Run("Starting the worker.", Bash("kill -TERM $$")),
			Run("", Bash("echo partial output; kill -KILL $$")),
			Run("", Bash("echo compiling; echo 'error: missing header' >&2; exit 1")),
		}, FinalText: "The worker dies.\nBLOCKED: the worker is killed at start"}, nil
	case ScenarioMaxTurns:
		return Scenario{Name: name, Turns: []Turn{
			Run("SUCCESS", Bash("echo step one")),
			Run("", Bash("echo step two")),
			Run("", Bash("echo step three")),
			Run("", Bash("echo step four")),
		}, FinalText: "SUCCESS"}, nil
	}
	return CaptureScenario(engine, name, dir)
}
