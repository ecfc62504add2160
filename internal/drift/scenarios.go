package drift

import (
	"errors"
	"fmt"
	"path"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/mockllm"
)

// ErrNotDrivable is returned for an engine whose CLI the mock cannot drive
// (yet); errors.Is tells it apart.
var ErrNotDrivable = errors.New("engine cannot be driven by the mock LLM")

// CLI describes how an engine's agent CLI is installed and pinned.
type CLI struct {
	Engine  string // engines name, e.g. "claude-code"
	Package string // the npm package
	Bin     string // the executable the package installs
	Pinned  string // the version the project pins (tests, images, parser)
	// ImageLabel is the base image label holding the installed version.
	ImageLabel string
}

// CLIs are the engines drift can check.
var CLIs = map[string]CLI{
	"claude-code": {
		Engine: "claude-code", Package: "@anthropic-ai/claude-code", Bin: "claude",
		Pinned: mockllm.ClaudePinnedVersion, ImageLabel: "io.readme2demo.claude-code-version",
	},
}

// LookupCLI returns the CLI of an engine, or an error wrapping ErrNotDrivable.
func LookupCLI(engine string) (CLI, error) {
	c, ok := CLIs[engine]
	if !ok {
		return CLI{}, fmt.Errorf("look up engine %q: %w (drift supports: claude-code)", engine, ErrNotDrivable)
	}
	return c, nil
}

// Scenarios returns the engine's fixed scenarios for a project at dir (as
// the CLI sees it) and a CLI that must report version.
func Scenarios(engine, dir, version string) ([]Scenario, error) {
	if engine != "claude-code" {
		return nil, fmt.Errorf("build scenarios for %q: %w", engine, ErrNotDrivable)
	}
	var out []Scenario
	for _, name := range mockllm.ClaudeScenarioNames {
		mock, err := mockllm.ClaudeScenario(name, dir)
		if err != nil {
			return nil, fmt.Errorf("build scenarios: %w", err)
		}
		exp, err := claudeExpect(name, dir)
		if err != nil {
			return nil, err
		}
		exp.AgentVersion = version
		out = append(out, Scenario{Name: name, Mock: mock, Kill: name == mockllm.ScenarioKilled, Expect: exp})
	}
	return out, nil
}

func exit(n int) *int { return &n }

// claudeExpect is the ground truth of mockllm's Claude scenarios: what the
// shell makes of each scripted command, and what the scripted final text
// says. It follows from the scenario alone, never from a CLI's transcript.
func claudeExpect(name, dir string) (Expect, error) {
	notes := path.Join(dir, "NOTES.md")
	switch name {
	case mockllm.ScenarioSuccess:
		return Expect{
			Commands: []ExpectCommand{
				{Command: "ls", Exit: exit(0), Output: "README.md", Match: MatchContains},
				{Command: "echo hi", Exit: exit(0), Output: "hi"},
				{Command: "cat README.md", Exit: exit(0), Output: "# Demo", Match: MatchPrefix},
			},
			FileEdits: []commandlog.FileEdit{
				{Path: notes, Tool: "Write", OK: true},
				{Path: notes, Tool: "Edit", OK: true},
			},
			Markers: []commandlog.Marker{
				{Kind: commandlog.MarkerFix, Text: "README step 2 needs mkdir build first"},
				{Kind: commandlog.MarkerAdjustedSuccess},
			},
			Outcome: commandlog.OutcomeSuccess, Adjusted: true, Final: true,
		}, nil
	case mockllm.ScenarioFailures:
		return Expect{
			Commands: []ExpectCommand{
				{Command: "false", Exit: exit(1)},
				{Command: "exit 3", Exit: exit(3)},
				{Command: "r2d-no-such-command --version", Exit: exit(127), Output: "command not found", Match: MatchContains},
				{Command: "echo 'error: cannot connect to database' >&2; exit 2", Exit: exit(2), Output: "error: cannot connect to database", Match: MatchContains},
				{Command: "false", Exit: exit(1)},
				{Command: "echo after-parallel", Exit: exit(0), Output: "after-parallel"},
			},
			Markers: []commandlog.Marker{{Kind: commandlog.MarkerBlocked, Text: "needs a database"}},
			Outcome: commandlog.OutcomeBlocked, Final: true,
		}, nil
	case mockllm.ScenarioBigOut:
		return Expect{
			Commands: []ExpectCommand{
				{Command: "seq 1 200000", Exit: exit(0), Output: "1\n2\n3\n", Match: MatchPrefix, Truncated: true},
				{Command: "echo SUCCESS", Exit: exit(0), Output: "SUCCESS"},
			},
			// SUCCESS only in a command's output is no marker.
			Outcome: commandlog.OutcomeFailed, Final: true,
		}, nil
	case mockllm.ScenarioKilled:
		return Expect{
			Commands: []ExpectCommand{
				{Command: "echo waiting for the server; sleep 60; echo done", Exit: nil, Output: ""},
			},
			Outcome: commandlog.OutcomeFailed, Final: false,
		}, nil
	}
	return Expect{}, fmt.Errorf("build expectations: unknown scenario %q", name)
}
