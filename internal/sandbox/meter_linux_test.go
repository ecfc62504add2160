package sandbox

import (
	"os"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
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
