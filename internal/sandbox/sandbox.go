// Package sandbox runs one agent command in a fresh, hardened Docker
// container and hands back what it wrote.
//
// A run creates a labelled container whose main process is the command,
// `bash -lc` under an init and `timeout <deadline>`, so it ends by itself
// even if readme2demo is SIGKILLed; starts it attached, the command waiting
// for its environment; copies the repository and the run's files in over
// the API (the host checkout is never mounted); then hands the secrets to
// the command on its standard input (never in the container's
// configuration), which releases it; streams the
// growing transcript to a callback; enforces the timeout and the disk cap by
// killing the container; copies the transcript and stderr out; and removes
// the container on a fresh context with its own timeout, whatever happened
// before.
//
// Two profiles (profile.go). "dev", the default, behaves like a developer's
// machine or a GitHub-hosted runner: the non-root agent user has
// passwordless sudo, the root file system is the container's own writable
// layer (thrown away with it), /tmp, $HOME and the build caches are on disk,
// CI=true. "strict" is the locked-down posture: no capabilities,
// no-new-privileges, a read-only root file system with writable volumes only
// where the agent works and a small tmpfs /tmp. Both: the default seccomp
// profile (plus one rule, see seccomp_linux.go), never privileged, no host
// path, never the Docker socket, a PID limit, memory without swap, a CPU
// limit, an init process, and one disk cap on the run's whole writable
// space, measured while the command runs (disk.go) because overlay2 without
// project quotas cannot enforce one.
//
// The Docker client sits behind the narrow Docker interface, so unit tests
// use a fake and integration tests the real daemon.
package sandbox

