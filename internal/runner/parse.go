package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// Log is what a Parser writes the command log through: the engines' log
// builder, which owns what every engine shares (output truncation,
// statuses, markers, the outcome).
type Log interface {
	// Unknown counts a record the parser did not take.
	Unknown()
	// Has reports whether a command with this id was opened.
	Has(id string) bool
	// Command opens a command: c holds what its start says (its id,
	// command, source, planned, and how it ran: ran, cwd, setup,
	// background), not how it ended.
	Command(c commandlog.Command)
	// Result ends an open command; false when none has this id.
	Result(id string, r Result) bool
	// Output replaces an open command's output; false when none has this
	// id.
	Output(id, output string, omitted int64) bool
	// Skipped lists a README command the plan did not run.
	Skipped(s commandlog.Skipped)
	// Runner names the runner (the log's agent version).
	Runner(version string)
	// Totals are the run's duration and cost, each nil when unknown.
	Totals(durationMS *int64, costUSD *float64)
}

// Result is how a command ended.
type Result struct {
	Output     string
	Omitted    int64 // bytes the runner left out of Output's middle
	ExitCode   *int
	Failed     bool // it timed out
	DurationMS *int64
	// Environment is the sandbox's part in a failure that the runner saw
	// itself (the command read its empty standard input); nil otherwise.
	Environment *commandlog.Environment
	// PipeStatus are the statuses of its last pipeline's programs, when
	// it had more than one.
	PipeStatus []int
}

// Options change how a transcript is judged.
type Options struct {
	// Hints says that the commands came from a README, whose blocks take
	// readme2demo hints (the markdown engine): the verdict may suggest one.
	Hints bool
}

// Parser reads a runner transcript record by record (Record), hands the
// commands to a Log, and decides the run's verdict as the log seals the
// commands (Sealed), in order, so that the first failure is found without
// keeping every command.
type Parser struct {
	log Log
	opt Options
	// open holds the commands started and not sealed yet.
	open   map[string]*command
	setups map[string]*SetupStart
	// setupOf: a setup hint's command by the id of the step it precedes,
	// until that step starts.
	setupOf  map[string]string
	installs []Install
	// ran: the install lines whose commands ran and passed so far (a "not
	// found" after such a line says so); bounded by the README.
	ran      map[int]bool
	first    *Failure
	setup    *Failure // the first setup hint's command that failed
	commands int
	// steps counts the commands sealed that were steps and checked
	// something (not only prepared the session); probes those that were
	// probes, by whether they passed.
	steps                      int
	probesPassed, probesFailed int
	planned                    int
	script                     string
	nothing, lacks             string
	// uninstalled is the project's program nothing the plan runs
	// installs (PlanRecord), notFound the commands that did not find it.
	uninstalled, uninstalledAt string
	notFound                   int
	prereqs                    []string // PlanRecord.Prerequisites
	oldCompilers               []string // PlanRecord.CompilersTooOld
	summary                    *summaryV1
	errText                    string
}

// maxPendingSetups bounds the setup commands kept for steps that have not
// started: a plan has one per step at most, and records appended by a
// README command cannot grow the map without end.
const maxPendingSetups = 4096

// command is a command as its start and end records describe it.
type command struct {
	start Start
	where string
	line  int // its README line, 0 when unknown
	end   endV1
}

// NewParser returns a parser that writes to log.
func NewParser(log Log, opt Options) *Parser {
	return &Parser{log: log, opt: opt, open: map[string]*command{}, setups: map[string]*SetupStart{}, setupOf: map[string]string{}, ran: map[int]bool{}, planned: -1}
}

