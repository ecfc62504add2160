package sandbox

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
)

// ConfigError is a Spec the sandbox refuses to run.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return "sandbox: " + e.Reason }

// withDefaults returns a copy of s with every zero value filled in, or a
// *ConfigError.
func (s Spec) withDefaults() (Spec, error) {
	if s.Image == "" {
		return s, &ConfigError{"no image given"}
	}
	if s.Command == "" {
		return s, &ConfigError{"no command given"}
	}
	s.Profile = cmp.Or(s.Profile, DefaultProfile)
	if err := CheckProfile(s.Profile); err != nil {
		return s, err
	}
	if s.RunID == "" {
		s.RunID = NewRunID()
	}
	s.Workdir = cmp.Or(s.Workdir, DefaultWorkdir)
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Grace <= 0 {
		s.Grace = Grace
	}
	s.User = cmp.Or(s.User, DefaultUser)
	if s.Memory < 0 || s.NanoCPUs < 0 || s.PidsLimit < 0 || s.Disk < 0 || s.Inodes < 0 {
		return s, &ConfigError{"negative memory, CPU, process, disk or inode limit"}
	}
	s.Memory = cmp.Or(s.Memory, DefaultMemory)
	if s.NanoCPUs == 0 {
		s.NanoCPUs = min(int64(DefaultNanoCPUs), int64(runtime.NumCPU())*1e9)
	}
	if s.PidsLimit == 0 {
		s.PidsLimit = DevPidsLimit
		if s.Profile == ProfileStrict {
			s.PidsLimit = StrictPidsLimit
		}
	}
	s.Disk = cmp.Or(s.Disk, DefaultDisk)
	s.Inodes = cmp.Or(s.Inodes, DefaultInodes(s.Disk))
	if s.TmpSize == "" && s.Profile == ProfileStrict {
		s.TmpSize = StrictTmpSize
	}
	if s.Profile == ProfileStrict {
		if _, err := ParseSize(s.TmpSize); err != nil {
			return s, &ConfigError{"tmp size: " + err.Error()}
		}
	}
	s.NetworkMode = cmp.Or(s.NetworkMode, DefaultNetwork)
	if s.NetworkMode == "host" && !s.AllowHostNetwork {
		return s, &ConfigError{`network mode "host" shares the host's network with untrusted code: it needs an explicit opt-in`}
	}
	if s.PollInterval <= 0 {
		s.PollInterval = time.Second
	}
	if s.DiskPoll <= 0 {
		s.DiskPoll = DefaultDiskPoll
	}
	if s.PidsStuck <= 0 {
		s.PidsStuck = DefaultPidsStuck
	}
	if s.MeterDelay <= 0 {
		s.MeterDelay = DefaultMeterDelay
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	for k, v := range s.Env {
		if !envNameRe.MatchString(k) || strings.ContainsRune(v, 0) {
			return s, &ConfigError{fmt.Sprintf("environment variable %q: want a name of letters, digits and _ (not first a digit) and a value without NUL", k)}
		}
	}
	if s.Profile == ProfileStrict && !s.underWritable(s.Workdir) {
		return s, &ConfigError{fmt.Sprintf("workdir %s is not in a writable dir of the strict profile (%s)", s.Workdir, strings.Join(StrictWritableDirs, ", "))}
	}
	for _, f := range s.Files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path {
			return s, &ConfigError{fmt.Sprintf("file path %q is not a clean absolute path", f.Path)}
		}
		if s.Profile == ProfileStrict && !s.underWritable(f.Path) {
			return s, &ConfigError{fmt.Sprintf("file %s is not in a writable dir of the strict profile (%s)", f.Path, strings.Join(StrictWritableDirs, ", "))}
		}
	}
	return s, nil
}

func (s Spec) underWritable(p string) bool {
	return slices.ContainsFunc(StrictWritableDirs, func(d string) bool { return p == d || strings.HasPrefix(p, d+"/") })
}

// NewRunID returns a random run id (12 hex digits).
func NewRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// DefaultInodes is the inode cap of a disk cap: one per BytesPerInode,
// at least 1024.
func DefaultInodes(disk int64) int64 { return max(disk/BytesPerInode, 1024) }

// ContainerName is the name of a run's container.
func ContainerName(runID string) string { return "readme2demo-" + runID }

// NoContainerLog is the log driver of every container a run makes:
// none. Nothing reads a container's log (the command's output is
// attached), and what a container's first process writes would otherwise
// go to a file dockerd keeps on the host, with no cap: a README that
// writes to /proc/1/fd/1 (sudo works under dev) could fill the host's
// disk. With the "none" driver dockerd keeps nothing.
var NoContainerLog = container.LogConfig{Type: "none"}

