package engines

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// Sink receives the lists of a command log while a transcript is parsed:
// every marker, command and file edit once, final, in list order (see
// Stream). An error stops the parse.
type Sink interface {
	Marker(m *commandlog.Marker) error
	Command(c *commandlog.Command) error
	FileEdit(e *commandlog.FileEdit) error
}

// StreamingEngine is an engine whose parse hands the command log's lists to
// a Sink as it goes, so that its memory does not grow with the transcript.
// Every registered engine implements it (TestEveryEngineStreams).
type StreamingEngine interface {
	// ParseTranscriptTo is ParseTranscript, except that the markers,
	// commands and file edits go to s; the returned log holds the rest
	// (outcome, cost, turns, parse stats) and empty lists.
	ParseTranscriptTo(r io.Reader, s Sink) (*commandlog.Log, error)
}

// Stream parses a transcript with eng, handing the lists to s as they are
// final, and returns the rest of the log. Writing s's lists in the log in
// the order received gives exactly the log ParseTranscript returns.
func Stream(eng AgentEngine, r io.Reader, s Sink) (*commandlog.Log, error) {
	if se, ok := eng.(StreamingEngine); ok {
		return se.ParseTranscriptTo(r, s)
	}
	l, err := eng.ParseTranscript(r)
	if err != nil {
		return nil, err
	}
	for i := range l.Markers {
		if err := s.Marker(&l.Markers[i]); err != nil {
			return nil, err
		}
	}
	for i := range l.Commands {
		if err := s.Command(&l.Commands[i]); err != nil {
			return nil, err
		}
	}
	for i := range l.FileEdits {
		if err := s.FileEdit(&l.FileEdits[i]); err != nil {
			return nil, err
		}
	}
	l.Markers, l.Commands, l.FileEdits = []commandlog.Marker{}, []commandlog.Command{}, []commandlog.FileEdit{}
	return l, nil
}

// memSink collects the lists for ParseTranscript.
type memSink struct {
	markers  []commandlog.Marker
	commands []commandlog.Command
	edits    []commandlog.FileEdit
}

func (m *memSink) Marker(x *commandlog.Marker) error { m.markers = append(m.markers, *x); return nil }
func (m *memSink) Command(x *commandlog.Command) error {
	m.commands = append(m.commands, *x)
	return nil
}
func (m *memSink) FileEdit(x *commandlog.FileEdit) error { m.edits = append(m.edits, *x); return nil }

// logBuilder accumulates a command log while an engine walks a transcript.
// It owns the rules every engine shares: pairing a call with its result by
// id, truncating output, deriving status without fabricating exit codes,
// collecting markers from agent text only, and deciding the outcome.
//
// Its memory is bounded (bounded.go): log holds only the fields outside the
// lists; markers go to the sink at once, and commands and file edits when
// they are sealed.
type logBuilder struct {
	log   commandlog.Log
	sink  Sink
	mem   *memSink // the sink of ParseTranscript, or nil
	err   error    // the sink's first error
	cmds  *region[commandlog.Command]
	edits *region[commandlog.FileEdit]
	seen  *seenSet // markers already added
	tally outcomeTally
	anon  int
	// onSeal, when set, sees every command as it is sealed, in order.
	onSeal func(c *commandlog.Command)
}

// newLogBuilderTo returns a builder that hands the lists to s; nil s
// collects them in memory.
func newLogBuilderTo(engine string, s Sink) *logBuilder {
	b := &logBuilder{
		log:  commandlog.Log{SchemaVersion: commandlog.SchemaVersion, Engine: engine},
		sink: s,
		seen: newSeenSet(),
	}
	if s == nil {
		b.mem = &memSink{}
		b.sink = b.mem
	}
	b.cmds = newRegion(func(c *commandlog.Command) {
		if b.onSeal != nil {
			b.onSeal(c)
		}
		b.fail(b.sink.Command(c))
	})
	b.edits = newRegion(func(e *commandlog.FileEdit) { b.fail(b.sink.FileEdit(e)) })
	return b
}

func (b *logBuilder) fail(err error) {
	if err != nil && b.err == nil {
		b.err = err
	}
}

// record counts one record of the transcript; malformed and unknown say
// whether it could not be decoded or was of a kind the engine ignores.
func (b *logBuilder) record()        { b.log.ParseStats.Lines++ }
func (b *logBuilder) malformed()     { b.log.ParseStats.Lines++; b.log.ParseStats.Malformed++ }
func (b *logBuilder) unknownEvent()  { b.log.ParseStats.UnknownEvents++ }
func (b *logBuilder) nextID() string { b.anon++; return fmt.Sprintf("call-%d", b.anon) }

