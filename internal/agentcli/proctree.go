package agentcli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A CLI run by Supervise leads its own process group, and its tools start commands in
// sessions of their own, so stopping it means signalling its group and every descendant.
// Signals go by pid, and pids are reused: on a busy machine (pid_max 32768, tests of many
// packages starting processes side by side) a pid freed a moment ago may already belong to
// another test's freshly started CLI, itself a group leader. So:
//
//   - the CLI is not reaped until the last signal has been sent: waitExited waits for its exit
//     and leaves it a zombie, which keeps its pid and therefore its process group id from
//     being reused; only reap collects it, after killing what is left in its group;
//   - a descendant found by the /proc scan is signalled only if it is still the same process
//     (same pid and start time) when the signal is sent (signalIfSame).

// cliProcess is a started CLI whose exit is watched without reaping it.
type cliProcess struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the CLI has exited (it stays unreaped until reap)
	// reaped and waitErr: where a non-reaping wait is not available, waitExited reaps.
	reaped  bool
	waitErr error
}

// watchExit watches a started cmd that leads its own process group (Setpgid).
func watchExit(cmd *exec.Cmd) *cliProcess {
	p := &cliProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.reaped, p.waitErr = waitExited(cmd)
		close(p.exited)
	}()
	return p
}

// killTree SIGKILLs the CLI's process group and every descendant it has now.
func (p *cliProcess) killTree() {
	tree := descendants(p.cmd.Process.Pid)
	killGroup(p.cmd)
	for _, d := range tree {
		signalIfSame(d)
	}
}

// reap kills what the exited CLI left in its process group, then collects the CLI and its
// output. It returns cmd.Wait's error.
func (p *cliProcess) reap() error {
	<-p.exited
	killGroup(p.cmd)
	if p.reaped {
		return p.waitErr
	}
	return p.cmd.Wait()
}

// proc is a process seen in /proc: its pid and its start time (clock ticks after boot).
type proc struct {
	pid   int
	start uint64
}

// procStat reads a process's parent pid and start time from /proc/<pid>/stat.
func procStat(pid int) (ppid int, start uint64, ok bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	// Fields after the parenthesised command name: state(3) ppid(4) ... starttime(22).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(fields[1])
	start, err2 := strconv.ParseUint(fields[19], 10, 64)
	return ppid, start, err1 == nil && err2 == nil
}

// descendants lists every live descendant of pid (Linux /proc; none elsewhere).
func descendants(pid int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]proc{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, ok := procStat(child); ok {
			children[ppid] = append(children[ppid], proc{child, start})
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}