import (
	"github.com/readme2demo/readme2demo/internal/containerpath"
	"github.com/readme2demo/readme2demo/internal/repoconfig"
	"github.com/readme2demo/readme2demo/internal/timing"

	"context"
	"io"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Docker is the part of the Docker Engine API the sandbox uses.
// *client.Client implements it.
type Docker interface {
	Ping(ctx context.Context) (types.Ping, error)
	ImageInspect(ctx context.Context, imageID string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error)
	ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error
	// ContainerAttach and ContainerWait, made before the start, give the
	// command's output, its standard input (Env) and its end: the command
	// is the container's main process.
	ContainerAttach(ctx context.Context, containerID string, options container.AttachOptions) (types.HijackedResponse, error)
	ContainerWait(ctx context.Context, containerID string, condition container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerKill(ctx context.Context, containerID, signal string) error
	ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
	CopyFromContainer(ctx context.Context, containerID, srcPath string) (io.ReadCloser, container.PathStat, error)
	ContainerExecCreate(ctx context.Context, containerID string, options container.ExecOptions) (container.ExecCreateResponse, error)
	ContainerExecAttach(ctx context.Context, execID string, config container.ExecAttachOptions) (types.HijackedResponse, error)
	ContainerExecInspect(ctx context.Context, execID string) (container.ExecInspect, error)
	// ContainerInspectWithRaw with getSize measures the container's writable
	// layer (SizeRw) for the disk cap, and reads its state after a kill.
	ContainerInspectWithRaw(ctx context.Context, containerID string, getSize bool) (container.InspectResponse, []byte, error)
	// ContainerStatsOneShot reads the process count against the limit.
	ContainerStatsOneShot(ctx context.Context, containerID string) (container.StatsResponseReader, error)
}

var _ Docker = (*client.Client)(nil)

// Labels every sandbox container carries, so leftovers can be found.
const (
	LabelManaged  = "io.readme2demo.managed"  // "true"
	LabelRunID    = "io.readme2demo.run-id"   // the run's id
	LabelDeadline = "io.readme2demo.deadline" // unix seconds after which the container is garbage
	// LabelRole says what a container is when it is not the agent's own:
	// "disk-meter" (RoleDiskMeter), "egress-proxy" (internal/egress).
	LabelRole     = "io.readme2demo.role"
	RoleDiskMeter = "disk-meter"
)

// LabelInputCopy, on an image, with the value InputCopyTar, promises what
// taking the copy-in on the command's standard input needs (inputcopy.go):
// GNU tar on the PATH, and the workspace, the run's directory and the
// agent's home owned by the agent user (uid 1000). The copy-out on the
// command's output (outputcopy.go) takes it as the promise of tar alone.
// images/base/Dockerfile sets it.
const (
	LabelInputCopy = "io.readme2demo.input-copy"
	InputCopyTar   = "tar"
)

// promisesTar says whether a container's labels (its image's) carry
// LabelInputCopy's promise.
func promisesTar(labels map[string]string) bool { return labels[LabelInputCopy] == InputCopyTar }

// Defaults for a Spec's zero values. Where the profiles differ, the
// defaults are in profile.go.
const (
	DefaultTimeout  = 30 * time.Minute
	DefaultUser     = "1000:1000" // the image's non-root "agent" user
	DefaultWorkdir  = containerpath.Workspace
	DefaultMemory   = 4 << 30 // bytes; swap is never added
	DefaultNanoCPUs = 2e9
	// DefaultDisk caps the run's whole writable space: sized for real
	// builds (a Go or Rust toolchain's caches, node_modules, a Python venv).
	DefaultDisk = 10 << 30
	// BytesPerInode sets the default inode cap: one inode per 8 KiB of the
	// disk cap (1,310,720 for 10 GiB; half of ext4's default ratio, since
	// node_modules and source trees hold many small files).
	BytesPerInode  = 8 << 10
	DefaultNetwork = "bridge"
	// Grace is how long the container outlives the timeout before its own
	// main process ends it: time to kill, copy out and remove.
	Grace = 2 * time.Minute
	// MaxCopyOut caps each file copied out of the container.
	MaxCopyOut = 256 << 20
)

// StrictWritableDirs are the strict profile's only writable places besides
// /tmp: the workspace, the run's own directory and the agent's home. Each is
// an anonymous volume, removed with the container.
var StrictWritableDirs = []string{containerpath.Workspace, containerpath.RunDir, containerpath.AgentHome}

// Resources bound the container. Zero values take the profile's defaults.
type Resources struct {
	Memory    int64 // bytes; MemorySwap is set to the same value (no swap)
	NanoCPUs  int64 // 1e9 = one CPU
	PidsLimit int64
	// Disk caps the run's whole writable space in bytes: the container's
	// layer and (strict) its volumes. The largest single file is capped at
	// the same size (RLIMIT_FSIZE).
	Disk int64
	// Inodes caps the files, directories and links in the same space
	// (default: one per BytesPerInode of Disk).
	Inodes int64
	// TmpSize is the size of the strict profile's /tmp tmpfs, e.g. "512m"
	// (the dev profile's /tmp is on disk, under the disk cap).
	TmpSize string
}

// ReadFile returns the content of the file at path in the container, at
// most limit bytes (a larger file is an error wrapping ErrTooLarge); a path
// the image does not have gives nil and no error.
type ReadFile func(path string, limit int64) ([]byte, error)

// File is a file copied into the container before the command runs.
type File struct {
	Path string // absolute path in the container, in one of the writable dirs
	Data []byte
	Mode int64 // 0 means 0o644
}

// Spec describes one sandbox run.
type Spec struct {
	Image   string
	RunID   string // "" means a random id
	RepoDir string // host directory copied into Workdir ("" copies nothing)
	Workdir string // "" means DefaultWorkdir
	Files   []File
	// Prepare, when set, is called once the container is created, before
	// it starts and before anything is copied in, with a reader of the
	// image's files: the moment to derive input from the image the run
	// really uses (its command list) without a container of its own. The
	// Files it returns are copied in after Files, replacing any of the same
	// path. An error ends the run before the command starts.
	Prepare func(ctx context.Context, read ReadFile) ([]File, error)
	// Command runs as `bash -lc Command` in Workdir, as the container's
	// main process.
	Command string
	// Env is handed to the command on its standard input once everything
	// is copied in: never to the container's configuration, where `docker
	// inspect` would show it.
	Env     map[string]string
	Timeout time.Duration // 0 means DefaultTimeout
	// Grace is how long the container outlives Timeout before its own main
	// process ends it (0 means Grace).
	Grace time.Duration
	User  string // "" means DefaultUser
	// Profile is ProfileDev (the default) or ProfileStrict.
	Profile string
	Resources
	// NetworkMode is "bridge" by default; "none" cuts the network. "host" is
	// refused unless AllowHostNetwork is set.
	NetworkMode      string
	AllowHostNetwork bool
	ExtraHosts       []string // e.g. "host.docker.internal:host-gateway"
	// Env is also set on the container (not secret: CI=true); the
	// profile's own variables come first.
	ContainerEnv []string
	// DiskPoll is the shortest interval between two disk measurements (0
	// means DefaultDiskPoll); a slow measurement spaces them out (disk.go).
	DiskPoll time.Duration
	// MeterBinary is a host path to a Linux readme2demo binary (anything
	// that links this package) run as the disk meter; "" means this
	// executable (meter.go).
	MeterBinary string
	// MeterDelay is how long the dev profile's commands run before its
	// disk meter starts (0 means DefaultMeterDelay): a run that ends
	// sooner pays no second container, and the daemon measures the layer
	// meanwhile. The strict profile's commands wait for the meter.
	MeterDelay time.Duration
	// PidsStuck is how long the process limit may stay reached before the
	// run is stopped (0 means DefaultPidsStuck).
	PidsStuck time.Duration

	// TranscriptPath and StderrPath are copied out after the command.
	TranscriptPath string
	StderrPath     string
	// Collect lists further files copied out after the command (the README
	// the agent may have edited). Each is read only if it is a regular file
	// (a symlink is not followed) of at most its CollectLimits entry bytes
	// (none: MaxCopyOut); a larger one is not collected and its CopyErrors
	// entry wraps ErrTooLarge.
	Collect       []string
	CollectLimits map[string]int64
	// CollectKnown holds, for files of Collect, the content the run
	// started with (the README copied in): after a normal end, the exec
	// that reads the cgroup's counters also checks each (a regular file of
	// the same size and SHA-256), and one the command left as it was is
	// returned as it is here, without a copy out. Code in the container
	// could fake the check only to hide an edit it could as well undo.
	CollectKnown map[string][]byte
	// OnTranscript, when set, receives the transcript's new bytes as it
	// grows, about every PollInterval, from one goroutine.
	OnTranscript func(chunk []byte)
	PollInterval time.Duration // 0 means one second

	Now func() time.Time // nil means time.Now
}

// Result is what a run left behind.
type Result struct {
	RunID       string
	ContainerID string
	Transcript  []byte
	Stderr      []byte
	// Output is the command's own stdout and stderr (the last 64 KiB); agents
	// usually redirect to the transcript, so it is mostly empty.
	Output []byte
	// ExitCode is the command's exit code; nil when it was killed (timeout,
	// cancellation) or never reported one.
	ExitCode *int
	TimedOut bool // the timeout killed the command
	Canceled bool // the caller's context ended the run
	// Stopped names the sandbox limit that killed the command: StoppedDisk,
	// StoppedInodes or StoppedPids; "" otherwise (TimedOut and Canceled are apart).
	Stopped string
	// Profile and Limits are what the run had (the Spec with its defaults).
	Profile string
	Limits  Resources
	// Usage is what the sandbox observed during the run.
	Usage Usage
	// RepoConfig lists the agent configuration files of the repository that
	// were removed, scrubbed or flagged on the way into the container.
	RepoConfig []repoconfig.Finding
	// Collected holds the files of Spec.Collect that could be read, by path.
	Collected map[string][]byte
	// CopyErrors holds problems copying files out (a missing transcript).
	CopyErrors []error
	// RemoveErr says a container of the run (the sandbox, the disk meter)
	// could not be removed: it is left for the next run's sweep. What the
	// run found is all here all the same.
	RemoveErr error
	Elapsed   time.Duration
	// Phases is how long each of Run's phases took (timing.Sweep to
	// timing.Remove), measured around the daemon calls; its Total is
	// Elapsed.
	Phases timing.Record
}

// Result.Stopped values: the limit that ended the run.
const (
	// StoppedDisk: the run's writable space passed the disk cap (or could
	// not be measured).
	StoppedDisk = "disk"
	// StoppedInodes: the run's writable space held more inodes (files,
	// directories, links) than the inode cap.
	StoppedInodes = "inodes"
	// StoppedPids: the process limit stayed reached for Spec.PidsStuck
	// (a fork bomb), so nothing could start in the container any more.
	StoppedPids = "pids"
)

// Usage is what the sandbox measured while the command ran. Negative
// values mean "not known".
type Usage struct {
	// DiskPeak is the largest writable-space usage measured, in bytes.
	DiskPeak int64
	// DiskDeleted is the part of DiskPeak that files deleted while still
	// open held (no walk of the run's files can see them).
	DiskDeleted int64
	// DiskMeasures counts the measurements; DiskUnmeasured says the daemon
	// did not report the container's size, so the cap could not be checked.
	DiskMeasures   int
	DiskUnmeasured bool
	// DiskError is the last measurement error, when measuring failed.
	DiskError string
	// InodesPeak is the largest number of inodes measured (-1: not
	// measured: the dev profile where the daemon names no layer directory).
	InodesPeak int64
	// LayerMetered says the disk meter measured the container's own layer
	// (not only the daemon): the caps were checked on every measurement
	// the meter streamed.
	LayerMetered bool
	// OOMKills is how many processes the cgroup's OOM killer ended.
	OOMKills int
	// PidsHit counts the polls that found the process limit reached (plus
	// the cgroup's own count of refused forks when it could be read).
	PidsHit int
}
