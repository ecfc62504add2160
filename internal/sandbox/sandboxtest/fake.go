package sandboxtest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest/stdin"
)

var _ sandbox.Docker = (*FakeDocker)(nil)

// FakeDocker is a sandbox.Docker without a daemon, for tests of what a run
// does with a container's answers (docker/cli's fakes): one function field
// per method, and a nil field gives the answer of a container in which
// everything works. By default the image exists, every call succeeds,
// the command and every exec write nothing and exit 0, the container reads
// as stopped with nothing written, and CopyFromContainer answers with
// Files: the file at that container path, or NotFound. A run's transcript
// is thus Files[engines.TranscriptContainerPath].
//
// Its methods may be called from several goroutines (the sandbox measures
// the disk beside the command); Calls lists them in order.
type FakeDocker struct {
	// Files are the container's files that CopyFromContainer copies out,
	// by absolute path.
	Files map[string][]byte

	PingFunc              func() (types.Ping, error)
	ImageInspectFunc      func(image string) (image.InspectResponse, error)
	ContainerCreateFunc   func(cfg *container.Config, hc *container.HostConfig, name string) (container.CreateResponse, error)
	ContainerStartFunc    func(id string) error
	ContainerKillFunc     func(id, signal string) error
	ContainerRemoveFunc   func(id string, o container.RemoveOptions) error
	ContainerListFunc     func(o container.ListOptions) ([]container.Summary, error)
	CopyToContainerFunc   func(id, dst string, content io.Reader) error
	CopyFromContainerFunc func(id, src string) (io.ReadCloser, container.PathStat, error)
	// ContainerAttachFunc answers the attach to a container's main process
	// (the run's command): its output. ContainerWaitFunc is asked, once
	// that output has ended, how the command exited.
	ContainerAttachFunc         func(id string) (types.HijackedResponse, error)
	ContainerWaitFunc           func(id string) (container.WaitResponse, error)
	ContainerExecCreateFunc     func(id string, o container.ExecOptions) (container.ExecCreateResponse, error)
	ContainerExecAttachFunc     func(execID string) (types.HijackedResponse, error)
	ContainerExecInspectFunc    func(execID string) (container.ExecInspect, error)
	ContainerInspectWithRawFunc func(id string, size bool) (container.InspectResponse, error)
	ContainerStatsOneShotFunc   func(id string) (container.StatsResponseReader, error)

	mu    sync.Mutex
	calls []string
	// stdin is what runs wrote to their commands' standard input;
	// outputs close as each attached output is read to its end.
	stdin   stdin.Recorder
	outputs map[string]chan struct{}
}

// Stdin is what runs wrote to their commands' standard input (the
// environment, handed over once everything is copied in).
func (f *FakeDocker) Stdin() []byte { return f.stdin.Bytes() }

// Calls are the calls made so far, in order, one word each ("create",
// "copy-from /path", …), without the disk and process measurements that
// run beside the command at their own pace ("inspect-size", "stats").
func (f *FakeDocker) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(f.calls), func(c string) bool { return c == "inspect-size" || c == "stats" })
}

func (f *FakeDocker) rec(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// Ping answers like a daemon that is up.
func (f *FakeDocker) Ping(context.Context) (types.Ping, error) {
	f.rec("ping")
	if f.PingFunc != nil {
		return f.PingFunc()
	}
	return types.Ping{}, nil
}

// ImageInspect answers that the image exists.
func (f *FakeDocker) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	f.rec("image %s", ref)
	if f.ImageInspectFunc != nil {
		return f.ImageInspectFunc(ref)
	}
	return image.InspectResponse{ID: "sha256:fake"}, nil
}

// ContainerCreate answers with the container's name as its id.
func (f *FakeDocker) ContainerCreate(_ context.Context, cfg *container.Config, hc *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.rec("create %s", name)
	if f.ContainerCreateFunc != nil {
		return f.ContainerCreateFunc(cfg, hc, name)
	}
	return container.CreateResponse{ID: name}, nil
}

