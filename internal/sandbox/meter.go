package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
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

const (
	meterBinDir = "/r2d-meter"
	meterUser   = "0:0"
)

// IsMeter reports whether a program started as arg0 (os.Args[0]) is to run
// as the disk meter; its main then returns MeterMain's status.
func IsMeter(arg0 string) bool { return filepath.Base(arg0) == MeterProgram }

// MeterMain is the disk meter's program. `measure DIR...` prints the
// bytes the directories hold (regular files' sizes, each inode once, not
// crossing into other file systems) on one line; `watch POLL CAP DIR...`
// measures again and again and prints a line per measurement, spaced as
// the watcher spaces its own (nextMeasure, with POLL the shortest interval
// in nanoseconds and CAP the bytes the directories may hold), until its
// output can no longer be written (the run's end closed it). A line is
// "BYTES UNREADABLE WALK_NANOSECONDS". It returns the exit status.
func MeterMain(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintf(stderr, "usage: %s measure DIR... | watch POLL_NS CAP_BYTES DIR...\n", MeterProgram)
		return 2
	}
	switch {
	case len(args) >= 2 && args[0] == "measure":
		start := time.Now()
		total, errs := DirUsage(args[1:]...)
		fmt.Fprintf(stdout, "%d %d %d\n", total, errs, time.Since(start).Nanoseconds())
		return 0
	case len(args) >= 4 && args[0] == "watch":
		poll, err1 := strconv.ParseInt(args[1], 10, 64)
		capBytes, err2 := strconv.ParseInt(args[2], 10, 64)
		if err1 != nil || err2 != nil || poll <= 0 || capBytes <= 0 {
			return usage()
		}
		watchDirs(time.Duration(poll), capBytes, args[3:], stdout)
		return 0
	}
	return usage()
}

// watchDirs is `watch`: it returns when a line cannot be written.
func watchDirs(poll time.Duration, capBytes int64, dirs []string, stdout io.Writer) {
	var prev int64
	prevAt := time.Now()
	for n := 0; ; n++ {
		start := time.Now()
		total, errs := DirUsage(dirs...)
		walk := time.Since(start)
		if _, err := fmt.Fprintf(stdout, "%d %d %d\n", total, errs, walk.Nanoseconds()); err != nil {
			return
		}
		now := time.Now()
		time.Sleep(nextMeasure(poll, capBytes, n+1, walk, prev, total, now.Sub(prevAt)))
		prev, prevAt = total, now
	}
}

// DirUsage returns the apparent size of the regular files under dirs
// (hard links counted once, other file systems not entered) and how many
// entries could not be read.
func DirUsage(dirs ...string) (total int64, unreadable int) {
	seen := map[[2]uint64]bool{}
	for _, dir := range dirs {
		root, err := os.Lstat(dir)
		if err != nil {
			unreadable++
			continue
		}
		rootDev := devOf(root)
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				unreadable++
				return nil
			}
			info, err := d.Info()
			if err != nil {
				unreadable++
				return nil
			}
			if d.IsDir() {
				if p != dir && devOf(info) != rootDev {
					return fs.SkipDir
				}
				return nil
			}
			if !info.Mode().IsRegular() || info.Size() == 0 {
				return nil
			}
			if dev, ino, ok := fileID(info); ok {
				key := [2]uint64{dev, ino}
				if seen[key] {
					return nil
				}
				seen[key] = true
			}
			total += info.Size()
			return nil
		})
	}
	return total, unreadable
}

func devOf(info fs.FileInfo) uint64 {
	dev, _, _ := fileID(info)
	return dev
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

// startMeter creates and starts the meter for the sandbox container id.
// The returned meter is never nil; remove it (before the sandbox
// container, whose volumes it holds) whatever the error.
func startMeter(ctx context.Context, d Docker, s Spec, id string, deadline time.Time) (*diskMeter, error) {
	m := &diskMeter{d: d}
	bin, err := meterBinary(s)
	if err != nil {
		return m, err
	}
	life := int64(deadline.Sub(s.Now()).Seconds()) + 1
	init := true
	pids := int64(64)
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
	}, &container.HostConfig{
		LogConfig:      NoContainerLog,
		NetworkMode:    "none",
		CapDrop:        []string{"ALL"},
		CapAdd:         []string{"DAC_READ_SEARCH"},
		SecurityOpt:    []string{"no-new-privileges:true"},
		ReadonlyRootfs: true,
		Init:           &init,
		VolumesFrom:    []string{id + ":ro"},
		Mounts:         []mount.Mount{{Type: mount.TypeVolume, Target: meterBinDir}},
		Resources: container.Resources{
			Memory: 256 << 20, MemorySwap: 256 << 20, NanoCPUs: 5e8, PidsLimit: &pids,
		},
	}, nil, nil, meterName(s.RunID))
	if err != nil {
		_ = remove(d, meterName(s.RunID))
		return m, fmt.Errorf("create disk meter container: %w", err)
	}
	m.id = created.ID
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
	total     int64
	walk      time.Duration
	have      bool
	err       error // why the stream ended
	firstOnce sync.Once
}

// watch starts the meter's `watch` exec. Close the stream when the run's
// command has ended.
func (m *diskMeter) watch(ctx context.Context, s Spec) (*volumeStream, error) {
	args := append([]string{meterBinDir + "/" + MeterProgram, "watch",
		strconv.FormatInt(int64(s.DiskPoll), 10), strconv.FormatInt(s.Disk, 10)}, StrictWritableDirs...)
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
			var total, walk int64
			var unreadable int
			if _, err := fmt.Sscanf(sc.Text(), "%d %d %d", &total, &unreadable, &walk); err != nil {
				v.end(fmt.Errorf("read disk meter output %q: %v", clipString(sc.Text(), 200), err))
				return
			}
			v.mu.Lock()
			v.total, v.walk, v.have = total, time.Duration(walk), true
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

func (v *volumeStream) end(err error) {
	v.mu.Lock()
	v.err = err
	v.mu.Unlock()
	v.close()
}

// latest is a measureFunc: the bytes the volumes held at the meter's last
// measurement and what that walk took, waiting for the first one.
func (v *volumeStream) latest(ctx context.Context) (int64, time.Duration, error) {
	select {
	case <-v.first:
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return 0, 0, v.err
	}
	return v.total, v.walk, nil
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

// remove removes the meter container (and its binary volume).
func (m *diskMeter) remove() error {
	if m == nil || m.id == "" {
		return nil
	}
	return remove(m.d, m.id)
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
