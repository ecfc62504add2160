package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/storage"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// overlayLayer is the inspect answer of a daemon that names the
// container's layer directory (overlay2, as Docker's default storage).
func overlayLayer(c container.InspectResponse) container.InspectResponse {
	c.GraphDriver = storage.DriverData{Name: "overlay2", Data: map[string]string{
		"UpperDir": "/var/lib/docker/overlay2/abc/diff", "MergedDir": "/var/lib/docker/overlay2/abc/merged",
	}}
	return c
}

// In the dev profile, where the daemon names the container's layer, the
// disk meter sees that layer (read-only, and nothing else of the host), so
// its inodes are counted: a README that creates files past the inode cap
// is stopped by it, with no call to the daemon's slow size walk.
func TestDevMeterStopsARunPastTheInodeCap(t *testing.T) {
	d, killed := hangingDocker(t)
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		return overlayLayer(inspected(0, !*killed, false)), nil
	}
	var meterHC *container.HostConfig
	var watchArgs []string
	meteredDocker(d, nil, func(since time.Duration) DirSize {
		// 100 empty files every millisecond.
		return DirSize{Bytes: 4096, Inodes: int64(since.Milliseconds()) * 100}
	}, func(o container.ExecOptions) {
		if len(o.Cmd) > 1 && o.Cmd[1] == "watch" {
			watchArgs = o.Cmd
		}
	})
	create := d.create
	d.create = func(c *container.Config, hc *container.HostConfig, name string) (container.CreateResponse, error) {
		if name == meterName("r1") {
			meterHC = hc
		}
		return create(c, hc, name)
	}
	s := fakeSpec()
	s.MeterBinary = os.Args[0]
	s.MeterDelay = time.Nanosecond
	s.Inodes = 20000
	s.Timeout = 20 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedInodes))
	assert.Check(t, *killed)
	assert.Check(t, res.Usage.LayerMetered)
	assert.Check(t, res.Usage.InodesPeak > 20000 && res.Usage.InodesPeak < 30000, "peak %d", res.Usage.InodesPeak)

	assert.Assert(t, meterHC != nil, "no meter under dev")
	assert.Check(t, is.Len(meterHC.VolumesFrom, 0), "the dev profile has no volumes")
	// The meter may read every directory (CAP_DAC_READ_SEARCH) and the
	// descriptors of the sandbox's processes, in whose process namespace it
	// runs (CAP_SYS_PTRACE), never open a file by its handle (the way out
	// of a container that the first capability opens under Docker's
	// default seccomp profile) nor act on another process (what the second
	// opens) but stop it once a cap is passed (CAP_KILL).
	assert.Check(t, is.DeepEqual([]string(meterHC.CapAdd), []string{"DAC_READ_SEARCH", "SYS_PTRACE", "KILL"}))
	assert.Check(t, is.Equal(meterHC.PidMode, container.PidMode("container:c1")))
	assert.Check(t, meterHC.Init != nil && !*meterHC.Init, "the sandbox's process namespace has its first process")
	assert.Check(t, is.Contains(meterHC.SecurityOpt, meterSeccompOption()))
	assert.Check(t, is.Contains(meterSeccompOption(), `{"names":["open_by_handle_at","ptrace","process_vm_readv","process_vm_writev","process_madvise","pidfd_getfd","kcmp"],"action":"SCMP_ACT_ERRNO"`))
	assert.Check(t, is.DeepEqual(meterHC.Mounts[1:], []mount.Mount{{Type: mount.TypeBind, Source: "/var/lib/docker/overlay2/abc/diff",
		Target: meterLayerDir, ReadOnly: true, BindOptions: &mount.BindOptions{Propagation: mount.PropagationRSlave}}}))
	assert.Check(t, is.DeepEqual(watchArgs[2:], []string{"100000000", "10737418240", "20000", "/proc", meterLayerDir}))
}

// The dev profile's commands do not wait for the meter: until its first
// measurement the daemon measures the layer, and stops a writer past the
// disk cap by itself.
func TestDevCommandsDoNotWaitForTheMeter(t *testing.T) {
	d, killed := hangingDocker(t)
	var sized atomic.Int64
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		var rw int64
		if withSize {
			rw = sized.Add(200 << 20) // 200 MiB more at each of the daemon's measurements
		}
		return overlayLayer(inspected(rw, !*killed, false)), nil
	}
	var commandAt, meterAt atomic.Int64
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	meteredDocker(d, func() {
		meterAt.Store(time.Now().UnixNano())
		<-never // the meter never measures
	}, func(time.Duration) DirSize { return DirSize{} }, func(container.ExecOptions) {})
	d.start = func(id string) error {
		if id == "c1" { // the sandbox's main process is the command
			commandAt.Store(time.Now().UnixNano())
		}
		return nil
	}
	s := fakeSpec()
	s.MeterBinary = os.Args[0]
	s.MeterDelay = time.Nanosecond
	s.Disk = 512 << 20
	s.Timeout = 20 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	assert.Check(t, !res.Usage.LayerMetered)
	assert.Check(t, is.Equal(res.Usage.InodesPeak, int64(-1)), "no inodes without the meter's measurement")
	assert.Check(t, commandAt.Load() != 0, "the command never started")
	assert.Check(t, meterAt.Load() != 0, "the meter was not started")
}

