package drift

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// ErrNotDrivable is returned for an engine without an agent CLI the mock can
// drive (markdown, replay, unknown names); errors.Is tells it apart.
var ErrNotDrivable = errors.New("engine cannot be driven by the mock LLM")

// LookupCLI returns the agent CLI of an engine drift can check, or an error
// wrapping ErrNotDrivable.
func LookupCLI(engine string) (agentcli.CLI, error) {
	c, err := agentcli.Lookup(engine)
	if err != nil {
		return agentcli.CLI{}, fmt.Errorf("look up engine %q: %w (drift supports: %s)", engine, ErrNotDrivable,
			strings.Join(agentcli.Engines(), ", "))
	}
	return c, nil
}

// Presence says when a CLI states cost, turns or duration
// (engines.Presence).
type Presence = engines.Presence

// Presences.
const (
	Never  = engines.PresenceNever  // the transcript never has it: always null
	Final  = engines.PresenceFinal  // in the CLI's final record: null when the run was killed
	Always = engines.PresenceAlways // counted from the events: present even when killed
)

// Profile is what an engine's CLI states in its transcript, as its engine
// file documents it for the pinned version (engines.Spec.Drift). Ground
// truth is checked as far as the CLI states it: where it states nothing,
// the parser must say null or unknown, never a guess. A CLI that starts
// stating more shows up as a difference too, so the profile is updated with
// the parser.
type Profile = engines.DriftProfile

// ProfileOf returns the profile an engine declares in its spec; false when
// it declares none.
func ProfileOf(engine string) (Profile, bool) {
	spec, err := engines.SpecOf(engine)
	if err != nil || spec.Drift == nil {
		return Profile{}, false
	}
	return *spec.Drift, true
}

// Scenarios returns the engine's fixed scenarios for a project at dir (as
// the CLI sees it) and a CLI that must report version.
func Scenarios(engine, dir, version string) ([]Scenario, error) {
	cli, err := LookupCLI(engine)
	if err != nil {
		return nil, fmt.Errorf("build scenarios: %w", err)
	}
	prof, ok := ProfileOf(cli.Engine)
	if !ok {
		return nil, fmt.Errorf("build scenarios for %q: no profile: %w", engine, ErrNotDrivable)
	}
	var out []Scenario
	for _, name := range scriptedllm.CaptureScenarioNames {
		mock, err := scriptedllm.CaptureScenario(engine, name, dir)
		if err != nil {
			return nil, fmt.Errorf("build scenarios: %w", err)
		}
		exp, err := expect(engine, prof, mock, version)
		if err != nil {
			return nil, err
		}
		out = append(out, Scenario{Name: name, Mock: mock, Kill: name == scriptedllm.ScenarioKilled, Expect: exp})
	}
	return out, nil
}

func exit(n int) *int { return &n }

// truth is what the shell makes of a scripted command.
type truth struct {
	exit      *int // nil: still running when the CLI is killed
	output    string
	match     Match
	truncated bool
}

// truthOf is the ground truth of every command the capture scenarios run:
// it follows from the command alone, never from a CLI's transcript.
func truthOf(cmd string) (truth, bool) {
	if n, ok := strings.CutPrefix(cmd, "seq 1 "); ok {
		if lines, err := strconv.Atoi(n); err == nil && lines >= 10000 {
			// More than head 3 KiB + tail 1 KiB: truncated.
			return truth{exit: exit(0), output: "1\n2\n3\n", match: MatchPrefix, truncated: true}, true
		}
	}
	t, ok := map[string]truth{
		"ls":                            {exit: exit(0), output: "README.md", match: MatchContains},
		"echo hi":                       {exit: exit(0), output: "hi"},
		"cat README.md":                 {exit: exit(0), output: "# Demo", match: MatchPrefix},
		"false":                         {exit: exit(1)},
		"exit 3":                        {exit: exit(3)},
		"r2d-no-such-command --version": {exit: exit(127), output: "command not found", match: MatchContains},
		"echo 'error: cannot connect to database' >&2; exit 2": {exit: exit(2), output: "error: cannot connect to database", match: MatchContains},
		"echo after-parallel": {exit: exit(0), output: "after-parallel"},
		"echo SUCCESS":        {exit: exit(0), output: "SUCCESS"},
		"echo waiting for the server; sleep 60; echo done": {}, // killed mid-command
	}[cmd]
	return t, ok
}

