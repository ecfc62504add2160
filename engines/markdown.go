package engines

// Markdown engine: no LLM, no key. It runs the README's shell code blocks
// in order, in ONE bash session (so `cd` and `export` carry over), each
// command line of a block being one command with its own exit code and
// output.
//
// How a run works (the contract with the pipeline):
//
//  1. The pipeline sees that the engine implements InputPreparer and calls
//     PrepareInput with the README's name and bytes instead of rendering the
//     AI prompt. PrepareInput extracts the blocks (internal/readme: goldmark,
//     hints in HTML comments) and returns a self-contained bash script, the
//     "runner", with the plan embedded: each command, its README line, its
//     timeout, whether a failure stops the run, background + readiness check.
//  2. The pipeline copies those bytes to PromptContainerPath, as it copies
//     the prompt for AI engines, and execs BuildCommand with bash -lc. The
//     runner starts in WorkspaceContainerPath, writes the transcript to
//     TranscriptContainerPath and its own stderr to StderrContainerPath, and
//     prints one progress line per command on stdout.
//  3. ParseTranscript (pure) turns the transcript into the command log.
//
// Transcript format (written by our own runner, format version 1): JSONL,
// one record per line, "type" is
//
//	plan        {runner, engine, origin, steps}            first record
//	note, skip  {line, text}                                hints not understood, skipped blocks
//	start       {id, command, file, line, timeout_s, allow_failure, background, ready}
//	end         {id, exit_code, duration_ms, timed_out, shell_exited,
//	             output_head_b64, output_tail_b64, output_omitted}
//	background_output {id, output_head_b64, output_tail_b64, output_omitted}  output of a background
//	            command when it was stopped at the end of the run
//	stop        {id}                                        the run stopped after this failed command
//	summary     {text, duration_ms, cost_usd}               last record; text is the runner's "agent
//	            text": SUCCESS when every command passed, else why not
//	error       {text}                                      the input was not a runner
//
// Output is base64 so any bytes survive; the runner keeps the first 64 KiB
// and the last 16 KiB of a command's output and says how much it left out;
// the parser then applies the usual head 3 KiB + tail 1 KiB truncation.
//
// Drift and damage tolerance: records are read with internal/jsonv
// (malformed lines counted and skipped, unknown types counted); a start
// without an end (the sandbox killed the run) stays "unknown" with a null
// exit code; a SUCCESS summary counts only if the transcript agrees (every
// command ended and passed, or was allowed to fail): a README command that
// appends a forged SUCCESS record to the transcript cannot make a run pass.
// Outcome: success when every command passed, failed otherwise, with
// outcome_reason naming the first failing README line.
//
// Runner behaviour worth knowing (docs/engines/markdown.md has the user
// view): stdin is /dev/null; the run stops at the first failing command
// unless its block says continue-on-error; each command has a timeout
// (default DefaultCommandTimeout, hint timeout=30s) after which its
// processes are killed and it fails with exit code 124; background blocks
// run in a subshell, wait for their readiness check, and are stopped at the
// end; `exit` or `set -e` ending the shell ends the run at that command.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/readme"
)

var _ AgentEngine = (*markdownEngine)(nil)
var _ InputPreparer = (*markdownEngine)(nil)

// MarkdownName is the --engine value of the keyless markdown engine.
const MarkdownName = "markdown"

// DefaultCommandTimeout bounds one command of the keyless engines when the
// README gives no timeout hint. A command that starts a server without the
// background hint fails after this long instead of eating the whole run.
const DefaultCommandTimeout = 10 * time.Minute

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
	// Limits are the run's limits.
	Limits Limits
}

type markdownEngine struct{}

func (*markdownEngine) Name() string { return MarkdownName }

// RequiredEnv is empty: the markdown engine needs no credentials.
func (*markdownEngine) RequiredEnv() []string { return nil }

// ResolveEnv forwards nothing.
func (*markdownEngine) ResolveEnv(func(string) string) (map[string]string, error) {
	return map[string]string{}, nil
}

// BuildCommand runs the runner script the pipeline copied to
// PromptContainerPath.
func (*markdownEngine) BuildCommand(Limits) string { return runnerCommand() }

func (e *markdownEngine) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return parseRunnerTranscript(e.Name(), r, nil)
}

func (e *markdownEngine) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	return parseRunnerTranscript(e.Name(), r, s)
}

