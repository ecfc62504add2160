package transcriptgen

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

func TestCopiesGetFreshIDs(t *testing.T) {
	fixture := []byte(`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_A1","name":"Bash"}]}}
{"id": 5, "cause": 4, "observation":"run"}
`)
	g := New(fixture)
	var b bytes.Buffer
	for i := 0; i < 3; i++ {
		_, err := g.WriteCopy(&b)
		assert.NilError(t, err)
	}
	out := b.String()
	for _, want := range []string{`"id":"toolu_A1-r0"`, `"toolu_A1-r1"`, `"toolu_A1-r2"`, `"msg_1-r2"`, `"type":"tool_use"`, `"id": 5,`, `"id": 1000005`, `"cause": 2000004`} {
		assert.Assert(t, strings.Contains(out, want), "missing %s in\n%s", want, out)
	}
	assert.Equal(t, strings.Count(out, "\n"), 6)
}

func TestWriteSize(t *testing.T) {
	g := New([]byte(`{"id":"toolu_x"}`))
	var b bytes.Buffer
	n, err := g.WriteSize(&b, 1000)
	assert.NilError(t, err)
	assert.Assert(t, n >= 1000)
	assert.Equal(t, int64(b.Len()), n)
	_, err = New(nil).WriteSize(&b, 10)
	assert.ErrorContains(t, err, "empty")
}

// byOrder reports whether a log has commands whose calls had no id (the
// parser named them call-N).
func byOrder(l *commandlog.Log) bool {
	for _, c := range l.Commands {
		if strings.HasPrefix(c.ID, "call-") {
			return true
		}
	}
	return false
}

// Every copy of a fixture pairs its own calls and results: k copies parse
// to k times the fixture's commands, with the same commands, exit codes and
// statuses, for every engine's JSONL fixtures.
func TestCopiesParseToCopiesOfTheCommands(t *testing.T) {
	t.Parallel()
	const k = 3
	n := 0
	var b bytes.Buffer // reused: the copies of one fixture after another
	for _, name := range engines.Names() {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", name, "*.jsonl"))
		assert.NilError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			assert.NilError(t, err)
			one, err := eng.ParseTranscript(bytes.NewReader(data))
			assert.NilError(t, err)
			if byOrder(one) {
				continue // calls without ids pair by order, across copies too
			}
			if base := filepath.Base(f); strings.Contains(base, ".session.") || strings.Contains(base, ".page") {
				// a chat session file is one document (checkpoints, rewinds),
				// and event pages are ordered by timestamp, which copies share
				continue
			}
			b.Reset()
			g := New(data)
			for i := 0; i < k; i++ {
				_, err := g.WriteCopy(&b)
				assert.NilError(t, err)
			}
			many, err := eng.ParseTranscript(&b)
			assert.NilError(t, err)
			assert.Equal(t, len(many.Commands), k*len(one.Commands), f)
			for i, c := range many.Commands {
				want := one.Commands[i%len(one.Commands)]
				assert.Equal(t, c.Command, want.Command, "%s: command %d", f, i)
				assert.Equal(t, c.Status, want.Status, "%s: command %d", f, i)
				assert.DeepEqual(t, c.ExitCode, want.ExitCode)
				assert.Equal(t, c.Output, want.Output, "%s: command %d", f, i)
			}
			assert.Equal(t, len(many.FileEdits), k*len(one.FileEdits), f)
			n++
		}
	}
	assert.Assert(t, n > 30, "only %d fixtures", n)
}

// Every shape's transcripts exist and copies of them parse to copies of
// their commands.
func TestShapes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer // reused: the copies of one shape after another
	for _, s := range Shapes {
		got, err := ShapeNamed(s.Name)
		assert.NilError(t, err)
		fixture, err := got.Fixture("../..")
		assert.NilError(t, err)
		eng, err := engines.Lookup(s.Engine)
		assert.NilError(t, err, s.Name)
		one, err := eng.ParseTranscript(bytes.NewReader(fixture))
		assert.NilError(t, err)
		assert.Assert(t, len(one.Commands) > 0, "%s: no command", s.Name)
		b.Reset()
		g := New(fixture)
		for i := 0; i < 3; i++ {
			_, err := g.WriteCopy(&b)
			assert.NilError(t, err)
		}
		three, err := eng.ParseTranscript(&b)
		assert.NilError(t, err)
		assert.Equal(t, len(three.Commands), 3*len(one.Commands), s.Name)
		assert.Equal(t, three.ParseStats.Malformed, 0, s.Name)
	}
	_, err := ShapeNamed("nope")
	assert.ErrorContains(t, err, "claude-session")
}

// Every synthetic shape parses to the commands it says it wrote.
func TestSynthetic(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer // reused: one shape's transcript after another
	for _, shape := range Synthetic {
		eng := SyntheticEngine(shape)
		b.Reset()
		size := longtest.Count(1<<20, 3<<20)
		n, err := WriteSynthetic(&b, shape, int64(size))
		assert.NilError(t, err)
		assert.Assert(t, b.Len() >= size, shape)
		e, err := engines.Lookup(eng)
		assert.NilError(t, err)
		l, err := e.ParseTranscript(&b)
		assert.NilError(t, err)
		assert.Equal(t, int64(len(l.Commands)), n, shape)
		assert.Equal(t, l.ParseStats.Malformed, 0, shape)
	}
	_, err := WriteSynthetic(io.Discard, "nope", 1)
	assert.ErrorContains(t, err, "claude-small-commands")
}

// LineCounter counts bytes and lines written in any pieces, a line cut
// across writes included; the last line, not ended, is not counted.
func TestLineCounter(t *testing.T) {
	var l LineCounter
	for _, p := range []string{"ab\ncd", "e\n", "\nx"} {
		n, err := l.Write([]byte(p))
		assert.NilError(t, err)
		assert.Equal(t, n, len(p))
	}
	lines, median := l.Lines()
	assert.Equal(t, lines, int64(3))
	assert.Equal(t, median, 2) // lengths 2, 3 and 0
	assert.Equal(t, l.Bytes(), int64(9))
}
