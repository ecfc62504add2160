package sandbox

import (
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

// A tree deeper than the path limit cannot be walked by path: DirUsage
// says so (TooDeep) instead of passing over what it holds.
func TestDirUsageFindsATreeTooDeepToMeasure(t *testing.T) {
	dir := t.TempDir()
	// 2,100 levels of "dd/", past 4096 bytes of path, made relative to
	// each level's descriptor (a path from the top would be too long).
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	assert.NilError(t, err)
	for range 2100 {
		assert.NilError(t, syscall.Mkdirat(fd, "dd", 0o755))
		next, err := syscall.Openat(fd, "dd", syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		assert.NilError(t, err)
		syscall.Close(fd)
		fd = next
	}
	f, err := syscall.Openat(fd, "hidden", syscall.O_CREAT|syscall.O_WRONLY, 0o644)
	assert.NilError(t, err)
	_, err = syscall.Write(f, make([]byte, 5000))
	assert.NilError(t, err)
	syscall.Close(f)
	syscall.Close(fd)

	u := DirUsage(dir)
	assert.Check(t, u.TooDeep > 0, "%+v", u)
	assert.NilError(t, os.RemoveAll(dir)) // Go removes what it cannot name by path
}

// A file deleted while still open keeps its blocks until its last
// descriptor closes, and no walk finds it: deletedHeld finds it in the
// processes that hold it, once however many descriptors and processes
// name it; not a file that still has a name, nor one in memory (a memfd,
// on a tmpfs).
func TestDeletedHeldFindsFilesDeletedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		assert.NilError(t, err)
		_, err = f.Write(make([]byte, size))
		assert.NilError(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	gone, named := write("gone", 3<<20), write("named", 2<<20)
	assert.NilError(t, os.Remove(gone.Name()))
	mfd, err := unix.MemfdCreate("held", 0)
	assert.NilError(t, err)
	mem := os.NewFile(uintptr(mfd), "memfd")
	defer mem.Close()
	_, err = mem.Write(make([]byte, 4<<20))
	assert.NilError(t, err)

	holder := exec.Command("sleep", "60")
	holder.ExtraFiles = []*os.File{gone, gone, named, mem}
	assert.NilError(t, holder.Start())
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	// A proc directory of the holder alone, listed twice (two processes
	// holding the same file).
	proc := t.TempDir()
	pid := "/proc/" + strconv.Itoa(holder.Process.Pid)
	assert.NilError(t, os.Symlink(pid, filepath.Join(proc, "100")))
	assert.NilError(t, os.Symlink(pid, filepath.Join(proc, "101")))
	assert.NilError(t, os.Symlink(pid, filepath.Join(proc, "self")))

	got, fds := deletedHeld(proc)
	assert.Check(t, got >= 3<<20 && got < 3<<20+64<<10, "held %d bytes, want the 3 MiB deleted file once", got)
	assert.Check(t, fds >= 2*7, "read %d descriptors: the holder's 7, twice", fds)
	got, fds = deletedHeld(filepath.Join(dir, "missing"))
	assert.Check(t, is.Equal(got, int64(0)))
	assert.Check(t, is.Equal(fds, 0))
	// Reading stops at the limit.
	_, fds = deletedHeldBy(pid, map[[2]uint64]bool{}, 2)
	assert.Check(t, is.Equal(fds, 2))

	// Closed in every process, the space is free and nothing is held.
	assert.NilError(t, holder.Process.Kill())
	_ = holder.Wait()
	got, _ = deletedHeld(proc)
	assert.Check(t, is.Equal(got, int64(0)))
}

// stateOf is the state letter of process pid (R, S, T, …) in /proc.
func stateOf(t *testing.T, pid int) byte {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	assert.NilError(t, err)
	// "PID (COMM) STATE …": the state follows the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	assert.Assert(t, i > 0 && i+2 < len(b), "%q", b)
	return b[i+2]
}

// A measurement past a cap stops the processes the meter's proc file
// system shows before the line goes out, and one under the caps stops
// nothing. The proc file system here is a directory naming one child (a
// real one would list every process of the host's tests).
func TestMeterStopsTheRunAtACap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		caps  DirSize
		state byte
	}{
		{name: "under the caps", caps: DirSize{Bytes: 1 << 30, Inodes: 1000}, state: 'S'},
		{name: "past the byte cap", caps: DirSize{Bytes: 1 << 10, Inodes: 1000}, state: 'T'},
		{name: "past the inode cap", caps: DirSize{Bytes: 1 << 30, Inodes: 1}, state: 'T'},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"a", "b"} {
				assert.NilError(t, os.WriteFile(filepath.Join(dir, f), make([]byte, 8<<10), 0o644))
			}
			child := exec.Command("sleep", "60")
			assert.NilError(t, child.Start())
			t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
			// A process put in from outside (parent 0 in the namespace:
			// runc setting up an exec) is passed over: stopped, it would
			// hold the daemon's lock on the container.
			runc := exec.Command("sleep", "60")
			assert.NilError(t, runc.Start())
			t.Cleanup(func() { _ = runc.Process.Kill(); _ = runc.Wait() })
			proc := t.TempDir()
			for _, pid := range []int{child.Process.Pid, os.Getpid(), runc.Process.Pid} { // the meter's own pid is passed over
				assert.NilError(t, os.Mkdir(filepath.Join(proc, strconv.Itoa(pid)), 0o755))
			}
			assert.NilError(t, os.WriteFile(filepath.Join(proc, strconv.Itoa(runc.Process.Pid), "stat"), []byte("7 (runc:[2:INIT]) S 0 7 7 0 -1\n"), 0o644))

			out := &failAfter{lines: 1}
			watchDirs(time.Millisecond, tc.caps, proc, []string{dir}, out)
			assert.Check(t, is.Equal(out.n, 1))
			// SIGSTOP is delivered at once, but the state changes as the
			// child is scheduled.
			deadline := time.Now().Add(5 * time.Second)
			for stateOf(t, child.Process.Pid) != tc.state && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			assert.Check(t, is.Equal(string(stateOf(t, child.Process.Pid)), string(tc.state)))
			assert.Check(t, stateOf(t, os.Getpid()) != 'T', "the meter stopped itself")
			assert.Check(t, stateOf(t, runc.Process.Pid) != 'T', "the meter stopped a process put in from outside")
		})
	}
}