// PrepareInput turns the README into the runner script.
func (e *markdownEngine) PrepareInput(in RunInput) ([]byte, error) {
	return renderRunner(markdownPlan(in), canonicalRunnerPaths()), nil
}

// markdownPlan lists the README's commands to run.
func markdownPlan(in RunInput) runPlan {
	name := in.ReadmeName
	if name == "" {
		name = "README.md"
	}
	plan := runPlan{Engine: MarkdownName, Origin: name}
	for _, b := range readme.Extract(in.Readme) {
		for _, p := range b.Hints.Problems {
			plan.Notes = append(plan.Notes, runNote{Line: b.Line, Text: "readme2demo hint: " + p})
		}
		if !b.Run {
			if b.Hints.Skip && len(b.Commands) > 0 {
				plan.Skipped = append(plan.Skipped, runNote{Line: b.Line, Text: "skipped by <!-- readme2demo: skip -->"})
			}
			continue
		}
		if b.Hints.Background {
			// One background job per block: its commands share one subshell.
			if len(b.Commands) == 0 {
				continue
			}
			texts := make([]string, len(b.Commands))
			for i, c := range b.Commands {
				texts[i] = c.Text
			}
			plan.Steps = append(plan.Steps, runStep{
				Command: strings.Join(texts, "\n"), File: name, Line: b.Commands[0].Line,
				Timeout: runnerOrDefault(b.Hints.Timeout, DefaultReadyTimeout), AllowFailure: b.Hints.ContinueOnError,
				Background: true, Ready: b.Hints.Ready,
			})
			continue
		}
		for _, c := range b.Commands {
			plan.Steps = append(plan.Steps, runStep{
				Command: c.Text, File: name, Line: c.Line,
				Timeout: runnerOrDefault(b.Hints.Timeout, DefaultCommandTimeout), AllowFailure: b.Hints.ContinueOnError,
			})
		}
	}
	if len(plan.Steps) == 0 {
		plan.EmptyReason = fmt.Sprintf("%s has no shell code block to run (```sh, ```bash, ```shell or ```console with $ prompts); the markdown engine runs only code blocks: try an AI engine such as --engine %s", name, ClaudeCodeName)
	}
	return plan
}

func runnerOrDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// runnerMagic is the runner script's second line; BuildCommand refuses to
// run a prompt file without it (an AI prompt copied by mistake).
const runnerMagic = "# readme2demo-runner v1"

// runnerVersion is the transcript format version, reported as the agent
// version of the keyless engines.
const runnerVersion = "readme2demo-runner/1"

// runnerCommand is the BuildCommand of the keyless engines.
func runnerCommand() string {
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
	Skipped     []runNote
	Notes       []runNote
	EmptyReason string // the failure to report when there are no steps
}

type runStep struct {
	Command      string
	File         string // source file, "" when unknown
	Line         int    // source line, 0 when unknown
	Timeout      time.Duration
	AllowFailure bool
	Background   bool
	Ready        string
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
}

func canonicalRunnerPaths() runnerPaths {
	return runnerPaths{Transcript: TranscriptContainerPath, Workspace: WorkspaceContainerPath}
}

