package engines

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

// Every registered engine streams its log: `readme2demo parse` keeps
// bounded memory only for engines that implement StreamingEngine.
func TestEveryEngineStreams(t *testing.T) {
	for _, name := range Names() {
		e, _ := Lookup(name)
		_, ok := e.(StreamingEngine)
		assert.Assert(t, ok, "engine %s does not implement StreamingEngine (ParseTranscriptTo)", name)
	}
}

// A window remembers at least its last max keys, at most 2*max, and
// forgets whole generations, oldest first.
func TestWindowForgetsOldestGeneration(t *testing.T) {
	w := newWindow[string, int](3)
	for i, k := range []string{"a", "b", "c"} {
		w.put(k, i)
	}
	w.put("a", 10) // an update stays in its generation
	assert.Equal(t, w.at("a"), 10)
	for i, k := range []string{"d", "e", "f"} { // a new generation
		w.put(k, i)
		assert.Assert(t, w.has("a") && w.has("b") && w.has("c"), "the previous generation is remembered")
	}
	w.put("g", 7) // a third: the first is forgotten
	for _, k := range []string{"a", "b", "c"} {
		assert.Assert(t, !w.has(k), k)
	}
	for _, k := range []string{"d", "e", "f", "g"} {
		assert.Assert(t, w.has(k), k)
	}
	assert.Assert(t, len(w.cur)+len(w.prev) <= 2*w.max)
}

// A command stays open — its result pairs — while fewer than openSlots
// commands follow it, however the id tables rotate meanwhile.
func TestRegionKeepsOpenItemsAcrossGenerations(t *testing.T) {
	s := &recSink{}
	b := newLogBuilderTo("test", s)
	b.command("long", "sleep 1000", "")
	for i := 0; i < openSlots-1; i++ {
		id := fmt.Sprint("c", i)
		b.command(id, "true", "")
		b.result(id, cmdResult{ExitCode: intPtr(0)})
	}
	assert.Assert(t, b.result("long", cmdResult{ExitCode: intPtr(0)}), "still open after %d commands", openSlots-1)
	for i := openSlots; i < 3*idWindow; i++ {
		b.command(fmt.Sprint("c", i), "true", "")
	}
	assert.Assert(t, !b.hasCommand("c0"), "an id sealed generations ago is forgotten")
	assert.Assert(t, b.hasCommand(fmt.Sprint("c", 3*idWindow-1)))
	b.finish("")
	assert.Equal(t, s.commands[0].ID, "long")
	assert.Equal(t, s.commands[0].Status, commandlog.StatusOK)
}

// recSink records what a builder hands out, in order.
type recSink struct {
	markers  []string
	commands []commandlog.Command
	edits    []commandlog.FileEdit
	fail     error
}

func (s *recSink) Marker(m *commandlog.Marker) error {
	s.markers = append(s.markers, string(m.Kind)+":"+m.Text)
	return s.fail
}
func (s *recSink) Command(c *commandlog.Command) error {
	s.commands = append(s.commands, *c)
	return s.fail
}
func (s *recSink) FileEdit(e *commandlog.FileEdit) error {
	s.edits = append(s.edits, *e)
	return s.fail
}

// Commands reach the sink in the order they started, once final, however
// their results are ordered; a result for a command sealed long ago is
// not paired (the run degrades as a killed one would), and memory holds
// only the open commands.
func TestBuilderSealsInOrderWithinBounds(t *testing.T) {
	s := &recSink{}
	b := newLogBuilderTo("test", s)
	b.command("first", "sleep 1000", "") // its result never comes in time
	n := openSlots + 10
	for i := 0; i < n; i++ {
		id := fmt.Sprint("c", i)
		b.command(id, "echo "+id, "")
		// results arrive in reverse pairs: c1 before c0, c3 before c2…
		if i%2 == 1 {
			b.result(id, cmdResult{Output: id, ExitCode: intPtr(0)})
			b.result(fmt.Sprint("c", i-1), cmdResult{Output: "x", ExitCode: intPtr(1)})
		}
		assert.Assert(t, len(b.cmds.slots)-b.cmds.front <= openSlots)
	}
	assert.Assert(t, len(s.commands) > 0, "past openSlots open commands, the oldest are sealed")
	assert.Equal(t, s.commands[0].ID, "first")
	assert.Equal(t, s.commands[0].Status, commandlog.StatusUnknown)
	assert.Assert(t, !b.result("first", cmdResult{ExitCode: intPtr(0)}), "a sealed command takes no result")
	assert.Assert(t, b.hasCommand("first"), "a sealed id is still known")
	assert.Equal(t, b.command("first", "again", ""), "first")
	l, err := b.done(b.finish(""))
	assert.NilError(t, err)
	assert.Equal(t, len(l.Commands), 0, "the lists went to the sink")
	assert.Equal(t, len(s.commands), n+1)
	for i, c := range s.commands[1:] {
		assert.Equal(t, c.ID, fmt.Sprint("c", i))
		want := commandlog.StatusOK
		if i%2 == 0 {
			want = commandlog.StatusFailed
		}
		assert.Equal(t, c.Status, want, c.ID)
	}
}

