//go:build unix

package devcontainer

import (
	"os"
	"syscall"
)

// openNoFollow opens p for reading, refusing a symlink at the last
// component (the components before it were checked with Lstat).
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
