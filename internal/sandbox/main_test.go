package sandbox_test

import (
	"os"
	"testing"

	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// TestMain lets this test binary act as the strict profile's disk meter:
// the strict runs copy it into the meter container, started as
// sandbox.MeterProgram.
func TestMain(m *testing.M) {
	if sandbox.IsMeter(os.Args[0]) {
		os.Exit(sandbox.MeterMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
