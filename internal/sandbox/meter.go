package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/pkg/stdcopy"
)

// The strict profile's writable places are volumes, which the daemon's
// container size (SizeRw) does not include, and which the agent can hide
// from a measurement run as its own user (a directory with mode 000). So
// the disk meter is a second container of the run: the volumes mounted
// read-only (VolumesFrom), root with only CAP_DAC_READ_SEARCH (it can read
// every directory and change nothing), no network, no-new-privileges, a
// read-only root file system. The program that measures is this binary,
// copied in and started under MeterProgram, not a `du` of the image: the
// image may be the repository's own (--image devcontainer) and must not be
// able to lie about the size.

// MeterProgram is the name the readme2demo binary is started under inside
// the disk meter's container. A main that may be run as the meter (the
// CLI, the Action, and the TestMain of a test package that runs the strict
// profile) checks IsMeter first, as it checks egress.IsProxy.
const MeterProgram = "readme2demo-disk-meter"

// meterCapabilities are the disk meter's only capabilities: to read every
// directory of the run (DAC_READ_SEARCH), the descriptors of its processes
// (SYS_PTRACE: files deleted while still open), and to stop them once a
// cap is passed (KILL: they run as another user; signals reach no further
// than the sandbox's process namespace, and a hostile image's `sleep`
// that used them could only stop its own run).
var meterCapabilities = []string{"DAC_READ_SEARCH", "SYS_PTRACE", "KILL"}

const (
	meterBinDir   = "/r2d-meter"
	meterLayerDir = "/r2d-layer"
	meterUser     = "0:0"
)

// IsMeter reports whether a program started as arg0 (os.Args[0]) is to run
// as the disk meter; its main then returns MeterMain's status.
func IsMeter(arg0 string) bool { return filepath.Base(arg0) == MeterProgram }

// MeterMain is the disk meter's program. `measure DIR...` prints what the
// directories hold on one line; `watch POLL CAP_BYTES CAP_INODES PROC
// DIR...` measures again and again and prints a line per measurement,
// spaced as the watcher spaces its own (nextMeasure, with POLL the
// shortest interval in nanoseconds and the caps what the directories may
// hold), until its output can no longer be written (the run's end closed
// it); with PROC a proc file system (not "-"), each measurement adds the
// space that files deleted while still open hold in the processes it
// shows (deletedHeld), and a measurement past a cap first stops them all
// (haltRun). A line is "BYTES UNREADABLE WALK_NANOSECONDS INODES
// TOO_DEEP DELETED DESCRIPTORS" (see DirSize and DirUsage). It returns the
// exit status.
func MeterMain(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintf(stderr, "usage: %s measure DIR... | watch POLL_NS CAP_BYTES CAP_INODES PROC|- DIR...\n", MeterProgram)
		return 2
	}
	switch {
	case len(args) >= 2 && args[0] == "measure":
		start := time.Now()
		u := DirUsage(args[1:]...)
		fmt.Fprintln(stdout, u.line(time.Since(start)))
		return 0
	case len(args) >= 6 && args[0] == "watch":
		var caps [3]int64
		for i := range caps {
			n, err := strconv.ParseInt(args[1+i], 10, 64)
			if err != nil || n <= 0 {
				return usage()
			}
			caps[i] = n
		}
		proc := args[4]
		if proc == "-" {
			proc = ""
		}
		watchDirs(time.Duration(caps[0]), DirSize{Bytes: caps[1], Inodes: caps[2]}, proc, args[5:], stdout)
		return 0
	}
	return usage()
}

// watchDirs is `watch`: it returns when a line cannot be written. proc,
// unless "", is the proc file system whose processes' deleted files count.
func watchDirs(poll time.Duration, caps DirSize, proc string, dirs []string, stdout io.Writer) {
	var prev DirSize
	prevAt := time.Now()
	for n := 0; ; n++ {
		start := time.Now()
		u := DirUsage(dirs...)
		if proc != "" {
			u.Deleted, u.Descriptors = deletedHeld(proc)
		}
		walk := time.Since(start)
		if proc != "" && (u.Taken() > caps.Bytes || u.Inodes > caps.Inodes) {
			haltRun(proc) // the watcher stops the run at this line
		}
		if _, err := fmt.Fprintln(stdout, u.line(walk)); err != nil {
			return
		}
		now := time.Now()
		time.Sleep(nextMeasureOf(poll, caps, n+1, walk, prev, u, now.Sub(prevAt)))
		prev, prevAt = u, now
	}
}

