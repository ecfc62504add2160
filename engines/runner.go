package engines

// The runner: the bash script the keyless engines (markdown, replay) copy
// into the sandbox instead of an AI prompt, and the parser of the JSONL
// transcript it writes. Its helper functions live in runner.sh (embedded
// below, shellchecked in CI); this file writes the generated parts around
// them (the paths, the plan and one call per step) and parses what comes
// back.
//
// Transcript format (written by our own runner, format version 1): JSONL,
// one record per line, "type" is
//
//	plan        {runner, engine, origin, steps, script}   first record; script is
//	            the runner's own path, stripped from bash's error messages
//	note        {line, text}                             hints not understood, replay notes
//	skip        {file, line, command, reason}            a README command the plan skips
//	install     {tool, line, command, skipped}           a README command that installs a tool
//	setup       {id, line, command, exit_code, timed_out, output_…}  a setup hint's command
//	start       {id, command, file, line, timeout_s, allow_failure, background, ready,
//	             expect, expect_line}
//	end         {id, exit_code, duration_ms, timed_out, shell_exited, runaway,
//	             expected_exit, output_mismatch, output_lost, output_head_b64,
//	             output_tail_b64, output_omitted}; runaway counts the processes a
//	             command left running when it returned (a fork bomb), killed
//	background_output {id, output_head_b64, output_tail_b64, output_omitted}  output of a
//	            background command when it was stopped at the end of the run
//	stop        {id}                                     the run stopped after this command
//	summary     {text, duration_ms, cost_usd}            last record; SUCCESS when every
//	            command passed, else why not
//	error       {text}                                   the input was not a runner
//
// Output is base64 so any bytes survive; the runner keeps the first 64 KiB
// and the last 16 KiB of a command's output and says how much it left out;
// the parser then applies the usual head 3 KiB + tail 1 KiB truncation.
// The runner keeps command output in its own directory under ContainerDir,
// not under /tmp, and says so in output_lost when no place could take it.
//
// Drift and damage tolerance: records are read with internal/jsonv
// (malformed lines counted and skipped, unknown types counted); a start
// without an end (the sandbox killed the run) stays "unknown" with a null
// exit code; a SUCCESS summary counts only if the transcript agrees (every
// command ended and passed, or was allowed to fail): a README command that
// appends a forged SUCCESS record to the transcript cannot make a run pass.

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/textdiff"
)

// runnerSh holds the runner's helper functions.
//
//go:embed runner.sh
var runnerSh string

// runnerMagic is the runner script's second line; BuildCommand refuses to
// run a prompt file without it (an AI prompt copied by mistake).
const runnerMagic = "# readme2demo-runner v1"

// runnerVersion is the transcript format version, reported as the agent
// version of the keyless engines.
const runnerVersion = "readme2demo-runner/1"

// RunnerWorkContainerPath is the runner's own directory for command output
// in the sandbox: beside the transcript, not under /tmp, so a README that
// fills /tmp does not lose the output of every later command.
const RunnerWorkContainerPath = ContainerDir + "/runner"

// keyless is what the keyless engines (markdown, replay) share: they need
// no credentials, run the runner script the pipeline copied to
// PromptContainerPath, and parse its transcript.
type keyless struct{ name string }

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
// sandbox input is not one.
func (keyless) BuildCommand(Limits) string {
	p, t, s := ShellQuote(PromptContainerPath), ShellQuote(TranscriptContainerPath), ShellQuote(StderrContainerPath)
	notRunner := `{"type":"error","text":"the sandbox input at ` + PromptContainerPath + ` is not a readme2demo runner script: the pipeline must call PrepareInput for this engine"}`
	return `if { IFS= read -r __l; IFS= read -r __l; } < ` + p + ` 2>/dev/null && [ "$__l" = ` + ShellQuote(runnerMagic) + ` ]; then ` +
		`cd ` + ShellQuote(WorkspaceContainerPath) + ` && exec bash ` + p + ` 2> ` + s + `; ` +
		`else printf '%s\n' ` + ShellQuote(notRunner) + ` > ` + t + `; exit 2; fi`
}

