package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// haltPasses bounds haltRun's passes over the process list: a process
// forked while one pass read the list is found by the next, and a fork
// bomb that outruns every pass is the process limit's.
const haltPasses = 5

// haltRun stops (SIGSTOP) every process a proc file system shows but the
// meter itself. The meter calls it when a measurement passes a cap,
// before it prints that measurement: the run's writers then wait where
// they are for the kill that the watcher asks the daemon for, instead of
// writing on for as long as a loaded daemon takes to answer (CI once saw
// a disk bomb reach three times a 1 GiB cap in that wait). The
// namespace's first process ignores the signal (the kernel's rule for a
// namespace's init). Processes put into the namespace from outside
// (parent 0 there: runc setting up an exec the daemon is starting, the
// exec's program, the meter container's `sleep`) are left alone: a stopped `runc init` holds
// the daemon's lock on the container, and the kill then waits for ever
// (CI saw it). Nothing a README starts has parent 0, so none can hide
// that way. Passes end when one finds no process it had not stopped.
func haltRun(proc string) {
	self := os.Getpid()
	stopped := map[int]bool{}
	for range haltPasses {
		ents, err := os.ReadDir(proc)
		if err != nil {
			return
		}
		fresh := false
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self || stopped[pid] {
				continue
			}
			stopped[pid], fresh = true, true
			if fromOutside(filepath.Join(proc, e.Name())) {
				continue
			}
			_ = unix.Kill(pid, unix.SIGSTOP) // gone already, or not ours: nothing to stop
		}
		if !fresh {
			return
		}
	}
}

// fromOutside reports a process whose parent is 0 in its namespace (its
// proc directory's stat says so): one put into the namespace from
// outside. A stat that cannot be read says nothing.
func fromOutside(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return false
	}
	// "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 1 && f[1] == "0"
}