func (f *FakeDocker) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	f.rec("start %s", id)
	if f.ContainerStartFunc != nil {
		return f.ContainerStartFunc(id)
	}
	return nil
}

func (f *FakeDocker) ContainerKill(_ context.Context, id, signal string) error {
	f.rec("kill %s", id)
	if f.ContainerKillFunc != nil {
		return f.ContainerKillFunc(id, signal)
	}
	return nil
}

func (f *FakeDocker) ContainerRemove(_ context.Context, id string, o container.RemoveOptions) error {
	f.rec("remove %s", id)
	if f.ContainerRemoveFunc != nil {
		return f.ContainerRemoveFunc(id, o)
	}
	return nil
}

// ContainerList answers that no container is left from earlier runs.
func (f *FakeDocker) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	f.rec("list")
	if f.ContainerListFunc != nil {
		return f.ContainerListFunc(o)
	}
	return nil, nil
}

// CopyToContainer reads the whole tar stream and keeps nothing.
func (f *FakeDocker) CopyToContainer(_ context.Context, id, dst string, content io.Reader, _ container.CopyToContainerOptions) error {
	f.rec("copy-to %s", dst)
	if f.CopyToContainerFunc != nil {
		return f.CopyToContainerFunc(id, dst, content)
	}
	_, err := io.Copy(io.Discard, content)
	return err
}

// CopyFromContainer answers as the daemon does: Files[src] as a one-file
// tar stream; for a directory that holds some of Files, a tar stream of it
// (the directory's name, then its files under it, in order); otherwise a
// NotFound error.
func (f *FakeDocker) CopyFromContainer(_ context.Context, id, src string) (io.ReadCloser, container.PathStat, error) {
	f.rec("copy-from %s", src)
	if f.CopyFromContainerFunc != nil {
		return f.CopyFromContainerFunc(id, src)
	}
	src = path.Clean(src)
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.Files[src]; ok {
		return TarOf(path.Base(src), data), container.PathStat{Name: path.Base(src), Size: int64(len(data)), Mode: 0o644}, nil
	}
	var under []string
	for p := range f.Files {
		if strings.HasPrefix(p, src+"/") {
			under = append(under, p)
		}
	}
	if len(under) == 0 {
		return nil, container.PathStat{}, errdefs.NotFound(fmt.Errorf("could not find the file %s in container %s", src, id))
	}
	slices.Sort(under)
	base := path.Base(src)
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	err := tw.WriteHeader(&tar.Header{Name: base + "/", Mode: 0o755, Typeflag: tar.TypeDir})
	for _, p := range under {
		data := f.Files[p]
		err = errors.Join(err,
			tw.WriteHeader(&tar.Header{Name: base + strings.TrimPrefix(p, src), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}),
			func() error { _, err := tw.Write(data); return err }())
	}
	if err = errors.Join(err, tw.Close()); err != nil {
		panic(fmt.Sprintf("tar of %s: %v", src, err)) // writing to memory does not fail
	}
	return io.NopCloser(&b), container.PathStat{Name: base, Mode: os.ModeDir | 0o755}, nil
}

// ContainerAttach answers with the output of ContainerAttachFunc, or with
// a command that writes nothing; what is written to it is kept (Stdin),
// and the output ends no sooner than that input (or the attach).
func (f *FakeDocker) ContainerAttach(_ context.Context, id string, _ container.AttachOptions) (types.HijackedResponse, error) {
	f.rec("attach %s", id)
	h := Hijacked("")
	if f.ContainerAttachFunc != nil {
		var err error
		if h, err = f.ContainerAttachFunc(id); err != nil {
			return h, err
		}
	}
	done := make(chan struct{})
	f.mu.Lock()
	if f.outputs == nil {
		f.outputs = map[string]chan struct{}{}
	}
	f.outputs[id] = done
	f.mu.Unlock()
	r, w := io.Pipe()
	conn, inputEnded := f.stdin.Wrap(h.Conn)
	go func() {
		_, err := io.Copy(w, h.Reader)
		<-inputEnded // a command that reads its input to the end ends no sooner
		w.CloseWithError(err)
		close(done)
	}()
	return types.HijackedResponse{Conn: conn, Reader: bufio.NewReader(r)}, nil
}