// runPlan is what a runner script runs.
type runPlan struct {
	Engine      string // engine name written in the plan record
	Origin      string // where the steps came from: "README.md", "command_log.json"
	Steps       []runStep
	Skipped     []runSkip
	Installs    []runInstall
	Notes       []runNote
	EmptyReason string // the failure to report when there are no steps
}

type runStep struct {
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
	// Setup runs, unseen, before the step.
	Setup     string
	SetupLine int
}

type runSkip struct {
	File, Command, Reason string
	Line                  int
}

type runInstall struct {
	Tool, Command, Skipped string
	Line                   int
}

type runNote struct {
	Line int
	Text string
}

// runnerPaths are the paths the runner uses; tests run it outside a
// container with their own.
type runnerPaths struct {
	Transcript string
	Workspace  string
	Work       string // the runner's own directory; "" means beside the transcript
}

func canonicalRunnerPaths() runnerPaths {
	return runnerPaths{Transcript: TranscriptContainerPath, Workspace: WorkspaceContainerPath, Work: RunnerWorkContainerPath}
}

// runnerJSON encodes a record for the runner to print verbatim.
func runnerJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and bools always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// renderRunner writes the runner script for a plan.
func renderRunner(p runPlan, paths runnerPaths) []byte {
	if paths.Work == "" {
		paths.Work = paths.Transcript + ".runner"
	}
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n" + runnerMagic + "\n")
	fmt.Fprintf(&b, "# Generated by readme2demo's %s engine from %s: runs %d command(s) in one bash\n", p.Engine, p.Origin, len(p.Steps))
	b.WriteString("# session and writes a JSONL transcript. Do not edit; regenerate instead.\n")
	fmt.Fprintf(&b, "__r2d_transcript=%s\n__r2d_workspace=%s\n__r2d_work=%s\n", ShellQuote(paths.Transcript), ShellQuote(paths.Workspace), ShellQuote(paths.Work))
	b.WriteString(runnerSh)
	b.WriteString("\n# ---- the plan ----\n")
	plan := runnerJSON(map[string]any{"type": "plan", "runner": runnerVersion, "engine": p.Engine, "origin": p.Origin, "steps": len(p.Steps)})
	// The script's own path, as bash names it in error messages.
	b.WriteString("__r2d_json \"${BASH_SOURCE[0]}\"\n")
	b.WriteString("__r2d_emit " + ShellQuote(strings.TrimSuffix(plan, "}")+`,"script":"`) + `"$__r2d_j"'"}'` + "\n")
	for _, n := range p.Notes {
		b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(map[string]any{"type": "note", "line": n.Line, "text": n.Text})) + "\n")
	}
	for _, s := range p.Skipped {
		b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(map[string]any{"type": "skip", "file": s.File, "line": s.Line, "command": s.Command, "reason": s.Reason})) + "\n")
	}
	for _, in := range p.Installs {
		rec := map[string]any{"type": "install", "tool": in.Tool, "line": in.Line, "command": in.Command}
		if in.Skipped != "" {
			rec["skipped"] = in.Skipped
		}
		b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(rec)) + "\n")
	}
	if len(p.Steps) == 0 {
		fmt.Fprintf(&b, "__r2d_fail_reason=%s\n", ShellQuote(p.EmptyReason))
	}
	for i, s := range p.Steps {
		id := strconv.Itoa(i + 1)
		where := "command " + id
		if s.File != "" && s.Line > 0 {
			where = s.File + ":" + strconv.Itoa(s.Line)
		}
		timeout := strconv.Itoa(max(1, int(s.Timeout.Seconds())))
		allow := "0"
		if s.AllowFailure {
			allow = "1"
		}
		fmt.Fprintf(&b, "\n# step %s (%s)\n", id, where)
		if s.Setup != "" {
			swhere := where
			if s.File != "" && s.SetupLine > 0 {
				swhere = s.File + ":" + strconv.Itoa(s.SetupLine)
			}
			fmt.Fprintf(&b, "__r2d_c=%s\n", ShellQuote(s.Setup))
			fmt.Fprintf(&b, "__r2d_begin setup s%s %s 0 %s '' '' 0\n", id, timeout, ShellQuote(swhere))
			b.WriteString(runnerEval(s.Cwd)) // the setup runs where the block runs
			s.Cwd = ""
		}
		exec := s.Exec
		if exec == "" {
			exec = s.Command
		}
		rec := map[string]any{
			"type": "start", "id": id, "command": s.Command, "file": s.File, "line": s.Line,
			"timeout_s": int(s.Timeout.Seconds()), "allow_failure": s.AllowFailure, "background": s.Background,
		}
		if s.Ready != "" {
			rec["ready"] = s.Ready
		}
		check := "0"
		if s.Expect != nil {
			check = "1"
			rec["expect"] = strings.Join(s.Expect, "\n")
			rec["expect_line"] = s.ExpectLine
			fmt.Fprintf(&b, "__r2d_expect=%s\n", ShellQuote(strings.Join(s.Expect, "\n")))
		}
		want := ""
		if s.ExpectExit != nil {
			want = strconv.Itoa(*s.ExpectExit)
		}
		fmt.Fprintf(&b, "__r2d_c=%s\n", ShellQuote(exec))
		if s.Background {
			fmt.Fprintf(&b, "__r2d_begin cmd %s 0 %s %s %s '' 0\n", id, allow, ShellQuote(where), ShellQuote(runnerJSON(rec)))
			b.WriteString("__r2d_bgstart\n")
			b.WriteString("( trap - EXIT; eval \"$__r2d_c\" ) </dev/null >>\"$__r2d_out\" 2>&1 &\n")
			fmt.Fprintf(&b, "__r2d_background $! %s %s\n", ShellQuote(s.Ready), timeout)
			continue
		}
		fmt.Fprintf(&b, "__r2d_begin cmd %s %s %s %s %s %s %s\n", id, timeout, allow, ShellQuote(where), ShellQuote(runnerJSON(rec)), ShellQuote(want), check)
		b.WriteString(runnerEval(s.Cwd))
		if s.LeaveCwd {
			b.WriteString("__r2d_leave\n")
		}
	}
	b.WriteString("\n__r2d_finish\n")
	return []byte(b.String())
}