// Record reads one record of the transcript.
func (p *Parser) Record(v *jsonv.Value) {
	rec, ok := decode(v)
	if !ok {
		p.log.Unknown()
		return
	}
	switch r := rec.(type) {
	case *PlanRecord:
		if r.Runner != "" {
			p.log.Runner(r.Runner)
		}
		if r.Steps >= 0 {
			p.planned = r.Steps
		}
		p.script, p.nothing, p.lacks = r.Script, r.NothingToRun, r.SandboxLacks
		p.uninstalled, p.uninstalledAt = r.Uninstalled, r.UninstalledAt
		p.prereqs = slices.Clip(r.Prerequisites)
		p.oldCompilers = slices.Clip(r.CompilersTooOld)
	case *Note, *Stop:
	case *Skip:
		// Older runners wrote {line, text} for a skipped block: no
		// command, nothing to list.
		if r.File != "" && r.Command != "" && r.Reason != "" && r.Line > 0 {
			p.log.Skipped(commandlog.Skipped{File: r.File, Line: r.Line, Command: r.Command, Reason: r.Reason})
		}
	case *Install:
		if r.Tool != "" && r.Line > 0 {
			p.installs = append(p.installs, *r)
		}
	case *setupV1:
		where := r.Where
		if i := strings.LastIndexByte(where, ':'); i > 0 {
			where = where[:i] + " line " + where[i+1:]
		}
		out, _ := r.Output.Text(p.script)
		p.setupEnded(where, r.Command, r.ExitCode, r.TimedOut, false, 0, out)
	case *SetupStart:
		if r.ID != "" {
			p.setups[r.ID] = r
		}
		if r.Step != "" && len(p.setupOf) < maxPendingSetups {
			p.setupOf[r.Step] = r.Command
		}
	case *Start:
		p.started(r)
	case *endV1:
		p.ended(r)
	case *BackgroundOutput:
		out, omitted := r.Output.Text(p.script)
		if !p.log.Output(r.ID, out, omitted) {
			p.log.Unknown()
		}
	case *summaryV1:
		p.summary = r
		var d *int64
		var c *float64
		if r.DurationMS != nil && *r.DurationMS >= 0 {
			d = r.DurationMS
		}
		if r.CostUSD != nil && *r.CostUSD >= 0 {
			c = r.CostUSD
		}
		p.log.Totals(d, c)
	case *Error:
		p.errText = r.Text
	}
}

func (p *Parser) started(r *Start) {
	if r.ID == "" || p.log.Has(r.ID) {
		p.log.Unknown() // no id, or a duplicate start: keep the first
		return
	}
	c := &command{start: *r, where: "command " + r.ID}
	var src *commandlog.Source
	if r.File != "" && r.Line > 0 {
		src = &commandlog.Source{File: r.File, Line: r.Line}
		c.where, c.line = fmt.Sprintf("%s line %d", r.File, r.Line), r.Line
	}
	lc := commandlog.Command{ID: r.ID, Command: r.Command, Source: src, Planned: r.Planned, Ran: r.Exec, Cwd: r.Cwd, LeaveCwd: r.LeaveCwd, Setup: p.setupOf[r.ID]}
	delete(p.setupOf, r.ID)
	if r.Background {
		lc.Background = &commandlog.Background{Ready: r.Ready, TimeoutS: max(r.TimeoutS, 0)}
	}
	p.log.Command(lc)
	p.commands++
	p.open[r.ID] = c
}

func (p *Parser) ended(r *endV1) {
	if s, ok := p.setups[r.ID]; ok {
		delete(p.setups, r.ID)
		where := "command " + s.Step
		if s.File != "" && s.Line > 0 {
			where = fmt.Sprintf("%s line %d", s.File, s.Line)
		}
		out, _ := r.Output.Text(p.script)
		p.setupEnded(where, s.Command, r.ExitCode, r.TimedOut, r.ShellExited, r.Runaway, out)
		return
	}
	c, ok := p.open[r.ID]
	if !ok {
		p.log.Unknown()
		return
	}
	c.end = *r
	res := Result{ExitCode: r.ExitCode, Failed: r.TimedOut}
	if len(r.PipeStatus) > 1 {
		res.PipeStatus = slices.Clip(r.PipeStatus)
	}
	res.Output, res.Omitted = r.Output.Text(p.script)
	if r.OutputLost != "" {
		res.Output += "\n[readme2demo: the output could not be captured in full: " + r.OutputLost + "]\n"
	}
	if r.TimedOut && c.start.TimeoutS > 0 && !c.start.Background {
		if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
			res.Output += "\n"
		}
		res.Output += commandlog.TimeoutNote(c.start.TimeoutS)
	}
	if r.DurationMS != nil && *r.DurationMS >= 0 {
		res.DurationMS = r.DurationMS
	}
	if r.StdinRead && r.ExitCode != nil && *r.ExitCode != 0 && !r.TimedOut {
		cause := envcause.EndOfInput()
		res.Environment = &commandlog.Environment{Kind: string(cause.Kind), Detail: cause.Detail}
	}
	p.log.Result(r.ID, res)
}

// setupEnded records the first setup hint's command that failed.
func (p *Parser) setupEnded(where, cmd string, code *int, timedOut, shellExited bool, runaway int64, output string) {
	if p.setup != nil || (code != nil && *code == 0 && !timedOut && !shellExited && runaway == 0) {
		return
	}
	p.setup = &Failure{Kind: KindSetup, Where: where, Command: cmd, ExitCode: code, TimedOut: timedOut,
		ShellExited: shellExited, Runaway: runaway, Output: output}
}

