// Package runner owns the keyless engines' runner: the bash script that
// the markdown and replay engines copy into the sandbox instead of an AI
// prompt (runner.sh, embedded, with the plan written around it by
// Render), the records of the JSONL transcript it writes (records.go:
// typed, the one definition both sides use), and the verdict on a run
// (Parser, verdict.go), decided here and only here. The engines package
// plans the steps, registers the engines and builds the command log; this
// package knows no engine.
//
// The protocol, runner 2. Go writes everything the plan says into the
// script: the records of what was planned, and for each step the
// variables the runner's helpers read (stepVars, an associative array
// whose keys are its sh tags). The runner prints the planned records when
// they become true and writes records of what it observed (End,
// BackgroundOutput, Stop, Summary): exit codes, durations, timeouts,
// processes left running, whether the output matched, the output itself.
// It concludes nothing, except whether to go on: after a command whose
// facts differ from those its step says a passing command shows
// (Step.passing, rendered by Go), it stops. Why a command failed, and the
// run's outcome, are decided by the Parser from the facts.
//
// Transcript, one JSON record per line, "type" is
//
//	plan              {runner, engine, origin, steps, nothing_to_run, sandbox_lacks, script}  first
//	note              {line, text}                            hints not understood, replay notes
//	skip              {file, line, command, reason}           a README command the plan skips
//	install           {tool, line, command, skipped}          a README command that installs a tool
//	setup_start       {id, step, command, file, line}         a setup hint's command begins
//	start             {id, command, file, line, timeout_s, allow_failure, background, ready,
//	                   expect, expect_line, expect_exit, planned, exec, cwd, leave_cwd}
//	                                                          a command begins
//	end               {id, exit_code, pipe_status, duration_ms, timed_out, shell_exited,
//	                   runaway, output_mismatch, stdin_read, output_lost, output_omitted,
//	                   output_head_b64, output_tail_b64}      a command (or setup) ended
//	background_output {id, output_omitted, output_head_b64, output_tail_b64}  the output of
//	                  a background command, when it was stopped at the end of the run
//	stop              {id}                                    the run stopped after this command
//	summary           {duration_ms, cost_usd}                 last: the runner finished
//	error             {text}                                  the input was not a runner, or
//	                                                          the workspace could not be entered
//
// Runner 1 (readme2demo-runner/1) wrote the verdict in the summary's text
// ("SUCCESS", "FAILED: <why>"), the expected exit code in end
// (expected_exit) and a setup hint's command as one setup record after it
// ran; the parser reads its transcripts as it always did.
//
// Output is base64 so any bytes survive; the runner keeps the first 64 KiB
// and the last 16 KiB of a command's output and says how much it left out
// (the engines then keep the usual head 3 KiB + tail 1 KiB). It keeps
// command output in its own directory (Paths.Work), not under /tmp, and
// says so in output_lost when no place could take it.
//
// Drift and damage tolerance: records are read by the json tags of their
// types (a field of another JSON type is left zero, unknown fields are
// ignored, an unknown type is counted by the log); a start without an end
// (the sandbox killed the run) stays unknown; the outcome is decided from
// the commands, never from a record a README command could append: a
// summary only says that the runner finished.
package runner

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/shell"
)

// script holds the runner's helper functions.
//
//go:embed runner.sh
var script string

// Magic is the runner script's second line: what the sandbox checks before
// it runs the input as a runner (an AI prompt copied by mistake is not).
const Magic = "# readme2demo-runner v2"

// Version is the transcript format version, the keyless engines' agent
// version.
const Version = "readme2demo-runner/2"

