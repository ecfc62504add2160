//go:build !linux

package agentcli

import (
	"os/exec"
	"syscall"
)

// waitExited reaps cmd: there is no non-reaping wait here, so the group signal after it may
// reach a process that reused the pid (the harnesses are exercised on Linux).
func waitExited(cmd *exec.Cmd) (reaped bool, err error) { return true, cmd.Wait() }

// killGroup SIGKILLs cmd's process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// signalIfSame SIGKILLs p (descendants are found through /proc, so there are none here).
func signalIfSame(p proc) { _ = syscall.Kill(p.pid, syscall.SIGKILL) }