// A dev run whose command ends before MeterDelay starts no meter: a README
// of a few quick commands pays for no second container.
func TestShortDevRunStartsNoMeter(t *testing.T) {
	d := happyDocker(t)
	d.inspect = func(string, bool) (container.InspectResponse, error) {
		return overlayLayer(inspected(100, true, false)), nil
	}
	d.create = func(_ *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
		assert.Check(t, name != meterName("r1"), "a meter for a run that was over before it was due")
		return container.CreateResponse{ID: "c1"}, nil
	}
	s := fakeSpec()
	s.MeterBinary = os.Args[0]
	s.MeterDelay = time.Hour
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, !res.Usage.LayerMetered)
	assert.Check(t, is.Equal(res.Usage.InodesPeak, int64(-1)))
}

// Where the daemon names no layer directory (another storage driver), the
// dev profile runs no meter: the daemon measures the layer's bytes, and
// its inodes go unmeasured (and the run is not stopped for them).
func TestDevWithoutALayerDirectoryMeasuresBytesOnly(t *testing.T) {
	d := happyDocker(t)
	d.create = func(_ *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
		assert.Check(t, name != meterName("r1"), "a meter without anything to measure")
		return container.CreateResponse{ID: "c1"}, nil
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, !res.Usage.LayerMetered)
	assert.Check(t, is.Equal(res.Usage.InodesPeak, int64(-1)))
	assert.Check(t, is.Equal(res.Limits.Inodes, DefaultInodes(DefaultDisk)))
	assert.Check(t, is.Equal(res.Limits.Inodes, int64(1310720)))
}

// The strict profile's meter sees the layer beside the volumes, and the
// inode cap counts both.
func TestStrictMeterSeesTheLayerAndTheVolumes(t *testing.T) {
	d, killed := hangingDocker(t)
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		return overlayLayer(inspected(0, !*killed, false)), nil
	}
	var watchArgs []string
	meteredDocker(d, nil, func(time.Duration) DirSize { return DirSize{Bytes: 1 << 20, Inodes: 60000} }, func(o container.ExecOptions) {
		if len(o.Cmd) > 1 && o.Cmd[1] == "watch" {
			watchArgs = o.Cmd
		}
	})
	s := strictFakeSpec()
	s.Timeout = 20 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedInodes), "49152 inodes is the default for a 384 MiB cap")
	assert.Check(t, is.DeepEqual(watchArgs[5:], append(append([]string{"/proc"}, StrictWritableDirs...), meterLayerDir)))
}

// The default inode cap is proportionate to the disk cap, and a negative
// one is refused.
func TestInodeCapDefaults(t *testing.T) {
	for _, tc := range []struct{ disk, want int64 }{
		{10 << 30, 1310720}, {1 << 30, 131072}, {384 << 20, 49152}, {1 << 20, 1024},
	} {
		assert.Check(t, is.Equal(DefaultInodes(tc.disk), tc.want), "disk %d", tc.disk)
	}
	s := fakeSpec()
	s.Inodes = -1
	_, err := s.withDefaults()
	assert.Check(t, is.ErrorContains(err, "inode"))
}

// A tree the meter cannot walk (deeper than the path limit) stops the run
// as one whose disk use cannot be checked, saying why.
func TestTreeTooDeepToMeasureStopsTheRun(t *testing.T) {
	res := runStoppedUnmeasured(t, func(since time.Duration) DirSize {
		if since > 50*time.Millisecond {
			return DirSize{Bytes: 1 << 20, Inodes: 3000, TooDeep: 1}
		}
		return DirSize{Bytes: 1 << 20, Inodes: 10}
	})
	assert.Check(t, is.Contains(res.Usage.DiskError, "a directory tree deeper than the system's path limit"))
}

