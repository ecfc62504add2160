package engines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/jsonv"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

// openHandsBothWays parses in as the engine does, output clipped by the decoder, and
// decoded whole (clipBothWays).
func openHandsBothWays(t *testing.T, in []byte) (clipped, whole string) {
	t.Helper()
	return clipBothWays(t, &openHands{}, &openHands{noClip: true}, in)
}

// clippedContents counts the "content" strings the decoder clipped in a
// transcript (shorter than MaxString, so not clipped for their length):
// the tests below check that they exercise the clipped path at all.
func clippedContents(t *testing.T, in []byte) int {
	t.Helper()
	rd := jsonv.NewReader(bytes.NewReader(in), openHandsOptions)
	defer rd.Close()
	n := 0
	var walk func(v *jsonv.Value)
	walk = func(v *jsonv.Value) {
		for _, m := range v.Members() {
			if m.Key == "content" && m.Val.IsString() && m.Val.Clipped() > 0 {
				n++
			}
			walk(m.Val)
		}
		for _, x := range v.Items() {
			walk(x)
		}
	}
	for {
		v, err := rd.Next()
		if err == io.EOF {
			return n
		}
		if err == nil {
			walk(v)
		}
	}
}

// Every OpenHands transcript in testdata, in its own container and compacted
// onto one line (where the decoder's fast path clips), gives the same logs
// whether the decoder clips output (jsonv.Options.Clip) or decodes it whole.
func TestOpenHandsClipMatchesWholeDecodeOnFixtures(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pat := range []string{"../testdata/fixtures/openhands/*.json*", "../testdata/fixtures/openhands/*.log",
		"../testdata/corpus/openhands/*.json*", "../testdata/bench/openhands/*.json*"} {
		m, err := filepath.Glob(pat)
		assert.NilError(t, err)
		files = append(files, m...)
	}
	assert.Assert(t, len(files) > 15, files)
	clips := 0
	for _, f := range files {
		in, err := os.ReadFile(f)
		assert.NilError(t, err)
		clipped, whole := openHandsBothWays(t, in)
		assert.Equal(t, clipped, whole, f)
		clips += clippedContents(t, in)
		if strings.HasSuffix(f, ".json") {
			var line bytes.Buffer
			if json.Compact(&line, in) == nil {
				clipped, whole := openHandsBothWays(t, line.Bytes())
				assert.Equal(t, clipped, whole, f+" on one line")
				clips += clippedContents(t, line.Bytes())
			}
		}
	}
	assert.Assert(t, clips > 10, "the decoder clipped %d outputs of the fixtures", clips)
}