// runnerEval is the script that evaluates $__r2d_c into the command's
// output, in cwd when it is given, and ends the command with its status.
func runnerEval(cwd string) string {
	eval := `{ eval "$__r2d_c"; } </dev/null >>"$__r2d_out" 2>&1 || __r2d_rc=$?`
	if cwd != "" {
		eval = "if __r2d_enter " + ShellQuote(cwd) + ` >>"$__r2d_out" 2>&1; then ` + eval + "; else __r2d_rc=1; fi"
	}
	return "__r2d_rc=0; " + eval + "\n__r2d_end \"$__r2d_rc\"\n"
}

// ---- parsing -------------------------------------------------------------

// runnerStart remembers what a start record said about a command.
type runnerStart struct {
	where          string
	line           int
	allowFailure   bool
	timedOut       bool
	shellExited    bool
	timeoutS       int64
	background     bool
	expectedExit   *int
	outputMismatch bool
	runaway        int64
	expect         *string
	expectLine     int
}

// runnerSetup is a setup hint's command that failed.
type runnerSetup struct {
	where, command string
	exitCode       *int
	timedOut       bool
	output         string
}

// parseRunnerTranscript parses the runner transcript of the markdown and
// replay engines, streaming finished commands to sink (nil keeps them in
// the returned log).
func parseRunnerTranscript(engine string, r io.Reader, sink Sink) (*commandlog.Log, error) {
	b := newLogBuilderTo(engine, sink)
	// starts holds the open commands' start records; a command's verdict is
	// decided when the builder seals it, in README order, so the first
	// failure is found without keeping every command.
	starts := map[string]*runnerStart{}
	var f *failure
	commands := 0
	var installs []runInstall
	// ran: the install lines whose commands ran and passed so far (a
	// "not found" after such a line says so); bounded by the README.
	ran := map[int]bool{}
	b.onSeal = func(c *commandlog.Command) {
		st := starts[c.ID]
		delete(starts, c.ID)
		if st == nil {
			return
		}
		if c.Status == commandlog.StatusOK && slices.ContainsFunc(installs, func(in runInstall) bool { return in.Line == st.line }) {
			ran[st.line] = true
		}
		if f == nil {
			f = runnerVerdict(c, st, engine, installs, ran)
		}
	}
	var summary, errText, script string
	var setupFailed *runnerSetup
	planned := -1
	sawSummary := false
	err := readRecords(r, jsonv.Options{}, b, func(v *jsonv.Value) {
		b.record()
		switch v.Get("type").Str() {
		case "plan":
			if ver := v.Get("runner").Str(); ver != "" {
				b.log.AgentVersion = stringPtr(ver)
			}
			if n, ok := v.Get("steps").Int(); ok && n >= 0 {
				planned = int(n)
			}
			script = v.Get("script").Str()
		case "note":
		case "skip":
			// Older runners wrote {line, text} for a skipped block: no
			// command, nothing to list.
			file, cmd, reason := v.Get("file").Str(), v.Get("command").Str(), v.Get("reason").Str()
			line, _ := v.Get("line").Int()
			if file != "" && cmd != "" && reason != "" && line > 0 {
				b.log.Skipped = append(b.log.Skipped, commandlog.Skipped{File: file, Line: int(line), Command: cmd, Reason: reason})
			}
		case "install":
			line, _ := v.Get("line").Int()
			if tool := v.Get("tool").Str(); tool != "" && line > 0 {
				installs = append(installs, runInstall{Tool: tool, Line: int(line), Command: v.Get("command").Str(), Skipped: v.Get("skipped").Str()})
			}
		case "setup":
			code, hasCode := v.Get("exit_code").Int()
			timed := v.Get("timed_out").True()
			if (!hasCode || code != 0 || timed) && setupFailed == nil {
				out, _ := runnerOutput(v, script)
				s := &runnerSetup{command: v.Get("command").Str(), timedOut: timed, output: out, where: v.Get("where").Str()}
				if i := strings.LastIndexByte(s.where, ':'); i > 0 {
					s.where = s.where[:i] + " line " + s.where[i+1:]
				}
				if hasCode {
					s.exitCode = intPtr(int(code))
				}
				setupFailed = s
			}
		case "start":
			id := v.Get("id").Str()
			cmd := v.Get("command").Str()
			if id == "" || !v.Get("command").IsString() {
				b.unknownEvent()
				return
			}
			if b.hasCommand(id) {
				b.unknownEvent() // a duplicate start: keep the first
				return
			}
			b.command(id, cmd, "")
			commands++
			st := &runnerStart{allowFailure: v.Get("allow_failure").True(), background: v.Get("background").True()}
			st.timeoutS, _ = v.Get("timeout_s").Int()
			if e := v.Get("expect"); e.IsString() {
				s := e.Str()
				st.expect = &s
				l, _ := v.Get("expect_line").Int()
				st.expectLine = int(l)
			}
			file := v.Get("file").Str()
			line, _ := v.Get("line").Int()
			if file != "" && line > 0 {
				b.setSource(id, &commandlog.Source{File: file, Line: int(line)})
				st.where = fmt.Sprintf("%s line %d", file, line)
				st.line = int(line)
			} else {
				st.where = fmt.Sprintf("command %s", id)
			}
			starts[id] = st
		case "end":
			id := v.Get("id").Str()
			st, ok := starts[id]
			if !ok {
				b.unknownEvent()
				return
			}
			res := cmdResult{}
			res.Output, res.Omitted = runnerOutput(v, script)
			if lost := v.Get("output_lost").Str(); lost != "" {
				res.Output += "\n[readme2demo: the output could not be captured in full: " + lost + "]\n"
			}
			if code, ok := v.Get("exit_code").Int(); ok {
				res.ExitCode = intPtr(int(code))
			}
			if d, ok := v.Get("duration_ms").Int(); ok && d >= 0 {
				res.DurationMS = int64Ptr(d)
			}
			if want, ok := v.Get("expected_exit").Int(); ok {
				st.expectedExit = intPtr(int(want))
			}
			st.outputMismatch = v.Get("output_mismatch").True()
			st.runaway, _ = v.Get("runaway").Int()
			st.timedOut = v.Get("timed_out").True()
			st.shellExited = v.Get("shell_exited").True()
			res.Failed = st.timedOut
			b.result(id, res)
		case "background_output":
			out, omitted := runnerOutput(v, script)
			if !b.setOutput(v.Get("id").Str(), out, omitted) {
				b.unknownEvent()
			}
		case "stop":
		case "summary":
			sawSummary = true
			summary = v.Get("text").Str()
			if d, ok := v.Get("duration_ms").Int(); ok && d >= 0 {
				b.log.DurationMS = int64Ptr(d)
			}
			if c, ok := v.Get("cost_usd").Float(); ok && c >= 0 {
				b.log.CostUSD = float64Ptr(c)
			}
		case "error":
			errText = v.Get("text").Str()
		default:
			b.unknownEvent()
		}
	})
	if err != nil {
		return nil, err
	}
	// Seal every command to learn the first failure; finish seals nothing
	// more. The runner is the "agent": its summary text is the agent text.
	// A SUCCESS counts only when the commands agree with it.
	b.cmds.sealAll()
	if f == nil && setupFailed != nil {
		f = setupFailure(setupFailed)
	}
	reason := ""
	if f != nil {
		reason = f.text
		if planned > commands {
			reason += "; " + notReached(planned-commands, planned)
		}
		if h := runnerHint(engine, f.kind); h != "" {
			reason += "; " + h
		}
		if f.detail != "" {
			reason += ":\n" + f.detail
		}
	}
	if sawSummary && reason == "" {
		b.agentText(summary)
	}
	switch {
	case reason != "":
	case errText != "":
		reason = errText
	case !sawSummary && commands == 0:
		reason = "the transcript is empty: the runner did not start"
	case !sawSummary:
		reason = "the run ended without the runner's summary (it was killed)"
	case !strings.HasPrefix(strings.TrimSpace(summary), "SUCCESS"):
		reason = strings.TrimSpace(strings.TrimPrefix(summary, "FAILED:"))
	}
	return b.done(b.finish(reason))
}