// runStoppedUnmeasured runs a fake sandbox whose meter measures as measure
// says, and checks that the run was stopped as one whose disk use cannot
// be measured, its container killed.
func runStoppedUnmeasured(t *testing.T, measure func(since time.Duration) DirSize) *Result {
	t.Helper()
	d, killed := hangingDocker(t)
	d.inspect = func(string, bool) (container.InspectResponse, error) {
		return overlayLayer(inspected(0, !*killed, false)), nil
	}
	meteredDocker(d, nil, measure, func(container.ExecOptions) {})
	s := fakeSpec()
	s.MeterBinary = os.Args[0]
	s.MeterDelay = time.Nanosecond
	s.Timeout = 20 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	assert.Check(t, *killed)
	return res
}

// The meter runs in the sandbox's process namespace and ends with the
// command's first process: its stream ending once the container no longer
// runs is no failed measurement, however late the run learns of the end;
// ending while the container runs (the sandbox's root can kill the meter)
// is, and five in a row stop the run.
func TestMeterEndingWithTheContainerIsNoFailure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running bool // the container still runs when the meter's stream ends
		stopped string
	}{
		{"the container ended", false, ""},
		{"the meter was killed", true, StoppedDisk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := happyDocker(t)
			over := make(chan struct{})
			d.attach = func(string) (types.HijackedResponse, error) { return d.attachOf("", over), nil }
			var ended atomic.Bool
			d.inspect = func(string, bool) (container.InspectResponse, error) {
				return overlayLayer(inspected(0, tc.running || !ended.Load(), false)), nil
			}
			meteredDocker(d, nil, func(time.Duration) DirSize { return DirSize{} }, func(container.ExecOptions) {})
			fakeMeterStream(d, func(w io.Writer) {
				for range 3 {
					_, _ = fmt.Fprintln(w, DirSize{Bytes: 1 << 20, Inodes: 10}.line(time.Microsecond))
					time.Sleep(5 * time.Millisecond)
				}
				ended.Store(true)
				// The run learns of the command's end half a second later:
				// time for many more measurements.
				time.AfterFunc(500*time.Millisecond, func() { close(over) })
			})
			s := fakeSpec()
			s.MeterBinary = os.Args[0]
			s.MeterDelay = time.Nanosecond
			s.DiskPoll = time.Millisecond
			s.Timeout = 20 * time.Second
			res, err := Run(context.Background(), d, s)
			assert.NilError(t, err)
			assert.Check(t, res.Usage.LayerMetered)
			assert.Check(t, is.Equal(res.Stopped, tc.stopped), "usage %+v", res.Usage)
			if tc.running {
				assert.Check(t, is.Contains(res.Usage.DiskError, "disk meter stopped"))
			}
		})
	}
}

// The meter joins the sandbox container's process namespace, which only a
// running container has: it is created beside the sandbox's start but
// started only after it, in both profiles.
func TestMeterStartsAfterTheSandbox(t *testing.T) {
	for _, strict := range []bool{false, true} {
		d := happyDocker(t)
		meteredDocker(d, nil, func(time.Duration) DirSize { return DirSize{Bytes: 1 << 20, Inodes: 10} }, func(container.ExecOptions) {})
		d.inspect = func(string, bool) (container.InspectResponse, error) {
			return overlayLayer(inspected(0, true, false)), nil
		}
		var mu sync.Mutex
		var order []string
		d.start = func(id string) error {
			if id == "c1" {
				time.Sleep(50 * time.Millisecond) // a slow start: the meter, created meanwhile, waits
			}
			mu.Lock()
			defer mu.Unlock()
			order = append(order, id)
			return nil
		}
		s := fakeSpec()
		if strict {
			s = strictFakeSpec()
		}
		s.MeterBinary = os.Args[0]
		s.MeterDelay = time.Nanosecond
		d.attach = func(string) (types.HijackedResponse, error) {
			over := make(chan struct{}) // the command runs long enough for the dev meter
			time.AfterFunc(300*time.Millisecond, func() { close(over) })
			return d.attachOf("", over), nil
		}
		_, err := Run(context.Background(), d, s)
		assert.NilError(t, err)
		mu.Lock()
		assert.Check(t, is.DeepEqual(order, []string{"c1", "m1"}), "strict %v", strict)
		mu.Unlock()
	}
}

// A run that holds more descriptors than the meter reads in a measurement
// cannot have what its deleted files hold measured: it is stopped, named.
func TestTooManyDescriptorsToMeasureStopTheRun(t *testing.T) {
	res := runStoppedUnmeasured(t, func(time.Duration) DirSize {
		return DirSize{Bytes: 1 << 20, Inodes: 10, Descriptors: maxDescriptors + 1}
	})
	assert.Check(t, is.Contains(res.Usage.DiskError, "held more than 100000 open descriptors"))
}
