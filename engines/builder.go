package engines

import (
	"errors"
	"fmt"
	"io"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// logBuilder accumulates a command log while an engine walks a transcript.
// It owns the rules every engine shares: pairing a call with its result by
// id, truncating output, deriving status without fabricating exit codes,
// collecting markers from agent text only, and deciding the outcome.
type logBuilder struct {
	log      commandlog.Log
	cmdIndex map[string]int
	edits    map[string]int
	anon     int
}

func newLogBuilder(engine string) *logBuilder {
	return &logBuilder{
		log:      commandlog.Log{SchemaVersion: commandlog.SchemaVersion, Engine: engine},
		cmdIndex: map[string]int{},
		edits:    map[string]int{},
	}
}

// record counts one record of the transcript; malformed and unknown say
// whether it could not be decoded or was of a kind the engine ignores.
func (b *logBuilder) record()        { b.log.ParseStats.Lines++ }
func (b *logBuilder) malformed()     { b.log.ParseStats.Lines++; b.log.ParseStats.Malformed++ }
func (b *logBuilder) unknownEvent()  { b.log.ParseStats.UnknownEvents++ }
func (b *logBuilder) nextID() string { b.anon++; return fmt.Sprintf("call-%d", b.anon) }

// command starts a command the agent ran; it is unknown until a result is
// paired. An empty id gets a generated one, which is returned.
func (b *logBuilder) command(id, command, parent string) string {
	if id == "" {
		id = b.nextID()
	}
	if _, dup := b.cmdIndex[id]; dup {
		return id
	}
	b.cmdIndex[id] = len(b.log.Commands)
	b.log.Commands = append(b.log.Commands, commandlog.Command{
		ID: id, Command: command, Status: commandlog.StatusUnknown, ParentID: parent,
	})
	return id
}

// hasCommand reports whether id names a command already started.
func (b *logBuilder) hasCommand(id string) bool { _, ok := b.cmdIndex[id]; return ok }

// cmdResult is what a transcript says about how a command ended.
type cmdResult struct {
	Output     string
	Omitted    int64 // bytes already dropped from the middle of Output
	ExitCode   *int  // nil when the transcript does not state it
	Failed     bool  // the agent reported an error
	DurationMS *int64
}

// result pairs a result with the command id. It reports false when no such
// command was started (the caller may count an unknown event).
func (b *logBuilder) result(id string, r cmdResult) bool {
	i, ok := b.cmdIndex[id]
	if !ok {
		return false
	}
	c := &b.log.Commands[i]
	c.Output, c.Truncated = truncateClipped(r.Output, r.Omitted)
	c.ExitCode = r.ExitCode
	c.Status = StatusFor(r.ExitCode, r.Failed)
	if r.DurationMS != nil {
		c.DurationMS = r.DurationMS
	}
	return true
}

// edit records a file edit; it is not ok until a successful result pairs.
// An edit that names no file is counted as an unknown event and dropped.
func (b *logBuilder) edit(id, path, tool string) {
	if path == "" {
		b.unknownEvent()
		return
	}
	if id == "" {
		id = b.nextID()
	}
	if _, dup := b.edits[id]; dup {
		return
	}
	b.edits[id] = len(b.log.FileEdits)
	b.log.FileEdits = append(b.log.FileEdits, commandlog.FileEdit{Path: path, Tool: tool})
}

// editResult pairs the result of an edit; false when no such edit.
func (b *logBuilder) editResult(id string, ok bool) bool {
	i, found := b.edits[id]
	if !found {
		return false
	}
	b.log.FileEdits[i].OK = ok
	return true
}

// agentText scans a piece of the agent's own text for markers.
func (b *logBuilder) agentText(text string) {
	b.log.Markers = append(b.log.Markers, ScanMarkers(text)...)
}

// agentTextOnce is agentText for a text that may repeat earlier agent text
// (a final summary that copies the last message): only markers not seen yet
// are added.
func (b *logBuilder) agentTextOnce(text string) {
	for _, m := range ScanMarkers(text) {
		seen := false
		for _, old := range b.log.Markers {
			if old == m {
				seen = true
				break
			}
		}
		if !seen {
			b.log.Markers = append(b.log.Markers, m)
		}
	}
}

// finish decides the outcome and returns the log. reason explains a failed
// outcome when no marker does (e.g. "agent hit its turn limit").
func (b *logBuilder) finish(reason string) *commandlog.Log {
	l := &b.log
	l.Outcome, l.Adjusted = DecideOutcome(l.Markers)
	if l.Outcome == commandlog.OutcomeFailed {
		if reason == "" {
			reason = "the agent ended without a SUCCESS, ADJUSTED_SUCCESS or BLOCKED line"
		}
		l.OutcomeReason = reason
	}
	if l.Outcome == commandlog.OutcomeBlocked {
		for _, m := range l.Markers {
			if m.Kind == commandlog.MarkerBlocked {
				l.OutcomeReason = m.Text
				break
			}
		}
	}
	l.Normalize()
	return l
}

// readRecords feeds every record of a transcript to fn, in order. Malformed
// records are counted in b and skipped; fn counts the records it takes
// (b.record) as its format defines them. Only a failing reader is an error.
func readRecords(r io.Reader, opt jsonv.Options, b *logBuilder, fn func(*jsonv.Value)) error {
	rd := jsonv.NewReader(r, opt)
	defer rd.Close()
	for {
		v, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
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
}