// notReached says how many planned commands the run did not reach.
func notReached(n, planned int) string {
	if n == 1 {
		return fmt.Sprintf("1 of %d planned commands was not reached", planned)
	}
	return fmt.Sprintf("%d of %d planned commands were not reached", n, planned)
}

// failure is why a runner transcript failed: text names the command and
// what went wrong, kind selects the advice (runnerHint), detail (a diff)
// goes last.
type failure struct {
	text, kind, detail string
}

func setupFailure(s *runnerSetup) *failure {
	what := "exited with " + runnerExitText(s.exitCode)
	if s.timedOut {
		what = "timed out"
	}
	out := strings.TrimSpace(s.output)
	if len(out) > 400 {
		out = "…" + out[len(out)-400:]
	}
	if out != "" {
		out = ": " + out
	}
	return &failure{text: fmt.Sprintf("%s: the setup hint's command %s %s, so the block did not run%s", s.where, quoteCommand(s.command), what, out), kind: "setup"}
}

// runnerHint is the advice added to a failure of the keyless engines,
// by engine and by the kind of failure: "exit" (a command failed),
// "unfinished", "timeout", "shell" (it ended the shell), "output" and
// "expected-exit" (a hint's check), "setup", "network" (a host could not
// be reached). It is "" when no advice
// helps. The sandbox's own limits (a full disk, no network) may make it
// say something else one day: this is the one place to change.
func runnerHint(engine, kind string) string {
	switch {
	case engine == ReplayName:
		return "the replay engine re-runs an earlier run's successful commands; when the repository changed since, re-record the log with an AI engine"
	case kind == "timeout" || kind == "output" || kind == "expected-exit" || kind == "setup" || kind == "shell-ended" || kind == "runaway" || kind == "network":
		return ""
	}
	return fmt.Sprintf("the %s engine runs only what the README's code blocks say; if this step needs prose understanding (a value to fill in, a file to edit, an unwritten prerequisite), try an AI engine such as --engine %s", engine, ClaudeCodeName)
}

