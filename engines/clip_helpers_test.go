package engines

import (
	"bytes"
	"fmt"
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
