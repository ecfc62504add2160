package engines

// Markdown engine: no LLM, no key. It runs the README's commands in
// order, in ONE bash session (so `cd` and `export` carry over), each command
// being one command with its own exit code and output.
//
// Which commands: exactly those internal/plan decides to run (the same
// plan `readme2demo plan` prints): shell blocks and unlabelled blocks of
// commands, without output samples, placeholders, other platforms' installs,
// the clone of the repository under test, and so on; every skipped command
// goes to command_log.json's `skipped` list with its reason.
//
// How a run works (the contract with the pipeline):
//
//  1. The pipeline sees that the engine implements InputPreparer and calls
//     PrepareInput with the README's name and bytes instead of rendering the
//     AI prompt. PrepareInput plans the README (internal/plan) and returns a
//     self-contained bash script, the "runner" (internal/runner), with
//     the plan embedded: each command, its README line, its timeout, whether
//     a failure stops the run, background + readiness check, expected exit
//     code and output, and the skipped commands with their reasons.
//  2. The pipeline copies those bytes to PromptContainerPath, as it copies
//     the prompt for AI engines, and execs BuildCommand with bash -lc. The
//     runner starts in WorkspaceContainerPath, writes the transcript to
//     TranscriptContainerPath and its own stderr to StderrContainerPath, and
//     prints one progress line per command on stdout.
//  3. ParseTranscript (pure) turns the transcript into the command log
//     (format and drift tolerance: internal/runner).
//
// Outcome: success when every step passed, failed otherwise, with
// outcome_reason naming the first failing README line and how many planned
// commands were not reached; a README with nothing to run fails with a
// reason that starts "nothing to run" and lists its code blocks. A probe (a
// command the plan runs on a guess, plan.PlannedProbe) runs with
// continue-on-error: its failure is logged (planned: "probe") and decides
// nothing, except that a run whose commands were all probes, all failing,
// checked nothing and is blocked.
//
// Runner behaviour worth knowing (docs/engines/markdown.md has the user
// view): stdin is /dev/null; the run stops at the first failing command
// unless its block says continue-on-error; each command has a timeout
// (default DefaultCommandTimeout, DefaultProbeTimeout for a probe that
// does no toolchain's work, hint timeout=30s) after which every
// process it started is killed and it fails with exit code 124; background
// blocks run in a subshell, wait for their readiness check, and are stopped
// at the end; `exit` or `set -e` ending the shell ends the run there.

import (
	"strconv"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/runner"
)

var _ AgentEngine = (*markdownEngine)(nil)
var _ InputPreparer = (*markdownEngine)(nil)

// MarkdownName is the --engine value of the keyless markdown engine.
const MarkdownName = "markdown"

// DefaultCommandTimeout bounds one command of the keyless engines when the
// README gives no timeout hint. A command that starts a server without the
// background hint fails after this long instead of eating the whole run.
const DefaultCommandTimeout = 10 * time.Minute

// DefaultProbeTimeout bounds a probe (a command the plan runs on a guess)
// that does no work a toolchain does (plan.Step.Work: install, build,
// fetch, test) when the README gives no timeout hint: a server or a
// program waiting for what nobody will send, which the plan did not
// recognise, then costs two minutes, not the run.
const DefaultProbeTimeout = 2 * time.Minute

// DefaultReadyTimeout bounds the readiness check of a background block
// without a timeout hint.
const DefaultReadyTimeout = 60 * time.Second

// InputPreparer is implemented by engines whose sandbox input is not the
// rendered AI prompt: the keyless markdown and replay engines.
//
// The pipeline MUST call it, for an engine that implements it, instead of
// rendering the prompt, and copy the returned bytes to PromptContainerPath
// (the only per-run file the sandbox copies in) before exec'ing
// BuildCommand. An error is a configuration problem to report like an
// *EngineError (it is one, or wraps one).
type InputPreparer interface {
	PrepareInput(in RunInput) ([]byte, error)
}