// RunnerAdvice is the advice the keyless engine adds to the reason of a
// failed command (kind "exit"): the pipeline takes it out again when the
// sandbox, not the README, made the command fail.
func RunnerAdvice(engine string) string { return runnerHint(engine, "exit") }

// runnerVerdict says why a command failed the run — it failed without
// being allowed to, or did not finish — or nil when it passed. The
// builder calls it for every command in order as it seals them, so the
// first verdict is the run's. ran holds the install lines whose commands
// ran and passed before c.
func runnerVerdict(c *commandlog.Command, st *runnerStart, engine string, installs []runInstall, ran map[int]bool) *failure {
	q := quoteCommand(runnerFirstLine(c.Command))
	expected := st.expectedExit != nil && c.ExitCode != nil && *c.ExitCode == *st.expectedExit
	switch {
	case c.Status == commandlog.StatusUnknown:
		why := "did not finish (the run was killed or timed out)"
		if !st.background && engine == MarkdownName {
			why += "; if it starts a server, mark its block <!-- readme2demo: background ready=\"…\" -->"
		}
		return &failure{text: fmt.Sprintf("%s: %s %s", st.where, q, why), kind: "unfinished"}
	case st.timedOut && !st.allowFailure:
		return &failure{text: fmt.Sprintf("%s: %s timed out after %ds (raise it with <!-- readme2demo: timeout=… -->)", st.where, q, st.timeoutS), kind: "timeout"}
	case st.shellExited && (c.Status == commandlog.StatusFailed && !expected):
		return &failure{text: fmt.Sprintf("%s: %s ended the shell (exit %s)", st.where, q, runnerExitText(c.ExitCode)), kind: "exit"}
	case st.shellExited:
		return &failure{text: fmt.Sprintf("%s: %s ended the shell, so the rest of the README did not run", st.where, q), kind: "shell-ended"}
	case st.runaway > 0 && !st.allowFailure:
		return &failure{text: fmt.Sprintf("%s: %s left %d processes running when it ended (a fork bomb?); they were killed", st.where, q, st.runaway), kind: "runaway"}
	case st.allowFailure:
		return nil
	case st.outputMismatch:
		return &failure{text: fmt.Sprintf("%s: %s printed other output than the README shows (check-output)", st.where, q), kind: "output", detail: outputDiff(st, c)}
	case st.expectedExit != nil && !expected:
		return &failure{text: fmt.Sprintf("%s: %s exited with %s, but the README says it exits with %d (exit hint)", st.where, q, runnerExitText(c.ExitCode), *st.expectedExit), kind: "expected-exit"}
	case expected:
		return nil
	case c.Status == commandlog.StatusFailed:
		net, kind := networkNote(c.Output, c.Command, c.ExitCode), "exit"
		if net != "" {
			kind = "network" // an AI engine cannot reach the host either
		}
		return &failure{text: fmt.Sprintf("%s: %s exited with %s%s%s%s", st.where, q, runnerExitText(c.ExitCode), notFound(c, st, installs, ran), redirectNote(*c), net), kind: kind}
	}
	return nil
}