func commandSize(c *commandlog.Command) int {
	return 96 + len(c.ID) + len(c.Command) + len(c.Output) + len(c.ParentID)
}

// command starts a command the agent ran; it is unknown until a result is
// paired. An empty id gets a generated one, which is returned.
func (b *logBuilder) command(id, command, parent string) string {
	if id == "" {
		id = b.nextID()
	}
	if b.cmds.known(id) {
		return id
	}
	c := commandlog.Command{ID: id, Command: command, Status: commandlog.StatusUnknown, ParentID: parent}
	b.cmds.add(id, c, commandSize(&c))
	return id
}

// hasCommand reports whether id names a command already started.
func (b *logBuilder) hasCommand(id string) bool { return b.cmds.known(id) }

// cmdResult is what a transcript says about how a command ended.
type cmdResult struct {
	Output     string
	Omitted    int64 // bytes already dropped from the middle of Output
	ExitCode   *int  // nil when the transcript does not state it
	Failed     bool  // the agent reported an error
	DurationMS *int64
}

// result pairs a result with the command id. It reports false when no such
// command is open (never started, or sealed long ago; the caller may count
// an unknown event).
func (b *logBuilder) result(id string, r cmdResult) bool {
	s := b.cmds.lookup(id)
	if s == nil {
		return false
	}
	c := &s.item
	c.Output, c.Truncated = truncateClipped(r.Output, r.Omitted)
	c.ExitCode = r.ExitCode
	c.Status = StatusFor(r.ExitCode, r.Failed)
	if r.DurationMS != nil {
		c.DurationMS = r.DurationMS
	}
	b.cmds.resize(s, commandSize(c))
	return true
}

// setSource records where an open command stands in the README.
func (b *logBuilder) setSource(id string, src *commandlog.Source) {
	if s := b.cmds.lookup(id); s != nil {
		s.item.Source = src
	}
}

// setEnvironment records the sandbox's part in an open command's failure.
func (b *logBuilder) setEnvironment(id string, e *commandlog.Environment) {
	if s := b.cmds.lookup(id); s != nil && e != nil {
		s.item.Environment = e
		b.cmds.resize(s, commandSize(&s.item))
	}
}

// setPipeStatus records the statuses of a command's last pipeline.
func (b *logBuilder) setPipeStatus(id string, st []int) {
	if s := b.cmds.lookup(id); s != nil && len(st) > 0 {
		s.item.PipeStatus = st // (bounded by the command's text, which its size counts)
	}
}

// setPlanned records how the plan ran an open command.
func (b *logBuilder) setPlanned(id string, p commandlog.Planned) {
	if s := b.cmds.lookup(id); s != nil {
		s.item.Planned = p
	}
}

// setHowRan records how an open command ran where its text alone does
// not say (ran, cwd, leave_cwd, setup, background: the keyless runner's).
func (b *logBuilder) setHowRan(id string, how commandlog.Command) {
	if s := b.cmds.lookup(id); s != nil {
		s.item.Ran, s.item.Cwd, s.item.LeaveCwd, s.item.Setup, s.item.Background = how.Ran, how.Cwd, how.LeaveCwd, how.Setup, how.Background
	}
}

// setOutput replaces the output of an open command (output that arrived
// after its result); false when no such command is open.
func (b *logBuilder) setOutput(id, output string, omitted int64) bool {
	s := b.cmds.lookup(id)
	if s == nil {
		return false
	}
	s.item.Output, s.item.Truncated = truncateClipped(output, omitted)
	b.cmds.resize(s, commandSize(&s.item))
	return true
}

func editSize(e *commandlog.FileEdit) int { return 64 + len(e.Path) + len(e.Tool) }

// edit records a file edit; it is not ok until a successful result pairs.
// An empty id gets a generated one, which is returned. An edit that names
// no file is counted as an unknown event and dropped.
func (b *logBuilder) edit(id, path, tool string) string {
	if id == "" {
		id = b.nextID()
	}
	if path == "" {
		b.unknownEvent()
		return id
	}
	if !b.edits.known(id) {
		e := commandlog.FileEdit{Path: path, Tool: tool}
		b.edits.add(id, e, editSize(&e))
	}
	return id
}