// Plan is what a runner script runs.
type Plan struct {
	Engine string // the engine name written in the plan record
	Origin string // where the steps came from: "README.md", "command_log.json …"
	Steps  []Step
	// Skipped, Installs and Notes are printed as the run begins; each
	// record's Type is set by Render.
	Skipped  []Skip
	Installs []Install
	Notes    []Note
	// NothingToRun is why there are no steps, for a plan without any.
	NothingToRun string
	// SandboxLacks names the line that needs what the sandbox does not
	// have, when that is why a plan has no steps ("" otherwise): the run
	// is then blocked, not failed.
	SandboxLacks string
	// Uninstalled is the project's own program that commands run while
	// no command installs it, and UninstalledAt the first such line
	// ("README.md line 42"): when the run finds it missing, the README's
	// use of it was not checked (blocked), which is not its failure.
	Uninstalled, UninstalledAt string
	// Prerequisites are the names the README's text gives for what a
	// build needs: a step that stops for one of them met what the README
	// asks for in words, which the run could not follow (blocked).
	Prerequisites []string
	// CompilersTooOld are the C and C++ compilers the README's text asks
	// for at a version the image lacks ("GCC 14 or newer (the sandbox
	// image has GCC 12)"): a step that stops at a compile error met that
	// (blocked).
	CompilersTooOld []string
}

// Step is one command of the plan.
type Step struct {
	Command      string // as the log shows it
	Exec         string // what bash evaluates; "" means Command
	File         string // source file, "" when unknown
	Line         int    // source line, 0 when unknown
	Timeout      time.Duration
	AllowFailure bool
	Background   bool
	Ready        string
	// Expect is the output to compare with (check-output hint), nil for no
	// check; ExpectLine is its first README line.
	Expect     []string
	ExpectLine int
	// ExpectExit is the exit code the command must return; nil means 0.
	ExpectExit *int
	// Cwd is entered before the step (relative to the workspace); LeaveCwd
	// goes back after it.
	Cwd      string
	LeaveCwd bool
	// Setup runs, unseen unless it fails, before the step.
	Setup     string
	SetupLine int
	// Planned is how sure the plan is that the README means the command
	// to be run: a probe (run on a guess) may fail without stopping the
	// run or failing it; "" is a step.
	Planned commandlog.Planned
	// Prepares says that the command only prepares the session (exports,
	// aliases, cd, mkdir, a file written, shell set-up): a step of that
	// kind that passes checks nothing of the README.
	Prepares bool
}

// planned is s.Planned, "" read as a step.
func (s Step) planned() commandlog.Planned {
	if s.Planned == commandlog.PlannedProbe {
		return commandlog.PlannedProbe
	}
	return commandlog.PlannedStep
}

// Paths are the paths the runner uses; tests run it outside a container
// with their own.
type Paths struct {
	Transcript string
	Workspace  string
	Work       string // the runner's own directory; "" means beside the transcript
}

// stepVars are what the runner's helpers read of one step: the generated
// script sets them in the associative array __r2d_step, keyed by the sh
// tags, before it calls __r2d_begin; runner.sh reads ${__r2d_step[key]}.
type stepVars struct {
	Record string `sh:"record"` // the Start or SetupStart record to print as it begins
	ID     string `sh:"id"`     // the id of its End record
	Where  string `sh:"where"`  // for the progress line: "README.md:12"
	Exec   string `sh:"exec"`   // what bash evaluates
	Cwd    string `sh:"cwd"`    // the directory to enter first (cwd hint), "" none
	// Timeout is the command's timeout in seconds, 0 for none (a
	// background block, whose readiness check has ReadyTimeout).
	Timeout      int    `sh:"timeout"`
	Ready        string `sh:"ready"`
	ReadyTimeout int    `sh:"ready_timeout"`
	// Check: compare the output with Expect (check-output hint).
	Check  bool   `sh:"check"`
	Expect string `sh:"expect"`
	// Pass is the facts (see facts) a command must show for the run to go
	// on; "" when it goes on whatever happens (continue-on-error).
	Pass string `sh:"pass"`
}

// facts are what the runner observes of a command that decide whether the
// run goes on, written as runner.sh writes them (__r2d_record_end).
type facts struct {
	exit           int
	timedOut       bool
	runaway        int64
	outputMismatch bool
}

func (f facts) String() string {
	return fmt.Sprintf("exit=%d timed_out=%t runaway=%d output_mismatch=%t", f.exit, f.timedOut, f.runaway, f.outputMismatch)
}