// jsonLine encodes a record for the runner to print verbatim.
func runnerJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and bools always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// renderRunner writes the runner script for a plan.
func renderRunner(p runPlan, paths runnerPaths) []byte {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n" + runnerMagic + "\n")
	fmt.Fprintf(&b, "# Generated by readme2demo's %s engine from %s: runs %d command(s) in one bash\n", p.Engine, p.Origin, len(p.Steps))
	b.WriteString("# session and writes a JSONL transcript. Do not edit; regenerate instead.\n")
	fmt.Fprintf(&b, "__r2d_transcript=%s\n__r2d_workspace=%s\n", ShellQuote(paths.Transcript), ShellQuote(paths.Workspace))
	b.WriteString(runnerPrelude)
	b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(map[string]any{
		"type": "plan", "runner": runnerVersion, "engine": p.Engine, "origin": p.Origin, "steps": len(p.Steps),
	})) + "\n")
	for _, n := range p.Notes {
		b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(map[string]any{"type": "note", "line": n.Line, "text": n.Text})) + "\n")
	}
	for _, n := range p.Skipped {
		b.WriteString("__r2d_emit " + ShellQuote(runnerJSON(map[string]any{"type": "skip", "line": n.Line, "text": n.Text})) + "\n")
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
		rec := map[string]any{
			"type": "start", "id": id, "command": s.Command, "file": s.File, "line": s.Line,
			"timeout_s": int(s.Timeout.Seconds()), "allow_failure": s.AllowFailure, "background": s.Background,
		}
		if s.Ready != "" {
			rec["ready"] = s.Ready
		}
		allow := "0"
		if s.AllowFailure {
			allow = "1"
		}
		timeout := strconv.Itoa(max(1, int(s.Timeout.Seconds())))
		fmt.Fprintf(&b, "\n# step %s (%s)\n", id, where)
		fmt.Fprintf(&b, "__r2d_c=%s\n", ShellQuote(s.Command))
		if s.Background {
			fmt.Fprintf(&b, "__r2d_begin %s 0 %s %s %s\n", id, allow, ShellQuote(where), ShellQuote(runnerJSON(rec)))
			b.WriteString("( trap - EXIT; eval \"$__r2d_c\" ) </dev/null >\"$__r2d_tmp/bg$__r2d_cur\" 2>&1 &\n")
			fmt.Fprintf(&b, "__r2d_background $! %s %s\n", ShellQuote(s.Ready), timeout)
			continue
		}
		fmt.Fprintf(&b, "__r2d_begin %s %s %s %s %s\n", id, timeout, allow, ShellQuote(where), ShellQuote(runnerJSON(rec)))
		b.WriteString("__r2d_rc=0; { eval \"$__r2d_c\"; } </dev/null >\"$__r2d_tmp/out\" 2>&1 || __r2d_rc=$?\n")
		b.WriteString("__r2d_end \"$__r2d_rc\"\n")
	}
	b.WriteString("\n__r2d_finish\n")
	return []byte(b.String())
}

