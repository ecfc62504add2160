package sandbox

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// fakeDocker has one function field per method; a nil field fails the test
// when called.
type fakeDocker struct {
	t        *testing.T
	calls    []string
	create   func(*container.Config, *container.HostConfig, string) (container.CreateResponse, error)
	start    func(string) error
	kill     func(string) error
	rm       func(string, container.RemoveOptions) error
	list     func(container.ListOptions) ([]container.Summary, error)
	copyTo   func(string, io.Reader) error
	copyFrom func(string) (io.ReadCloser, container.PathStat, error)
	execCrt  func(container.ExecOptions) (container.ExecCreateResponse, error)
	execAtt  func(string) (types.HijackedResponse, error)
	execIns  func(string) (container.ExecInspect, error)
}

func (f *fakeDocker) rec(name string) { f.calls = append(f.calls, name) }

func (f *fakeDocker) Ping(context.Context) (types.Ping, error) {
	f.rec("ping")
	return types.Ping{}, nil
}
func (f *fakeDocker) ImageInspect(context.Context, string, ...client.ImageInspectOption) (image.InspectResponse, error) {
	f.rec("image")
	return image.InspectResponse{}, nil
}
func (f *fakeDocker) ContainerCreate(_ context.Context, c *container.Config, hc *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.rec("create")
	return f.create(c, hc, name)
}
func (f *fakeDocker) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	f.rec("start")
	return f.start(id)
}
func (f *fakeDocker) ContainerKill(_ context.Context, id, _ string) error {
	f.rec("kill")
	return f.kill(id)
}
func (f *fakeDocker) ContainerRemove(_ context.Context, id string, o container.RemoveOptions) error {
	f.rec("remove " + id)
	return f.rm(id, o)
}
func (f *fakeDocker) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	f.rec("list")
	return f.list(o)
}
func (f *fakeDocker) CopyToContainer(_ context.Context, _, dst string, r io.Reader, _ container.CopyToContainerOptions) error {
	f.rec("copy-to " + dst)
	return f.copyTo(dst, r)
}
func (f *fakeDocker) CopyFromContainer(_ context.Context, _, src string) (io.ReadCloser, container.PathStat, error) {
	f.rec("copy-from " + src)
	return f.copyFrom(src)
}
func (f *fakeDocker) ContainerExecCreate(_ context.Context, _ string, o container.ExecOptions) (container.ExecCreateResponse, error) {
	f.rec("exec-create")
	return f.execCrt(o)
}
func (f *fakeDocker) ContainerExecAttach(_ context.Context, id string, _ container.ExecAttachOptions) (types.HijackedResponse, error) {
	f.rec("exec-attach")
	return f.execAtt(id)
}
func (f *fakeDocker) ContainerExecInspect(_ context.Context, id string) (container.ExecInspect, error) {
	f.rec("exec-inspect")
	return f.execIns(id)
}

// hijacked returns an exec attach response that streams out (as stdout)
// and then EOF.
func hijacked(out string) types.HijackedResponse {
	c1, c2 := net.Pipe()
	go func() {
		w := stdcopy.NewStdWriter(c2, stdcopy.Stdout)
		_, _ = w.Write([]byte(out))
		c2.Close()
	}()
	return types.HijackedResponse{Conn: c1, Reader: bufio.NewReader(c1)}
}

func tarOf(name, data string) io.ReadCloser {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
	_, _ = tw.Write([]byte(data))
	_ = tw.Close()
	return io.NopCloser(&b)
}