// passing is what the runner must see of the step's command to go on, ""
// when the run goes on whatever happens (continue-on-error, a probe); the
// parser's verdict holds a command to the same facts (its Start carries
// them).
func (s Step) passing() string {
	if s.AllowFailure || s.planned() == commandlog.PlannedProbe {
		return ""
	}
	want := 0
	if s.ExpectExit != nil && !s.Background {
		want = *s.ExpectExit
	}
	return facts{exit: want}.String()
}

// setupPassing is what a setup hint's command must show: exit 0, whatever
// its block allows.
var setupPassing = facts{}.String()

// record encodes a record for the runner to print verbatim.
func record(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("encode runner record: %v", err)) // strings, numbers and bools always encode
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// vars writes the step's variables as the assignment of __r2d_step.
func (v stepVars) assign() string {
	var b strings.Builder
	b.WriteString("__r2d_step=(")
	rv := reflect.ValueOf(v)
	for i, f := range reflect.VisibleFields(rv.Type()) {
		if i > 0 {
			b.WriteByte(' ')
		}
		val := ""
		switch x := rv.Field(i).Interface().(type) {
		case string:
			val = x
		case int:
			val = strconv.Itoa(x)
		case bool:
			val = "0"
			if x {
				val = "1"
			}
		}
		fmt.Fprintf(&b, "[%s]=%s", f.Tag.Get("sh"), shell.Quote(val))
	}
	b.WriteString(")\n")
	return b.String()
}

// Render writes the runner script for a plan.
func Render(p Plan, paths Paths) []byte {
	if paths.Work == "" {
		paths.Work = paths.Transcript + ".runner"
	}
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n" + Magic + "\n")
	fmt.Fprintf(&b, "# Generated by readme2demo's %s engine from %s: runs %d command(s) in one bash\n", p.Engine, p.Origin, len(p.Steps))
	b.WriteString("# session and writes a JSONL transcript. Do not edit; regenerate instead.\n")
	noWorkspace := record(Error{Type: TypeError, Text: "the runner could not enter the workspace " + paths.Workspace})
	fmt.Fprintf(&b, "__r2d_transcript=%s\n__r2d_workspace=%s\n__r2d_work=%s\n__r2d_no_workspace=%s\n",
		shell.Quote(paths.Transcript), shell.Quote(paths.Workspace), shell.Quote(paths.Work), shell.Quote(noWorkspace))
	// The checkout's path as a step's Exec names it (commandlog.Command.Ran).
	fmt.Fprintf(&b, "%s=\"$__r2d_workspace\"\n", commandlog.CheckoutVar)
	b.WriteString(script)
	b.WriteString("\n# ---- the plan ----\n")
	plan := record(PlanRecord{Type: TypePlan, Runner: Version, Engine: p.Engine, Origin: p.Origin, Steps: len(p.Steps), NothingToRun: p.NothingToRun, SandboxLacks: p.SandboxLacks,
		Uninstalled: p.Uninstalled, UninstalledAt: p.UninstalledAt, Prerequisites: p.Prerequisites, CompilersTooOld: p.CompilersTooOld})
	// The script's own path, as bash names it in error messages, is the
	// plan record's last field.
	b.WriteString("__r2d_json \"${BASH_SOURCE[0]}\"\n")
	b.WriteString("__r2d_emit " + shell.Quote(strings.TrimSuffix(plan, `"}`)) + `"$__r2d_j"'"}'` + "\n")
	for _, n := range p.Notes {
		n.Type = TypeNote
		b.WriteString("__r2d_emit " + shell.Quote(record(n)) + "\n")
	}
	for _, s := range p.Skipped {
		s.Type = TypeSkip
		b.WriteString("__r2d_emit " + shell.Quote(record(s)) + "\n")
	}
	for _, in := range p.Installs {
		in.Type = TypeInstall
		b.WriteString("__r2d_emit " + shell.Quote(record(in)) + "\n")
	}
	if len(p.Steps) == 0 {
		b.WriteString("__r2d_stopped=1 # nothing to run: the plan record says why\n")
	}
	for i, s := range p.Steps {
		renderStep(&b, strconv.Itoa(i+1), s)
	}
	b.WriteString("\n__r2d_finish\n")
	return []byte(b.String())
}