// outcomes are the markers, outcome and adjusted flag each scenario's final
// text makes true (the killed scenario has no final text).
var outcomes = map[string]struct {
	markers  []commandlog.Marker
	outcome  commandlog.Outcome
	adjusted bool
}{
	scriptedllm.ScenarioSuccess: {markers: []commandlog.Marker{
		{Kind: commandlog.MarkerFix, Text: "README step 2 needs mkdir build first"},
		{Kind: commandlog.MarkerAdjustedSuccess},
	}, outcome: commandlog.OutcomeSuccess, adjusted: true},
	scriptedllm.ScenarioFailures: {markers: []commandlog.Marker{{Kind: commandlog.MarkerBlocked, Text: "needs a database"}},
		outcome: commandlog.OutcomeBlocked},
	// SUCCESS only in a command's output is no marker.
	scriptedllm.ScenarioBigOut: {outcome: commandlog.OutcomeFailed},
	scriptedllm.ScenarioKilled: {outcome: commandlog.OutcomeFailed},
}

// expect derives a scenario's ground truth from its scripted tool calls (the
// commands and edits, in order) and its name (the final text's markers), as
// far as the engine's CLI states it (prof).
func expect(engine string, prof Profile, sc scriptedllm.Scenario, version string) (Expect, error) {
	oc, ok := outcomes[sc.Name]
	if !ok {
		return Expect{}, fmt.Errorf("build expectations: unknown scenario %q", sc.Name)
	}
	killed := sc.Name == scriptedllm.ScenarioKilled
	e := Expect{Markers: oc.markers, Outcome: oc.outcome, Adjusted: oc.adjusted}
	if prof.AgentVersion {
		e.AgentVersion = version
	} else {
		e.AgentVersionWhy = engine + " does not name its version in the transcript"
	}
	present := func(p Presence, what string) (bool, string) {
		switch {
		case p == Never:
			return false, engine + " states no " + what
		case p == Final && killed:
			return false, "no final record: the run was killed"
		}
		return true, ""
	}
	e.Cost, e.CostWhy = present(prof.Cost, "cost")
	e.Turns, e.TurnsWhy = present(prof.Turns, "turns")
	e.Duration, e.DurationWhy = present(prof.Duration, "duration")
	for _, turn := range sc.Turns {
		for _, tc := range turn.Tools {
			cmd, path, kind := toolCall(tc)
			switch kind {
			case "command":
				t, ok := truthOf(cmd)
				if !ok {
					return Expect{}, fmt.Errorf("build expectations: scenario %s runs %q, which has no ground truth", sc.Name, cmd)
				}
				e.Commands = append(e.Commands, ExpectCommand{Command: cmd, Exit: t.exit, Output: t.output, Match: t.match, Truncated: t.truncated})
			case "write":
				e.FileEdits = append(e.FileEdits, commandlog.FileEdit{Path: path, Tool: prof.WriteTool, OK: true})
			case "edit":
				e.FileEdits = append(e.FileEdits, commandlog.FileEdit{Path: path, Tool: prof.EditTool, OK: true})
			}
		}
	}
	return e, nil
}

// toolCall classifies a scripted tool call: a shell command, a file written
// whole, a replacement in a file, or something else (finish).
func toolCall(tc scriptedllm.ToolCall) (cmd, path, kind string) {
	str := func(k string) string { s, _ := tc.Input[k].(string); return s }
	switch tc.Name {
	case "Bash", "terminal":
		return str("command"), "", "command"
	case "Write":
		return "", str("file_path"), "write"
	case "Edit":
		return "", str("file_path"), "edit"
	case "file_editor":
		if str("command") == "create" {
			return "", str("path"), "write"
		}
		return "", str("path"), "edit"
	}
	return "", "", ""
}
