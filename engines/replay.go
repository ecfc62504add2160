package engines

// Replay engine: no LLM, no key. It re-runs the commands of an earlier
// command_log.json — typically one an AI engine produced and a human
// accepted — deterministically, so every push can re-check a README cheaply
// while the AI engine runs on a schedule.
//
// What is replayed: the successful path (commandlog.Command.OnSuccessfulPath).
// The commands whose status was "ok", and those an agent left running in
// the background (a server, whose end the transcript never shows), in the
// order they ran, in ONE bash session started in the workspace (so a `cd`
// carries over, as in Claude Code's Bash tool and the markdown engine).
// Failed commands were the agent's dead ends and are left out, as are the
// other unfinished ("unknown") ones; file edits the agent made with
// its edit tool are not replayed (the transcript says how many were left
// out) — accept the edits into the repository, or re-record. A command
// keeps the README source line it had in the original log, and runs as it
// ran where the log says (a keyless run's ran, cwd, setup and background:
// the checkout linked where the README clones it, a server started in the
// background and waited for).
//
// Input and transcript: the pipeline calls PrepareInput (see InputPreparer)
// with RunInput.CommandLog set to the earlier log; the result is the same
// runner script as the markdown engine's, and the transcript is the same
// runner JSONL (format and drift tolerance: internal/runner). Every replayed
// command has the default timeout (DefaultCommandTimeout; a background
// command's readiness check the time the original run gave it) and a
// failure stops the run.

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/runner"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

var _ AgentEngine = (*replayEngine)(nil)
var _ InputPreparer = (*replayEngine)(nil)

// ReplayName is the --engine value of the replay engine.
const ReplayName = "replay"

type replayEngine struct{ keyless }

// PrepareInput turns the earlier command log into the runner script.
func (e *replayEngine) PrepareInput(in RunInput) ([]byte, error) {
	if len(bytes.TrimSpace(in.CommandLog)) == 0 {
		return nil, &EngineError{Engine: e.Name(), Reason: "needs an earlier command_log.json to replay (the run's replay log input)"}
	}
	old, err := commandlog.Decode(bytes.NewReader(in.CommandLog))
	if err != nil {
		return nil, fmt.Errorf("prepare replay: %w", &EngineError{Engine: e.Name(), Reason: "the command log to replay is not a valid command_log.json: " + err.Error()})
	}
	if err := refuseRedacted(old); err != nil {
		return nil, err
	}
	plan := replayPlan(old)
	if len(plan.Steps) == 0 {
		return nil, &EngineError{Engine: e.Name(), Reason: fmt.Sprintf("the command log to replay (engine %s) has no successful command", old.Engine)}
	}
	return runner.Render(plan, canonicalRunnerPaths()), nil
}

// refuseRedacted refuses a log whose successful path holds a command that
// redaction altered: replaying it would run a different command (a
// "[REDACTED:…]" where a value stood) and report the result as the
// README's.
func refuseRedacted(old *commandlog.Log) error {
	var bad []string
	for i, c := range old.Commands {
		if !c.OnSuccessfulPath() || !slices.ContainsFunc(replayedText(c), redact.ContainsMarker) {
			continue
		}
		where := fmt.Sprintf("command %d", i+1)
		if c.Source != nil {
			where += fmt.Sprintf(" (%s line %d)", c.Source.File, c.Source.Line)
		}
		cmd := termtext.Visible(c.Command)
		if len(cmd) > 200 {
			cmd = cmd[:200] + "…"
		}
		bad = append(bad, where+": "+cmd)
	}
	if len(bad) == 0 {
		return nil
	}
	return &EngineError{Engine: ReplayName, Reason: fmt.Sprintf(
		"refusing to replay: redaction altered %d command(s) of the log, which would run something else than what was recorded: %s; "+
			"re-record the log with the secret passed at run time (an environment variable the README reads) rather than written in the command",
		len(bad), strings.Join(bad, "; "))}
}

// replayedText is every text of c that a replay runs: the command (or
// what ran for it), its setup hint's command and its readiness check.
func replayedText(c commandlog.Command) []string {
	t := []string{c.Command, c.Ran, c.Setup}
	if c.Background != nil {
		t = append(t, c.Background.Ready)
	}
	return t
}

// replayPlan picks the successful path of a log.
func replayPlan(old *commandlog.Log) runner.Plan {
	plan := runner.Plan{Engine: ReplayName, Origin: fmt.Sprintf("command_log.json of a %s run (outcome %s)", old.Engine, old.Outcome)}
	dropped := 0
	for _, c := range old.Commands {
		if !c.OnSuccessfulPath() {
			dropped++
			continue
		}
		s := runner.Step{Command: c.Command, Exec: c.Ran, Timeout: DefaultCommandTimeout,
			Cwd: c.Cwd, LeaveCwd: c.LeaveCwd, Setup: c.Setup}
		if g := c.Background; g != nil {
			s.Background, s.Ready, s.Timeout = true, g.Ready, DefaultReadyTimeout
			if g.TimeoutS > 0 {
				s.Timeout = time.Duration(g.TimeoutS) * time.Second
			}
		}
		if c.Source != nil {
			s.File, s.Line = c.Source.File, c.Source.Line
		}
		plan.Steps = append(plan.Steps, s)
	}
	if dropped > 0 {
		plan.Notes = append(plan.Notes, runner.Note{Text: fmt.Sprintf("replay: %d failed or unfinished command(s) of the original run left out", dropped)})
	}
	edited := map[string]bool{}
	for _, ed := range old.FileEdits {
		if ed.OK {
			edited[ed.Path] = true
		}
	}
	if len(edited) > 0 {
		plan.Notes = append(plan.Notes, runner.Note{Text: "replay: file edits of the original run are not replayed: " + strings.Join(slices.Sorted(maps.Keys(edited)), ", ")})
	}
	return plan
}

func init() { Register(&replayEngine{keyless{ReplayName}}, keylessSpec) }