// runnerPrelude holds the runner's helper functions. They use only bash
// builtins, /proc and coreutils (base64, head, tail, wc, sleep, mktemp), and
// survive a README that sets -e, -u or pipefail: every helper switches them
// off and restores them.
const runnerPrelude = `
__r2d_tmp=$(mktemp -d 2>/dev/null) || { __r2d_tmp=/tmp/readme2demo-runner.$$; mkdir -p "$__r2d_tmp"; }
: > "$__r2d_transcript" || exit 2
__r2d_cur=
__r2d_done=0
__r2d_failed=0
__r2d_fail_reason=
__r2d_bg_ids=
__r2d_bg_pids=
__r2d_wd=
__r2d_t0=
__r2d_emit() { printf '%s\n' "$1" >> "$__r2d_transcript"; }
# __r2d_clock: sets __r2d_ms to the time in milliseconds (no fork on bash 5).
__r2d_clock() {
	local t=${EPOCHREALTIME:-}
	if [ -n "$t" ]; then t=${t/[.,]/}; __r2d_ms=$(( 10#$t / 1000 )); else __r2d_ms=$(date +%s%3N); fi
}
__r2d_clock; __r2d_run_t0=$__r2d_ms
# __r2d_encode FILE: sets __r2d_head, __r2d_tail (base64) and __r2d_omit.
__r2d_encode() {
	local size
	size=$(wc -c < "$1" 2>/dev/null); size=${size//[^0-9]/}; size=${size:-0}
	__r2d_tail=; __r2d_omit=0
	if [ "$size" -le 81920 ]; then
		__r2d_head=$(base64 -w0 < "$1" 2>/dev/null)
	else
		__r2d_head=$(head -c 65536 "$1" | base64 -w0)
		__r2d_tail=$(tail -c 16384 "$1" | base64 -w0)
		__r2d_omit=$(( size - 81920 ))
	fi
}
# __r2d_tree ROOT SKIP...: sets __r2d_found to the descendants of ROOT, not
# entering the subtrees of the SKIP pids.
__r2d_tree() {
	local queue=$1 cur p stat rest ppid skip=" ${*:2} "
	__r2d_found=
	while [ -n "$queue" ]; do
		cur=${queue%% *}
		if [ "$cur" = "$queue" ]; then queue=; else queue=${queue#* }; fi
		for p in /proc/[0-9]*; do
			p=${p#/proc/}
			case "$skip" in *" $p "*) continue ;; esac
			{ read -r stat < "/proc/$p/stat"; } 2>/dev/null || continue
			rest=${stat##*) }
			ppid=${rest#* }; ppid=${ppid%% *}
			if [ "$ppid" = "$cur" ]; then
				__r2d_found="$__r2d_found $p"
				queue="${queue:+$queue }$p"
			fi
		done
	done
}
__r2d_kill() { # PIDS: TERM, a grace period, then KILL
	[ -n "${1// /}" ] || return 0
	kill -TERM $1 2>/dev/null
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		local alive= p
		for p in $1; do if kill -0 "$p" 2>/dev/null; then alive=1; fi; done
		[ -n "$alive" ] || return 0
		sleep 0.2
	done
	kill -KILL $1 2>/dev/null
	return 0
}
__r2d_save() { __r2d_opts=$(set +o); set +euo pipefail; }
__r2d_restore() { eval "$__r2d_opts"; }
# __r2d_begin ID TIMEOUT_S ALLOW WHERE START_RECORD
__r2d_begin() {
	__r2d_save
	__r2d_cur=$1; __r2d_allow=$3; __r2d_where=$4
	__r2d_emit "$5"
	printf '[readme2demo] %s $ %s\n' "$__r2d_where" "${__r2d_c%%$'\n'*}"
	rm -f "$__r2d_tmp/timedout" "$__r2d_tmp/out"
	__r2d_wd=
	if [ "$2" -gt 0 ]; then
		# The watchdog: after the timeout it kills what the command started
		# (not the session itself, not background jobs), and keeps doing so
		# until the command ends, so a loop of commands ends too.
		(
			trap - EXIT
			exec </dev/null >/dev/null 2>&1
			__r2d_s=
			trap 'kill $__r2d_s 2>/dev/null; exit 0' TERM
			sleep "$2" & __r2d_s=$!; wait $__r2d_s
			: > "$__r2d_tmp/timedout"
			while :; do
				__r2d_tree $$ $BASHPID $__r2d_bg_pids
				__r2d_kill "$__r2d_found"
				sleep 1 & __r2d_s=$!; wait $__r2d_s
			done
		) &
		__r2d_wd=$!
	fi
	__r2d_restore
	__r2d_clock; __r2d_t0=$__r2d_ms
}
__r2d_stop_watchdog() {
	if [ -n "$__r2d_wd" ]; then
		kill -TERM "$__r2d_wd" 2>/dev/null
		wait "$__r2d_wd" 2>/dev/null
		__r2d_wd=
	fi
}
# __r2d_record_end RC OUTFILE TIMED_OUT SHELL_EXITED
__r2d_record_end() {
	local dur=$(( ${__r2d_t1:-0} - ${__r2d_t0:-0} ))
	__r2d_encode "$2"
	__r2d_emit "{\"type\":\"end\",\"id\":\"$__r2d_cur\",\"exit_code\":$1,\"duration_ms\":$dur,\"timed_out\":$3,\"shell_exited\":$4,\"output_omitted\":$__r2d_omit,\"output_head_b64\":\"$__r2d_head\",\"output_tail_b64\":\"$__r2d_tail\"}"
	printf '[readme2demo] %s -> exit %s (%s ms)\n' "$__r2d_where" "$1" "$dur"
	if [ "$1" -ne 0 ] && [ "$__r2d_allow" != 1 ] && [ "$__r2d_failed" = 0 ]; then
		__r2d_failed=1
		if [ "$3" = true ]; then
			__r2d_fail_reason="$__r2d_where timed out"
		else
			__r2d_fail_reason="$__r2d_where exited with $1"
		fi
	fi
}
# __r2d_end RC: after a foreground command.
__r2d_end() {
	local rc=$1 timed=false
	__r2d_clock; __r2d_t1=$__r2d_ms
	__r2d_save
	__r2d_stop_watchdog
	if [ -e "$__r2d_tmp/timedout" ]; then timed=true; rc=124; fi
	__r2d_record_end "$rc" "$__r2d_tmp/out" "$timed" false
	local id=$__r2d_cur
	__r2d_cur=
	if [ "$__r2d_failed" = 1 ]; then
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$id\"}"
		__r2d_finish
	fi
	__r2d_restore
}
# __r2d_background PID READY TIMEOUT_S: wait until READY succeeds (or, with
# no READY, two seconds), the job dies, or the timeout passes.
__r2d_background() {
	local pid=$1 ready=$2 limit=$3 rc= timed=false deadline
	__r2d_save
	__r2d_bg_ids="$__r2d_bg_ids $__r2d_cur"
	__r2d_bg_pids="$__r2d_bg_pids $pid"
	eval "__r2d_bg_pid_$__r2d_cur=$pid"
	if [ -z "$ready" ]; then limit=2; fi
	__r2d_clock; deadline=$(( __r2d_ms + limit * 1000 ))
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"; rc=$?
			if [ -n "$ready" ] && [ "$rc" = 0 ] && ! ( eval "$ready" ) </dev/null >/dev/null 2>&1; then rc=1; fi
			break
		fi
		if [ -n "$ready" ]; then
			if command -v timeout >/dev/null 2>&1; then
				timeout 10 bash -c "$ready" </dev/null >/dev/null 2>&1 && { rc=0; break; }
			else
				( eval "$ready" ) </dev/null >/dev/null 2>&1 && { rc=0; break; }
			fi
		fi
		__r2d_clock
		if [ "$__r2d_ms" -ge "$deadline" ]; then
			if [ -n "$ready" ]; then rc=124; timed=true; else rc=0; fi
			break
		fi
		sleep 0.5
	done
	__r2d_clock; __r2d_t1=$__r2d_ms
	__r2d_record_end "$rc" "$__r2d_tmp/bg$__r2d_cur" "$timed" false
	local id=$__r2d_cur
	__r2d_cur=
	if [ "$__r2d_failed" = 1 ]; then
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$id\"}"
		__r2d_finish
	fi
	__r2d_restore
}
# __r2d_finish: stop background jobs, write the summary, exit.
__r2d_finish() {
	set +euo pipefail
	__r2d_done=1
	__r2d_stop_watchdog
	local id pid
	for id in $__r2d_bg_ids; do
		eval "pid=\${__r2d_bg_pid_$id}"
		__r2d_tree "$pid"
		__r2d_kill "$pid $__r2d_found"
		wait "$pid" 2>/dev/null
		__r2d_encode "$__r2d_tmp/bg$id"
		__r2d_emit "{\"type\":\"background_output\",\"id\":\"$id\",\"output_omitted\":$__r2d_omit,\"output_head_b64\":\"$__r2d_head\",\"output_tail_b64\":\"$__r2d_tail\"}"
	done
	# Anything else the README left running.
	__r2d_tree $$
	__r2d_kill "$__r2d_found"
	local text=SUCCESS rc=0
	if [ "$__r2d_failed" = 1 ] || [ -n "$__r2d_fail_reason" ]; then text="FAILED: $__r2d_fail_reason"; rc=1; fi
	text=${text//\\/\\\\}; text=${text//\"/\\\"}
	__r2d_clock
	__r2d_emit "{\"type\":\"summary\",\"text\":\"$text\",\"duration_ms\":$(( __r2d_ms - __r2d_run_t0 )),\"cost_usd\":0}"
	rm -rf "$__r2d_tmp"
	printf '[readme2demo] %s\n' "$text"
	exit "$rc"
}
# A README command that ends the shell (exit, set -e) ends the run there.
__r2d_on_exit() {
	local rc=$?
	[ "$__r2d_done" = 1 ] && return
	set +euo pipefail
	if [ -n "$__r2d_cur" ]; then
		__r2d_clock; __r2d_t1=$__r2d_ms
		__r2d_stop_watchdog
		__r2d_record_end "$rc" "$__r2d_tmp/out" false true
		__r2d_failed=1
		__r2d_fail_reason="$__r2d_where ended the shell (exit $rc)"
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$__r2d_cur\"}"
	fi
	__r2d_finish
}
trap __r2d_on_exit EXIT
cd "$__r2d_workspace" || { __r2d_fail_reason="cannot cd to $__r2d_workspace"; __r2d_finish; }
`