// Hostile output in V0 and V1 events: escapes of every kind around where
// the decoder cuts the head and the tail, \\ and \u in the middle,
// surrogate pairs cut in two, invalid escapes, multi-byte UTF-8 at the
// edges; exit codes stated only in the middle of the content; inputs to a
// running command whose earlier output was clipped; error observations;
// and agent text (V0 message actions, finish outputs, V1 messages whose
// content is a string) with a marker of its own in the middle of a long
// content.
func TestOpenHandsClipMatchesWholeDecodeOnHostileOutput(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(21))
	head, tail := OutputHeadBytes+openHandsClipSlack, OutputTailBytes+openHandsClipSlack
	text := func() string {
		n := 4500 + rng.Intn(20000)
		if rng.Intn(8) == 0 {
			n = 70000 + rng.Intn(30000) // past clipRaw's 64 KiB
		}
		return hostileOutput(rng, n, head, tail)
	}
	middle := func(s, insert string) string {
		i := len(s) / 2
		for i < len(s) && s[i] != 'n' || i > 0 && s[i-1] != '\\' {
			i++
		}
		return s[:i+1] + insert + s[i+1:]
	}
	var in bytes.Buffer
	write := func(format string, a ...any) { fmt.Fprintf(&in, format+"\n", a...) }
	records := longtest.Count(100, 400)
	for i := 0; i < records; i++ {
		out := text()
		switch rng.Intn(5) {
		case 0:
			out = strings.Repeat(`\n `, rng.Intn(2000)) + `ERROR: ` + out
		case 1:
			out = middle(out, `[The command completed with exit code 3.]\n`)
		case 2:
			blocks, _ := json.Marshal([]map[string]string{{"type": "text", "text": strings.Repeat("x\n", 3000)}})
			s, _ := json.Marshal(strings.Repeat(" ", rng.Intn(5000)) + string(blocks))
			out = string(s[1 : len(s)-1])
		}
		meta := []string{`{"exit_code": 0}`, `{"exit_code": -1}`, `{}`}[rng.Intn(3)]
		switch rng.Intn(8) {
		case 0, 1, 2: // V0 run, sometimes followed by inputs to it
			write(`{"id": %d, "source": "agent", "action": "run", "args": {"command": "seq %d", "is_input": false}}`, 3*i, i)
			write(`{"id": %d, "cause": %d, "source": "agent", "observation": "run", "content": "%s", "extras": {"command": "seq %d", "metadata": %s}}`, 3*i+1, 3*i, out, i, meta)
			for k := rng.Intn(3); k > 0; k-- {
				write(`{"source": "agent", "action": "run", "args": {"command": "", "is_input": true}}`)
				write(`{"source": "agent", "observation": "run", "content": "%s", "extras": {"command": "", "metadata": %s}}`, []string{"", "ok", text()}[rng.Intn(3)], meta)
			}
		case 3: // V0 edit and error observations
			write(`{"id": %d, "source": "agent", "action": "edit", "args": {"path": "f%d", "command": "str_replace", "content": "%s"}}`, 3*i, i, out)
			write(`{"id": %d, "cause": %d, "source": "agent", "observation": "edit", "content": "%s"}`, 3*i+1, 3*i, out)
			write(`{"id": %d, "source": "agent", "action": "run", "args": {"command": "false %d"}}`, 3*i+2, i)
			write(`{"cause": %d, "source": "agent", "observation": "error", "content": "%s"}`, 3*i+2, out)
		case 4: // V0 agent text
			write(`{"id": %d, "source": "agent", "action": "message", "args": {"content": "%s"}}`, 3*i, middle(out, fmt.Sprintf(`FIX: step %d\n`, i)))
			write(`{"id": %d, "source": "agent", "action": "finish", "args": {"outputs": {"content": "%s"}}}`, 3*i+1, middle(text(), fmt.Sprintf(`BLOCKED: no network %d\n`, i)))
		case 5: // V1 terminal action and observation with string content
			write(`{"kind": "ActionEvent", "id": "a%d", "source": "agent", "tool_call_id": "c%d", "tool_name": "terminal", "action": {"kind": "TerminalAction", "command": "seq %d"}}`, i, i, i)
			write(`{"kind": "ObservationEvent", "id": "o%d", "source": "environment", "action_id": "a%d", "observation": {"kind": "TerminalObservation", "content": "%s", "exit_code": %d}}`, i, i, out, rng.Intn(3)-1)
		case 6: // V1 agent message whose content is a string
			write(`{"kind": "MessageEvent", "id": "m%d", "source": "agent", "llm_message": {"role": "assistant", "content": "%s"}}`, i, middle(out, fmt.Sprintf(`FIX: v1 step %d\n`, i)))
		default: // V0 evaluation line: the same events in a history
			write(`{"instance_id": "i%d", "history": [{"id": 1, "source": "agent", "action": "run", "args": {"command": "seq %d"}}, {"id": 2, "cause": 1, "source": "agent", "observation": "run", "content": "%s", "extras": {"metadata": %s}}, {"id": 3, "source": "agent", "action": "message", "args": {"content": "%s"}}]}`,
				i, i, out, meta, middle(text(), fmt.Sprintf(`FIX: eval step %d\n`, i)))
		}
	}
	assert.Assert(t, clippedContents(t, in.Bytes()) > records/2)
	clipped, whole := openHandsBothWays(t, in.Bytes())
	assert.Equal(t, clipped, whole)
}
