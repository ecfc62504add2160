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
	return profileRefusing([]string{"fallocate"}, unix.EOPNOTSUPP, "readme2demo: reserving disk space without writing it would outrun the disk cap")
})

// meterSeccompOption is the disk meter's: Docker's default profile with
// open_by_handle_at(2) refused, and the calls that act on another process.
// The default profile allows open_by_handle_at to a container with
// CAP_DAC_READ_SEARCH, as the meter has (to read every directory of the
// run), and with it a process can open any file of the host's file system
// by its handle; it allows ptrace(2), process_vm_readv(2) and _writev,
// process_madvise(2), pidfd_getfd(2) and kcmp(2) to one with
// CAP_SYS_PTRACE, as the meter has (to read the descriptors of the
// sandbox's processes, whose process namespace it shares), and with them
// it could read or change those processes. The meter only walks
// directories and reads /proc.
func meterSeccompOption() string { return meterSeccompProfile() }

var meterSeccompProfile = sync.OnceValue(func() string {
	return profileRefusing(meterRefused, unix.EPERM, "readme2demo: the disk meter opens files by path and reads /proc only")
})

// meterRefused are the calls the disk meter's seccomp profile refuses.
var meterRefused = []string{"open_by_handle_at", "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp"}

// profileRefusing is the SecurityOpt of Docker's default seccomp profile
// with the named syscalls failing with errno; every other rule, the
// default action included, is the default profile's.
func profileRefusing(names []string, errno unix.Errno, why string) string {
	p := seccomp.DefaultProfile()
	for _, sc := range p.Syscalls {
		if sc.Action == specs.ActAllow {
			sc.Names = slices.DeleteFunc(sc.Names, func(n string) bool { return slices.Contains(names, n) })
		}
	}
	ret := uint(errno)
	p.Syscalls = append(p.Syscalls, &seccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{Names: names, Action: specs.ActErrno, ErrnoRet: &ret},
		Comment:      why,
	})
	b, err := json.Marshal(p)
	if err != nil {
		return "" // the default profile always encodes; "" keeps the daemon's default
	}
	return "seccomp=" + string(b)
}
