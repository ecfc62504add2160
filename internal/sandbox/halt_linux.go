package sandbox

import (
	"os"
	"strconv"

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
// a disk bomb reach three times a 1 GiB cap in that wait). Its own
// namespace's first process ignores the signal (the kernel's rule for a
// namespace's init); the meter's own container's `sleep` stops too, which
// changes nothing. Passes end when one finds no process it had not
// stopped.
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
			_ = unix.Kill(pid, unix.SIGSTOP) // gone already, or not ours: nothing to stop
		}
		if !fresh {
			return
		}
	}
}