// notFoundRe finds bash's "command not found" message (after the runner's
// own path was replaced with "bash") and "No such file or directory" for a
// path that was run.
var notFoundRe = lazyre.New(`(?m)^bash: (?:line \d+: )?([^\s:]+): (?:command not found|No such file or directory)$`)

// notFound explains an exit code 127: which command was missing and, when
// a later README line installs it, which line; ran holds the README lines
// whose commands already ran and passed.
func notFound(c *commandlog.Command, st *runnerStart, installs []runInstall, ran map[int]bool) string {
	if c.ExitCode == nil || *c.ExitCode != 127 {
		return ""
	}
	m := notFoundRe.FindStringSubmatch(c.Output)
	if m == nil {
		return ""
	}
	missing := m[1]
	base := missing
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	out := fmt.Sprintf(" (%s: command not found)", missing)
	// A later line that the plan runs is the advice to give; a skipped one
	// only when no line that runs installs it.
	ordered := slices.Clone(installs)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Skipped == "" && ordered[j].Skipped != "" })
	for _, in := range ordered {
		if !strings.EqualFold(in.Tool, base) || in.Line == st.line {
			continue
		}
		if ran[in.Line] && in.Skipped == "" {
			// It ran first (install-first order, or earlier in the README)
			// and passed, yet the program is not there.
			return out + fmt.Sprintf("; line %d (%s) ran before it and passed, but did not put %s on the PATH (the package may install it under another name)", in.Line, quoteCommand(in.Command), base)
		}
		if in.Line > st.line {
			if in.Skipped != "" {
				return out + fmt.Sprintf("; line %d would install it, but the plan skips it (%s)", in.Line, in.Skipped)
			}
			return out + fmt.Sprintf("; line %d installs it (%s), later in the README: move that step before line %d, or run with --order install-first", in.Line, quoteCommand(in.Command), st.line)
		}
		if in.Skipped != "" {
			return out + fmt.Sprintf("; line %d would install it, but the plan skips it (%s)", in.Line, in.Skipped)
		}
	}
	return out
}