// happyDocker is a fake on which a whole run succeeds.
func happyDocker(t *testing.T) *fakeDocker {
	return &fakeDocker{
		t: t,
		create: func(*container.Config, *container.HostConfig, string) (container.CreateResponse, error) {
			return container.CreateResponse{ID: "c1"}, nil
		},
		start:  func(string) error { return nil },
		kill:   func(string) error { return nil },
		rm:     func(string, container.RemoveOptions) error { return nil },
		list:   func(container.ListOptions) ([]container.Summary, error) { return nil, nil },
		copyTo: func(_ string, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err },
		copyFrom: func(src string) (io.ReadCloser, container.PathStat, error) {
			return tarOf(filepath.Base(src), "data of "+src), container.PathStat{}, nil
		},
		execCrt: func(container.ExecOptions) (container.ExecCreateResponse, error) {
			return container.ExecCreateResponse{ID: "e1"}, nil
		},
		execAtt: func(string) (types.HijackedResponse, error) { return hijacked("hello\n"), nil },
		execIns: func(string) (container.ExecInspect, error) { return container.ExecInspect{ExitCode: 7}, nil },
	}
}

func fakeSpec() Spec {
	return Spec{Image: "img", RunID: "r1", Command: "agent --go", TranscriptPath: "/readme2demo/t.jsonl", StderrPath: "/readme2demo/t.stderr",
		Env: map[string]string{"API_KEY": "s3cret-value"}, Files: []File{{Path: "/readme2demo/prompt.md", Data: []byte("p")}},
		Now: func() time.Time { return time.Unix(1_000_000, 0) }}
}

func TestRunInjectsSecretsAtExecTimeOnly(t *testing.T) {
	d := happyDocker(t)
	var cfg *container.Config
	d.create = func(c *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
		cfg = c
		assert.Check(t, is.Equal(name, "readme2demo-r1"))
		return container.CreateResponse{ID: "c1"}, nil
	}
	var execs []container.ExecOptions
	d.execCrt = func(o container.ExecOptions) (container.ExecCreateResponse, error) {
		execs = append(execs, o)
		return container.ExecCreateResponse{ID: "e1"}, nil
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, is.Len(cfg.Env, 0), "secrets in the container's configuration: %v", cfg.Env)
	assert.Assert(t, is.Len(execs, 1))
	assert.Check(t, is.DeepEqual(execs[0].Env, []string{"API_KEY=s3cret-value"}))
	assert.Check(t, is.DeepEqual([]string(execs[0].Cmd), []string{"bash", "-lc", "agent --go"}))
	assert.Check(t, is.Equal(execs[0].User, DefaultUser))
	assert.Check(t, is.Equal(execs[0].WorkingDir, "/workspace"))
	assert.Assert(t, res.ExitCode != nil)
	assert.Check(t, is.Equal(*res.ExitCode, 7))
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"))
	assert.Check(t, is.Equal(string(res.Stderr), "data of /readme2demo/t.stderr"))
	assert.Check(t, is.Equal(string(res.Output), "hello\n"))
	assert.Check(t, is.DeepEqual(d.calls, []string{"list", "create", "start", "copy-to /readme2demo", "exec-create", "exec-attach",
		"exec-inspect", "copy-from /readme2demo/t.jsonl", "copy-from /readme2demo/t.stderr", "remove c1"}))
}

func TestRunRemovesTheContainerWhenAStepFails(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		break_ func(d *fakeDocker)
	}{
		{"start", func(d *fakeDocker) { d.start = func(string) error { return boom } }},
		{"copy in", func(d *fakeDocker) { d.copyTo = func(string, io.Reader) error { return boom } }},
		{"exec", func(d *fakeDocker) {
			d.execCrt = func(container.ExecOptions) (container.ExecCreateResponse, error) {
				return container.ExecCreateResponse{}, boom
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := happyDocker(t)
			tc.break_(d)
			var removed []string
			d.rm = func(id string, o container.RemoveOptions) error {
				assert.Check(t, o.Force && o.RemoveVolumes)
				removed = append(removed, id)
				return nil
			}
			res, err := Run(context.Background(), d, fakeSpec())
			assert.Check(t, errors.Is(err, boom), "err %v", err)
			assert.Check(t, res != nil && res.ContainerID == "c1")
			assert.Check(t, is.DeepEqual(removed, []string{"c1"}))
		})
	}
}

