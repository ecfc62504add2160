package scriptedllm

import (
	"cmp"
	"fmt"
	"path/filepath"

	"github.com/readme2demo/readme2demo/engines"
)

// Names of the capture scenarios: what `readme2demo drift` runs for every engine, and what the
// committed real-<version>-<scenario> fixtures hold (internal/drift/CAPTURES.md).
const (
	ScenarioSuccess  = "success"   // commands that succeed, a Write and an Edit, FIX + ADJUSTED_SUCCESS
	ScenarioFailures = "failures"  // exit codes 1, 3, 127, 2 (with stderr), BLOCKED
	ScenarioBigOut   = "bigoutput" // a huge output and a command printing SUCCESS; no marker
	ScenarioKilled   = "killed"    // `sleep 60`, the CLI is SIGKILLed mid-command: no result line
)

// KilledCommandRunning is what the command line of the killed scenario's command holds while
// it runs: a capture kills the CLI once a process running it has started.
const KilledCommandRunning = "sleep 60"

// CaptureScenarioNames lists the capture scenarios in a stable order.
var CaptureScenarioNames = []string{ScenarioSuccess, ScenarioFailures, ScenarioBigOut, ScenarioKilled}

// CaptureScenario returns a named capture scenario as the engine's CLI is driven, for a project
// at dir (an absolute path as the CLI sees it; file tools need absolute paths). The project is
// expected to hold a README.md. The scenarios are written with Claude Code's tools (Bash, Write,
// Edit); the OpenAI and Gemini mocks translate them to the tools the CLI offers, and for
// OpenHands they are written with its tools here (terminal, file_editor, and finish to end).
//
// The engine's spec (engines.Spec.Drift) says how big the big output is and which tools its
// agent calls; an engine without a drift profile gets the defaults.
func CaptureScenario(engine, name, dir string) (Scenario, error) {
	var prof engines.DriftProfile
	if spec, err := engines.SpecOf(engine); err == nil && spec.Drift != nil {
		prof = *spec.Drift
	}
	notes := filepath.Join(dir, "NOTES.md")
	var sc Scenario
	switch name {
	case ScenarioSuccess:
		sc = Scenario{Name: name, Turns: []Turn{
			Run("I'll look at the project first.", Bash("ls"), Bash("echo hi")),
			Run("", Bash("cat README.md")),
			Run("Recording what I found.", Write(notes, "# Notes\n\nstep 2: run make\n")),
			Run("", Edit(notes, "step 2: run make", "step 2: mkdir build && make")),
		}, FinalText: "The demo works after one change.\n" +
			"FIX: README step 2 needs mkdir build first\n" +
			"ADJUSTED_SUCCESS"}
	case ScenarioFailures:
		sc = Scenario{Name: name, Turns: []Turn{
			Run("Trying the build.", Bash("false")),
			Run("", Bash("exit 3")),
			Run("", Bash("r2d-no-such-command --version")),
			Run("", Bash("echo 'error: cannot connect to database' >&2; exit 2")),
			Run("Two at once.", Bash("false"), Bash("echo after-parallel")),
		}, FinalText: "The demo cannot run here.\nBLOCKED: needs a database"}
	case ScenarioBigOut:
		// Gemini CLI's stream-json and codex's item.completed carry a command's whole
		// output (200000 lines gave 1.2 to 1.5 MB transcripts), and so may OpenHands'
		// observations; 20000 lines is big enough to be truncated. Claude Code asks
		// for more (engines.DriftProfile.BigOutputLines).
		lines := cmp.Or(prof.BigOutputLines, 20000)
		sc = Scenario{Name: name, Turns: []Turn{
			Run("Printing a lot.", Bash(fmt.Sprintf("seq 1 %d", lines))),
			Run("", Bash("echo SUCCESS")),
		}, FinalText: "I printed the numbers and the word from the README, nothing more to report."}
	case ScenarioKilled:
		sc = Scenario{Name: name, Turns: []Turn{
			Run("Waiting for the server.", Bash("echo waiting for the server; "+KilledCommandRunning+"; echo done")),
		}}
	default:
		return Scenario{}, fmt.Errorf("look up capture scenario %q: unknown (known: %v)", name, CaptureScenarioNames)
	}
	if prof.Tools == engines.ToolsOpenHands {
		sc = openHandsScenario(sc)
	}
	return sc, nil
}

// openHandsScenario rewrites a scenario with the OpenHands agent's tools (software-agent-sdk):
// terminal {command}, file_editor {command: create | str_replace, path, …}, and a last turn
// calling finish {message} with the final text (OpenHands ends a run through that tool). A
// scenario without a final text (killed) gets no finish.
func openHandsScenario(sc Scenario) Scenario {
	out := Scenario{Name: sc.Name, FinalText: sc.FinalText}
	for _, t := range sc.Turns {
		nt := Turn{Text: t.Text, StopReason: t.StopReason}
		for _, tc := range t.Tools {
			nt.Tools = append(nt.Tools, openHandsTool(tc))
		}
		out.Turns = append(out.Turns, nt)
	}
	if sc.FinalText != "" {
		out.Turns = append(out.Turns, Run("", ToolCall{Name: "finish", Input: map[string]any{"message": sc.FinalText}}))
	}
	return out
}

func openHandsTool(tc ToolCall) ToolCall {
	in := tc.Input
	switch tc.Name {
	case "Bash":
		return ToolCall{Name: "terminal", Input: map[string]any{"command": in["command"], "is_input": false, "security_risk": "LOW"}}
	case "Write":
		return ToolCall{Name: "file_editor", Input: map[string]any{"command": "create", "path": in["file_path"],
			"file_text": in["content"], "security_risk": "LOW"}}
	case "Edit":
		return ToolCall{Name: "file_editor", Input: map[string]any{"command": "str_replace", "path": in["file_path"],
			"old_str": in["old_string"], "new_str": in["new_string"], "security_risk": "LOW"}}
	}
	return tc
}
