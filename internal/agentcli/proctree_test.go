//go:build linux

package agentcli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// procState is the state letter of /proc/<pid>/stat ("" when there is no such process).
func procState(pid int) string {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	s := string(stat)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

func startGroupLeader(t *testing.T, script string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

// TestExitedCLIStaysUnreapedUntilReap: after the CLI exits, its pid stays taken (a zombie)
// until reap, so the group signal reap sends cannot reach a process that reused the pid; reap
// kills what the CLI left in its group and collects the CLI's exit status.
func TestExitedCLIStaysUnreapedUntilReap(t *testing.T) {
	cmd, out := startGroupLeader(t, `sleep 300 & echo $!; exit 3`)
	line, err := out.ReadString('\n')
	assert.NilError(t, err)
	leftover, err := strconv.Atoi(strings.TrimSpace(line))
	assert.NilError(t, err)

	p := watchExit(cmd)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("exit not seen")
	}
	assert.Check(t, is.Equal(procState(cmd.Process.Pid), "Z"), "the exited CLI must stay a zombie until reap")
	assert.Check(t, procState(leftover) != "", "the leftover in the CLI's group runs until reap")

	err = p.reap()
	var exitErr *exec.ExitError
	assert.Assert(t, err != nil && errors.As(err, &exitErr), "reap returns Wait's error: %v", err)
	assert.Check(t, is.Equal(cmd.ProcessState.ExitCode(), 3))
	assert.Check(t, is.Equal(procState(cmd.Process.Pid), ""), "reaped")
	deadline := time.Now().Add(10 * time.Second)
	for procState(leftover) != "" && procState(leftover) != "Z" {
		assert.Assert(t, time.Now().Before(deadline), "the leftover in the CLI's group was not killed")
		time.Sleep(50 * time.Millisecond)
	}
}

// TestKillTreeReachesOtherSessions: a command the CLI started in a session of its own (as the
// CLIs' shell tools do) is outside the CLI's process group; killTree kills it too.
func TestKillTreeReachesOtherSessions(t *testing.T) {
	cmd, out := startGroupLeader(t, `setsid sleep 300 & echo $!; wait`)
	line, err := out.ReadString('\n')
	assert.NilError(t, err)
	detached, err := strconv.Atoi(strings.TrimSpace(line))
	assert.NilError(t, err)
	p := watchExit(cmd)
	p.killTree()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("killTree did not end the CLI")
	}
	_ = p.reap()
	deadline := time.Now().Add(10 * time.Second)
	for procState(detached) != "" && procState(detached) != "Z" {
		assert.Assert(t, time.Now().Before(deadline), "the command in its own session survived killTree")
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSignalIfSameSparesAReusedPid: a process found by the tree scan is signalled only if the
// pid still names the same process (start time), so a pid reused since the scan is spared.
func TestSignalIfSameSparesAReusedPid(t *testing.T) {
	t.Parallel() // waits; shares nothing
	cmd := exec.Command("sleep", "300")
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_, start, ok := procStat(cmd.Process.Pid)
	assert.Assert(t, ok)

	signalIfSame(proc{pid: cmd.Process.Pid, start: start + 1}) // as if the pid had been reused
	time.Sleep(200 * time.Millisecond)
	assert.Check(t, is.Equal(procState(cmd.Process.Pid), "S"), "a process with another start time was signalled")

	signalIfSame(proc{pid: cmd.Process.Pid, start: start})
	err := cmd.Wait()
	assert.Check(t, is.ErrorContains(err, "killed"))
}
