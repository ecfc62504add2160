package engines

// What the keyless engines (markdown, replay) share: they need no
// credentials, run the runner script (internal/runner) that PrepareInput
// made and the pipeline copied to PromptContainerPath, and read its
// transcript with internal/runner's parser into the command log. The
// transcript format, its drift tolerance and the verdict are the runner
// package's; what this file adds is what names engines: the advice a
// failed run's reason ends with.

import (
	"fmt"
	"io"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// RunnerWorkContainerPath is the runner's own directory for command output
// in the sandbox: beside the transcript, not under /tmp, so a README that
// fills /tmp does not lose the output of every later command.
const RunnerWorkContainerPath = ContainerDir + "/runner"

// canonicalRunnerPaths are the runner's paths in the sandbox.
func canonicalRunnerPaths() runner.Paths {
	return runner.Paths{Transcript: TranscriptContainerPath, Workspace: WorkspaceContainerPath, Work: RunnerWorkContainerPath}
}

// keyless is what the keyless engines share.
type keyless struct{ name string }

// keylessSpec is what the rest of the program knows about a keyless engine:
// it runs no agent CLI, so one image (flavour "keyless") serves them all,
// the mock LLM cannot drive it, and a devcontainer image needs nothing more
// than bash and coreutils.
var keylessSpec = Spec{
	Image:        ImageSpec{Flavour: "keyless"},
	Devcontainer: &DevcontainerSpec{},
}

func (k keyless) Name() string { return k.name }

// RequiredEnv is empty: a keyless engine needs no credentials.
func (keyless) RequiredEnv() []string { return nil }

// ResolveEnv forwards nothing.
func (keyless) ResolveEnv(func(string) string) (map[string]string, error) {
	return map[string]string{}, nil
}

func (k keyless) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return parseRunnerTranscript(k.name, r, nil)
}

func (k keyless) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	return parseRunnerTranscript(k.name, r, s)
}

// BuildCommand runs the runner script, or writes an error record when the
// sandbox input is not one. The script runs as a child of the command's
// shell, not in its place (no exec): the sandbox's EXIT trap on that shell
// reads the run's signals when it ends.
func (keyless) BuildCommand(Limits) string {
	p, t, s := ShellQuote(PromptContainerPath), ShellQuote(TranscriptContainerPath), ShellQuote(StderrContainerPath)
	notRunner := `{"type":"error","text":"the sandbox input at ` + PromptContainerPath + ` is not a readme2demo runner script: the pipeline must call PrepareInput for this engine"}`
	return `if { IFS= read -r __l; IFS= read -r __l; } < ` + p + ` 2>/dev/null && [ "$__l" = ` + ShellQuote(runner.Magic) + ` ]; then ` +
		`cd ` + ShellQuote(WorkspaceContainerPath) + ` && bash ` + p + ` 2> ` + s + `; ` +
		`else printf '%s\n' ` + ShellQuote(notRunner) + ` > ` + t + `; exit 2; fi`
}

// parseRunnerTranscript parses the runner transcript of the markdown and
// replay engines, streaming finished commands to sink (nil keeps them in
// the returned log).
func parseRunnerTranscript(engine string, r io.Reader, sink Sink) (*commandlog.Log, error) {
	b := newLogBuilderTo(engine, sink)
	p := runner.NewParser(runnerLog{b}, runner.Options{Hints: engine == MarkdownName})
	b.onSeal = p.Sealed
	err := readRecords(r, jsonv.Options{}, b, func(v *jsonv.Value) {
		b.record()
		p.Record(v)
	})
	if err != nil {
		return nil, err
	}
	// Seal every command to learn the first failure; finish seals nothing
	// more. The runner is the "agent": the verdict's text is the agent
	// text.
	b.cmds.sealAll()
	v := p.Verdict()
	if v.AgentText != "" {
		b.agentText(v.AgentText)
	}
	l := b.finish(v.Reason(func(f *runner.Failure) string { return runnerAdvice(engine, f) }))
	if v.Blocked() {
		// Nothing could be checked (every guess failed, or the README
		// needs what the sandbox lacks): the runner's verdict, as an
		// agent's BLOCKED would be (without a marker: the runner writes none).
		l.Outcome = commandlog.OutcomeBlocked
	}
	if v.End == runner.EndNothingToRun {
		l.OutcomeCause = commandlog.CauseNothingToRun
	}
	return b.done(l)
}

// runnerAdvice is the advice added to a failure of a keyless engine, by
// engine and by what failed; "" when no advice helps. An AI engine is
// advised only where understanding the README's prose could help: a
// program that no line the plan ran installs (a prerequisite written in
// words, or in a line the plan skipped); the replay engine's commands
// worked once, so a command that fails now says the repository changed.
func runnerAdvice(engine string, f *runner.Failure) string {
	switch {
	case engine == ReplayName && (f.Kind == runner.KindExit || f.Kind == runner.KindShellExit):
		return "the replay engine re-runs an earlier run's successful commands; when the repository changed since, re-record the log with an AI engine"
	case engine == ReplayName, !f.ProseMayHelp():
		return ""
	}
	return fmt.Sprintf("the %s engine runs only what the README's code blocks say; if the README gives this prerequisite in words, try an AI engine such as --engine %s", engine, ClaudeCodeName)
}

// runnerLog is the log builder as the runner's parser writes to it.
type runnerLog struct{ b *logBuilder }

func (l runnerLog) Unknown()           { l.b.unknownEvent() }
func (l runnerLog) Has(id string) bool { return l.b.hasCommand(id) }

func (l runnerLog) Command(c commandlog.Command) {
	l.b.command(c.ID, c.Command, "")
	if c.Source != nil {
		l.b.setSource(c.ID, c.Source)
	}
	l.b.setPlanned(c.ID, c.Planned)
	l.b.setHowRan(c.ID, c)
}

func (l runnerLog) Result(id string, r runner.Result) bool {
	if !l.b.result(id, cmdResult{Output: r.Output, Omitted: r.Omitted, ExitCode: r.ExitCode, Failed: r.Failed, DurationMS: r.DurationMS}) {
		return false
	}
	l.b.setEnvironment(id, r.Environment)
	l.b.setPipeStatus(id, r.PipeStatus)
	return true
}

func (l runnerLog) Output(id, output string, omitted int64) bool {
	return l.b.setOutput(id, output, omitted)
}

func (l runnerLog) Skipped(s commandlog.Skipped) { l.b.log.Skipped = append(l.b.log.Skipped, s) }
func (l runnerLog) Runner(version string)        { l.b.log.AgentVersion = stringPtr(version) }

func (l runnerLog) Totals(durationMS *int64, costUSD *float64) {
	if durationMS != nil {
		l.b.log.DurationMS = durationMS
	}
	if costUSD != nil {
		l.b.log.CostUSD = costUSD
	}
}
