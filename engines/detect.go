package engines

// Auto-detection: which agent wrote a transcript, and in which of its
// formats, told from the content alone (never from the file name), and the
// test of whether an engine understood a transcript at all.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// Format is a transcript format an engine reads.
type Format struct {
	Engine string // the engine that reads it
	Name   string // what it is, e.g. "Codex session rollout"
}

func (f Format) String() string {
	if f.Engine == "" {
		return f.Name
	}
	return f.Name + " (engine " + f.Engine + ")"
}

// The formats Detect tells apart.
var (
	FormatClaudeStream   = Format{ClaudeCodeName, "Claude Code stream-json"}
	FormatClaudeArray    = Format{ClaudeCodeName, "Claude Code stream as a JSON array (claude-code-action)"}
	FormatClaudeSession  = Format{ClaudeCodeName, "Claude Code session file"}
	FormatCodexExec      = Format{CodexName, "Codex exec --json stream"}
	FormatCodexLegacy    = Format{CodexName, "Codex legacy exec --json stream (≤ 0.41)"}
	FormatCodexRollout   = Format{CodexName, "Codex session rollout"}
	FormatCodexTSSession = Format{CodexName, "Codex session file of the TypeScript CLI"}
	FormatGeminiStream   = Format{GeminiName, "Gemini CLI stream-json"}
	FormatGeminiJSON     = Format{GeminiName, "Gemini CLI --output-format json"}
	FormatGeminiSession  = Format{GeminiName, "Gemini CLI chat session file"}
	FormatOpenHandsV0    = Format{OpenHandsName, "OpenHands V0 events"}
	FormatOpenHandsV1    = Format{OpenHandsName, "OpenHands V1 events"}
	FormatOpenHandsPages = Format{OpenHandsName, "OpenHands V1 event search pages"}
	FormatOpenHandsEval  = Format{OpenHandsName, "OpenHands evaluation output"}
	FormatOpenHandsCLI   = Format{OpenHandsName, "OpenHands CLI --json output"}
	formatRunner         = Format{"", "readme2demo runner transcript"}
	FormatMarkdownRunner = Format{MarkdownName, "readme2demo markdown runner transcript"}
	FormatReplayRunner   = Format{ReplayName, "readme2demo replay runner transcript"}
)

// detectRecordsExamined is how many records Detect looks at, at most.
const detectRecordsExamined = 200

// Detect also stops once it has read detectBytesExamined of the transcript
// and looked at detectMinRecords records: records of OpenHands evaluation
// output are hundreds of KiB each, and decoding two hundred of them to name
// the format would cost as much as parsing them.
const (
	detectBytesExamined = 2 << 20
	detectMinRecords    = 5
)

// Detection is what Detect found in a transcript.
type Detection struct {
	Format  Format // the best match; zero when nothing matched
	Records int    // records examined
	Matched int    // of them, records of Format's engine
	Empty   bool   // the transcript holds no JSON record at all
}

// AmbiguousError is returned by Detect when the records match the formats
// of several engines about equally.
type AmbiguousError struct {
	Candidates []Format // best first
}

func (e *AmbiguousError) Error() string {
	return "cannot tell which agent wrote it: its records match " + e.list("") + "; pass --engine"
}

// list names the candidates, each after article, joined by "and".
func (e *AmbiguousError) list(article string) string {
	names := make([]string, len(e.Candidates))
	for i, f := range e.Candidates {
		names[i] = article + f.String()
	}
	return strings.Join(names, " and ")
}

