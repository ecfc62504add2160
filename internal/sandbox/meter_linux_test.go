package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

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