// DirSize is what directories hold: the space their inodes take (each
// its apparent size or its allocated blocks, whichever is larger: a
// sparse file counts at its full size, and a directory's own blocks and
// extended attributes' blocks count too), and their inodes (files,
// directories, links, device nodes and overlayfs whiteouts; hard links
// once). Unreadable counts the entries that could not be read; TooDeep
// those whose path was too long to read (ENAMETOOLONG): a tree deeper
// than the system's path limit, which the meter cannot measure. Deleted
// is the space held by files deleted while still open (deletedHeld),
// which no walk can see, and Descriptors how many descriptors were read
// to find them (past maxDescriptors, not all were).
type DirSize struct {
	Bytes, Inodes       int64
	Unreadable, TooDeep int
	Deleted             int64
	Descriptors         int
}

// maxDescriptors bounds the descriptors the meter reads in a measurement
// (reading one costs about 10 µs): a run that holds more cannot have what
// its deleted files hold measured, and is stopped like one whose tree is
// too deep to walk. A README's own programs hold a few thousand.
const maxDescriptors = 100_000

// Taken is the space the run takes: what the walk found and what files
// deleted while still open hold.
func (u DirSize) Taken() int64 { return u.Bytes + u.Deleted }

// fileStat is what the meter reads of a file's stat.
type fileStat struct {
	dev, ino, nlink uint64
	allocated       int64 // bytes of the blocks it holds
}

// line is the meter's output line for u, measured in walk.
func (u DirSize) line(walk time.Duration) string {
	return fmt.Sprintf("%d %d %d %d %d %d %d", u.Bytes, u.Unreadable, walk.Nanoseconds(), u.Inodes, u.TooDeep, u.Deleted, u.Descriptors)
}

// parseMeterLine reads a line of the meter's output.
func parseMeterLine(line string) (DirSize, time.Duration, error) {
	var u DirSize
	var walk int64
	var rest string
	n, _ := fmt.Sscanf(line, "%d %d %d %d %d %d %d%s", &u.Bytes, &u.Unreadable, &walk, &u.Inodes, &u.TooDeep, &u.Deleted, &u.Descriptors, &rest)
	if n != 7 || u.Bytes < 0 || u.Inodes < 0 || walk < 0 || u.TooDeep < 0 || u.Deleted < 0 || u.Descriptors < 0 {
		return DirSize{}, 0, fmt.Errorf("read disk meter output %q: want BYTES UNREADABLE WALK_NS INODES TOO_DEEP DELETED DESCRIPTORS", clipString(line, 200))
	}
	return u, time.Duration(walk), nil
}

// DirUsage measures dirs: the space every inode below them takes and
// their number (each once: a file's hard links count once, and a
// directory given below another given one adds nothing), not entering
// other file systems. The directories themselves are not counted. Its
// memory does not grow with the number of files: only files with more
// than one link are remembered.
func DirUsage(dirs ...string) DirSize {
	var u DirSize
	linked := map[[2]uint64]bool{}
	var roots []string
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		if slices.ContainsFunc(roots, func(r string) bool { return dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) }) {
			continue
		}
		roots = append(roots, dir)
		root, err := os.Lstat(dir)
		if err != nil {
			u.Unreadable++
			continue
		}
		rootStat, _ := statOf(root)
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, syscall.ENAMETOOLONG) {
				u.TooDeep++
				return nil
			}
			if err != nil {
				u.Unreadable++
				return nil
			}
			if p == dir {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				u.Unreadable++
				return nil
			}
			st, known := statOf(info)
			if d.IsDir() && st.dev != rootStat.dev {
				return fs.SkipDir // a mount point: another file system
			}
			if known && st.nlink > 1 && !d.IsDir() {
				key := [2]uint64{st.dev, st.ino}
				if linked[key] {
					return nil
				}
				linked[key] = true
			}
			u.Inodes++
			size := int64(0)
			if info.Mode().IsRegular() {
				size = info.Size()
			}
			u.Bytes += max(size, st.allocated)
			return nil
		})
	}
	return u
}

// diskMeter is a running meter container.
type diskMeter struct {
	d  Docker
	id string
}

// meterName names a run's meter container.
func meterName(runID string) string { return "readme2demo-" + runID + "-meter" }

