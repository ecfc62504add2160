package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// maxProgressTranscript bounds the transcript kept for progress lines; past
// it, progress stops (the run goes on and the full log is still written).
const maxProgressTranscript = 32 << 20

// progress prints one line per command the agent starts and one when it
// finishes, by re-parsing the growing transcript with the engine's own
// parser: it works for every engine, and what it shows is what
// command_log.json will say.
type progress struct {
	eng   engines.AgentEngine
	w     io.Writer
	red   *redact.Redactor
	start time.Time
	now   func() time.Time

	mu       sync.Mutex
	buf      []byte
	parsed   int // bytes of buf parsed last time
	started  map[string]bool
	finished map[string]bool
	stopped  bool
	// onLog, when set, sees each parse of the growing transcript (the cost
	// cap, budget.go).
	onLog func(*commandlog.Log)
}

func newProgress(eng engines.AgentEngine, w io.Writer, red *redact.Redactor, start time.Time, now func() time.Time) *progress {
	return &progress{eng: eng, w: w, red: red, start: start, now: now, started: map[string]bool{}, finished: map[string]bool{}}
}

func (p *progress) feed(chunk []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.buf = append(p.buf, chunk...)
	if len(p.buf) > maxProgressTranscript {
		p.stopped = true
		p.buf = nil
		p.printf("(the transcript passed %d MiB: no more progress lines; the run goes on)", maxProgressTranscript>>20)
		return
	}
	end := bytes.LastIndexByte(p.buf, '\n') + 1
	if end <= p.parsed {
		return
	}
	p.parsed = end
	log, err := p.eng.ParseTranscript(bytes.NewReader(p.buf[:end]))
	if err != nil || log == nil {
		return
	}
	if p.onLog != nil {
		p.onLog(log)
	}
	for _, c := range log.Commands {
		if !p.started[c.ID] {
			p.started[c.ID] = true
			p.printf("$ %s", oneLine(p.red.String(c.Command)))
		}
		if c.Status != commandlog.StatusUnknown && !p.finished[c.ID] {
			p.finished[c.ID] = true
			p.printf("  %s", statusText(c))
		}
	}
}

// note prints a progress line from any goroutine.
func (p *progress) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printf(format, args...)
}

func (p *progress) printf(format string, args ...any) {
	el := p.now().Sub(p.start).Round(time.Second)
	fmt.Fprintf(p.w, "[%02d:%02d] %s\n", int(el.Minutes()), int(el.Seconds())%60, fmt.Sprintf(format, args...))
}

// summary prints the run's verdict line.
func (p *progress) summary(l *commandlog.Log, res *sandbox.Result, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	failed := len(l.Failed())
	cost := "cost unknown"
	if l.CostUSD != nil {
		cost = fmt.Sprintf("cost $%.4f", *l.CostUSD)
	}
	outcome := string(l.Outcome)
	if l.Adjusted {
		outcome += " (adjusted)"
	}
	p.printf("outcome: %s: %d commands, %d failed, %s, %s", outcome, len(l.Commands), failed, cost, took.Round(time.Second))
	if l.OutcomeReason != "" {
		p.printf("reason: %s", p.red.String(l.OutcomeReason))
	}
	for _, m := range l.Markers {
		if m.Kind == commandlog.MarkerBlocked || m.Kind == commandlog.MarkerFix {
			p.printf("%s: %s", m.Kind, oneLine(m.Text))
		}
	}
	if len(l.Commands) == 0 && len(res.Stderr) > 0 {
		p.printf("the agent's stderr ends with: %s", oneLine(lastLine(p.red.String(string(res.Stderr)))))
	}
}

func statusText(c commandlog.Command) string {
	if c.ExitCode != nil {
		return fmt.Sprintf("-> exit %d (%s)", *c.ExitCode, c.Status)
	}
	return fmt.Sprintf("-> %s", c.Status)
}

// oneLine shortens s to its first line, at most 160 characters. Control
// and hidden characters are made visible first, so that trimming takes
// no separator or filler silently.
func oneLine(s string) string {
	s = strings.TrimSpace(termtext.Visible(s))
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = s[:i], true
	}
	if r := []rune(s); len(r) > 160 {
		s, more = string(r[:160]), true
	}
	if more {
		s += " …"
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