// editResult pairs the result of an edit; false when no such edit is open.
func (b *logBuilder) editResult(id string, ok bool) bool {
	s := b.edits.lookup(id)
	if s == nil {
		return false
	}
	s.item.OK = ok
	return true
}

// agentText scans a piece of the agent's own text for markers.
func (b *logBuilder) agentText(text string) { b.scanAgentText(text, false) }

// agentTextOnce is agentText for a text that may repeat earlier agent text
// (a final summary that copies the last message): only markers not seen yet
// are added.
func (b *logBuilder) agentTextOnce(text string) { b.scanAgentText(text, true) }

func (b *logBuilder) scanAgentText(text string, once bool) {
	for _, m := range ScanMarkers(text) {
		if b.seen.add(string(m.Kind), m.Text) || !once {
			b.tally.add(m)
			added := m // only markers added reach the heap, not every m
			b.fail(b.sink.Marker(&added))
		}
	}
}

// maxAgentLine is the longest line of streamed agent text kept whole.
const maxAgentLine = 1 << 20

// agentStream is agent text that arrives in pieces (streamed deltas): each
// line is scanned for markers as soon as it is complete, so a long stream
// keeps only its unfinished line, and at most maxAgentLine bytes of it.
// Scanning line by line finds exactly the markers of the whole text.
type agentStream struct {
	line []byte
}

// add appends a piece of the text.
func (a *agentStream) add(b *logBuilder, s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			a.keep(s)
			return
		}
		a.keep(s[:i])
		b.agentText(string(a.line))
		a.line = a.line[:0]
		s = s[i+1:]
	}
}

func (a *agentStream) keep(s string) {
	if room := maxAgentLine - len(a.line); room < len(s) {
		s = s[:max(room, 0)]
	}
	a.line = append(a.line, s...)
}

// flush scans the unfinished line: the text has ended.
func (a *agentStream) flush(b *logBuilder) {
	if len(a.line) > 0 {
		b.agentText(string(a.line))
		a.line = a.line[:0]
	}
}

// finish seals what is still open, decides the outcome and returns the
// log. reason explains a failed outcome when no marker does (e.g. "agent
// hit its turn limit").
func (b *logBuilder) finish(reason string) *commandlog.Log {
	b.cmds.sealAll()
	b.edits.sealAll()
	l := &b.log
	l.Outcome, l.Adjusted = b.tally.decide()
	if l.Outcome == commandlog.OutcomeFailed {
		if reason == "" {
			reason = "the agent ended without a SUCCESS, ADJUSTED_SUCCESS or BLOCKED line"
		}
		l.OutcomeReason = reason
	}
	if l.Outcome == commandlog.OutcomeBlocked {
		l.OutcomeReason = b.tally.blockedText
	}
	if b.mem != nil {
		l.Markers, l.Commands, l.FileEdits = b.mem.markers, b.mem.commands, b.mem.edits
	}
	l.Normalize()
	return l
}

// done returns the finished log, or the sink's error: the last commands
// are handed out by finish.
func (b *logBuilder) done(l *commandlog.Log) (*commandlog.Log, error) {
	if b.err != nil {
		return nil, fmt.Errorf("write %s command log: %w", b.log.Engine, b.err)
	}
	return l, nil
}

// unclipped is opt, without Clip when noClip is set: the engine decodes
// output whole (tests compare the two).
func unclipped(opt jsonv.Options, noClip bool) jsonv.Options {
	if noClip {
		opt.Clip = nil
	}
	return opt
}

// readRecords feeds every record of a transcript to fn, in order. Malformed
// records are counted in b and skipped; fn counts the records it takes
// (b.record) as its format defines them. Only a failing reader or sink is
// an error.
//
// Records are decoded ahead of fn on another goroutine when there are cores for
// it (parseWorkers) unless opt says otherwise or r holds under 256 KiB in memory.
func readRecords(r io.Reader, opt jsonv.Options, b *logBuilder, fn func(*jsonv.Value)) error {
	if n, ok := r.(interface{ Len() int }); opt.Workers == 0 && (!ok || n.Len() > 256<<10) {
		opt.Workers = parseWorkers()
	}
	rd := jsonv.NewReader(r, opt)
	defer rd.Close()
	for b.err == nil {
		v, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			b.malformed()
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s transcript: %w", b.log.Engine, err)
		}
		fn(v)
	}
	if b.err != nil {
		return fmt.Errorf("write %s command log: %w", b.log.Engine, b.err)
	}
	return nil
}