// meterBinary is the binary to run as the meter: s.MeterBinary, or this
// executable when it is a Linux one.
func meterBinary(s Spec) (string, error) {
	if s.MeterBinary != "" {
		return s.MeterBinary, nil
	}
	if runtime.GOOS != "linux" {
		return "", &ConfigError{"the strict profile measures its volumes with this binary inside a Linux container, and this is a " +
			runtime.GOOS + " build: point R2D_EGRESS_BINARY at a Linux build (GOOS=linux CGO_ENABLED=0 go build ./cmd/readme2demo) or use --sandbox dev"}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this executable to run as the disk meter: %w", err)
	}
	return exe, nil
}

// meterStart is a meter started for a run: m is nil when the run has none
// (the dev profile where the layer's directory is unknown, or this binary
// cannot run in a Linux container: the daemon measures the layer alone).
type meterStart struct {
	m *diskMeter
	// stream is the meter's measurements; layer says they include the
	// container's own layer (then the daemon need not measure it).
	stream *volumeStream
	layer  bool
	err    error
}

// startRunMeter starts the disk meter for the sandbox container id: it
// measures the strict profile's volumes and, in both profiles, the
// container's own layer, where the daemon said where that is (layer, see
// layerDir). Remove the meter (before the sandbox container, whose volumes
// it holds) whatever the error.
func startRunMeter(ctx context.Context, d Docker, s Spec, id, layer string, deadline time.Time, r *runMeter) meterStart {
	if s.Profile != ProfileStrict && layer == "" {
		return meterStart{}
	}
	bin, err := meterBinary(s)
	if err != nil {
		if s.Profile != ProfileStrict {
			return meterStart{}
		}
		return meterStart{err: err}
	}
	m, err := startMeter(ctx, d, s, id, deadline, bin, layer, r)
	if err != nil {
		if s.Profile != ProfileStrict {
			// The dev profile's layer is measured by the daemon as
			// well: without the meter only its inodes go unmeasured.
			return meterStart{m: m}
		}
		return meterStart{m: m, err: err}
	}
	var dirs []string
	if s.Profile == ProfileStrict {
		dirs = append(dirs, StrictWritableDirs...)
	}
	if layer != "" {
		dirs = append(dirs, meterLayerDir)
	}
	vs, err := m.watch(ctx, s, dirs)
	return meterStart{m: m, stream: vs, layer: layer != "", err: err}
}

// runMeter is a run's disk meter, started in the background.
type runMeter struct {
	started chan meterStart
	ended   chan struct{} // the command has ended: a meter not started yet never starts
	// running is closed once the sandbox container runs (sandboxRunning): the
	// meter joins its process namespace, which only a running container has.
	running        chan struct{}
	sandboxRunning func()
	m              meterStart
	// wait waits for the start (it fills m); remove ends the meter,
	// once, however often it is called.
	wait   func()
	remove func() error
}

// launchMeter starts the disk meter of the sandbox container id in the
// background: the strict profile's at once, beside the container's start
// and copy-in (it needs only the container created); the dev profile's
// s.MeterDelay later, unless remove comes first (a quick run pays for no
// second container). layer is layerDir's.
func launchMeter(ctx context.Context, d Docker, s Spec, id, layer string, deadline time.Time) *runMeter {
	r := &runMeter{started: make(chan meterStart, 1), ended: make(chan struct{}), running: make(chan struct{})}
	r.sandboxRunning = sync.OnceFunc(func() { close(r.running) })
	end := sync.OnceFunc(func() { close(r.ended) })
	go func() {
		if s.Profile != ProfileStrict {
			t := time.NewTimer(s.MeterDelay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.ended:
				r.started <- meterStart{}
				return
			}
		}
		r.started <- startRunMeter(ctx, d, s, id, layer, deadline, r)
	}()
	r.wait = sync.OnceFunc(func() { r.m = <-r.started })
	r.remove = sync.OnceValue(func() error {
		end()
		r.wait()
		if r.m.stream != nil {
			r.m.stream.close()
		}
		return r.m.m.remove(ctx)
	})
	return r
}

// feed is the meter as the watcher reads it: filled (the meter started
// and measured once) before it returns when wait is set, with the error
// that kept it from measuring; filled in the background otherwise.
func (r *runMeter) feed(ctx context.Context, wait bool) (*meterFeed, error) {
	f := &meterFeed{ready: make(chan struct{})}
	if !wait {
		go func() { _ = f.fill(ctx, r.wait, &r.m) }() // without the meter, the daemon measures on
		return f, nil
	}
	return f, f.fill(ctx, r.wait, &r.m)
}

// meterFeed is the meter as the disk watcher reads it: ready is closed
// once the meter has measured (or will not: then stream is nil and the
// daemon measures the layer alone).
type meterFeed struct {
	ready  chan struct{}
	stream *volumeStream
	layer  bool // the stream includes the container's layer
}