func TestRunReportsAMissingImage(t *testing.T) {
	d := happyDocker(t)
	d.create = func(*container.Config, *container.HostConfig, string) (container.CreateResponse, error) {
		return container.CreateResponse{}, errdefs.NotFound(errors.New("No such image: img"))
	}
	d.rm = func(string, container.RemoveOptions) error { return errdefs.NotFound(errors.New("No such container")) }
	_, err := Run(context.Background(), d, fakeSpec())
	var missing *ImageMissingError
	assert.Assert(t, errors.As(err, &missing), "err %v", err)
	assert.Check(t, is.ErrorContains(err, "docker build -t img images/base"))
}

func TestRunTimeoutKillsTheContainer(t *testing.T) {
	d := happyDocker(t)
	hang := make(chan struct{})
	d.execAtt = func(string) (types.HijackedResponse, error) {
		c1, c2 := net.Pipe()
		go func() { <-hang; c2.Close() }()
		return types.HijackedResponse{Conn: c1, Reader: bufio.NewReader(c1)}, nil
	}
	killed := false
	d.kill = func(string) error { killed = true; close(hang); return nil }
	s := fakeSpec()
	s.Timeout = 50 * time.Millisecond
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, killed)
	assert.Check(t, res.TimedOut)
	assert.Check(t, res.ExitCode == nil)
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"), "the partial transcript was not copied out")
}

func TestSpecDefaultsRefuseUnsafeOrBrokenSpecs(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *Spec)
		want string
	}{
		{"host network", func(s *Spec) { s.NetworkMode = "host" }, "explicit opt-in"},
		{"no image", func(s *Spec) { s.Image = "" }, "no image"},
		{"no command", func(s *Spec) { s.Command = "" }, "no command"},
		{"file outside writable dirs", func(s *Spec) { s.Files = []File{{Path: "/etc/x"}} }, "not in a writable dir"},
		{"relative file", func(s *Spec) { s.Files = []File{{Path: "x/../y"}} }, "clean absolute path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeSpec()
			tc.edit(&s)
			d := happyDocker(t)
			_, err := Run(context.Background(), d, s)
			var ce *ConfigError
			assert.Assert(t, errors.As(err, &ce), "err %v", err)
			assert.Check(t, is.ErrorContains(err, tc.want))
			assert.Check(t, is.Len(d.calls, 0), "the daemon was called: %v", d.calls)
		})
	}
	s := fakeSpec()
	s.NetworkMode, s.AllowHostNetwork = "host", true
	_, err := s.withDefaults()
	assert.NilError(t, err)
}

func TestContainerConfigsHarden(t *testing.T) {
	s, err := fakeSpec().withDefaults()
	assert.NilError(t, err)
	deadline := s.Now().Add(s.Timeout + s.Grace)
	cfg, hc := containerConfigs(s, deadline)
	assert.Check(t, is.DeepEqual([]string(hc.CapDrop), []string{"ALL"}))
	assert.Check(t, is.DeepEqual(hc.SecurityOpt, []string{"no-new-privileges:true"}))
	assert.Check(t, !hc.Privileged)
	assert.Check(t, hc.ReadonlyRootfs)
	assert.Check(t, *hc.Init)
	assert.Check(t, !hc.AutoRemove)
	assert.Check(t, is.Equal(*hc.PidsLimit, int64(DefaultPidsLimit)))
	assert.Check(t, is.Equal(hc.Memory, int64(DefaultMemory)))
	assert.Check(t, is.Equal(hc.MemorySwap, hc.Memory))
	assert.Check(t, hc.NanoCPUs > 0)
	assert.Check(t, is.Equal(string(hc.NetworkMode), "bridge"))
	assert.Check(t, is.Len(hc.Binds, 0))
	for _, m := range hc.Mounts {
		assert.Check(t, is.Equal(string(m.Type), "volume"))
		assert.Check(t, is.Equal(m.Source, ""), "a named or host source: %+v", m)
	}
	assert.Check(t, is.Equal(hc.Tmpfs["/tmp"], "rw,nosuid,nodev,size=512m"))
	assert.Check(t, is.Equal(cfg.User, "1000:1000"))
	assert.Check(t, is.Len(cfg.Env, 0))
	assert.Check(t, is.DeepEqual(cfg.Labels, map[string]string{
		LabelManaged: "true", LabelRunID: "r1", LabelDeadline: strconv.FormatInt(deadline.Unix(), 10),
	}))
	// The container's own life ends at the deadline.
	assert.Check(t, is.DeepEqual([]string(cfg.Entrypoint), []string{"sleep"}))
	assert.Check(t, is.DeepEqual([]string(cfg.Cmd), []string{strconv.Itoa(int((DefaultTimeout+Grace)/time.Second) + 1)}))

	s.NetworkMode = "none"
	cfg, hc = containerConfigs(s, deadline)
	assert.Check(t, cfg.NetworkDisabled)
	assert.Check(t, is.Equal(string(hc.NetworkMode), "none"))
}

