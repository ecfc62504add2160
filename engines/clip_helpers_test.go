package engines

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// clipBothWays parses in with clipped, an engine as it runs (long output
// clipped by the decoder, jsonv.Options.Clip), and whole, the same engine
// decoding output whole, and returns both results as JSON: the log, then,
// for an engine that reads several runs (InstanceParser), each run's log.
func clipBothWays(t *testing.T, clipped, whole AgentEngine, in []byte) (string, string) {
	t.Helper()
	enc := func(e AgentEngine) string {
		var b bytes.Buffer
		l, err := e.ParseTranscript(bytes.NewReader(in))
		assert.NilError(t, err)
		assert.NilError(t, commandlog.Encode(&b, l))
		if ip, ok := e.(InstanceParser); ok {
			runs, err := ip.ParseInstances(bytes.NewReader(in))
			assert.NilError(t, err)
			for _, r := range runs {
				fmt.Fprintf(&b, "run %q\n", r.ID)
				assert.NilError(t, commandlog.Encode(&b, r.Log))
			}
		}
		return b.String()
	}
	return enc(clipped), enc(whole)
}

// clipFiller is output valid anywhere in a JSON string body; clipOdds adds
// the pieces that make a decoder decode the whole string, or find it
// malformed: \\ and \u escapes, surrogate halves, invalid escapes, the
// start of JSON.
var (
	clipFiller = []string{`\n`, `\n`, `\n`, `12345`, `é`, `€`, `😀`, `\t`, `\"`, `\/`, `\r\n`, `\b`, `\f`, ` `, `a`}
	clipOdds   = append([]string{`\\`, `\\\\`, `\u00e9`, `\u001b[0m`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\x`, `\u12`, `[`, `{`}, clipFiller...)
)

// hostileOutput is a JSON string body of about n bytes of output dense with
// \n escapes (numbers and filler), with one odd piece placed near where a
// decoder keeping head and tail bytes cuts the head, near either end of
// the middle it skips, or anywhere.
func hostileOutput(rng *rand.Rand, n, head, tail int) string {
	var b strings.Builder
	b.Grow(n + 16)
	var num [8]byte
	at := []int{head - 8 + rng.Intn(16), n - 2*tail - 24 + rng.Intn(48), n - tail*5/4 - 24 + rng.Intn(48), rng.Intn(n)}[rng.Intn(4)]
	for b.Len() < n {
		if b.Len() >= at && at >= 0 {
			b.WriteString(clipOdds[rng.Intn(len(clipOdds))])
			at = -1
			continue
		}
		if rng.Intn(4) == 0 {
			b.WriteString(clipFiller[rng.Intn(len(clipFiller))])
		} else { // fmt.Fprintf(&b, `%d\n`, …) without its cost
			b.Write(strconv.AppendInt(num[:0], int64(rng.Intn(100000)), 10))
			b.WriteString(`\n`)
		}
	}
	return b.String()
}