// Sealed is told each command as the log seals it, in order: the first
// that failed the run decides the verdict.
func (p *Parser) Sealed(c *commandlog.Command) {
	cmd := p.open[c.ID]
	delete(p.open, c.ID)
	if cmd == nil {
		return
	}
	if c.Status == commandlog.StatusOK && slices.ContainsFunc(p.installs, func(in Install) bool { return in.Line == cmd.line }) {
		p.ran[cmd.line] = true
	}
	if p.uninstalled != "" && slices.Contains(envcause.NotFound(c.Output), p.uninstalled) {
		p.notFound++
	}
	f := p.verdict(c, cmd)
	if cmd.start.Planned == commandlog.PlannedProbe {
		switch {
		case c.Status == commandlog.StatusOK && f == nil && cmd.start.Prepares:
			// A guess that only prepared the session checked nothing.
		case c.Status == commandlog.StatusOK && f == nil:
			p.probesPassed++
		case c.Status != commandlog.StatusOK || f != nil:
			p.probesFailed++
		}
		if f != nil && !f.Kind.endsTheRun() {
			return // a probe's failure is reported, never the run's verdict
		}
	} else if !cmd.start.Prepares || f != nil {
		p.steps++
	}
	if p.first == nil {
		p.first = f
	}
}

// uninstalledWith is what the run found of the project's program that
// nothing installed; f is the step that failed not finding it.
func (p *Parser) uninstalledWith(f *Failure) Uninstalled {
	return Uninstalled{Program: p.uninstalled, First: p.uninstalledAt, NotFound: p.notFound, Failure: f}
}

// Verdict is the run's verdict, once every command was sealed.
func (p *Parser) Verdict() Verdict {
	v := Verdict{Failure: p.first, Planned: p.planned}
	if v.Failure == nil {
		v.Failure = p.setup
	}
	if f := v.Failure; f != nil && f == p.first && p.notFound > 0 && f.Missing != nil && f.Missing.Program == p.uninstalled {
		// A step did not find the project's own program, which nothing
		// the plan ran installs: not the README's failure (below).
		v.End, v.Uninstalled, v.Failure = EndUninstalled, p.uninstalledWith(f), nil
		return v
	}
	if f := v.Failure; f != nil && f == p.first && f.Kind == KindExit && (f.Prerequisite != "" || f.Compiler != "") {
		// A build stopped for what the README asks for in words.
		v.End, v.Prerequisite, v.Failure = EndPrerequisite, f, nil
		return v
	}
	if v.Failure != nil {
		v.NotReached = max(p.planned-p.commands, 0)
		return v
	}
	// The summary's text: runner 1 wrote SUCCESS or FAILED: <why>; runner 2
	// writes facts only, and the verdict is said here.
	text := ""
	switch {
	case p.summary == nil:
	case p.summary.Text != nil:
		text = *p.summary.Text
	case p.errText == "" && p.nothing == "":
		text = "SUCCESS"
	}
	if p.summary != nil {
		v.AgentText = text
	}
	switch {
	case p.errText != "":
		v.End, v.Text = EndError, p.errText
	case p.summary == nil && p.commands == 0:
		v.End = EndEmpty
	case p.summary == nil:
		v.End = EndKilled
	case p.notFound > 0 && strings.HasPrefix(strings.TrimSpace(text), "SUCCESS"):
		// The project's own program was never installed (its install is
		// not in a block the plan runs), and commands did not find it:
		// what the README does with it was not checked, which is not the
		// README's failure, nor its success.
		v.End, v.Uninstalled, v.AgentText = EndUninstalled, p.uninstalledWith(nil), ""
	case strings.HasPrefix(strings.TrimSpace(text), "SUCCESS") && p.steps == 0 && p.probesPassed == 0 && p.probesFailed > 0:
		// Nothing the README clearly means to be run was checked, and
		// every guess failed: not a success, not the README's failure.
		v.End, v.Probes, v.AgentText = EndNoStep, p.probesFailed, ""
	case strings.HasPrefix(strings.TrimSpace(text), "SUCCESS"):
		v.End = EndPassed
	case p.summary.Text == nil:
		v.End, v.Text, v.SandboxLacks = EndNothingToRun, p.nothing, p.lacks
	default:
		v.End, v.Text = EndSaidFailed, strings.TrimSpace(strings.TrimPrefix(text, "FAILED:"))
	}
	return v
}