// fill waits for the meter's start (started, which fills *m) and its first
// measurement, then makes the feed ready: with the stream when the meter
// measures, without it when the run has none or it failed (that error is
// returned).
func (f *meterFeed) fill(ctx context.Context, started func(), m *meterStart) error {
	defer close(f.ready)
	started()
	if m.err != nil || m.stream == nil {
		return m.err
	}
	if err := firstMeasurement(ctx, m.stream); err != nil {
		return err
	}
	f.stream, f.layer = m.stream, m.layer
	return nil
}

// inspectCreated reads, in one inspect of the created container, the host
// directory of its writable layer, as the daemon names it (overlay2's
// UpperDir: every file the run adds or changes, and nothing else; "" when
// the storage driver names none), and its labels (its image's with the
// run's own).
func inspectCreated(ctx context.Context, d Docker, id string) (layer string, labels map[string]string) {
	c, _, err := d.ContainerInspectWithRaw(ctx, id, false)
	if err != nil || c.ContainerJSONBase == nil {
		return "", nil
	}
	if c.Config != nil {
		labels = c.Config.Labels
	}
	if c.GraphDriver.Name != "overlay2" {
		return "", labels
	}
	dir := c.GraphDriver.Data["UpperDir"]
	if !path.IsAbs(dir) || strings.ContainsAny(dir, ":,") { // the daemon's paths are Linux ones
		return "", labels // not a path a bind mount can name
	}
	return dir, labels
}

// startMeter creates the meter container and, once the sandbox container
// id runs (r.running), starts it in that container's process namespace,
// with bin copied in; layer, when known, is bound read-only at
// meterLayerDir. The returned meter is never nil.
//
// The shared process namespace is what lets the meter see files deleted
// while still open (deletedHeld), with CAP_SYS_PTRACE to read other users'
// descriptors; its seccomp profile refuses the calls that would act on
// another process (meterRefused). The sandbox sees the meter's processes and cannot trace or read
// them (it has no CAP_SYS_PTRACE); its root can kill them, which stops the
// run as one whose disk use cannot be measured.
func startMeter(ctx context.Context, d Docker, s Spec, id string, deadline time.Time, bin, layer string, r *runMeter) (*diskMeter, error) {
	m := &diskMeter{d: d}
	life := int64(deadline.Sub(s.Now()).Seconds()) + 1
	init := false // the sandbox's process namespace has its own
	pids := int64(64)
	hc := &container.HostConfig{
		LogConfig:      NoContainerLog,
		NetworkMode:    "none",
		PidMode:        container.PidMode("container:" + id),
		CapDrop:        []string{"ALL"},
		CapAdd:         meterCapabilities,
		SecurityOpt:    []string{"no-new-privileges:true"},
		ReadonlyRootfs: true,
		Init:           &init,
		Mounts:         []mount.Mount{{Type: mount.TypeVolume, Target: meterBinDir}},
		Resources: container.Resources{
			Memory: 256 << 20, MemorySwap: 256 << 20, NanoCPUs: 5e8, PidsLimit: &pids,
		},
	}
	if opt := meterSeccompOption(); opt != "" {
		hc.SecurityOpt = append(hc.SecurityOpt, opt)
	}
	if s.Profile == ProfileStrict {
		hc.VolumesFrom = []string{id + ":ro"}
	}
	if layer != "" {
		// The only host path any container of a run gets: the run's own
		// layer, read-only, in the meter, whose one program is this binary.
		hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: layer, Target: meterLayerDir, ReadOnly: true,
			BindOptions: &mount.BindOptions{Propagation: mount.PropagationRSlave}}) // the daemon requires it under its root
	}
	created, err := d.ContainerCreate(ctx, &container.Config{
		Image:      s.Image,
		User:       meterUser,
		Entrypoint: []string{"sleep"},
		Cmd:        []string{strconv.FormatInt(life, 10)},
		Labels: map[string]string{
			LabelManaged:  "true",
			LabelRunID:    s.RunID,
			LabelDeadline: strconv.FormatInt(deadline.Unix(), 10),
			LabelRole:     RoleDiskMeter,
		},
		NetworkDisabled: true,
	}, hc, nil, nil, meterName(s.RunID))
	if err != nil {
		_ = remove(d, meterName(s.RunID))
		return m, fmt.Errorf("create disk meter container: %w", err)
	}
	m.id = created.ID
	select {
	case <-r.running:
	case <-r.ended:
		return m, errors.New("start disk meter container: the run ended before its container ran")
	case <-ctx.Done():
		return m, fmt.Errorf("start disk meter container: %w", context.Cause(ctx))
	}
	if err := d.ContainerStart(ctx, m.id, container.StartOptions{}); err != nil {
		return m, fmt.Errorf("start disk meter container: %w", err)
	}
	if err := copyMeterBinary(ctx, d, m.id, bin); err != nil {
		return m, err
	}
	return m, nil
}

