package pipeline

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/termtext"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

// logEngine is an engine whose every transcript parses to one log.
type logEngine struct {
	engines.AgentEngine
	log *commandlog.Log
}

func (e logEngine) ParseTranscript(io.Reader) (*commandlog.Log, error) {
	return commandlog.Clone(e.log), nil
}

// The progress lines quote commands, reasons and markers: every hidden,
// bidi, tag, separator and conceal character, C1 control, OSC/DCS sequence
// and huge CSI parameter is shown visibly, through the writer Run puts
// around the progress output.
func TestProgressShowsHostileTextVisibly(t *testing.T) {
	var out bytes.Buffer
	start := time.Unix(0, 0)
	l := termtexttest.Log()
	p := newProgress(logEngine{log: l}, termtext.NewWriter(&out), nil, start, func() time.Time { return start.Add(7 * time.Second) })
	p.feed([]byte("{}\n"))
	p.summary(l, &sandbox.Result{Stderr: []byte("agent said \u202e\x1b]0;t\x07")}, 7*time.Second)
	for _, problem := range termtexttest.Problems(out.String(), termtexttest.Text) {
		t.Error(problem)
	}
	assert.Assert(t, strings.Count(out.String(), "$ ") >= len(l.Commands))
	golden.Assert(t, out.String(), "hostile-progress.txt")
}