func TestSweepRemovesOnlyExpiredContainers(t *testing.T) {
	d := happyDocker(t)
	now := time.Unix(2_000_000, 0)
	d.list = func(o container.ListOptions) ([]container.Summary, error) {
		assert.Check(t, o.All)
		assert.Check(t, is.DeepEqual(o.Filters.Get("label"), []string{LabelManaged + "=true"}))
		return []container.Summary{
			{ID: "old", Labels: map[string]string{LabelDeadline: "1999999"}},
			{ID: "fresh", Labels: map[string]string{LabelDeadline: "2000100"}},
			{ID: "garbled", Labels: map[string]string{LabelDeadline: "soon"}},
			{ID: "gone", Labels: map[string]string{LabelDeadline: "1"}},
			{ID: "going", Labels: map[string]string{LabelDeadline: "1"}},
			{ID: "stuck", Labels: map[string]string{LabelDeadline: "1"}},
		}, nil
	}
	d.rm = func(id string, _ container.RemoveOptions) error {
		switch id {
		case "gone":
			return errdefs.NotFound(errors.New("No such container"))
		case "going": // a concurrent run's sweep is removing it
			return errdefs.Conflict(errors.New("removal of container going is already in progress"))
		case "stuck":
			return errdefs.System(errors.New("device or resource busy"))
		}
		return nil
	}
	removed, err := Sweep(context.Background(), d, now)
	assert.ErrorContains(t, err, "remove container stuck")
	assert.Check(t, is.DeepEqual(removed, []string{"old", "garbled", "gone", "going"}))
}

func TestTarDirKeepsTreeAndOwnsItForTheAgent(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "a", "b", "x.sh"), []byte("echo x\n"), 0o755))
	assert.NilError(t, os.Symlink("a/b/x.sh", filepath.Join(dir, "link")))
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	assert.NilError(t, err)
	defer ln.Close()
	var b bytes.Buffer
	skipped, err := tarDir(&b, dir, 1000, 1000)
	assert.NilError(t, err)
	assert.Check(t, is.Len(skipped, 1))
	assert.Check(t, is.Equal(skipped[0].Path, "sock"))
	assert.Check(t, is.Equal(skipped[0].Reason, "not a regular file (a socket)"))
	tr := tar.NewReader(&b)
	got := map[string]string{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		assert.NilError(t, err)
		assert.Check(t, h.Uid == 1000 && h.Gid == 1000, "%s owned by %d:%d", h.Name, h.Uid, h.Gid)
		data, _ := io.ReadAll(tr)
		got[h.Name] = strconv.FormatInt(h.Mode&0o777, 8) + " " + h.Linkname + string(data)
	}
	assert.Check(t, is.DeepEqual(got, map[string]string{
		"./": "755 ", "a/": "755 ", "a/b/": "755 ", "a/b/x.sh": "755 echo x\n", "link": "777 a/b/x.sh",
	}))
}
