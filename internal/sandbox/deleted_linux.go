package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// deletedHeld is the space held by files deleted while still open in the
// processes a proc file system shows (the meter's is the sandbox's, whose
// process namespace it shares): a file no directory names any more stays
// on the disk until its last descriptor closes, and no walk can find it.
// Each such file counts once, at its allocated blocks or its size,
// whichever is larger (as DirUsage counts). Not counted: files on a tmpfs
// (memory, which the memory limit bounds, and the strict profile's /tmp,
// whose size the kernel caps) and what no descriptor of a process holds
// (a mapping left after its descriptor was closed, a descriptor in flight
// in a socket's queue). Reading another user's descriptors takes
// CAP_SYS_PTRACE; a process whose descriptors cannot be read counts
// nothing. fds is how many descriptors it read: past maxDescriptors it
// stops, and what it returns is not the whole.
func deletedHeld(proc string) (held int64, fds int) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return 0, 0
	}
	self := strconv.Itoa(os.Getpid())
	seen := map[[2]uint64]bool{}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == self {
			continue
		}
		h, n := deletedHeldBy(filepath.Join(proc, e.Name()), seen, maxDescriptors+1-fds)
		held, fds = held+h, fds+n
		if fds > maxDescriptors {
			break
		}
	}
	return held, fds
}

// deletedHeldBy is deletedHeld for one process's directory (proc/PID),
// reading at most limit descriptors, each file once across the calls that
// share seen.
func deletedHeldBy(dir string, seen map[[2]uint64]bool, limit int) (held int64, fds int) {
	d, err := os.Open(filepath.Join(dir, "fd"))
	if err != nil {
		return 0, 0 // gone, or not ours to read
	}
	// At most limit names, read as they come: not a process's million
	// descriptors in memory, sorted.
	ents, _ := d.ReadDir(limit)
	d.Close()
	for _, fd := range ents {
		fds++
		p := filepath.Join(dir, "fd", fd.Name())
		// A deleted file's link says so; reading the link costs half a
		// stat, and most descriptors are not of deleted files.
		if l, err := os.Readlink(p); err != nil || !strings.HasSuffix(l, " (deleted)") {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 0 {
			continue
		}
		//nolint:unconvert // Dev's type differs between architectures
		key := [2]uint64{uint64(st.Dev), st.Ino}
		if seen[key] {
			continue
		}
		var fs unix.Statfs_t
		if unix.Statfs(p, &fs) != nil || fs.Type == unix.TMPFS_MAGIC {
			continue
		}
		seen[key] = true
		held += max(st.Size, st.Blocks*512)
	}
	return held, fds
}
