package pipeline_test

import (
	"os"
	"testing"

	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// TestMain lets this test binary act as the egress proxy and as the strict
// profile's disk meter: runs copy it into their containers, started under
// egress.ProgramName or sandbox.MeterProgram; and as the small process that
// measures a command's peak RSS (runCLI, security_hostile_memory_test.go).
func TestMain(m *testing.M) {
	if egress.IsProxy(os.Args[0]) {
		os.Exit(egress.Main(os.Getenv, os.Stdout, os.Stderr))
	}
	if sandbox.IsMeter(os.Args[0]) {
		os.Exit(sandbox.MeterMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	if out := os.Getenv(peakRSSFileEnv); out != "" {
		os.Exit(runReportingPeakRSS(out, os.Args[1:]))
	}
	os.Exit(m.Run())
}