// envNameRe is a name a shell can export.
var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// containerConfigs builds the container's configuration for s's profile.
// s must have its defaults filled in. No secret goes here: Env reaches the
// command on its standard input (commandScript).
func containerConfigs(s Spec, deadline time.Time) (*container.Config, *container.HostConfig) {
	life := int64(deadline.Sub(s.Now()).Seconds()) + 1
	cfg := &container.Config{
		Image:      s.Image,
		User:       s.User,
		WorkingDir: s.Workdir,
		// The command is the container's main process, under timeout(1):
		// the container ends by itself at the deadline even when nobody
		// is left to remove it. Its standard input carries Env, then
		// closes (StdinOnce).
		Entrypoint:   []string{"timeout", "-s", "KILL", strconv.FormatInt(life, 10)},
		Cmd:          []string{"bash", "-lc", commandScript(s)},
		OpenStdin:    true,
		StdinOnce:    true,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		Labels: map[string]string{
			LabelManaged:  "true",
			LabelRunID:    s.RunID,
			LabelDeadline: strconv.FormatInt(deadline.Unix(), 10),
		},
		// (Network mode none, below, leaves the container its loopback
		// alone. NetworkDisabled is not set: with it the daemon writes no
		// /etc/hosts at all, so the container cannot name itself.)
		Hostname: Hostname,
	}
	init := true
	pids := s.PidsLimit
	hc := &container.HostConfig{
		LogConfig:   NoContainerLog,
		NetworkMode: container.NetworkMode(s.NetworkMode),
		ExtraHosts:  extraHosts(s),
		Privileged:  false,
		CapDrop:     []string{"ALL"},
		Init:        &init,
		AutoRemove:  false, // removed explicitly after the copy-out; the sweep is the backup
		Resources: container.Resources{
			Memory:     s.Memory,
			MemorySwap: s.Memory,
			NanoCPUs:   s.NanoCPUs,
			PidsLimit:  &pids,
			Ulimits: []*container.Ulimit{
				// No single file larger than the disk cap: a write past
				// it fails at once (EFBIG, or SIGXFSZ), before any poll.
				{Name: "fsize", Soft: s.Disk, Hard: s.Disk},
			},
		},
	}
	if opt := seccompOption(); opt != "" {
		hc.SecurityOpt = append(hc.SecurityOpt, opt)
	}
	switch s.Profile {
	case ProfileStrict:
		hc.SecurityOpt = append(hc.SecurityOpt, "no-new-privileges:true")
		hc.ReadonlyRootfs = true
		// The kernel enforces both of the tmpfs's caps: bytes, and
		// inodes in the same ratio as the run's.
		tmp, _ := ParseSize(s.TmpSize) // checked by withDefaults
		hc.Tmpfs = map[string]string{"/tmp": "rw,nosuid,nodev,size=" + s.TmpSize + ",nr_inodes=" + strconv.FormatInt(DefaultInodes(tmp), 10)}
		hc.Ulimits = append(hc.Ulimits, &container.Ulimit{Name: "nofile", Soft: StrictNofile, Hard: StrictNofile})
		for _, d := range StrictWritableDirs {
			// Anonymous volumes: filled from the image (ownership kept),
			// reachable by CopyToContainer, removed with the container,
			// measured by the disk meter (meter.go).
			hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Target: d})
		}
	default: // ProfileDev
		// sudo needs setuid to work: no no-new-privileges, and root
		// inside gets DevCapabilities back. Everything the run writes
		// (the root file system, /tmp, $HOME, the workspace, caches) is
		// the container's own layer: thrown away with it, and measured
		// as one (SizeRw).
		hc.CapAdd = append([]string(nil), DevCapabilities...)
		// Debian's staff group owns /usr/local in the image: a numeric
		// "uid:gid" user gets no supplementary groups by itself.
		hc.GroupAdd = []string{StaffGID}
		hc.ShmSize = DevShmSize
		cfg.Env = append(cfg.Env, DevEnv...)
	}
	cfg.Env = append(cfg.Env, s.ContainerEnv...)
	return cfg, hc
}

// Hostname is the sandbox container's host name.
const Hostname = "sandbox"

// extraHosts are the /etc/hosts entries of the sandbox: the Spec's, and,
// with no network, its own name. Docker writes the name's line only for
// a container on a network; without it every sudo said "sudo: unable to
// resolve host …: Temporary failure in name resolution", which reads as
// a network failure in any output it is part of.
func extraHosts(s Spec) []string {
	hosts := slices.Clone(s.ExtraHosts)
	if s.NetworkMode == "none" {
		hosts = append(hosts, Hostname+":127.0.0.1")
	}
	return hosts
}
