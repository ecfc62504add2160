package engines

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests under the garbage collector settings of the
// readme2demo command (cmd/readme2demo main), which the parsers are tuned
// for: they allocate many short-lived values and keep little alive. With
// the default settings the collector took about a third of the CPU time of
// this package's parsing tests.
func TestMain(m *testing.M) {
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(192 << 20)
	os.Exit(m.Run())
}
