package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/docker/go-units"
)

// The sandbox profiles (Spec.Profile, `--sandbox`, Action input `sandbox`).
const (
	// ProfileDev behaves like a developer's machine or a GitHub-hosted
	// runner, inside the same walls: see DevCapabilities and docs/sandbox.md.
	ProfileDev = "dev"
	// ProfileStrict is the locked-down posture: no capabilities,
	// no-new-privileges, read-only root file system.
	ProfileStrict = "strict"
	// DefaultProfile is the profile of a Spec that names none.
	DefaultProfile = ProfileDev
)

// Profiles lists the profiles, for flags and inputs.
var Profiles = []string{ProfileDev, ProfileStrict}

// CheckProfile returns a *ConfigError naming the profiles when p is not one.
func CheckProfile(p string) error {
	for _, q := range Profiles {
		if p == q {
			return nil
		}
	}
	return &ConfigError{fmt.Sprintf("sandbox profile %q: use %s", p, strings.Join(Profiles, " or "))}
}

// DevCapabilities are the capabilities the dev profile keeps (everything
// else is dropped). They are what root inside the container needs for sudo,
// apt/dpkg and `make install`; the agent user itself runs with none, and
// gets them only through sudo. Compared with Docker's default set, the dev
// profile drops NET_RAW (raw sockets: ARP and ICMP spoofing on the bridge;
// ping still works through ICMP datagram sockets, which Docker enables with
// net.ipv4.ping_group_range), MKNOD (device nodes), SYS_CHROOT and SETPCAP
// (nothing a README needs). None of the kept ones reaches outside the
// container: each acts on the container's own files, processes and
// credentials. docs/sandbox.md gives the reason for each.
var DevCapabilities = []string{
	"CHOWN",            // dpkg, tar -x and `make install` as root set file owners
	"DAC_OVERRIDE",     // root reads and writes files whatever their modes (apt, dpkg)
	"FOWNER",           // chmod/utime on files root does not own (dpkg)
	"FSETID",           // keep setuid/setgid bits when installing (sudo, su upgrades)
	"KILL",             // root signals other users' processes (postinst scripts, `sudo kill`)
	"SETGID", "SETUID", // sudo, su, and apt dropping to its _apt user for downloads
	"SETFCAP",          // dpkg postinst scripts that setcap a binary (file caps stay inside this set)
	"NET_BIND_SERVICE", // a README server on port 80 started with sudo
	"AUDIT_WRITE",      // sudo and PAM write an audit record; without it sudo fails
}

// Per-profile defaults.
const (
	// The dev profile allows more processes: builds with many threads
	// (Gradle, jest workers, cargo) pass 512. Not many more: the keyless
	// runner kills a fork bomb's leftovers without forking, which it
	// manages at 1024 in seconds and not at 4096 before the timeout.
	DevPidsLimit    = 1024
	StrictPidsLimit = 512
	// DevShmSize is the dev profile's /dev/shm (Docker's default 64 MiB
	// breaks headless browsers and data loaders); it is memory, counted in
	// the memory limit.
	DevShmSize = 1 << 30
	// StrictNofile is the strict profile's open-file limit. The dev
	// profile keeps the daemon's own, as `docker run` does (a runner's is
	// 65536; a container cannot be given more than the daemon has).
	StrictNofile = 8192
	// StrictTmpSize is the strict profile's /tmp tmpfs.
	StrictTmpSize = "512m"
)

// StaffGID is Debian's `staff` group, which owns /usr/local in the image
// ("local modifications without root"): the dev profile adds it to the
// agent, so `make install` into /usr/local works without sudo.
const StaffGID = "50"

// DevEnv is set on the dev profile's container, as on a GitHub runner.
var DevEnv = []string{"CI=true"}

// ParseSize reads a size for --disk and --memory: bytes, or a number with
// a binary unit ("10g", "512m", "10GiB", "1.5g"). Zero and negative sizes
// are refused.
func ParseSize(s string) (int64, error) {
	n, err := units.RAMInBytes(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: give bytes or a number with k, m, g or t (e.g. 10g, 512m)", s)
	}
	return n, nil
}

// ParseCPUs reads --cpus ("2", "1.5") as NanoCPUs.
func ParseCPUs(s string) (int64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 || f > 1024 {
		return 0, fmt.Errorf("cpus %q: give a positive number of CPUs (e.g. 2 or 1.5)", s)
	}
	return int64(f * 1e9), nil
}
