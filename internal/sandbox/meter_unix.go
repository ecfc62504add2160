//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// statOf is what the meter reads of a file's stat.
func statOf(info fs.FileInfo) (fileStat, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	//nolint:unconvert // Dev is int32 and Nlink uint16 on some platforms
	return fileStat{dev: uint64(st.Dev), ino: uint64(st.Ino), nlink: uint64(st.Nlink), allocated: int64(st.Blocks) * 512}, true
}
