package agentcli_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/readme2demo/readme2demo/internal/agentcli"
)

func TestSuperviseReportsExitAndOutput(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo transcript; echo noise >&2; exit 3")
	res, err := agentcli.Supervise(context.Background(), cmd, agentcli.Kill{})
	assert.NilError(t, err, "a non-zero exit is a result, not an error")
	assert.Check(t, is.Equal(string(res.Stdout), "transcript\n"))
	assert.Check(t, is.Equal(string(res.Stderr), "noise\n"))
	assert.Check(t, is.Equal(res.ExitCode, 3))
	assert.Check(t, !res.Killed)

	_, err = agentcli.Supervise(context.Background(), exec.Command(filepath.Join(t.TempDir(), "missing")), agentcli.Kill{})
	assert.Check(t, is.ErrorContains(err, "start missing"))
}

// The kill lands After the signal, not at a fixed time, and takes the whole
// process tree: a command the CLI started in its own session dies too.
func TestSuperviseKillsTheTreeAfterTheSignal(t *testing.T) {
	longtest.Require(t) // waits for real signal grace periods
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cmd := exec.Command("sh", "-c", "echo started; setsid sleep 60 & echo $! > "+pidFile+"; wait")
	when := make(chan struct{})
	done := make(chan struct{})
	var res *agentcli.Result
	var err error
	go func() {
		res, err = agentcli.Supervise(context.Background(), cmd, agentcli.Kill{When: when, After: 100 * time.Millisecond})
		close(done)
	}()
	var child int
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		b, rerr := os.ReadFile(pidFile)
		if rerr != nil || strings.TrimSpace(string(b)) == "" {
			return poll.Continue("no child yet")
		}
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return poll.Success()
	}, poll.WithTimeout(10*time.Second))
	select {
	case <-done:
		t.Fatal("the run ended before the kill signal")
	case <-time.After(300 * time.Millisecond):
	}
	close(when)
	<-done
	assert.NilError(t, err)
	assert.Check(t, res.Killed)
	assert.Check(t, is.Equal(res.ExitCode, -1))
	assert.Check(t, is.Equal(string(res.Stdout), "started\n"))
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if syscall.Kill(child, 0) != nil {
			return poll.Success()
		}
		// a zombie is dead too
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); strings.Contains(string(b), ") Z ") {
			return poll.Success()
		}
		return poll.Continue("child %d still alive", child)
	}, poll.WithTimeout(5*time.Second))
}

func TestSuperviseStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The command says on fd 3 when it has written its output; the
	// context ends then.
	r, w, err := os.Pipe()
	assert.NilError(t, err)
	defer r.Close()
	go func() {
		_, _ = r.Read(make([]byte, 1))
		cancel()
	}()
	cmd := exec.Command("sh", "-c", "echo partial; echo >&3; sleep 60")
	cmd.ExtraFiles = []*os.File{w}
	res, err := agentcli.Supervise(ctx, cmd, agentcli.Kill{})
	w.Close()
	assert.Check(t, errors.Is(err, context.Canceled))
	assert.Assert(t, res != nil, "what the CLI wrote so far comes back")
	assert.Check(t, is.Equal(string(res.Stdout), "partial\n"))
}

// With Running, the kill waits for the command itself, however late the
// CLI starts it, and then lets it run After.
func TestSuperviseWaitsForTheCommandToRun(t *testing.T) {
	longtest.Require(t) // waits for real signal grace periods
	when := make(chan struct{})
	close(when) // the last call was served long ago
	start := time.Now()
	cmd := exec.Command("sh", "-c", "sleep 1; echo started; sleep 61")
	res, err := agentcli.Supervise(context.Background(), cmd, agentcli.Kill{When: when, Running: "sleep 61", After: 200 * time.Millisecond})
	assert.NilError(t, err)
	assert.Check(t, res.Killed)
	assert.Check(t, is.Equal(string(res.Stdout), "started\n"), "killed while the command ran, not before it started")
	assert.Check(t, time.Since(start) >= 1200*time.Millisecond)
	assert.Check(t, time.Since(start) < 30*time.Second)
}