// ---- parsing -------------------------------------------------------------

// runnerStart remembers what a start record said about a command.
type runnerStart struct {
	where        string
	allowFailure bool
	timedOut     bool
	shellExited  bool
	timeoutS     int64
	background   bool
}

// parseRunnerTranscript parses the runner transcript of the markdown and
// replay engines.
func parseRunnerTranscript(engine string, r io.Reader, sink Sink) (*commandlog.Log, error) {
	b := newLogBuilderTo(engine, sink)
	// starts holds the open commands' start records; a command's verdict is
	// decided when the builder seals it, in README order, so the first
	// failure is found without keeping every command.
	starts := map[string]*runnerStart{}
	failure, commands := "", 0
	b.onSeal = func(c *commandlog.Command) {
		st := starts[c.ID]
		delete(starts, c.ID)
		if st != nil && failure == "" {
			failure = runnerVerdict(c, st, engine)
		}
	}
	var summary, errText string
	sawSummary := false
	err := readRecords(r, jsonv.Options{}, b, func(v *jsonv.Value) {
		b.record()
		switch v.Get("type").Str() {
		case "plan":
			if ver := v.Get("runner").Str(); ver != "" {
				b.log.AgentVersion = stringPtr(ver)
			}
		case "note", "skip":
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
			st := &runnerStart{allowFailure: v.Get("allow_failure").True(), background: v.Get("background").True()}
			st.timeoutS, _ = v.Get("timeout_s").Int()
			file := v.Get("file").Str()
			line, _ := v.Get("line").Int()
			if file != "" && line > 0 {
				st.where = fmt.Sprintf("%s line %d", file, line)
			} else {
				st.where = fmt.Sprintf("command %s", id)
			}
			starts[id] = st
			commands++
			b.command(id, cmd, "")
			if file != "" && line > 0 {
				b.setSource(id, &commandlog.Source{File: file, Line: int(line)})
			}
		case "end":
			id := v.Get("id").Str()
			st, ok := starts[id]
			if !ok {
				b.unknownEvent()
				return
			}
			res := cmdResult{}
			res.Output, res.Omitted = runnerOutput(v)
			if code, ok := v.Get("exit_code").Int(); ok {
				res.ExitCode = intPtr(int(code))
			}
			if d, ok := v.Get("duration_ms").Int(); ok && d >= 0 {
				res.DurationMS = int64Ptr(d)
			}
			st.timedOut = v.Get("timed_out").True()
			st.shellExited = v.Get("shell_exited").True()
			res.Failed = st.timedOut
			b.result(id, res)
		case "background_output":
			out, omitted := runnerOutput(v)
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
	// more.
	b.cmds.sealAll()
	// The runner is the "agent": its summary text is the agent text. A
	// SUCCESS counts only when the commands agree with it.
	reason := failure
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

// runnerVerdict says why a command failed the run — it failed without
// being allowed to, or did not finish — or "" when it passed.
func runnerVerdict(c *commandlog.Command, st *runnerStart, engine string) string {
	hint := fmt.Sprintf("the %s engine runs only what the README's code blocks say; if this step needs prose understanding (a value to fill in, a file to edit, an unwritten prerequisite), try an AI engine such as --engine %s", engine, ClaudeCodeName)
	if engine == ReplayName {
		hint = "the replay engine re-runs an earlier run's successful commands; when the repository changed since, re-record the log with an AI engine"
	}
	q := strconv.Quote(runnerFirstLine(c.Command))
	switch {
	case c.Status == commandlog.StatusUnknown:
		why := "did not finish (the run was killed or timed out)"
		if !st.background {
			why += "; if it starts a server, mark its block <!-- readme2demo: background ready=\"…\" -->"
		}
		return fmt.Sprintf("%s: %s %s; %s", st.where, q, why, hint)
	case c.Status == commandlog.StatusFailed && st.allowFailure:
		return ""
	case c.Status == commandlog.StatusFailed && st.timedOut:
		return fmt.Sprintf("%s: %s timed out after %ds (raise it with <!-- readme2demo: timeout=… -->); %s", st.where, q, st.timeoutS, hint)
	case c.Status == commandlog.StatusFailed && st.shellExited:
		return fmt.Sprintf("%s: %s ended the shell (exit %s); %s", st.where, q, runnerExitText(c.ExitCode), hint)
	case c.Status == commandlog.StatusFailed:
		return fmt.Sprintf("%s: %s exited with %s; %s", st.where, q, runnerExitText(c.ExitCode), hint)
	case st.shellExited:
		return fmt.Sprintf("%s: %s ended the shell, so the rest of the README did not run", st.where, q)
	}
	return ""
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

// runnerOutput decodes a record's base64 output head and tail.
func runnerOutput(v *jsonv.Value) (string, int64) {
	head := runnerDecodeB64(v.Get("output_head_b64"))
	tail := runnerDecodeB64(v.Get("output_tail_b64"))
	omitted, _ := v.Get("output_omitted").Int()
	if omitted < 0 {
		omitted = 0
	}
	return head + tail, omitted
}

// decodeB64 decodes what it can of a base64 string; a damaged or clipped
// one gives its decodable prefix.
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

func init() { Register(&markdownEngine{}) }