// networkRe finds the messages of tools that could not reach a host:
// curl, wget, git, the Go command, npm, pip (Python's resolver) and cargo.
var networkRe = lazyre.New(`(?m)curl: \((?:6|7|28|35)\) .*?(?:host:? ([\w.-]+)|$)|[Cc]ould not resolve host:? '?([\w.-]+)|unable to resolve host address ['‘]?([\w.-]+)|Temporary failure in name resolution|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)|dial tcp: lookup ([\w.-]+)|reading (https://[\w.-]+)/\S*: 403 Forbidden|Network is unreachable|Failed to connect to ([\w.-]+)|host='([\w.-]+)', port=\d+\): Max retries exceeded|Name or service not known|failed to resolve address for ([\w.-]+)|lookup ([\w.-]+)(?: on [\d.:]+)?: no such host`)

// networkNote says that a failure came from the network: the host could
// not be reached from the sandbox, which is about where the run happens,
// not about the README.
func networkNote(output, command string, code *int) string {
	host := ""
	u := urlInRe.FindStringSubmatch(command)
	if ms := networkRe.FindAllStringSubmatch(output, -1); ms != nil {
		for _, m := range ms { // the first message that names a host
			for _, g := range m[1:] {
				if g != "" && host == "" {
					host = strings.TrimPrefix(g, "https://")
				}
			}
		}
		if host == "" && u != nil && strings.Count(command, "://") == 1 {
			host = u[1] // the one host the command names
		}
	} else if code != nil && quietNetworkFailure(command, *code) {
		// Quiet downloads say it by their exit code alone: curl 6 (host not
		// resolved), 7 (no connection), 28 (timeout); wget 4 (network).
		if u != nil {
			host = u[1]
		}
	} else {
		return ""
	}
	if host == "" {
		host = "the network"
	}
	return "; it could not reach " + host + " (check that the sandbox can reach the hosts the README downloads from)"
}

