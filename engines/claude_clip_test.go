package engines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// claudeBothWays parses in as the engine does, output clipped by the decoder, and
// decoded whole (clipBothWays).
func claudeBothWays(t *testing.T, in []byte) (clipped, whole string) {
	t.Helper()
	return clipBothWays(t, &claudeCode{}, &claudeCode{noClip: true}, in)
}

// Every Claude Code transcript in testdata gives the same log whether the
// decoder clips output (jsonv.Options.Clip) or decodes it whole.
func TestClaudeClipMatchesWholeDecodeOnFixtures(t *testing.T) {
	t.Parallel()
	var files []string
	for _, dir := range []string{"../testdata/fixtures/claude-code", "../testdata/corpus/claude-code", "../testdata/bench/claude-code", "testdata"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		assert.NilError(t, err)
		files = append(files, m...)
	}
	assert.Assert(t, len(files) > 10, files)
	for _, f := range files {
		in, err := os.ReadFile(f)
		assert.NilError(t, err)
		if !bytes.Contains(in, []byte(`"tool_use"`)) {
			continue
		}
		clipped, whole := claudeBothWays(t, in)
		assert.Equal(t, clipped, whole, f)
	}
}

// Hostile output: escapes of every kind at and around where the decoder
// cuts the head and the tail, \\ and \u in the middle, surrogate pairs cut
// in two, invalid escapes (the record is malformed either way), multi-byte
// UTF-8 at the edges, "Exit code N" prefixes with long white space after
// them, content that is a serialised list of blocks after white space, and
// an assistant message whose string content holds a marker in the middle.
func TestClaudeClipMatchesWholeDecodeOnHostileOutput(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(21))
	head, tail := OutputHeadBytes+claudeClipSlack, OutputTailBytes+claudeClipSlack
	text := func() string { return hostileOutput(rng, 4500+rng.Intn(20000), head, tail) }
	var in bytes.Buffer
	for i := 0; i < longtest.Count(150, 600); i++ {
		out := text()
		switch rng.Intn(6) {
		case 0:
			out = `Exit code 1` + strings.Repeat(`\n `, rng.Intn(200)) + out
		case 1:
			out = strings.Repeat(`\n`, rng.Intn(3000)) + out
		case 2:
			blocks, _ := json.Marshal([]map[string]string{{"type": "text", "text": strings.Repeat("x\n", 3000)}})
			s, _ := json.Marshal(strings.Repeat(" ", rng.Intn(5000)) + string(blocks))
			out = string(s[1 : len(s)-1])
		}
		id := fmt.Sprintf("t%d", i)
		fmt.Fprintf(&in, `{"type":"assistant","message":{"id":"m%d","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"c"}}]}}`+"\n", i, id)
		isErr := rng.Intn(2) == 0
		switch rng.Intn(3) {
		case 0:
			fmt.Fprintf(&in, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":%q,"content":"%s","is_error":%v}]}}`+"\n", id, out, isErr)
		case 1:
			fmt.Fprintf(&in, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":%q,"content":"%s","is_error":%v}]},"tool_use_result":{"stdout":"%s","stderr":"%s"}}`+"\n", id, out, isErr, text(), []string{"", "err\n", text()}[rng.Intn(3)])
		default:
			fmt.Fprintf(&in, `{"type":"assistant","message":{"id":"s%d","content":"%sSUCCESS\n%s"}}`+"\n", i, out, text())
		}
	}
	clipped, whole := claudeBothWays(t, in.Bytes())
	assert.Equal(t, clipped, whole)
}

// FuzzClipMatchesWholeDecode: any transcript gives the same Claude Code,
// Gemini CLI and OpenHands logs whether the decoder clips output or not.
// The seeds are small transcripts of one command whose output is long
// enough to be clipped, with odd escapes near the edges; the fuzzer damages
// them.
//
//	go test ./engines -run '^$' -fuzz '^FuzzClipMatchesWholeDecode$' -fuzztime 20s
func FuzzClipMatchesWholeDecode(f *testing.F) {
	var seq strings.Builder
	for i := 0; seq.Len() < 6000; i++ {
		fmt.Fprintf(&seq, `%d\n`, i)
	}
	for _, out := range []string{
		seq.String(),
		"Exit code 2" + strings.Repeat(`\n `, 40) + seq.String(),
		seq.String()[:3100] + `\\` + seq.String()[3100:],
		seq.String()[:4000] + `\u00e9\ud83d\ude00` + seq.String()[4000:],
		"Command failed: " + strings.Repeat("x", 5000),
	} {
		f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"seq 1 2000"}}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"` + out + `","is_error":true}]},"tool_use_result":{"stdout":"` + out + `","stderr":"e"}}` + "\n"))
		f.Add([]byte(`{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t","parameters":{"command":"seq 1 2000"}}` + "\n" +
			`{"type":"tool_result","tool_id":"t","status":"error","output":"` + out + `"}` + "\n"))
		f.Add([]byte(`{"id":1,"source":"agent","action":"run","args":{"command":"seq 1 2000"}}` + "\n" +
			`{"id":2,"cause":1,"source":"agent","observation":"run","content":"` + out + `","extras":{"metadata":{}}}` + "\n" +
			`{"source":"agent","action":"run","args":{"command":"","is_input":true}}` + "\n" +
			`{"source":"agent","observation":"run","content":"` + out + `"}` + "\n" +
			`{"id":3,"source":"agent","action":"message","args":{"content":"` + out + `\nFIX: x\n` + out + `"}}` + "\n"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		clipped, whole := claudeBothWays(t, in)
		assert.Equal(t, clipped, whole)
		clipped, whole = geminiBothWays(t, in)
		assert.Equal(t, clipped, whole)
		clipped, whole = openHandsBothWays(t, in)
		assert.Equal(t, clipped, whole)
	})
}
