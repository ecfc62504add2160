package sandbox

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// seccompOption is the SecurityOpt that applies the sandbox's seccomp
// profile: Docker's default profile (github.com/moby/profiles/seccomp, the
// daemon's own source of it) with one change: fallocate(2) fails with
// EOPNOTSUPP, as on a file system without it. fallocate reserves any number
// of gigabytes in a millisecond, far faster than the disk cap can be
// measured; without it, programs write their blocks (glibc's
// posix_fallocate does so by itself on EOPNOTSUPP) at disk speed, where the
// cap sees them. Every other rule, the default action included, is the
// default profile's: seccomp stays on and is never "unconfined".
func seccompOption() string { return seccompProfile() }

var seccompProfile = sync.OnceValue(func() string {
	return profileRefusing("fallocate", unix.EOPNOTSUPP, "readme2demo: reserving disk space without writing it would outrun the disk cap")
})

// meterSeccompOption is the disk meter's: Docker's default profile with
// open_by_handle_at(2) refused. The default profile allows it to a
// container with CAP_DAC_READ_SEARCH, as the meter has (to read every
// directory of the run), and with it a process can open any file of the
// host's file system by its handle. The meter only walks directories.
func meterSeccompOption() string { return meterSeccompProfile() }

var meterSeccompProfile = sync.OnceValue(func() string {
	return profileRefusing("open_by_handle_at", unix.EPERM, "readme2demo: the disk meter opens files by path only")
})

// profileRefusing is the SecurityOpt of Docker's default seccomp profile
// with the syscall name failing with errno; every other rule, the default
// action included, is the default profile's.
func profileRefusing(name string, errno unix.Errno, why string) string {
	p := seccomp.DefaultProfile()
	for _, sc := range p.Syscalls {
		if sc.Action == specs.ActAllow {
			sc.Names = slices.DeleteFunc(sc.Names, func(n string) bool { return n == name })
		}
	}
	ret := uint(errno)
	p.Syscalls = append(p.Syscalls, &seccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{Names: []string{name}, Action: specs.ActErrno, ErrnoRet: &ret},
		Comment:      why,
	})
	b, err := json.Marshal(p)
	if err != nil {
		return "" // the default profile always encodes; "" keeps the daemon's default
	}
	return "seccomp=" + string(b)
}
