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

// After a sweep, the runner waits for the dead to be reaped for as long as
// their number keeps falling, not only five seconds: here the namespace's
// init reaps one process every 0.2 s, so 40 take eight seconds, and the
// next command must find none of them left.
func TestRunnerWaitsForASlowReaper(t *testing.T) {
	longtest.Require(t) // waits for a real timeout and a slow init
	t.Parallel()
	ns := pidNamespace(t)
	init := `my $r = fork() // die "fork: $!"; if (!$r) { exec @ARGV or die "exec: $!" }
my $st = 0; while ((my $w = waitpid(-1, 0)) > 0) { $st = $? if $w == $r; select(undef, undef, undef, 0.2) } exit($st >> 8)`
	md := "# x\n\n<!-- readme2demo: timeout=1s continue-on-error -->\n```sh\nsh -c 'for i in $(seq 40); do sleep 100 & done; exec sleep 100'\n```\n\n" +
		"```sh\ngrep -ls '^State:.Z' /proc/[0-9]*/status | wc -l\n```\n"
	l, _ := runRunner(t, MarkdownName, readmePlan(md), nil, append(append([]string{}, ns...), "perl", "-e", init))
	assert.DeepEqual(t, cmdSummary(l), []string{
		"5 sh -c 'for i in $(seq 40); do sleep 100 & done; exec sleep 100' => 124 failed",
		"9 grep -ls '^State:.Z' /proc/[0-9]*/status | wc -l => 0 ok",
	})
	assert.Equal(t, l.Commands[1].Output, "0\n", "processes left unreaped when the next command ran")
}
