package engines

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/shell"
)

// Output truncation: every engine keeps the head and the tail of a long
// command output, so the start (what ran) and the end (how it failed) both
// survive.
const (
	OutputHeadBytes = 3 << 10
	OutputTailBytes = 1 << 10
)

// TruncateOutput keeps the first 3 KiB and the last 1 KiB of s, cut on
// UTF-8 boundaries, with a line in between saying how many bytes were left
// out. It reports whether anything was cut.
func TruncateOutput(s string) (string, bool) { return truncateClipped(s, 0) }

// truncateClipped is TruncateOutput for text that already lost omitted bytes
// from its middle while being decoded (see jsonv.Value.Omitted).
func truncateClipped(s string, omitted int64) (string, bool) {
	if len(s) <= OutputHeadBytes+OutputTailBytes && omitted == 0 {
		return s, false
	}
	if len(s) <= OutputHeadBytes+OutputTailBytes {
		// Already clipped upstream to something short: say so, keep all.
		return s[:len(s)/2] + omissionLine(omitted) + s[len(s)/2:], true
	}
	head := s[:OutputHeadBytes]
	for len(head) > 0 && !utf8.ValidString(head[len(head)-min(len(head), utf8.UTFMax):]) {
		head = head[:len(head)-1]
	}
	tail := s[len(s)-OutputTailBytes:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	dropped := int64(len(s)-len(head)-len(tail)) + omitted
	return head + omissionLine(dropped) + tail, true
}

func omissionLine(n int64) string {
	return fmt.Sprintf("\n[... readme2demo: %d bytes of output omitted ...]\n", n)
}

// ScanMarkers returns the marker lines in a piece of the agent's own text:
// `SUCCESS`, `ADJUSTED_SUCCESS`, `BLOCKED: <reason>` and `FIX: <what and
// why>`, each alone on its line (surrounding markdown emphasis, a list bullet
// or a quote sign are allowed). Callers pass agent text only — never command
// output — so a README that prints SUCCESS cannot make a run pass.
func ScanMarkers(text string) []commandlog.Marker {
	// Every marker line names its keyword (ADJUSTED_SUCCESS holds
	// SUCCESS): the text is searched for the three keywords, each at most
	// once from end to end, and only the lines that hold one are parsed.
	// Agent text can be long (a 100 KB answer): looking at it line by line
	// cost three searches per line.
	var out []commandlog.Marker
	keys := [...]string{"SUCCESS", "BLOCKED", "FIX"}
	next := [...]int{-2, -2, -2} // each keyword's next place at or after at; -1: none left
	at := 0
	for at < len(text) {
		first := -1
		for i, k := range keys {
			if next[i] != -1 && next[i] < at {
				next[i] = strings.Index(text[at:], k)
				if next[i] >= 0 {
					next[i] += at
				}
			}
			if next[i] >= 0 && (first < 0 || next[i] < first) {
				first = next[i]
			}
		}
		if first < 0 {
			break
		}
		start := at + strings.LastIndexByte(text[at:first], '\n') + 1
		end := len(text)
		if i := strings.IndexByte(text[first:], '\n'); i >= 0 {
			end = first + i
		}
		if m, ok := parseMarkerLine(text[start:end]); ok {
			out = append(out, m)
		}
		at = end + 1
	}
	return out
}

// markerKeyword matches a marker keyword with optional emphasis around the
// keyword or its colon ("**FIX:** text", "__BLOCKED__: reason"), as the
// regular expression
//
//	^(?:\*\*|__)?(ADJUSTED_SUCCESS|SUCCESS|BLOCKED|FIX)(?:\*\*|__)?(?::(?:\*\*|__)?(?:\s+(.*))?)?$
//
// would, without its cost per line (TestMarkerKeywordMatchesRegexp).
func markerKeyword(s string) (kw, text string, ok bool) {
	emphasis := func(s string) string {
		if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
			return s[2:]
		}
		return s
	}
	s = emphasis(s)
	for _, k := range []string{"ADJUSTED_SUCCESS", "SUCCESS", "BLOCKED", "FIX"} {
		if strings.HasPrefix(s, k) {
			kw = k
			break
		}
	}
	if kw == "" {
		return "", "", false
	}
	rest := emphasis(s[len(kw):])
	if rest == "" {
		return kw, "", true
	}
	if rest[0] != ':' {
		return "", "", false
	}
	rest = emphasis(rest[1:])
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\n' || rest[i] == '\f' || rest[i] == '\r') {
		i++
	}
	if i == 0 && rest != "" {
		return "", "", false
	}
	return kw, rest[i:], true
}

