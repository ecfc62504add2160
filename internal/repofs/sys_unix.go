//go:build unix

package repofs

import (
	"io/fs"
	"syscall"
)

// openFlags keep an open from blocking on a FIFO or taking a terminal.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

type fileID struct{ dev, ino uint64 }

// links returns a file's link count.
func links(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

func idOf(info fs.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}
