package engines

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// pidNamespace returns runLocal's PID namespace, which these tests need (on
// the host the runner would count every process of the machine); CI must
// have it.
func pidNamespace(t *testing.T) []string {
	t.Helper()
	ns := runnerPIDNamespace()
	if ns == nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs a PID namespace for this test (unshare as root)")
		}
		t.Skip("no PID namespace here (unshare needs root)")
	}
	return ns
}

// A swarm that the command left behind still small, and that grows slowly
// (a fork bomb in the background on a loaded machine), is caught: the
// runner looks again while the count grows. When it looked only twice,
// 0.3 s apart, it saw a few dozen processes, let the swarm be, and the next
// command ran beside it.
func TestRunnerCatchesASlowlyGrowingSwarm(t *testing.T) {
	longtest.Require(t) // the swarm takes seconds to grow
	t.Parallel()
	pidNamespace(t)
	md := "# x\n\n```sh\n( for i in $(seq 300); do sleep 60 & sleep 0.01; done ) &\n```\n\n```sh\necho next\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{"4 ( for i in $(seq 300); do sleep 60 & sleep 0.01; done ) & => 0 ok"})
	assert.Assert(t, strings.Contains(l.OutcomeReason, " processes running when it ended (a fork bomb?); they were killed"), l.OutcomeReason)
}

// After a timeout or a sweep the next command starts only once what was
// killed has been reaped: a killed process holds its pid (and a place under
// the sandbox's process limit) until then, and after a fork bomb the next
// command could not fork. The namespace's init reaps late, as a busy one
// does: all at once after three seconds; or one process every 0.2 s, so 40
// take eight seconds (the runner waits on while their number falls, not
// only five seconds).
func TestRunnerWaitsForTheKilledToBeReaped(t *testing.T) {
	longtest.Require(t) // waits for real timeouts and slow inits
	ns := pidNamespace(t)
	tests := []struct{ name, init, cmd string }{
		{"after three seconds", "sleep 3; my $st = 0; while ((my $w = waitpid(-1, 0)) > 0) { $st = $? if $w == $r } exit($st >> 8)",
			"sh -c 'sleep 100 & sleep 100 & exec sleep 100'"},
		{"one every 0.2 s", "my $st = 0; while ((my $w = waitpid(-1, 0)) > 0) { $st = $? if $w == $r; select(undef, undef, undef, 0.2) } exit($st >> 8)",
			"sh -c 'for i in $(seq 40); do sleep 100 & done; exec sleep 100'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			init := `my $r = fork() // die "fork: $!"; if (!$r) { exec @ARGV or die "exec: $!" }` + "\n" + tc.init
			// (grep finds nothing and exits 1: its status is not the
			// count's, and a pipeline fails when one of its programs does.)
			md := "# x\n\n<!-- readme2demo: timeout=1s continue-on-error -->\n```sh\n" + tc.cmd + "\n```\n\n" +
				"```sh\n{ grep -ls '^State:.Z' /proc/[0-9]*/status || true; } | wc -l\n```\n"
			l, _ := runRunner(t, MarkdownName, readmePlan(md), nil, append(append([]string{}, ns...), "perl", "-e", init))
			assert.DeepEqual(t, cmdSummary(l), []string{
				"5 " + tc.cmd + " => 124 failed",
				"9 { grep -ls '^State:.Z' /proc/[0-9]*/status || true; } | wc -l => 0 ok",
			})
			assert.Equal(t, l.Commands[1].Output, "0\n", "processes left unreaped when the next command ran")
		})
	}
}