// urlInRe finds the host of the first URL in a command.
var urlInRe = lazyre.New(`https?://([\w.-]+)`)

// quietNetworkFailure reports curl's and wget's exit codes for a network
// failure, for a command that runs one of them.
func quietNetworkFailure(command string, code int) bool {
	fields := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '|' || r == ';' || r == '&' || r == '(' || r == '"' })
	for _, f := range fields {
		switch f {
		case "curl":
			if code == 6 || code == 7 || code == 28 {
				return true
			}
		case "wget":
			if code == 4 {
				return true
			}
		}
	}
	return false
}

// maxDiffLines caps the diff a check-output failure shows.
const maxDiffLines = 40

// outputDiff is the unified diff between the output the README shows and
// the output the command printed.
func outputDiff(st *runnerStart, c *commandlog.Command) string {
	if st.expect == nil {
		return ""
	}
	exp := normalizeOutput(*st.expect)
	got := normalizeOutput(c.Output)
	name := "README"
	if st.expectLine > 0 {
		name = fmt.Sprintf("README (line %d on; a line \"...\" matches any lines)", st.expectLine)
	}
	d, err := textdiff.Unified(name, "output", exp, got)
	if err != nil {
		return "the output differs from the README's; too large to show the difference: " + err.Error()
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines], fmt.Sprintf("… %d more diff lines", len(lines)-maxDiffLines))
	}
	return strings.Join(lines, "\n")
}

// normalizeOutput drops trailing white space from every line and trailing
// blank lines, as the runner's comparison does.
func normalizeOutput(s string) string {
	ls := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r\v\f")
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return strings.Join(ls, "\n") + "\n"
}

// quoteCommand quotes a command as written, for a reason: in backticks, or
// in double quotes when it holds a backtick. Nothing is escaped.
func quoteCommand(s string) string {
	if strings.Contains(s, "`") {
		return `"` + s + `"`
	}
	return "`" + s + "`"
}

func runnerExitText(code *int) string {
	if code == nil {
		return "an unknown status"
	}
	return strconv.Itoa(*code)
}

func runnerFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// runnerOutput decodes a record's base64 output head and tail, and replaces
// the runner's own script path in bash's error messages ("/readme2demo/
// prompt.md: line 230: foo: command not found") with "bash" (as an
// interactive bash prints "bash: foo: command not found").
func runnerOutput(v *jsonv.Value, script string) (string, int64) {
	head := stripRunnerPath(runnerDecodeB64(v.Get("output_head_b64")), script)
	tail := stripRunnerPath(runnerDecodeB64(v.Get("output_tail_b64")), script)
	omitted, _ := v.Get("output_omitted").Int()
	if omitted < 0 {
		omitted = 0
	}
	return head + tail, omitted
}

// stripRunnerPath rewrites "SCRIPT: line N: " and "SCRIPT: eval: line N: "
// at the start of a line to "bash: ".
func stripRunnerPath(s, script string) string {
	if script == "" || !strings.Contains(s, script) {
		return s
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(script) + `: (?:eval: )?(?:line \d+: )?`)
	return re.ReplaceAllString(s, "bash: ")
}

// runnerDecodeB64 decodes what it can of a base64 string; a damaged or
// clipped one gives its decodable prefix.
func runnerDecodeB64(v *jsonv.Value) string {
	s := v.Str()
	if s == "" {
		return ""
	}
	if out, err := base64.StdEncoding.DecodeString(s); err == nil && v.Omitted == 0 {
		return string(out)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, _ := base64.StdEncoding.Decode(out, []byte(s[:len(s)/4*4]))
	return string(out[:n])
}