// RunInput is what the pipeline knows about a run before it starts.
type RunInput struct {
	// ReadmeName is the README's path relative to the repository root,
	// slash-separated ("README.md", "docs/README.md"); commands[].source
	// names it.
	ReadmeName string
	// Readme is the README's content.
	Readme []byte
	// CommandLog is an earlier command_log.json for the replay engine; nil
	// for the others.
	CommandLog []byte
	// Repo is what is known about the repository under test (its names,
	// remotes, package names), for the markdown engine's plan.
	Repo plan.Repo
	// Order is the markdown engine's run order (plan.OrderReadme,
	// plan.OrderInstallFirst); "" takes the README's order hint.
	Order string
	// Programs are the commands the sandbox image knows (the list it
	// recorded at ProgramsContainerPath); nil means the default image's.
	Programs map[string]bool
	// Limits are the run's limits.
	Limits Limits
}

type markdownEngine struct{ keyless }

// PrepareInput turns the README into the runner script.
func (e *markdownEngine) PrepareInput(in RunInput) ([]byte, error) {
	return runner.Render(markdownPlan(in), canonicalRunnerPaths()), nil
}

// markdownPlan turns the README's plan (internal/plan) into the runner's.
func markdownPlan(in RunInput) runner.Plan {
	name := in.ReadmeName
	if name == "" {
		name = "README.md"
	}
	p := plan.Make(in.Readme, plan.Options{File: name, Repo: in.Repo, Order: in.Order, Programs: in.Programs})
	rp := runner.Plan{Engine: MarkdownName, Origin: name}
	for _, n := range p.Notes {
		rp.Notes = append(rp.Notes, runner.Note{Line: n.Line, Text: n.Text})
	}
	for _, e := range p.Entries {
		if !e.Run {
			if e.Command != "" {
				rp.Skipped = append(rp.Skipped, runner.Skip{File: e.File, Line: e.Line, Command: e.Command, Reason: e.Reason})
			}
			continue
		}
		s := e.Step
		timeout := s.Timeout
		switch {
		case timeout > 0:
		case s.Background:
			timeout = DefaultReadyTimeout
		case e.Planned == plan.PlannedProbe && !s.Work:
			timeout = DefaultProbeTimeout
		default:
			timeout = DefaultCommandTimeout
		}
		rp.Steps = append(rp.Steps, runner.Step{
			Command: e.Command, Exec: e.Exec(commandlog.CheckoutWord), File: e.File, Line: e.Line,
			Timeout: timeout, AllowFailure: s.ContinueOnError,
			Background: s.Background, Ready: s.Ready, Expect: s.Expect, ExpectLine: s.ExpectLine,
			ExpectExit: s.Exit, Cwd: s.Cwd, LeaveCwd: s.LeaveCwd, Setup: s.Setup, SetupLine: s.SetupLine,
			Planned: commandlog.Planned(e.Planned), Prepares: e.Prepares(),
		})
	}
	for _, in := range p.Installs {
		rp.Installs = append(rp.Installs, runner.Install{Tool: in.Tool, Line: in.Line, Command: in.Command, Skipped: in.Skipped})
	}
	rp.Prerequisites, rp.CompilersTooOld = p.Prerequisites, p.CompilersTooOld
	if u := p.Uninstalled; u.Program != "" {
		rp.Uninstalled, rp.UninstalledAt = u.Program, p.File+" line "+strconv.Itoa(u.Line)
	}
	if len(rp.Steps) == 0 {
		rp.NothingToRun = p.NothingToRun()
		if e, ok := p.SandboxLacks(); ok {
			rp.SandboxLacks = e.File + " line " + strconv.Itoa(e.Line) + ": " + e.Reason
		}
	}
	return rp
}

func init() { Register(&markdownEngine{keyless{MarkdownName}}, keylessSpec) }
