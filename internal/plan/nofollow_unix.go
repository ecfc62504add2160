//go:build unix

package plan

import "syscall"

// oNoFollow makes open fail on a symlink that appeared after the Lstat.
const oNoFollow = syscall.O_NOFOLLOW
