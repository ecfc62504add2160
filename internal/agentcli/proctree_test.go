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

	"golang.org/x/sys/unix"
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

// waitGone waits until pid has exited (a zombie counts): its pidfd turns
// readable then, for a process of any parent.
func waitGone(t *testing.T, pid int, msg string) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	assert.NilError(t, err)
	defer unix.Close(fd)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		assert.NilError(t, err)
		assert.Assert(t, n == 1, msg)
		return
	}
}

// killPending says whether SIGKILL waits to be taken by pid (it is until
// the process runs again, which is when it dies).
func killPending(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	assert.NilError(t, err)
	pending := false
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k == "SigPnd" || k == "ShdPnd" {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			assert.NilError(t, err)
			pending = pending || mask&(1<<(unix.SIGKILL-1)) != 0
		}
	}
	return pending
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
	waitGone(t, leftover, "the leftover in the CLI's group was not killed")
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
	waitGone(t, detached, "the command in its own session survived killTree")
}

// TestSignalIfSameSparesAReusedPid: a process found by the tree scan is signalled only if the
// pid still names the same process (start time), so a pid reused since the scan is spared.
func TestSignalIfSameSparesAReusedPid(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_, start, ok := procStat(cmd.Process.Pid)
	assert.Assert(t, ok)
	for deadline := time.Now().Add(10 * time.Second); procState(cmd.Process.Pid) != "S"; { // asleep
		assert.Assert(t, time.Now().Before(deadline), "sleep is %q", procState(cmd.Process.Pid))
		time.Sleep(time.Millisecond)
	}

	signalIfSame(proc{pid: cmd.Process.Pid, start: start + 1}) // as if the pid had been reused
	// A SIGKILL sent is pending when the call returns, or taken and the
	// process no longer asleep.
	assert.Check(t, !killPending(t, cmd.Process.Pid), "a process with another start time was signalled")
	assert.Check(t, is.Equal(procState(cmd.Process.Pid), "S"), "a process with another start time was signalled")

	signalIfSame(proc{pid: cmd.Process.Pid, start: start})
	err := cmd.Wait()
	assert.Check(t, is.ErrorContains(err, "killed"))
}