// Detect reads the first records of a transcript (at most a couple of
// hundred, fewer once 2 MiB are read: five at least) and says which engine and format they are. Records are read as
// the OpenHands engine reads them, so text lines between JSON values do not
// count; the content decides, never a file name. Several engines matching
// with none holding more than two thirds of the matched records is an
// *AmbiguousError naming them. A transcript no engine recognises gives a
// Detection with a zero Format.
func Detect(r io.Reader) (Detection, error) {
	var d Detection
	counted := &countingReader{r: r}
	rd := jsonv.NewReader(counted, jsonv.Options{TextLines: true})
	defer rd.Close()
	byFormat := map[Format]int{}
	byEngine := map[string]int{}
	runner := ""
	count := func(f Format) {
		switch {
		case f == formatRunner:
		case f.Engine != "":
			byFormat[f]++
			byEngine[f.Engine]++
		}
	}
	for d.Records < detectRecordsExamined && (d.Records < detectMinRecords || counted.n < detectBytesExamined) {
		v, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			d.Records++
			continue
		}
		if err != nil {
			return d, fmt.Errorf("read transcript: %w", err)
		}
		d.Records++
		if v.Kind == jsonv.Array {
			for _, f := range classifyArray(v) {
				count(f)
			}
			continue
		}
		f := classifyRecord(v)
		if f == formatRunner && v.Get("type").Str() == "plan" {
			runner = v.Get("engine").Str()
		}
		count(f)
	}
	if bytes.Contains(counted.head, []byte("--JSON Event--")) && byEngine[OpenHandsName] > 0 {
		byFormat = map[Format]int{FormatOpenHandsCLI: byEngine[OpenHandsName]}
	}
	switch runner {
	case MarkdownName:
		count(FormatMarkdownRunner)
	case ReplayName:
		count(FormatReplayRunner)
	}
	d.Empty = d.Records == 0
	if len(byEngine) == 0 {
		return d, nil
	}
	var engines []string // most records first
	total := 0
	for e, n := range byEngine {
		engines = append(engines, e)
		total += n
	}
	sort.Slice(engines, func(i, j int) bool {
		a, b := engines[i], engines[j]
		return byEngine[a] > byEngine[b] || byEngine[a] == byEngine[b] && a < b
	})
	best := func(engine string) Format {
		var f Format
		n := -1
		for g, c := range byFormat {
			if g.Engine == engine && (c > n || c == n && g.Name < f.Name) {
				f, n = g, c
			}
		}
		return f
	}
	if len(engines) > 1 && byEngine[engines[0]]*3 <= total*2 {
		amb := &AmbiguousError{}
		for _, e := range engines {
			amb.Candidates = append(amb.Candidates, best(e))
		}
		return d, amb
	}
	d.Format, d.Matched = best(engines[0]), byEngine[engines[0]]
	return d, nil
}

// countingReader counts the bytes read through it and keeps the first 4
// KiB of them.
type countingReader struct {
	r    io.Reader
	n    int64
	head []byte
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if room := 4096 - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, n)]...)
	}
	return n, err
}

// classifyArray classifies a top-level JSON array by its elements: a Claude
// stream saved as an array, an OpenHands trajectory, a list of pages.
func classifyArray(v *jsonv.Value) []Format {
	var out []Format
	for i, e := range v.Items() {
		if i == 20 {
			break
		}
		if e.Kind == jsonv.Array { // an [action, observation] pair
			out = append(out, classifyArray(e)...)
			continue
		}
		f := classifyRecord(e)
		if f == FormatClaudeStream {
			f = FormatClaudeArray
		}
		out = append(out, f)
	}
	return out
}

var (
	codexExecTypes = map[string]bool{"thread.started": true, "turn.started": true, "turn.completed": true,
		"turn.failed": true, "item.started": true, "item.updated": true, "item.completed": true,
		"session.created": true, "item.plan.delta": true}
	claudeTypes = map[string]bool{"system": true, "assistant": true, "user": true, "result": true,
		"stream_event": true, "rate_limit_event": true, "control_request": true, "control_response": true}
	claudeSessionTypes = map[string]bool{"user": true, "assistant": true, "summary": true, "progress": true,
		"file-history-snapshot": true, "queue-operation": true, "system": true}
	runnerTypes = map[string]bool{"plan": true, "note": true, "skip": true, "start": true, "end": true,
		"background_output": true, "stop": true, "summary": true, "error": true}
)

