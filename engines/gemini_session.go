package engines

// Gemini CLI chat session files (~/.gemini/tmp/<project>/chats/session-*),
// read by the gemini engine beside its stream-json transcript and merged into
// a run's command log by MergeSession. The format notes are at the top of
// gemini.go.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// SessionMerger is implemented by engines whose agent CLI writes, beside its
// transcript, a session file that states some things more exactly (Gemini
// CLI records every shell call's exit code there; its stream-json does
// not). BuildCommand leaves a copy of the file at SessionContainerPath when
// the CLI wrote one.
type SessionMerger interface {
	// MergeSession merges what session states more exactly into l, by tool
	// call id; a call the session does not cover stays as l says. It
	// returns how many commands changed. It is pure, like ParseTranscript.
	MergeSession(l *commandlog.Log, session io.Reader) (changed int, err error)
}

// SessionContainerPath is where BuildCommand of a SessionMerger copies the
// session file its CLI wrote.
const SessionContainerPath = ContainerDir + "/session.jsonl"

var _ SessionMerger = (*gemini)(nil)

// MergeSession merges a Gemini CLI session file into a log parsed from the
// stream-json of the same run: for each command the session records under
// the same tool call id, the exit code it states (the stream states one only
// for a command that printed nothing), its status when the session says more
// than "unknown" (a signal, an error), and its output when the stream has
// none (an output the stream left out because it was not plain text).
func (g *gemini) MergeSession(l *commandlog.Log, session io.Reader) (int, error) {
	s, err := g.ParseTranscript(session)
	if err != nil {
		return 0, fmt.Errorf("merge gemini session: %w", err)
	}
	byID := make(map[string]commandlog.Command, len(s.Commands))
	for _, c := range s.Commands {
		byID[c.ID] = c
	}
	changed := 0
	for i := range l.Commands {
		c := &l.Commands[i]
		sc, ok := byID[c.ID]
		if !ok || sc.Command != c.Command {
			continue
		}
		before := *c
		if sc.ExitCode != nil {
			c.ExitCode = intPtr(*sc.ExitCode)
		}
		if sc.Status != commandlog.StatusUnknown {
			c.Status = sc.Status
		}
		if c.Output == "" && sc.Output != "" {
			c.Output, c.Truncated = sc.Output, sc.Truncated
		}
		if c.DurationMS == nil && sc.DurationMS != nil {
			c.DurationMS = int64Ptr(*sc.DurationMS)
		}
		if !sameCommand(before, *c) {
			changed++
		}
	}
	return changed, nil
}

func sameCommand(a, b commandlog.Command) bool {
	eq := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return eq(a.ExitCode, b.ExitCode) && a.Status == b.Status && a.Output == b.Output &&
		(a.DurationMS == nil) == (b.DurationMS == nil)
}

// geminiSession is a session file being read: its messages in order (a
// later record with the same id replaces the earlier one), as the CLI's own
// loader rebuilds them.
type geminiSession struct {
	seen    bool
	ids     []string
	msgs    map[string]*jsonv.Value
	start   string
	updated string
}

// geminiMessageTypes are the message types of a session file.
var geminiMessageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// sessionRecord handles a record of a session file, reporting false when v
// is not one.
func (p *geminiParser) sessionRecord(v *jsonv.Value) bool {
	s := &p.session
	switch {
	case isObject(v.Get("$set")):
		s.init()
		set := v.Get("$set")
		if msgs := set.Get("messages"); msgs != nil && msgs.Kind == jsonv.Array {
			s.ids, s.msgs = nil, map[string]*jsonv.Value{} // a checkpoint: rebuilt from the list
			for _, m := range msgs.Items() {
				p.b.record()
				s.add(m)
			}
		}
		s.meta(set)
	case v.Get("$rewindTo").IsString():
		s.init()
		s.rewind(v.Get("$rewindTo").Str())
	case v.Get("sessionId").IsString() && (v.Has("projectHash") || isArray(v.Get("messages"))):
		// the first line of a JSONL session, or a whole legacy .json session
		s.init()
		s.meta(v)
		for _, m := range v.Get("messages").Items() {
			p.b.record()
			s.add(m)
		}
	case v.Get("id").IsString() && v.Has("timestamp") && v.Has("content") && !v.Has("severity") &&
		geminiMessageTypes[v.Get("type").Str()]:
		s.init()
		s.add(v)
	default:
		return false
	}
	return true
}