// renderStep writes one step: its setup hint's command, if any, then the
// command.
func renderStep(b *strings.Builder, id string, s Step) {
	where := "command " + id
	if s.File != "" && s.Line > 0 {
		where = s.File + ":" + strconv.Itoa(s.Line)
	}
	timeout := max(1, int(s.Timeout.Seconds()))
	cwd := s.Cwd // the setup below enters it for the step
	fmt.Fprintf(b, "\n# step %s (%s)\n", id, where)
	if s.Setup != "" {
		swhere := where
		if s.File != "" && s.SetupLine > 0 {
			swhere = s.File + ":" + strconv.Itoa(s.SetupLine)
		}
		line := s.SetupLine
		if line <= 0 {
			line = s.Line
		}
		b.WriteString(stepVars{
			Record: record(SetupStart{Type: TypeSetupStart, ID: "s" + id, Step: id, Command: s.Setup, File: s.File, Line: line}),
			ID:     "s" + id, Where: swhere + " (setup hint)", Exec: s.Setup, Cwd: s.Cwd, Timeout: timeout, Pass: setupPassing,
		}.assign())
		b.WriteString("__r2d_begin\n" + evalStep(s.Cwd != "")) // the setup runs where the block runs
		s.Cwd = ""
	}
	exec := s.Exec
	if exec == "" {
		exec = s.Command
	}
	start := Start{
		Type: TypeStart, ID: id, Command: s.Command, File: s.File, Line: s.Line,
		TimeoutS: int64(s.Timeout.Seconds()), AllowFailure: s.AllowFailure, Background: s.Background, Ready: s.Ready,
		Planned: s.planned(), Prepares: s.Prepares, Cwd: cwd, LeaveCwd: s.LeaveCwd,
	}
	if exec != s.Command {
		start.Exec = exec
	}
	v := stepVars{ID: id, Where: where, Exec: exec, Cwd: s.Cwd, Pass: s.passing()}
	if s.Expect != nil {
		text := strings.Join(s.Expect, "\n")
		start.Expect, start.ExpectLine = &text, s.ExpectLine
		v.Check, v.Expect = !s.Background, text
	}
	if s.ExpectExit != nil && !s.Background {
		start.ExpectExit = s.ExpectExit
	}
	v.Record = record(start)
	if s.Background {
		v.Ready, v.ReadyTimeout = s.Ready, timeout
		b.WriteString(v.assign())
		b.WriteString("__r2d_begin\n__r2d_bgstart\n")
		b.WriteString("( trap - EXIT; eval \"${__r2d_step[exec]}\" ) </dev/null >>\"$__r2d_out\" 2>&1 &\n")
		b.WriteString("__r2d_background \"$!\"\n")
		return
	}
	v.Timeout = timeout
	b.WriteString(v.assign())
	b.WriteString("__r2d_begin\n" + evalStep(s.Cwd != ""))
	if s.LeaveCwd {
		b.WriteString("__r2d_leave\n")
	}
}

// evalStep is the script that evaluates the step's command into its
// output, in its cwd when it has one, and ends the command with its status.
func evalStep(cwd bool) string {
	// The command, then (in the same eval, so that PIPESTATUS is still
	// its last pipeline's; after a blank line, which a trailing backslash
	// cannot join to the command) its exit statuses for __r2d_status.
	eval := `{ eval "${__r2d_step[exec]}"$'\n\n''__r2d_ps="$? ${PIPESTATUS[*]}"'; } <"$__r2d_stdin" >>"$__r2d_out" 2>&1 || __r2d_rc=$?`
	if cwd {
		eval = `if __r2d_enter >>"$__r2d_out" 2>&1; then ` + eval + "; else __r2d_rc=1; fi"
	}
	return "__r2d_rc=0; " + eval + "\n__r2d_end \"$__r2d_rc\"\n"
}
