package agentcli

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitExited waits until cmd's process has exited without reaping it (waitid WNOWAIT): the
// zombie keeps its pid and process group id reserved until cmd.Wait collects it.
func waitExited(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			// On another error (none is expected for our own child) cmd.Wait reports it.
			return false, nil
		}
	}
}

// killGroup SIGKILLs cmd's process group. Call it only while cmd is not reaped.
func killGroup(cmd *exec.Cmd) {
	_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
}

// signalIfSame SIGKILLs p if the process with p's pid is still p: it opens a pidfd (which
// pins the process it names), then compares the start time, so a pid reused since the scan
// is left alone.
func signalIfSame(p proc) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return // gone
	}
	defer unix.Close(fd)
	if _, start, ok := procStat(p.pid); !ok || start != p.start {
		return // another process has the pid now
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}