func parseMarkerLine(line string) (commandlog.Marker, bool) {
	s := strings.TrimSpace(line)
	s = strings.TrimSpace(strings.TrimLeft(s, ">#"))
	for _, bullet := range []string{"- ", "* ", "+ "} {
		s = strings.TrimPrefix(s, bullet)
	}
	// A whole line wrapped in emphasis or code: **SUCCESS**, `BLOCKED: x`.
	for changed := true; changed; {
		changed = false
		for _, w := range []string{"**", "__", "`", "*", "_"} {
			if len(s) > 2*len(w) && strings.HasPrefix(s, w) && strings.HasSuffix(s, w) {
				s = strings.TrimSpace(s[len(w) : len(s)-len(w)])
				changed = true
			}
		}
	}
	kw, text, ok := markerKeyword(s)
	if !ok {
		return commandlog.Marker{}, false
	}
	kind, text := commandlog.MarkerKind(kw), strings.TrimSpace(text)
	if kind == commandlog.MarkerFix && text == "" {
		return commandlog.Marker{}, false // a FIX says what was fixed
	}
	return commandlog.Marker{Kind: kind, Text: text}, true
}

// outcomeTally decides a run's outcome from its markers, which arrive one
// at a time, with the precedence BLOCKED > success marker > failed.
type outcomeTally struct {
	blocked                bool
	blockedText            string // the first BLOCKED marker's text
	success, adjustedFound bool
}

func (t *outcomeTally) add(m commandlog.Marker) {
	switch m.Kind {
	case commandlog.MarkerBlocked:
		if !t.blocked {
			t.blocked, t.blockedText = true, m.Text
		}
	case commandlog.MarkerSuccess:
		t.success = true
	case commandlog.MarkerAdjustedSuccess:
		t.success, t.adjustedFound = true, true
	}
}

// decide returns the outcome, and whether the run succeeded with
// ADJUSTED_SUCCESS among the success markers.
func (t *outcomeTally) decide() (commandlog.Outcome, bool) {
	switch {
	case t.blocked:
		return commandlog.OutcomeBlocked, false
	case t.success:
		return commandlog.OutcomeSuccess, t.adjustedFound
	}
	return commandlog.OutcomeFailed, false
}

// StatusFor derives a command status from what the transcript says: an exit
// code when stated, and whether the agent reported the command as failed.
func StatusFor(exitCode *int, failed bool) commandlog.Status {
	switch {
	case exitCode != nil && *exitCode == 0 && !failed:
		return commandlog.StatusOK
	case exitCode != nil, failed:
		return commandlog.StatusFailed
	}
	return commandlog.StatusUnknown
}

// intPtr and friends build the optional fields of a command log.
func intPtr(n int) *int             { return &n }
func int64Ptr(n int64) *int64       { return &n }
func float64Ptr(f float64) *float64 { return &f }
func stringPtr(s string) *string    { return &s }

// parseWorkers is how many goroutines a jsonv.Reader decodes records on,
// ahead of the engine: from two cores on, decoding runs beside the engine's
// own work (the output is the same either way). On two cores one decoder
// is best: more goroutines than cores cost more in hand-offs than they
// gain.
func parseWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return min(n-1, 3)
}

// ShellQuote quotes s for a POSIX shell (see shell.Quote).
func ShellQuote(s string) string { return shell.Quote(s) }

// idText is an id written as a string or as an integer.
func idText(v *jsonv.Value) string {
	if n, ok := v.Int(); ok {
		return strconv.FormatInt(n, 10)
	}
	return v.Str()
}

// joinStreams joins a command's stdout and stderr, on separate lines.
func joinStreams(stdout, stderr string) string {
	if stderr == "" {
		return stdout
	}
	if stdout != "" && !strings.HasSuffix(stdout, "\n") {
		stdout += "\n"
	}
	return stdout + stderr
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}
