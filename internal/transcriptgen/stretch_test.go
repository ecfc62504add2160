package transcriptgen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
)

func TestStretch(t *testing.T) {
	in := `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"a \"q\" \\","signature":"x"},{"type":"text","text":"é\n"},{"type":"text","text":""}]}}` + "\n" +
		`{"type":"user","content":"keep","text_x":"same"}` + "\n"
	out := Stretch([]byte(in), map[string]int{"thinking": 100, "text": 10})
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	assert.Equal(t, len(lines), 2)
	var rec struct {
		Message struct {
			Content []struct{ Thinking, Text, Signature string }
		}
	}
	assert.NilError(t, json.Unmarshal([]byte(lines[0]), &rec))
	c := rec.Message.Content
	assert.Equal(t, c[0].Thinking, strings.Repeat(`a "q" \`, 10)) // 10 raw bytes (7 decoded): 10 copies reach 100
	assert.Equal(t, c[0].Signature, "x")
	assert.Equal(t, c[1].Text, strings.Repeat("é\n", 3)) // 4 raw bytes: 3 copies reach 10
	assert.Equal(t, c[2].Text, "")                       // empty: left alone
	assert.Equal(t, lines[1], `{"type":"user","content":"keep","text_x":"same"}`)
	assert.DeepEqual(t, Stretch([]byte(in), nil), []byte(in))

	_, err := ParseStretch("thinking=100,text")
	assert.ErrorContains(t, err, `"text"`)
	m, err := ParseStretch("thinking=100,old_string=5")
	assert.NilError(t, err)
	assert.DeepEqual(t, m, map[string]int{"thinking": 100, "old_string": 5})
}

// A stretched real session parses to the same commands: only text the
// log does not keep, or keeps the head and tail of, grows.
func TestStretchKeepsCommands(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bench", "claude-code", "spotter-session-2.1.39.jsonl"))
	assert.NilError(t, err)
	eng, err := engines.Lookup(engines.ClaudeCodeName)
	assert.NilError(t, err)
	one, err := eng.ParseTranscript(bytes.NewReader(data))
	assert.NilError(t, err)
	grown := Stretch(data, map[string]int{"thinking": 50000, "old_string": 50000, "new_string": 50000})
	assert.Assert(t, len(grown) > len(data)+1<<20)
	for _, l := range bytes.Split(bytes.TrimSpace(grown), []byte("\n")) {
		assert.Assert(t, json.Valid(l), "%.200s", l)
	}
	two, err := eng.ParseTranscript(bytes.NewReader(grown))
	assert.NilError(t, err)
	assert.DeepEqual(t, two.Commands, one.Commands)
	assert.DeepEqual(t, two.FileEdits, one.FileEdits)
}