// A command whose output is large is sealed early enough that the open
// ones never hold much more than openBytes.
func TestBuilderBoundsOpenBytes(t *testing.T) {
	s := &recSink{}
	b := newLogBuilderTo("test", s)
	big := strings.Repeat("x", 1<<20) // 1 MiB commands (outputs are truncated, commands are not)
	for i := 0; i < 64; i++ {
		b.command(fmt.Sprint(i), big, "")
		assert.Assert(t, b.cmds.bytes <= openBytes+2<<20, "open bytes %d", b.cmds.bytes)
	}
	b.finish("")
	assert.Equal(t, len(s.commands), 64)
}

// Markers go out at once, deduplicated for agentTextOnce against every
// marker before, and decide the outcome as decideOutcome does.
func TestBuilderMarkersStream(t *testing.T) {
	s := &recSink{}
	b := newLogBuilderTo("test", s)
	b.agentText("FIX: one\nBLOCKED: no db\nSUCCESS")
	b.agentTextOnce("FIX: one\nFIX: two\nFIX: two")
	b.agentText("BLOCKED: later")
	l := b.finish("")
	assert.DeepEqual(t, s.markers, []string{"FIX:one", "BLOCKED:no db", "SUCCESS:", "FIX:two", "BLOCKED:later"})
	assert.Equal(t, l.Outcome, commandlog.OutcomeBlocked)
	assert.Equal(t, l.OutcomeReason, "no db")
}

func TestBuilderReportsSinkError(t *testing.T) {
	s := &recSink{fail: fmt.Errorf("disk full")}
	b := newLogBuilderTo("test", s)
	b.command("a", "ls", "")
	_, err := b.done(b.finish(""))
	assert.ErrorContains(t, err, "disk full")
	assert.ErrorContains(t, err, "write test command log")
}

// Streamed agent text finds the markers of the whole text, however it is
// cut into pieces, and keeps only its unfinished line.
func TestAgentStreamMatchesWholeText(t *testing.T) {
	text := "intro\n**FIX:** step 2 needs mkdir\nnot a marker SUCCESS\nBLOCKED: no network\n\nADJUSTED_SUCCESS"
	want := ScanMarkers(text)
	for cut := 1; cut < len(text); cut += 3 {
		s := &recSink{}
		b := newLogBuilderTo("test", s)
		var a agentStream
		for i := 0; i < len(text); i += cut {
			a.add(b, text[i:min(i+cut, len(text))])
			assert.Assert(t, len(a.line) <= maxAgentLine)
		}
		a.flush(b)
		var got []string
		for _, m := range want {
			got = append(got, string(m.Kind)+":"+m.Text)
		}
		assert.DeepEqual(t, s.markers, got)
	}
}

// markerKeyword gives what the regular expression it replaced gives, on
// lines built from the pieces of marker lines.
func TestMarkerKeywordMatchesRegexp(t *testing.T) {
	parts := []string{"", " ", "**", "__", "`", "*", "_", "> ", "# ", "- ", "* ", "+ ", "SUCCESS", "ADJUSTED_SUCCESS",
		"BLOCKED", "FIX", ":", ": ", "**:** ", "no db", "see FIX: x", "Success", "done.", "\t", "SUCCESSFUL", "\f", "\r",
		"\v", "\u00a0", "\xff", "é"}
	rnd := rand.New(rand.NewSource(7))
	markers := 0
	lines := longtest.Count(20000, 100000)
	for i := 0; i < lines; i++ {
		var b strings.Builder
		for n := rnd.Intn(6); n >= 0; n-- {
			b.WriteString(parts[rnd.Intn(len(parts))])
		}
		line := b.String()
		got, gotOK := parseMarkerLine(line)
		want, wantOK := refParseMarkerLine(line)
		if gotOK != wantOK || got != want { // assert only to report: 20,000 asserts cost more than the check
			assert.Equal(t, gotOK, wantOK, "%q", line)
			assert.Equal(t, got, want, "%q", line)
		}
		if wantOK {
			markers++
		}
	}
	assert.Assert(t, markers > lines/100, "only %d of %d lines are markers", markers, lines)
}

// refMarkerLine is the regular expression markerKeyword replaced.
var refMarkerLine = regexp.MustCompile(`^(?:\*\*|__)?(ADJUSTED_SUCCESS|SUCCESS|BLOCKED|FIX)(?:\*\*|__)?(?::(?:\*\*|__)?(?:\s+(.*))?)?$`)

func refParseMarkerLine(line string) (commandlog.Marker, bool) {
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
	m := refMarkerLine.FindStringSubmatch(s)
	if m == nil {
		return commandlog.Marker{}, false
	}
	kind, text := commandlog.MarkerKind(m[1]), strings.TrimSpace(m[2])
	if kind == commandlog.MarkerFix && text == "" {
		return commandlog.Marker{}, false // a FIX says what was fixed
	}
	return commandlog.Marker{Kind: kind, Text: text}, true
}