func (s *geminiSession) init() {
	if !s.seen {
		s.seen, s.msgs = true, map[string]*jsonv.Value{}
	}
}

func (s *geminiSession) meta(v *jsonv.Value) {
	if t := v.Get("startTime").Str(); t != "" {
		s.start = t
	}
	if t := v.Get("lastUpdated").Str(); t != "" {
		s.updated = t
	}
}

func (s *geminiSession) add(m *jsonv.Value) {
	id := m.Get("id").Str()
	if !isObject(m) || id == "" {
		return
	}
	if _, ok := s.msgs[id]; !ok {
		s.ids = append(s.ids, id)
	}
	// Kept to the end (a later $rewindTo may drop it): a copy outlives
	// the record it came in.
	s.msgs[id] = m.Clone()
}

// rewind drops the message id and every later one ($rewindTo); an unknown
// id drops them all, as the CLI does.
func (s *geminiSession) rewind(id string) {
	for i, x := range s.ids {
		if x == id {
			for _, gone := range s.ids[i:] {
				delete(s.msgs, gone)
			}
			s.ids = s.ids[:i]
			return
		}
	}
	s.ids, s.msgs = nil, map[string]*jsonv.Value{}
}

// finishSession builds the log from the session's messages; it reports
// whether the last turn ended (the model's last message called no tool).
func (p *geminiParser) finishSession() (ended bool) {
	s := &p.session
	for _, id := range s.ids {
		m := s.msgs[id]
		text := geminiPartsText(m.Get("content"))
		switch m.Get("type").Str() {
		case "gemini":
			p.turns++
			p.b.agentText(text)
			calls := m.Get("toolCalls").Items()
			for _, tc := range calls {
				p.sessionToolCall(tc)
			}
			ended = len(calls) == 0
		case "error":
			p.stopped = text
		case "warning", "info":
			if geminiStops(text) {
				p.stopped = text
			}
		}
	}
	if a, b := parseTime(s.start), parseTime(s.updated); !a.IsZero() && b.After(a) {
		p.b.log.DurationMS = int64Ptr(b.Sub(a).Milliseconds())
	}
	return ended
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// geminiPartsText joins the text of a content: a string, a part or a list
// of parts ({text}).
func geminiPartsText(c *jsonv.Value) string {
	switch {
	case c.IsString():
		return c.S
	case isObject(c):
		return c.Get("text").Str()
	}
	var parts []string
	for _, p := range c.Items() {
		if t := p.Get("text").Str(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "")
}

// geminiDone are the tool call statuses of a call that finished.
var geminiDone = map[string]bool{"success": true, "error": true, "cancelled": true}

func (p *geminiParser) sessionToolCall(tc *jsonv.Value) {
	id, kind := p.call(tc.Get("id").Str(), tc.Get("name").Str(), tc.Get("args"))
	status := strings.ToLower(tc.Get("status").Str())
	if !geminiDone[status] && (!tc.Has("result") || tc.Get("result").IsNull()) {
		return // not finished
	}
	switch kind {
	case "cmd":
		p.b.result(id, geminiSessionShell(tc, status))
	case "edit":
		p.b.editResult(id, status == "success" && geminiResponse(tc).Get("error") == nil)
	}
}

// geminiResponse is the functionResponse.response of a tool call's result
// (a list of parts, or one part).
func geminiResponse(tc *jsonv.Value) *jsonv.Value {
	r := tc.Get("result")
	if isObject(r) {
		return r.Path("functionResponse", "response")
	}
	for _, part := range r.Items() {
		if resp := part.Path("functionResponse", "response"); resp != nil {
			return resp
		}
	}
	return nil
}

// geminiSessionShell reads a shell call's result from the session: the
// output the user saw (resultDisplay, as the stream carries it), and the
// exit code and signal from what the model was told (the tool's llmContent).
func geminiSessionShell(tc *jsonv.Value, status string) cmdResult {
	res := cmdResult{}
	resp := geminiResponse(tc)
	display := tc.Get("resultDisplay")
	if display.IsString() {
		res.Output, res.Omitted = display.Text()
		geminiDisplayResult(&res)
	}
	content, _ := resp.Get("output").Whole()
	sh, ok := parseShellContent(content)
	if ok {
		if !display.IsString() {
			res.Output = sh.output
		}
		res.ExitCode = sh.exit
		res.Failed = res.Failed || sh.failed
	}
	if msg := resp.Get("error").Str(); msg != "" {
		res.Failed = true
		if res.Output == "" {
			res.Output = msg
		}
	}
	if status == "error" {
		res.Failed = true
	}
	if sh.zeroByAbsence && res.Failed {
		// A 0 read from silence never stands against stated failure (the
		// display's signal, an error, an error status): the code is unknown.
		res.ExitCode = nil
	}
	return res
}

// shellContent is what Gemini CLI's shell tool told the model.
type shellContent struct {
	output string
	exit   *int
	failed bool
	// zeroByAbsence: exit is 0 because the report states no code, no
	// signal and no error (the newer form), not because it says 0.
	zeroByAbsence bool
}

var (
	geminiUnwrap   = lazyre.New(`(?s)<untrusted_context>\n(.*?)\n?</untrusted_context>\s*$`)
	geminiTrailers = []string{"Process Group PGID: ", "Background PIDs: ", "Signal: ", "Exit Code: ", "Error: "}
)

// parseShellContent reads the shell tool's llmContent in each of its forms
// (packages/core/src/tools/shell.ts):
//   - before #17538: "Command: …\nDirectory: …\nOutput: …" (older still
//     "Stdout: …\nStderr: …") then "Error: …\nExit Code: N|(none)\nSignal:
//     …\nBackground PIDs: …\nProcess Group PGID: …", every line present;
//   - since: "Output: …" then "Error: …" only on an error, "Exit Code: N"
//     only when the code is not 0, "Signal: S" only on a signal, and the
//     PIDs. There, no Exit Code, no Signal and no Error states exit code 0:
//     the CLI writes the line for every other code;
//   - 0.6x wraps it in <untrusted_context>…</untrusted_context>, after an
//     "Output too large…" note when the output was cut;
//   - a cancelled, timed-out or backgrounded command is told in a sentence,
//     with no exit code.
//
// ok is false when s is none of these.
func parseShellContent(s string) (shellContent, bool) {
	if m := geminiUnwrap.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for _, prefix := range []string{"Command was cancelled", "Command was automatically cancelled", "Command moved to background",
		"Command is running in background"} {
		if strings.HasPrefix(s, prefix) {
			out := ""
			for _, sep := range []string{"Below is the output before it was cancelled:\n", "Initial output:\n"} {
				if _, after, ok := strings.Cut(s, sep); ok {
					out = after
				}
			}
			return shellContent{output: out}, true
		}
	}
	lines := strings.Split(s, "\n")
	fields := map[string]string{}
	end := len(lines)
	for _, h := range geminiTrailers {
		if end > 0 && strings.HasPrefix(lines[end-1], h) {
			fields[h] = strings.TrimPrefix(lines[end-1], h)
			end--
		}
	}
	body := strings.Join(lines[:end], "\n")
	old := false
	if strings.HasPrefix(body, "Command: ") {
		old = true
		if _, after, ok := strings.Cut(body, "\nDirectory: "); ok {
			body = after
			if i := strings.IndexByte(body, '\n'); i >= 0 {
				body = body[i+1:]
			} else {
				body = ""
			}
		}
	}
	var out string
	switch {
	case strings.HasPrefix(body, "Output: "):
		out = strings.TrimPrefix(body, "Output: ")
	case strings.HasPrefix(body, "Stdout: "):
		stdout, stderr, _ := strings.Cut(strings.TrimPrefix(body, "Stdout: "), "\nStderr: ")
		out = joinStreams(emptyMarker(stdout), emptyMarker(stderr))
	default:
		return shellContent{}, false
	}
	sc := shellContent{output: emptyMarker(out)}
	code, hasCode := fields["Exit Code: "]
	signal := fields["Signal: "]
	errText := fields["Error: "]
	hasSignal := signal != "" && signal != "(none)" && signal != "0"
	hasError := errText != "" && errText != "(none)"
	switch {
	case hasCode:
		if n, err := strconv.Atoi(code); err == nil {
			sc.exit = intPtr(n)
		}
	case !old && !hasSignal && !hasError:
		sc.exit, sc.zeroByAbsence = intPtr(0), true
	}
	sc.failed = hasSignal || hasError
	return sc, true
}

func emptyMarker(s string) string {
	if s == "(empty)" {
		return ""
	}
	return s
}