// copyMeterBinary copies bin into the meter as meterBinDir/MeterProgram.
func copyMeterBinary(ctx context.Context, d Docker, id, bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return fmt.Errorf("open the disk meter binary: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat the disk meter binary: %w", err)
	}
	if err := CopyExecutable(ctx, d, id, meterBinDir, MeterProgram, f, st); err != nil {
		return fmt.Errorf("copy the disk meter into its container: %w", err)
	}
	return nil
}

// volumeStream is the meter's `watch` exec: the latest measurement of the
// strict profile's volumes, kept as the meter prints them. Reading it
// costs no call to the daemon, so a loaded daemon does not make the
// measurement late (a fast writer went 650 MiB past a 384 MiB cap while
// one exec per measurement waited on the daemon).
type volumeStream struct {
	changed chan struct{} // a new measurement (buffered, coalesced)
	first   chan struct{} // closed at the first measurement or the end
	ended   chan struct{} // closed when the stream ends
	close   func()

	mu        sync.Mutex
	size      DirSize
	walk      time.Duration
	have      bool
	err       error // why the stream ended
	firstOnce sync.Once
}

// watch starts the meter's `watch` exec of dirs. Close the stream when the
// run's command has ended.
func (m *diskMeter) watch(ctx context.Context, s Spec, dirs []string) (*volumeStream, error) {
	args := append([]string{meterBinDir + "/" + MeterProgram, "watch",
		strconv.FormatInt(int64(s.DiskPoll), 10), strconv.FormatInt(s.Disk, 10), strconv.FormatInt(s.Inodes, 10), "/proc"}, dirs...)
	ex, err := m.d.ContainerExecCreate(ctx, m.id, container.ExecOptions{
		User: meterUser, Cmd: args, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return nil, fmt.Errorf("create disk meter exec: %w", err)
	}
	att, err := m.d.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("start disk meter exec: %w", err)
	}
	v := &volumeStream{
		changed: make(chan struct{}, 1), first: make(chan struct{}), ended: make(chan struct{}),
	}
	var once sync.Once
	v.close = func() { once.Do(att.Close) }
	pr, pw := io.Pipe()
	var errOut bytes.Buffer
	go func() {
		_, err := stdcopy.StdCopy(pw, &limitedBuffer{b: &errOut, max: 4 << 10}, att.Reader)
		pw.CloseWithError(err)
	}()
	go func() {
		defer close(v.ended)
		defer v.firstOnce.Do(func() { close(v.first) })
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			u, walk, err := parseMeterLine(sc.Text())
			if err != nil {
				v.end(err)
				return
			}
			v.mu.Lock()
			v.size, v.walk, v.have = u, walk, true
			v.mu.Unlock()
			v.firstOnce.Do(func() { close(v.first) })
			select {
			case v.changed <- struct{}{}:
			default:
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		v.end(fmt.Errorf("disk meter stopped (%s): %w", clipString(strings.TrimSpace(errOut.String()), 200), err))
	}()
	return v, nil
}

// over reports whether the stream has ended.
func (v *volumeStream) over() bool {
	select {
	case <-v.ended:
		return true
	default:
		return false
	}
}

func (v *volumeStream) end(err error) {
	v.mu.Lock()
	v.err = err
	v.mu.Unlock()
	v.close()
}

// latest is a measureFunc: what the metered directories held at the
// meter's last measurement and what that walk took, waiting for the first
// one.
func (v *volumeStream) latest(ctx context.Context) (DirSize, time.Duration, error) {
	select {
	case <-v.first:
	case <-ctx.Done():
		return DirSize{}, 0, ctx.Err()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return DirSize{}, 0, v.err
	}
	return v.size, v.walk, nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
	mu  sync.Mutex
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// remove removes the meter container (and its binary volume), waiting
// for a slow removal as the sandbox's own does (ctx: the run's).
func (m *diskMeter) remove(ctx context.Context) error {
	if m == nil || m.id == "" {
		return nil
	}
	return removeWaiting(ctx, m.d, m.id)
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
