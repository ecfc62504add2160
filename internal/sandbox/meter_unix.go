//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// fileID is a file's device and inode, and its number of hard links.
func fileID(info fs.FileInfo) (dev, ino, nlink uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), true //nolint:unconvert // Dev is int32 and Nlink uint16 on some platforms
}
