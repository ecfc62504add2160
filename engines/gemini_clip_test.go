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

// geminiBothWays parses in as the engine does, output clipped by the decoder, and
// decoded whole (clipBothWays).
func geminiBothWays(t *testing.T, in []byte) (clipped, whole string) {
	t.Helper()
	return clipBothWays(t, &gemini{}, &gemini{noClip: true}, in)
}

// Every Gemini CLI transcript and session file in testdata gives the same
// log whether the decoder clips output (jsonv.Options.Clip) or not.
func TestGeminiClipMatchesWholeDecodeOnFixtures(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pat := range []string{"../testdata/fixtures/gemini/*.json*", "../testdata/corpus/gemini/*.json*"} {
		m, err := filepath.Glob(pat)
		assert.NilError(t, err)
		files = append(files, m...)
	}
	assert.Assert(t, len(files) > 10, files)
	for _, f := range files {
		in, err := os.ReadFile(f)
		assert.NilError(t, err)
		clipped, whole := geminiBothWays(t, in)
		assert.Equal(t, clipped, whole, f)
		if strings.HasSuffix(f, ".session.json") {
			// On one line the session is decoded on the fast path, where
			// output is clipped: response.output is read whole.
			var line bytes.Buffer
			assert.NilError(t, json.Compact(&line, in))
			clipped, whole := geminiBothWays(t, line.Bytes())
			assert.Equal(t, clipped, whole, f+" on one line")
			// Without resultDisplay the output shown is the one
			// parseShellContent finds in response.output.
			noDisplay := bytes.ReplaceAll(line.Bytes(), []byte(`"resultDisplay":`), []byte(`"resultDisplayGone":`))
			clipped, whole = geminiBothWays(t, noDisplay)
			assert.Equal(t, clipped, whole, f+" on one line without resultDisplay")
			// And with a long output in the shell tool's own words.
			var session any
			assert.NilError(t, json.Unmarshal(noDisplay, &session))
			var long strings.Builder
			for i := 0; long.Len() < 20000; i++ {
				fmt.Fprintf(&long, "%d\n", i)
			}
			setOutputs(session, "Output: "+long.String()+"Exit Code: 3")
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			assert.NilError(t, enc.Encode(session))
			clipped, whole = geminiBothWays(t, b.Bytes())
			assert.Equal(t, clipped, whole, f+" on one line with a long shell output")
		}
	}
}

// Hostile output: escapes of every kind around the edges the decoder
// keeps, and outputs that geminiDisplayResult reads as a status line ("Command
// exited with code: N", "Command failed: …") padded with white space or
// with a line break hidden in the middle; also as a session's response
// output, which is read whole.
func TestGeminiClipMatchesWholeDecodeOnHostileOutput(t *testing.T) {
	t.Parallel()
	pieces := []string{`\n`, `\n`, `12345`, `é`, `😀`, `\t`, `\"`, `\/`, ` `, `a`}
	odds := append([]string{`\\`, `\u00e9`, `\u001b[0m`, `\ud83d\ude00`, `\ud83d`, `\x`, `[`, `{`}, pieces...)
	rng := rand.New(rand.NewSource(21))
	h, tl := OutputHeadBytes+16, OutputTailBytes+16
	text := func() string {
		var b strings.Builder
		n := 4300 + rng.Intn(12000)
		at := []int{h - 8 + rng.Intn(16), n - 2*tl - 24 + rng.Intn(48), n - tl*5/4 - 24 + rng.Intn(48), rng.Intn(n)}[rng.Intn(4)]
		for b.Len() < n {
			if b.Len() >= at && at >= 0 {
				b.WriteString(odds[rng.Intn(len(odds))])
				at = -1
				continue
			}
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	var in bytes.Buffer
	for i := 0; i < longtest.Count(100, 400); i++ {
		out := text()
		switch rng.Intn(5) {
		case 0:
			out = strings.Repeat(" ", rng.Intn(3000)) + "Command exited with code: 3" + strings.Repeat(`\n`, 5000)
		case 1:
			out = "Command failed: " + strings.Repeat("x", 3000) + []string{"", `\n`}[rng.Intn(2)] + strings.Repeat("y", 3000)
		case 2:
			out = strings.Repeat(" ", 3130) + "Comma" + strings.Repeat("z", 2000) + "nd failed: " + strings.Repeat("w", 1200)
		}
		id := fmt.Sprintf("run_shell_command-%d", i)
		fmt.Fprintf(&in, `{"type":"tool_use","tool_name":"run_shell_command","tool_id":%q,"parameters":{"command":"c"}}`+"\n", id)
		fmt.Fprintf(&in, `{"type":"tool_result","tool_id":%q,"status":%q,"output":"%s"}`+"\n", id, []string{"success", "error"}[rng.Intn(2)], out)
	}
	clipped, whole := geminiBothWays(t, in.Bytes())
	assert.Equal(t, clipped, whole)
}

// setOutputs sets every "output" string in a decoded JSON value to out.
func setOutputs(v any, out string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if _, ok := e.(string); ok && k == "output" {
				v[k] = out
				continue
			}
			setOutputs(e, out)
		}
	case []any:
		for _, e := range v {
			setOutputs(e, out)
		}
	}
}
