package engines

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the garbage collector set as the readme2demo
// command sets it for parsing (cmd/readme2demo main: collect less often,
// never past 192 MiB), only less often still: the parsing tests allocate
// hundreds of MiB of short-lived values and keep a few MiB alive, and with
// the default settings the collector, its page faults and the scavenger
// took about a third of their CPU. The test binary's peak RSS stays under
// 100 MB.
func TestMain(m *testing.M) {
	debug.SetGCPercent(1000)
	debug.SetMemoryLimit(192 << 20)
	os.Exit(m.Run())
}