// ContainerWait answers, once the attached output has ended, with
// ContainerWaitFunc's answer or an exit status of 0.
func (f *FakeDocker) ContainerWait(ctx context.Context, id string, _ container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	f.rec("wait %s", id)
	f.mu.Lock()
	done := f.outputs[id]
	f.mu.Unlock()
	resp, errc := make(chan container.WaitResponse, 1), make(chan error, 1)
	go func() {
		if done != nil {
			select {
			case <-done:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
		if f.ContainerWaitFunc == nil {
			resp <- container.WaitResponse{}
			return
		}
		r, err := f.ContainerWaitFunc(id)
		if err != nil {
			errc <- err
			return
		}
		resp <- r
	}()
	return resp, errc
}

func (f *FakeDocker) ContainerExecCreate(_ context.Context, id string, o container.ExecOptions) (container.ExecCreateResponse, error) {
	f.rec("exec-create %s", strings.Join(o.Cmd, " "))
	if f.ContainerExecCreateFunc != nil {
		return f.ContainerExecCreateFunc(id, o)
	}
	return container.ExecCreateResponse{ID: "exec"}, nil
}

// ContainerExecAttach answers with an exec that writes nothing.
func (f *FakeDocker) ContainerExecAttach(_ context.Context, execID string, _ container.ExecAttachOptions) (types.HijackedResponse, error) {
	f.rec("exec-attach")
	if f.ContainerExecAttachFunc != nil {
		return f.ContainerExecAttachFunc(execID)
	}
	return Hijacked(""), nil
}

// ContainerExecInspect answers that the exec exited 0.
func (f *FakeDocker) ContainerExecInspect(_ context.Context, execID string) (container.ExecInspect, error) {
	f.rec("exec-inspect")
	if f.ContainerExecInspectFunc != nil {
		return f.ContainerExecInspectFunc(execID)
	}
	return container.ExecInspect{ExecID: execID}, nil
}

// ContainerInspectWithRaw answers with a stopped container that wrote
// nothing and was not killed.
func (f *FakeDocker) ContainerInspectWithRaw(_ context.Context, id string, size bool) (container.InspectResponse, []byte, error) {
	if size {
		f.rec("inspect-size")
	} else {
		f.rec("inspect")
	}
	if f.ContainerInspectWithRawFunc != nil {
		c, err := f.ContainerInspectWithRawFunc(id, size)
		return c, nil, err
	}
	var sizeRw int64
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: id, SizeRw: &sizeRw, State: &container.State{}}}, nil, nil
}

// ContainerStatsOneShot answers with one process of the default limit.
func (f *FakeDocker) ContainerStatsOneShot(_ context.Context, id string) (container.StatsResponseReader, error) {
	f.rec("stats")
	if f.ContainerStatsOneShotFunc != nil {
		return f.ContainerStatsOneShotFunc(id)
	}
	return container.StatsResponseReader{Body: io.NopCloser(strings.NewReader(`{"pids_stats":{"current":1,"limit":1024}}`))}, nil
}

// Hijacked is an exec's attached stream that writes stdout (multiplexed as
// the daemon does) and ends.
func Hijacked(stdout string) types.HijackedResponse {
	c1, c2 := net.Pipe()
	go func() {
		if stdout != "" {
			_, _ = stdcopy.NewStdWriter(c2, stdcopy.Stdout).Write([]byte(stdout))
		}
		c2.Close()
	}()
	return types.HijackedResponse{Conn: c1, Reader: bufio.NewReader(c1)}
}

// TarOf is a tar stream holding one regular file, as CopyFromContainer
// sends it.
func TarOf(name string, data []byte) io.ReadCloser {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	err := errors.Join(
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}),
		func() error { _, err := tw.Write(data); return err }(),
		tw.Close())
	if err != nil {
		panic(fmt.Sprintf("tar of %s: %v", name, err)) // writing to memory does not fail
	}
	return io.NopCloser(&b)
}