// classifyRecord says which format one JSON record belongs to; the zero
// Format when none.
func classifyRecord(v *jsonv.Value) Format {
	if v.Kind != jsonv.Object {
		return Format{}
	}
	typ := v.Get("type").Str()
	switch {
	// Codex
	case isObject(v.Get("msg")) && v.Get("msg").Get("type").IsString():
		return FormatCodexLegacy
	case v.Has("payload") && codexRolloutLineTypes[typ]:
		return FormatCodexRollout
	case v.Has("record_type"), v.Has("id") && v.Has("timestamp") && v.Has("instructions") && !v.Has("type"):
		return FormatCodexRollout
	case isObject(v.Get("session")) && isArray(v.Get("items")) && !v.Has("type"):
		return FormatCodexTSSession
	case codexExecTypes[typ]:
		return FormatCodexExec
	case typ == "" && (v.Has("prompt") && len(v.Members()) == 1 ||
		v.Has("model") && (v.Has("sandbox") || v.Has("approval"))):
		return FormatCodexLegacy
	// Gemini
	case v.Get("sessionId").IsString() && (v.Has("projectHash") || isArray(v.Get("messages"))) && !v.Has("uuid"),
		isObject(v.Get("$set")), v.Get("$rewindTo").IsString():
		return FormatGeminiSession
	case v.Get("id").IsString() && v.Has("timestamp") && v.Has("content") && !v.Has("uuid") &&
		(typ == "gemini" || geminiMessageTypes[typ] && !v.Has("severity") && !v.Has("message")):
		return FormatGeminiSession
	case typ == "init" && v.Has("session_id"), typ == "tool_use" && v.Has("tool_id"),
		typ == "tool_result" && v.Has("tool_id"), typ == "result" && isObject(v.Get("stats")),
		typ == "message" && v.Has("role") && v.Get("content").IsString() && v.Has("timestamp"),
		typ == "error" && v.Has("severity"):
		return FormatGeminiStream
	case typ == "" && v.Has("response") && v.Has("stats"):
		return FormatGeminiJSON
	// Claude Code
	case v.Has("uuid") && v.Has("sessionId") && claudeSessionTypes[typ]:
		return FormatClaudeSession
	case claudeTypes[typ] && (isObject(v.Get("message")) || v.Has("subtype") || v.Has("session_id") ||
		v.Has("total_cost_usd") || v.Has("event") || v.Has("rate_limit_info") || v.Has("request")):
		return FormatClaudeStream
	// OpenHands
	case isEventPage(v):
		return FormatOpenHandsPages
	case isHistoryLine(v):
		return FormatOpenHandsEval
	case v.Get("kind").IsString() && (v1Kinds[v.Get("kind").Str()] || v.Has("source")):
		return FormatOpenHandsV1
	case v.Has("action") && (v.Get("action").IsString() || v.Has("args")), v.Get("observation").IsString():
		return FormatOpenHandsV0
	case wrappedEventList(v) != nil:
		for _, e := range wrappedEventList(v).Items() {
			if f := classifyRecord(e); f.Engine == OpenHandsName {
				return f
			}
		}
		return FormatOpenHandsV0
	// Codex rollout of the first generation: bare Responses API items
	case isBareResponseItem(v) && typ != "web_search_call":
		return FormatCodexRollout
	// readme2demo's own runner (markdown and replay engines)
	case runnerTypes[typ] && (typ != "plan" || strings.HasPrefix(v.Get("runner").Str(), "readme2demo-runner")):
		return formatRunner
	}
	return Format{}
}

func isArray(v *jsonv.Value) bool { return v != nil && v.Kind == jsonv.Array }

// NotUnderstoodError says that an engine could not make sense of most of a
// transcript: more than half of its records were unknown or malformed, or
// none was understood. It is what `readme2demo parse` refuses with exit
// status 4.
type NotUnderstoodError struct {
	File       string // the transcript, as the user named it
	Engine     string // the engine that read it ("" when none was found)
	Understood int    // records understood
	Total      int    // records read
	LooksLike  string // what the content looks like, e.g. "a Codex session rollout (engine codex)"
}

func (e *NotUnderstoodError) Error() string {
	what := "a " + e.Engine + " transcript"
	if e.Engine == "" {
		what = "a transcript of any engine (" + strings.Join(Names(), ", ") + ")"
	}
	return fmt.Sprintf("%s does not look like %s: %d of %d records understood; it looks like %s",
		e.File, what, e.Understood, e.Total, e.LooksLike)
}

// Understood counts the records of a parsed transcript the engine
// understood: the records read, less the malformed ones and the unknown
// events.
func Understood(l *commandlog.Log) (understood, total int) {
	s := l.ParseStats
	return max(0, s.Lines-s.Malformed-s.UnknownEvents), s.Lines
}

// Misunderstood reports whether an engine did not understand a transcript:
// no record understood, or more than half of them not.
func Misunderstood(understood, total int) bool {
	return understood == 0 || (total-understood)*2 > total
}

// LooksLike describes a detection for a NotUnderstoodError.
func LooksLike(d Detection, derr error) string {
	var amb *AmbiguousError
	switch {
	case errors.As(derr, &amb):
		return "a mix of " + amb.list("a ")
	case derr != nil:
		return "something that could not be read (" + derr.Error() + ")"
	case d.Empty:
		return "nothing: it holds no JSON record (an empty file, or plain text)"
	case d.Format.Engine == "":
		return fmt.Sprintf("none of the formats readme2demo reads (%d JSON records, none recognised)", d.Records)
	}
	return "a " + d.Format.String()
}
