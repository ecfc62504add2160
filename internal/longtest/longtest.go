// Package longtest gates the tests that are slow on their own: seconds of
// CPU or of waiting each, such as generating and parsing GiB-sized
// transcripts, thousands of damaged fixtures, a browser rendering thousands
// of commands, a real agent CLI (agentcli/clitest), or a real timeout. They
// are skipped in a plain `go test ./...`, which stays fast on a developer's
// machine, and run in CI.
//
// The switch is the environment variable R2D_LONG_TESTS (Env):
//
//	R2D_LONG_TESTS=1   run them (.ci/run sets it)
//	R2D_LONG_TESTS=0   skip them, also in CI
//	unset              run them only when CI=true
//
// Under -short they are always skipped.
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that switches long tests on (1) or off (0).
const Env = "R2D_LONG_TESTS"

// Enabled reports whether long tests run (see the package comment).
func Enabled() bool {
	if testing.Short() {
		return false
	}
	switch os.Getenv(Env) {
	case "1":
		return true
	case "0":
		return false
	}
	return os.Getenv("CI") == "true"
}

// Require skips t unless long tests are enabled.
func Require(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long test: set %s=1 to run it (.ci/run does)", Env)
	}
}

// Count is how many cases a randomized comparison checks: short in a plain
// `go test`, long when long tests are enabled. Such a test draws its cases
// from a fixed random source, so long mode checks a superset of the
// default.
func Count(short, long int) int {
	if Enabled() {
		return long
	}
	return short
}
