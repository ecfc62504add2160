package sandbox

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
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/longtest"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest/stdin"
	"github.com/readme2demo/readme2demo/internal/timing"

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
// when called. It is the package's own, beside the exported
// sandboxtest.FakeDocker: these tests are in package sandbox (they reach
// its unexported parts), and sandboxtest imports sandbox.
type fakeDocker struct {
	t        *testing.T
	mu       sync.Mutex
	calls    []string
	inspect  func(id string, size bool) (container.InspectResponse, error)
	stats    func(id string) (container.StatsResponseReader, error)
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
	// attach is the command's output (attachOf); wait its end, asked
	// once that output has ended (the daemon's answer to a wait for the
	// next exit).
	attach func(string) (types.HijackedResponse, error)
	wait   func(string) (container.WaitResponse, error)
	// stdin is what the run wrote to the command's standard input;
	// outputDone closes when the command's output has ended.
	stdin      stdin.Recorder
	outputDone chan struct{}
	// The disk meter's container and exec: their calls run beside the
	// sandbox's start and copy-in, so they are kept apart (meterCalls).
	sandboxID, meterID, meterExec string
	meterCalls                    []string
}

// recFor records a call on container or exec id: the meter's apart.
func (f *fakeDocker) recFor(id, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != "" && (id == f.meterID || id == f.meterExec) {
		f.meterCalls = append(f.meterCalls, name)
		return
	}
	f.calls = append(f.calls, name)
}

func (f *fakeDocker) rec(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
}

// mainCalls are the calls in order, without the disk watcher's
// measurements (they run beside the command, at their own pace).
func (f *fakeDocker) mainCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if c != "inspect-size" && c != "stats" {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeDocker) ContainerInspectWithRaw(_ context.Context, id string, size bool) (container.InspectResponse, []byte, error) {
	if size {
		f.rec("inspect-size")
	} else {
		f.rec("inspect")
	}
	c, err := f.inspect(id, size)
	return c, nil, err
}

func (f *fakeDocker) ContainerStatsOneShot(_ context.Context, id string) (container.StatsResponseReader, error) {
	f.rec("stats")
	return f.stats(id)
}

// statsOf is a one-shot stats answer with a process count.
func statsOf(current, limit uint64) container.StatsResponseReader {
	body := fmt.Sprintf(`{"pids_stats":{"current":%d,"limit":%d}}`, current, limit)
	return container.StatsResponseReader{Body: io.NopCloser(strings.NewReader(body))}
}

// inspected is an inspect answer with a writable-layer size and a state.
func inspected(sizeRw int64, running, oomKilled bool) container.InspectResponse {
	return container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{SizeRw: &sizeRw, State: &container.State{Running: running, OOMKilled: oomKilled}},
	}
}

func (f *fakeDocker) Ping(context.Context) (types.Ping, error) {
	f.rec("ping")
	return types.Ping{}, nil
}
func (f *fakeDocker) ImageInspect(context.Context, string, ...client.ImageInspectOption) (image.InspectResponse, error) {
	f.rec("image")
	return image.InspectResponse{}, nil
}
func (f *fakeDocker) ContainerCreate(_ context.Context, c *container.Config, hc *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	r, err := f.create(c, hc, name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasSuffix(name, "-meter") {
		f.calls = append(f.calls, "create")
		f.sandboxID = r.ID
		return r, err
	}
	f.meterCalls = append(f.meterCalls, "create")
	if r.ID != "" && r.ID == f.sandboxID {
		r.ID += "-meter" // apart from the sandbox's, whatever the fake answered
	}
	f.meterID = r.ID
	return r, err
}
func (f *fakeDocker) ContainerStart(_ context.Context, id string, _ container.StartOptions) error {
	f.recFor(id, "start")
	return f.start(strings.TrimSuffix(id, "-meter"))
}
func (f *fakeDocker) ContainerKill(_ context.Context, id, _ string) error {
	f.rec("kill")
	return f.kill(id)
}
func (f *fakeDocker) ContainerRemove(_ context.Context, id string, o container.RemoveOptions) error {
	id = strings.TrimSuffix(id, "-meter")
	f.rec("remove " + id)
	return f.rm(id, o)
}
func (f *fakeDocker) ContainerList(_ context.Context, o container.ListOptions) ([]container.Summary, error) {
	f.rec("list")
	return f.list(o)
}
func (f *fakeDocker) CopyToContainer(_ context.Context, id, dst string, r io.Reader, _ container.CopyToContainerOptions) error {
	f.recFor(id, "copy-to "+dst)
	return f.copyTo(dst, r)
}
func (f *fakeDocker) CopyFromContainer(_ context.Context, _, src string) (io.ReadCloser, container.PathStat, error) {
	f.rec("copy-from " + src)
	return f.copyFrom(src)
}
func (f *fakeDocker) ContainerExecCreate(_ context.Context, id string, o container.ExecOptions) (container.ExecCreateResponse, error) {
	f.recFor(id, "exec-create")
	r, err := f.execCrt(o)
	if id != "" && id == f.meterID && r.ID != "" {
		f.mu.Lock()
		r.ID += "-meter"
		f.meterExec = r.ID
		f.mu.Unlock()
	}
	return r, err
}
func (f *fakeDocker) ContainerExecAttach(_ context.Context, id string, _ container.ExecAttachOptions) (types.HijackedResponse, error) {
	f.recFor(id, "exec-attach")
	return f.execAtt(strings.TrimSuffix(id, "-meter"))
}
func (f *fakeDocker) ContainerExecInspect(_ context.Context, id string) (container.ExecInspect, error) {
	f.rec("exec-inspect")
	return f.execIns(id)
}

func (f *fakeDocker) ContainerAttach(_ context.Context, id string, o container.AttachOptions) (types.HijackedResponse, error) {
	f.rec("attach")
	assert.Check(f.t, o.Stream && o.Stdin && o.Stdout && o.Stderr, "attach options %+v", o)
	return f.attach(id)
}

func (f *fakeDocker) ContainerWait(ctx context.Context, id string, cond container.WaitCondition) (<-chan container.WaitResponse, <-chan error) {
	f.rec("wait")
	assert.Check(f.t, is.Equal(cond, container.WaitConditionNextExit))
	f.mu.Lock()
	done := f.outputDone
	f.mu.Unlock()
	resp, errc := make(chan container.WaitResponse, 1), make(chan error, 1)
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			errc <- ctx.Err()
			return
		}
		r, err := f.wait(id)
		if err != nil {
			errc <- err
			return
		}
		resp <- r
	}()
	return resp, errc
}

// attachOf is the attach of a command that writes out (as stdout), then
// ends once its input has ended (as a real command that reads it to the
// end) and until is closed (nil: at once). What the run writes to the
// command's standard input goes to f.stdin.
func (f *fakeDocker) attachOf(out string, until <-chan struct{}) types.HijackedResponse {
	c1, c2 := net.Pipe()
	done := make(chan struct{})
	f.mu.Lock()
	f.outputDone = done
	f.mu.Unlock()
	conn, inputEnded := f.stdin.Wrap(c1)
	go func() {
		defer close(done)
		if out != "" {
			_, _ = stdcopy.NewStdWriter(c2, stdcopy.Stdout).Write([]byte(out))
		}
		<-inputEnded
		if until != nil {
			<-until
		}
		c2.Close()
	}()
	return types.HijackedResponse{Conn: conn, Reader: bufio.NewReader(c1)}
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

// containerFS answers CopyFromContainer from a fake container's files
// (path: content; a content "symlink:target" is a symlink) as the daemon
// does: a file (or a symlink, not followed) as a one-entry archive named by
// its base name, a directory as the archive of everything under it, in
// name order, its names starting with the directory's base name; any other
// path is not found.
func containerFS(files map[string]string) func(string) (io.ReadCloser, container.PathStat, error) {
	entry := func(tw *tar.Writer, name, data string) {
		if target, ok := strings.CutPrefix(data, "symlink:"); ok {
			_ = tw.WriteHeader(&tar.Header{Name: name, Linkname: target, Mode: 0o777, Typeflag: tar.TypeSymlink})
			return
		}
		_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte(data))
	}
	return func(src string) (io.ReadCloser, container.PathStat, error) {
		src = filepath.Clean(src)
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		if data, ok := files[src]; ok {
			entry(tw, filepath.Base(src), data)
			_ = tw.Close()
			mode := os.FileMode(0o644)
			if strings.HasPrefix(data, "symlink:") {
				mode = os.ModeSymlink | 0o777
			}
			return io.NopCloser(&b), container.PathStat{Name: filepath.Base(src), Mode: mode}, nil
		}
		var under []string
		for p := range files {
			if strings.HasPrefix(p, src+"/") {
				under = append(under, p)
			}
		}
		if len(under) == 0 {
			return nil, container.PathStat{}, errdefs.NotFound(errors.New("Could not find the file " + src))
		}
		slices.Sort(under)
		base := filepath.Base(src)
		_ = tw.WriteHeader(&tar.Header{Name: base + "/", Mode: 0o755, Typeflag: tar.TypeDir})
		for _, p := range under {
			entry(tw, base+strings.TrimPrefix(p, src), files[p])
		}
		_ = tw.Close()
		return io.NopCloser(&b), container.PathStat{Name: base, Mode: os.ModeDir | 0o755}, nil
	}
}

// happyDocker is a fake on which a whole run succeeds.
func happyDocker(t *testing.T) *fakeDocker {
	d := &fakeDocker{
		t: t,
		create: func(*container.Config, *container.HostConfig, string) (container.CreateResponse, error) {
			return container.CreateResponse{ID: "c1"}, nil
		},
		start:  func(string) error { return nil },
		kill:   func(string) error { return nil },
		rm:     func(string, container.RemoveOptions) error { return nil },
		list:   func(container.ListOptions) ([]container.Summary, error) { return nil, nil },
		copyTo: func(_ string, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err },
		copyFrom: containerFS(map[string]string{
			"/readme2demo/t.jsonl":   "data of /readme2demo/t.jsonl",
			"/readme2demo/t.stderr":  "data of /readme2demo/t.stderr",
			"/readme2demo/prompt.md": "p",
		}),
		execCrt: func(container.ExecOptions) (container.ExecCreateResponse, error) {
			return container.ExecCreateResponse{ID: "e1"}, nil
		},
		execAtt: func(string) (types.HijackedResponse, error) { return hijacked(""), nil },
		execIns: func(string) (container.ExecInspect, error) { return container.ExecInspect{}, nil },
		wait:    func(string) (container.WaitResponse, error) { return container.WaitResponse{StatusCode: 7}, nil },
		inspect: func(string, bool) (container.InspectResponse, error) { return inspected(100, true, false), nil },
		stats:   func(string) (container.StatsResponseReader, error) { return statsOf(3, 4096), nil },
	}
	d.attach = func(string) (types.HijackedResponse, error) { return d.attachOf("hello\n", nil), nil }
	return d
}

func fakeSpec() Spec {
	return Spec{Image: "img", RunID: "r1", Command: "agent --go", TranscriptPath: "/readme2demo/t.jsonl", StderrPath: "/readme2demo/t.stderr",
		Env: map[string]string{"API_KEY": "s3cret-value"}, Files: []File{{Path: "/readme2demo/prompt.md", Data: []byte("p")}},
		Now: func() time.Time { return time.Unix(1_000_000, 0) }}
}

func TestRunHandsSecretsToTheCommandOnItsInputOnly(t *testing.T) {
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
	s := fakeSpec()
	s.Env["OTHER"] = "two words\nand a line"
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(cfg.Env, DevEnv), "secrets in the container's configuration: %v", cfg.Env)
	assert.Check(t, !strings.Contains(fmt.Sprint(cfg), "s3cret-value"), "a secret in the container's configuration")
	// The command is the container's main process: no exec runs it, and
	// nothing else is exec'd (the fake's command wrote no signals: the
	// counters stay unknown).
	assert.Check(t, is.Len(execs, 0))
	assert.Check(t, is.DeepEqual([]string(cfg.Cmd), []string{"bash", "-lc", inputScript + signalsTrap(s) + "agent --go"}))
	assert.Check(t, cfg.OpenStdin && cfg.StdinOnce && cfg.AttachStdin && cfg.AttachStdout && cfg.AttachStderr)
	assert.Check(t, is.Equal(cfg.User, DefaultUser))
	assert.Check(t, is.Equal(cfg.WorkingDir, "/workspace"))
	// The environment, its end, and no copy-out word (the image promises
	// no tar).
	assert.Check(t, is.Equal(string(d.stdin.Bytes()), "API_KEY=s3cret-value\x00OTHER=two words\nand a line\x00\x00\x00"))
	assert.Check(t, d.stdin.Closed(), "the command's input was not closed: it would wait for more")
	assert.Assert(t, res.ExitCode != nil)
	assert.Check(t, is.Equal(*res.ExitCode, 7))
	assert.Check(t, is.Equal(res.Usage.OOMKills, -1))
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"))
	assert.Check(t, is.Equal(string(res.Stderr), "data of /readme2demo/t.stderr"))
	assert.Check(t, is.Equal(string(res.Output), "hello\n"))
	assert.Check(t, is.DeepEqual(d.mainCalls(), []string{"list", "create", "inspect", "attach", "wait", "start", "copy-to /",
		"copy-from /readme2demo", "inspect", "remove c1"}))
}

// The environment a shell reads from inputScript is Env, value for
// value (white space, quotes, new lines, $ and backslashes kept), and the
// command's input is /dev/null after it.
func TestEnvReadScriptExportsEnvExactly(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is needed: %v", err)
	}
	env := map[string]string{"A": "plain", "B": "two  words\nand 'quotes' \"too\" $HOME \\ `x`", "C": ""}
	cmd := exec.Command("bash", "-c", inputScript+`printf '%s|' "$A" "$B" "$C" "${C+set}"; [ "$(stat -L -c %t:%T /dev/stdin)" = "$(stat -L -c %t:%T /dev/null)" ] && echo stdin-null`)
	cmd.Stdin = bytes.NewReader(append(envInput(env), 0, 0))
	out, err := cmd.Output()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(out), "plain|two  words\nand 'quotes' \"too\" $HOME \\ `x`||set|stdin-null\n"))
}

func TestRunRemovesTheContainerWhenAStepFails(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		break_ func(d *fakeDocker)
	}{
		{"start", func(d *fakeDocker) { d.start = func(string) error { return boom } }},
		{"copy in", func(d *fakeDocker) { d.copyTo = func(string, io.Reader) error { return boom } }},
		{"attach", func(d *fakeDocker) {
			d.attach = func(string) (types.HijackedResponse, error) { return types.HijackedResponse{}, boom }
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

// In the strict profile, a disk meter that cannot be removed is an error
// of the run, as the sandbox container's own removal is: it holds the
// run's volumes.
func TestRunReportsTheMeterLeftBehind(t *testing.T) {
	d := happyDocker(t)
	d.create = func(_ *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
		if name == meterName("r1") {
			return container.CreateResponse{ID: "m1"}, nil
		}
		return container.CreateResponse{ID: "c1"}, nil
	}
	var removed []string
	d.rm = func(id string, _ container.RemoveOptions) error {
		removed = append(removed, id)
		if id == "m1" {
			return errors.New("device or resource busy")
		}
		return nil
	}
	s := fakeSpec()
	s.Profile = ProfileStrict
	s.MeterBinary = os.Args[0]
	s.Files = nil
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err, "a container left behind does not lose what the run found")
	assert.Check(t, is.ErrorContains(res.RemoveErr, "remove container m1: device or resource busy"))
	assert.Check(t, is.DeepEqual(removed, []string{"m1", "c1"}), "the meter goes first: it holds the volumes")
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
	d, killed := hangingDocker(t)
	s := fakeSpec()
	s.Timeout = time.Millisecond // the command hangs until the kill: only the timeout ends it
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, *killed)
	assert.Check(t, res.TimedOut)
	assert.Check(t, res.ExitCode == nil)
	assert.Check(t, is.Equal(string(res.Transcript), "data of /readme2demo/t.jsonl"), "the partial transcript was not copied out")
}

// A kill the daemon does not confirm in time is not an error when the
// container is force-removed after it; any other kill failure is.
func TestRunTimeoutToleratesASlowKill(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		killErr error
		wantErr error
	}{
		{"kill not confirmed in time", context.DeadlineExceeded, nil},
		{"kill refused", boom, boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := hangingDocker(t)
			kill := d.kill
			d.kill = func(id string) error { _ = kill(id); return fmt.Errorf("post kill: %w", tc.killErr) }
			var removed []string
			d.rm = func(id string, o container.RemoveOptions) error {
				assert.Check(t, o.Force)
				removed = append(removed, id)
				return nil
			}
			s := fakeSpec()
			s.Timeout = time.Millisecond // the command hangs until the kill
			res, err := Run(context.Background(), d, s)
			if tc.wantErr == nil {
				assert.NilError(t, err)
			} else {
				assert.Check(t, errors.Is(err, tc.wantErr), "err %v", err)
			}
			assert.Check(t, res.TimedOut)
			assert.Check(t, is.DeepEqual(removed, []string{"c1"}))
		})
	}
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
		{"file outside writable dirs (strict)", func(s *Spec) { s.Profile = ProfileStrict; s.Files = []File{{Path: "/etc/x"}} }, "not in a writable dir"},
		{"unknown profile", func(s *Spec) { s.Profile = "loose" }, `sandbox profile "loose": use dev or strict`},
		{"environment name a shell cannot export", func(s *Spec) { s.Env = map[string]string{"A-B": "x"} }, `environment variable "A-B"`},
		{"environment value with a NUL", func(s *Spec) { s.Env = map[string]string{"K": "a\x00b"} }, `environment variable "K": want`},
		{"negative disk", func(s *Spec) { s.Disk = -1 }, "negative"},
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
	for _, profile := range Profiles {
		t.Run(profile, func(t *testing.T) {
			spec := fakeSpec()
			spec.Profile = profile
			s, err := spec.withDefaults()
			assert.NilError(t, err)
			deadline := s.Now().Add(s.Timeout + s.Grace)
			cfg, hc := containerConfigs(s, deadline)
			// Both profiles.
			assert.Check(t, is.DeepEqual([]string(hc.CapDrop), []string{"ALL"}))
			assert.Check(t, !hc.Privileged)
			assert.Check(t, *hc.Init)
			assert.Check(t, !hc.AutoRemove)
			assert.Check(t, is.Equal(hc.Memory, int64(DefaultMemory)))
			assert.Check(t, is.Equal(hc.MemorySwap, hc.Memory))
			assert.Check(t, hc.NanoCPUs > 0)
			assert.Check(t, is.Equal(string(hc.NetworkMode), "bridge"))
			assert.Check(t, is.Len(hc.Binds, 0))
			assert.Check(t, is.Len(hc.VolumesFrom, 0))
			for _, m := range hc.Mounts {
				assert.Check(t, is.Equal(string(m.Type), "volume"))
				assert.Check(t, is.Equal(m.Source, ""), "a named or host source: %+v", m)
			}
			for _, o := range hc.SecurityOpt {
				assert.Check(t, !strings.Contains(o, "unconfined"), "security opt %.80q", o)
			}
			if runtime.GOOS == "linux" {
				// The default seccomp profile, with fallocate refused.
				assert.Check(t, is.Contains(hc.SecurityOpt, seccompOption()))
				assert.Check(t, strings.Contains(seccompOption(), `"fallocate"`))
			}
			fsize := false
			for _, u := range hc.Ulimits {
				if u.Name == "fsize" {
					fsize = true
					assert.Check(t, u.Soft == DefaultDisk && u.Hard == DefaultDisk, "fsize %+v", u)
				}
			}
			assert.Check(t, fsize, "no file-size limit: %+v", hc.Ulimits)
			assert.Check(t, is.Equal(cfg.User, "1000:1000"))
			assert.Check(t, is.DeepEqual(cfg.Labels, map[string]string{
				LabelManaged: "true", LabelRunID: "r1", LabelDeadline: strconv.FormatInt(deadline.Unix(), 10),
			}))
			// The container's own life, the command's, ends at the deadline.
			assert.Check(t, is.DeepEqual([]string(cfg.Entrypoint), []string{"timeout", "-s", "KILL", strconv.Itoa(int((DefaultTimeout+Grace)/time.Second) + 1)}))
			assert.Check(t, is.Equal(cfg.Cmd[0], "bash"))

			switch profile {
			case ProfileStrict:
				assert.Check(t, is.Len(hc.CapAdd, 0))
				assert.Check(t, is.Contains(hc.SecurityOpt, "no-new-privileges:true"))
				assert.Check(t, hc.ReadonlyRootfs)
				assert.Check(t, is.Equal(*hc.PidsLimit, int64(StrictPidsLimit)))
				assert.Check(t, is.Equal(hc.Tmpfs["/tmp"], "rw,nosuid,nodev,size=512m,nr_inodes=65536"))
				assert.Check(t, is.Len(hc.Mounts, len(StrictWritableDirs)))
				assert.Check(t, is.Len(cfg.Env, 0))
			case ProfileDev:
				// sudo works: no no-new-privileges, root gets back the
				// listed capabilities and nothing that reaches the host.
				assert.Check(t, is.DeepEqual([]string(hc.CapAdd), DevCapabilities))
				for _, c := range hc.CapAdd {
					switch c {
					case "SYS_ADMIN", "NET_ADMIN", "NET_RAW", "SYS_PTRACE", "SYS_MODULE", "MKNOD", "SYS_CHROOT", "SYS_RAWIO", "DAC_READ_SEARCH", "SETPCAP":
						t.Errorf("dev profile keeps %s", c)
					}
				}
				assert.Check(t, !slices.Contains(hc.SecurityOpt, "no-new-privileges:true"))
				assert.Check(t, !hc.ReadonlyRootfs)
				assert.Check(t, is.Len(hc.Tmpfs, 0), "/tmp must be on disk in the dev profile")
				assert.Check(t, is.Len(hc.Mounts, 0), "everything the run writes is the container's layer")
				assert.Check(t, is.Equal(*hc.PidsLimit, int64(DevPidsLimit)))
				assert.Check(t, is.DeepEqual(cfg.Env, []string{"CI=true"}))
			}

			assert.Check(t, is.Equal(cfg.Hostname, Hostname))
			assert.Check(t, !slices.Contains(hc.ExtraHosts, Hostname+":127.0.0.1"), "on a network, Docker names the host itself")

			s.NetworkMode = "none"
			cfg, hc = containerConfigs(s, deadline)
			assert.Check(t, is.Equal(string(hc.NetworkMode), "none"))
			assert.Check(t, !cfg.NetworkDisabled, "NetworkDisabled leaves /etc/hosts empty")
			// sudo finds the host's own name with no network.
			assert.Check(t, slices.Contains(hc.ExtraHosts, Hostname+":127.0.0.1"), "%v", hc.ExtraHosts)
		})
	}
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

// hangingDocker is a happy fake whose command runs until the container is
// killed.
func hangingDocker(t *testing.T) (*fakeDocker, *bool) {
	d := happyDocker(t)
	hang := make(chan struct{})
	d.attach = func(string) (types.HijackedResponse, error) { return d.attachOf("", hang), nil }
	d.wait = func(string) (container.WaitResponse, error) { return container.WaitResponse{StatusCode: 137}, nil }
	killed := new(bool)
	var once sync.Once
	d.kill = func(string) error { *killed = true; once.Do(func() { close(hang) }); return nil }
	return d, killed
}

func TestDiskCapKillsTheContainerWhenUsagePassesIt(t *testing.T) {
	d, killed := hangingDocker(t)
	var mu sync.Mutex
	size := int64(0)
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		if withSize {
			size += 40 << 20 // the command writes 40 MiB between measurements
		}
		return inspected(size, !*killed, false), nil
	}
	s := fakeSpec()
	s.Disk = 100 << 20
	s.DiskPoll = time.Millisecond
	s.Timeout = 10 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, *killed)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	assert.Check(t, !res.TimedOut)
	assert.Check(t, res.ExitCode == nil)
	assert.Check(t, is.Equal(res.Usage.DiskPeak, int64(120<<20)))
	assert.Check(t, is.Equal(res.Usage.DiskMeasures, 3))
}

func TestDiskCapStopsTheRunWhenUsageCannotBeMeasured(t *testing.T) {
	d, killed := hangingDocker(t)
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		if withSize {
			return container.InspectResponse{}, errors.New("daemon busy")
		}
		return inspected(0, false, false), nil
	}
	s := fakeSpec()
	s.DiskPoll = time.Millisecond
	s.Timeout = 10 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, *killed)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk), "a cap that cannot be checked must not be left unchecked")
	assert.Check(t, is.Contains(res.Usage.DiskError, "daemon busy"))
}

// A daemon that reports no size (some storage drivers) leaves the cap
// unchecked and says so; the run is not stopped for it.
func TestDiskCapUnmeasuredIsReportedNotFatal(t *testing.T) {
	// The run must time out after the watcher took in a sizeless answer:
	// a second size inspect shows that it did. A loaded machine may need
	// a longer timeout for that.
	for timeout := 10 * time.Millisecond; ; timeout *= 2 {
		d, _ := hangingDocker(t)
		var sized atomic.Int32
		d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
			if withSize {
				sized.Add(1)
			}
			return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{State: &container.State{}}}, nil
		}
		s := fakeSpec()
		s.DiskPoll = time.Millisecond
		s.Timeout = timeout
		res, err := Run(context.Background(), d, s)
		assert.NilError(t, err)
		if sized.Load() < 2 && timeout < 5*time.Second {
			continue
		}
		assert.Check(t, res.TimedOut)
		assert.Check(t, is.Equal(res.Stopped, ""))
		assert.Check(t, res.Usage.DiskUnmeasured)
		return
	}
}

// A slow measurement spaces the next ones out: measuring never takes more
// than about a tenth of the time.
func TestDiskMeasuringCostIsBounded(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, _ := hangingDocker(t)
	var mu sync.Mutex
	var measures int
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		if withSize {
			mu.Lock()
			measures++
			mu.Unlock()
			time.Sleep(40 * time.Millisecond) // a run with very many files
		}
		return inspected(1, true, false), nil
	}
	s := fakeSpec()
	s.DiskPoll = time.Millisecond
	s.Timeout = 2 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, res.TimedOut)
	mu.Lock()
	defer mu.Unlock()
	// 2 s at 40 ms + 400 ms per cycle is at most 5 measurements; without
	// the spacing it would be about 50.
	assert.Check(t, measures >= 2 && measures <= 6, "%d measurements in 2s", measures)
}

// A process count that stays at the limit (a fork bomb) stops the run;
// dips that stay above half of the limit do not reset the clock.
func TestProcessLimitStuckStopsTheRun(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, killed := hangingDocker(t)
	var mu sync.Mutex
	n := 0
	d.stats = func(string) (container.StatsResponseReader, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n%3 == 0 {
			return statsOf(3400, 4096), nil // a dip: bombs giving up and respawning
		}
		return statsOf(4096, 4096), nil
	}
	s := fakeSpec()
	s.DiskPoll = 5 * time.Millisecond
	s.PidsStuck = 100 * time.Millisecond
	s.Timeout = 10 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, *killed)
	assert.Check(t, is.Equal(res.Stopped, StoppedPids))
	assert.Check(t, res.Usage.PidsHit > 0)
}

// A busy build that touches the limit now and then is not a fork bomb.
func TestProcessLimitTouchedIsNotStuck(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, _ := hangingDocker(t)
	var mu sync.Mutex
	n := 0
	d.stats = func(string) (container.StatsResponseReader, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n%2 == 0 {
			return statsOf(100, 4096), nil
		}
		return statsOf(4096, 4096), nil
	}
	s := fakeSpec()
	s.DiskPoll = 5 * time.Millisecond
	s.PidsStuck = 50 * time.Millisecond
	s.Timeout = 400 * time.Millisecond
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, res.TimedOut)
	assert.Check(t, is.Equal(res.Stopped, ""))
	assert.Check(t, res.Usage.PidsHit > 0, "the limit was reached and must be reported")
}

func TestSignalsAfterTheCommand(t *testing.T) {
	d := happyDocker(t)
	// The cgroup counters, as the command's EXIT trap writes them (v1
	// files).
	d.copyFrom = containerFS(map[string]string{
		"/readme2demo/t.jsonl": "the transcript",
		signalsPath: "/sys/fs/cgroup/memory/memory.oom_control oom_kill_disable 0\n" +
			"/sys/fs/cgroup/memory/memory.oom_control oom_kill 2\n/sys/fs/cgroup/pids/pids.events max 7\n",
	})
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Usage.OOMKills, 2))
	assert.Check(t, is.Equal(res.Usage.PidsHit, 7))

	// Nothing written (the shell replaced itself, or was killed): the
	// counters went with the container; a stopped container's OOMKilled
	// state covers its whole life.
	d = happyDocker(t)
	d.inspect = func(string, bool) (container.InspectResponse, error) { return inspected(1, false, false), nil }
	res, err = Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Usage.OOMKills, 0))
	assert.Check(t, is.Equal(res.Usage.PidsHit, 0))

	// Killed: the daemon's OOMKilled state stands in for the counters.
	d, _ = hangingDocker(t)
	d.inspect = func(string, bool) (container.InspectResponse, error) { return inspected(1, false, true), nil }
	s := fakeSpec()
	s.Timeout = time.Millisecond // the command hangs until the kill
	res, err = Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, res.TimedOut)
	assert.Check(t, is.Equal(res.Usage.OOMKills, 1))
}

func TestParseCgroupCounters(t *testing.T) {
	oom, pids := parseCgroupCounters("/sys/fs/cgroup/memory.events low 0\n/sys/fs/cgroup/memory.events oom 3\n" +
		"/sys/fs/cgroup/memory.events oom_kill 1\n/sys/fs/cgroup/pids.events max 0\ngarbage\n")
	assert.Check(t, is.Equal(oom, 1))
	assert.Check(t, is.Equal(pids, 0))
	oom, pids = parseCgroupCounters("")
	assert.Check(t, oom == -1 && pids == -1)
}

// DirUsage counts the space every inode below the directories given takes
// (a sparse file at its size, a small file at its blocks, directories and
// extended attributes' blocks too), and every inode, each once, and what
// it could not read.
func TestDirUsageCountsHardLinksOnceAndSparseFilesBySize(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1000), 0o644))
	assert.NilError(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")))
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "sub", "deep", "c"), make([]byte, 24), 0o644))
	f, err := os.Create(filepath.Join(dir, "sparse"))
	assert.NilError(t, err)
	assert.NilError(t, f.Truncate(1<<20))
	f.Close()
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644))
	// What each takes, read from its own stat: the larger of its size
	// (regular files) and its blocks.
	takes := func(rel string) int64 {
		info, err := os.Lstat(filepath.Join(dir, rel))
		assert.NilError(t, err)
		st, _ := statOf(info)
		size := int64(0)
		if info.Mode().IsRegular() {
			size = info.Size()
		}
		return max(size, st.allocated)
	}
	want := int64(0)
	for _, rel := range []string{"a", "sub", "sub/deep", "sub/deep/c", "sparse", "link", "empty"} {
		want += takes(rel)
	}
	assert.Check(t, want >= 1000+24+1<<20)
	assert.Check(t, is.Equal(takes("sparse"), int64(1<<20)), "a sparse file counts at its size")
	assert.Check(t, takes("a") >= 1000 && takes("sub") > 0, "a directory's blocks count")

	u := DirUsage(dir, dir+"-missing", filepath.Join(dir, "sub"))
	assert.Check(t, is.Equal(u.Bytes, want))
	// a (b is the same inode), sub, deep, c, sparse, link, empty: sub
	// given again adds nothing.
	assert.Check(t, is.Equal(u.Inodes, int64(7)))
	assert.Check(t, is.Equal(u.Unreadable, 1))
	assert.Check(t, is.Equal(u.TooDeep, 0))

	var out, errOut bytes.Buffer
	assert.Check(t, is.Equal(MeterMain([]string{"measure", dir}, &out, &errOut), 0))
	got, _, err := parseMeterLine(strings.TrimSpace(out.String()))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, DirSize{Bytes: want, Inodes: 7}))
	assert.Check(t, is.Equal(MeterMain([]string{"nonsense"}, &out, &errOut), 2))
}

func TestSweepRemovesADiskMeterBeforeItsSandbox(t *testing.T) {
	d := happyDocker(t)
	d.list = func(container.ListOptions) ([]container.Summary, error) {
		return []container.Summary{
			{ID: "sandbox", Labels: map[string]string{LabelDeadline: "1"}},
			{ID: "meter", Labels: map[string]string{LabelDeadline: "1", LabelRole: RoleDiskMeter}},
		}, nil
	}
	removed, err := Sweep(context.Background(), d, time.Unix(100, 0))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(removed, []string{"meter", "sandbox"}))
}

// A fast writer is measured before it can reach the cap, however slow
// measuring is: the next measurement comes within half the time the
// current rate needs to get there.
func TestDiskWatcherMeasuresAFastWriterInTime(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, _ := hangingDocker(t)
	start := time.Now()
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		if withSize {
			time.Sleep(100 * time.Millisecond) // slow measuring: the next one 1 s later
		}
		written := int64(time.Since(start).Seconds() * float64(100<<20)) // 100 MiB/s
		return inspected(written, true, false), nil
	}
	s := fakeSpec()
	s.Disk = 100 << 20
	s.DiskPoll = 10 * time.Millisecond
	s.Timeout = 10 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	// Spaced by cost alone, the second measurement (at about 1.2 s) would
	// find some 120 MiB.
	assert.Check(t, res.Usage.DiskPeak < 112<<20, "peak %d MiB", res.Usage.DiskPeak>>20)
}

// A first measurement that is slow (a loaded daemon) while the command has
// written nothing yet does not space the second by its cost: a writer that
// starts fast right after it is measured within 2*DiskPoll, not seconds
// later (seen in CI: 1 GiB written past a 384 MiB cap between the first
// two measurements).
func TestDiskWatcherSecondMeasurementComesSoon(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, _ := hangingDocker(t)
	var mu sync.Mutex
	var first time.Time
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		if !withSize {
			return inspected(0, true, false), nil
		}
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			time.Sleep(150 * time.Millisecond) // slow, and nothing written yet
			first = time.Now()
			return inspected(0, true, false), nil
		}
		written := int64(time.Since(first).Seconds() * float64(1<<30)) // 1 GiB/s from then on
		return inspected(written, true, false), nil
	}
	s := fakeSpec()
	s.Disk = 384 << 20
	s.DiskPoll = 100 * time.Millisecond
	s.Timeout = 10 * time.Second
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	// Spaced by the first one's cost, the second measurement would come
	// 1.5 s later and find about 1.5 GiB.
	assert.Check(t, res.Usage.DiskPeak < 768<<20, "peak %d MiB", res.Usage.DiskPeak>>20)
}

// In the strict profile the volumes' measurements stream from the meter:
// a daemon that takes seconds to answer each inspect does not let a fast
// writer go far past the cap (with one meter exec per measurement, CI saw
// 650 MiB past a 384 MiB cap).
func TestDiskCapOfVolumesDoesNotWaitForASlowDaemon(t *testing.T) {
	longtest.Require(t) // runs for real seconds against a fake daemon
	d, _ := hangingDocker(t)
	d.inspect = func(_ string, withSize bool) (container.InspectResponse, error) {
		if withSize {
			time.Sleep(2 * time.Second) // a loaded daemon walking the layer
		}
		return inspected(0, true, false), nil
	}
	var watchArgs []string
	// The meter measures every 10 ms a writer at 1 GiB/s.
	meteredDocker(d, nil, func(since time.Duration) DirSize { return DirSize{Bytes: int64(since.Seconds() * float64(1<<30))} }, func(o container.ExecOptions) {
		if len(o.Cmd) > 1 && o.Cmd[1] == "watch" {
			watchArgs = o.Cmd
		}
	})
	s := strictFakeSpec()
	s.Timeout = 20 * time.Second
	start := time.Now()
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(watchArgs[2:5], []string{"100000000", "402653184", "49152"}), "the meter is told the poll and the caps")
	assert.Check(t, is.Equal(res.Stopped, StoppedDisk))
	assert.Check(t, res.Usage.DiskPeak > 384<<20)
	// Checked at each streamed measurement: at most one 10 ms step (about
	// 10 MiB) past the cap, not the 2 s of an inspect (2 GiB).
	assert.Check(t, res.Usage.DiskPeak < 416<<20, "peak %d MiB", res.Usage.DiskPeak>>20)
	assert.Check(t, time.Since(start) < 5*time.Second, "took %v", time.Since(start))
}

// The meter's watch prints a measurement per interval until its output
// fails, and refuses arguments it cannot read.
func TestMeterWatchStreamsUntilItsOutputCloses(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1000), 0o644))
	w := &failAfter{lines: 3}
	assert.Check(t, is.Equal(MeterMain([]string{"watch", "1000000", "1048576", "100", "-", dir}, w, io.Discard), 0))
	assert.Check(t, is.Equal(w.buf.String(), fmt.Sprintf("%d 0 ", DirUsage(dir).Bytes))) // only the start of each line is stable
	for _, bad := range [][]string{{"watch", "x", "1", "1", "-", dir}, {"watch", "1", "0", "1", "-", dir}, {"watch", "1", "1", "0", "-", dir}, {"watch", "1", "1", "1", "-"}} {
		var errOut bytes.Buffer
		assert.Check(t, is.Equal(MeterMain(bad, io.Discard, &errOut), 2), "%q", bad)
		assert.Check(t, is.Contains(errOut.String(), "usage:"))
	}
}

// failAfter keeps the start of the first line written and fails the
// write after lines lines.
type failAfter struct {
	lines int
	n     int
	buf   bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n >= f.lines {
		return 0, errors.New("closed")
	}
	if f.n == 0 {
		f.buf.Write(p[:7])
	}
	f.n++
	return len(p), nil
}

// The strict profile starts the README's commands only once its disk
// meter has measured: a meter that starts late on a loaded machine would
// otherwise let a fast writer fill a gigabyte unmeasured (CI saw 1043 MiB
// past a 384 MiB cap after 3 measurements).
func TestCommandWaitsForTheMetersFirstMeasurement(t *testing.T) {
	d := happyDocker(t)
	var mu sync.Mutex
	var measured, commandAt time.Time
	ready := func() {
		time.Sleep(300 * time.Millisecond) // the meter's program starting on a loaded machine
		mu.Lock()
		measured = time.Now()
		mu.Unlock()
	}
	meteredDocker(d, ready, func(time.Duration) DirSize { return DirSize{} }, func(container.ExecOptions) {})
	s := strictFakeSpec()
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	mu.Lock()
	defer mu.Unlock()
	// The command waits for its environment: handing it over releases it.
	commandAt = d.stdin.ClosedAt()
	assert.Assert(t, !commandAt.IsZero(), "the command never started")
	assert.Check(t, !measured.IsZero(), "the run ended before the meter measured")
	assert.Check(t, measured.IsZero() || !commandAt.Before(measured), "the command started %v before the meter's first measurement", measured.Sub(commandAt))
	_, ok := res.Phases.Took(timing.Meter)
	assert.Check(t, ok, "the wait is timed as the meter's phase")
}

// meteredDocker gives d a strict run's disk meter: its container, its
// `watch` exec (every exec's options go to onExec first) and a stream that,
// once ready returns (at once when nil), prints every 10 ms the bytes that
// measure gives for the time since.
func meteredDocker(d *fakeDocker, ready func(), measure func(since time.Duration) DirSize, onExec func(container.ExecOptions)) {
	d.create = func(_ *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
		if name == meterName("r1") {
			return container.CreateResponse{ID: "m1"}, nil
		}
		return container.CreateResponse{ID: "c1"}, nil
	}
	d.execCrt = func(o container.ExecOptions) (container.ExecCreateResponse, error) {
		onExec(o)
		if len(o.Cmd) > 1 && o.Cmd[1] == "watch" {
			return container.ExecCreateResponse{ID: "meter"}, nil
		}
		return container.ExecCreateResponse{ID: "cmd"}, nil
	}
	fakeMeterStream(d, func(w io.Writer) {
		if ready != nil {
			ready()
		}
		start := time.Now()
		for {
			if _, err := fmt.Fprintln(w, measure(time.Since(start)).line(time.Microsecond)); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// fakeMeterStream answers the meter's watch exec with what write writes
// (its measurement lines); the stream ends when write returns.
func fakeMeterStream(d *fakeDocker, write func(w io.Writer)) {
	other := d.execAtt
	d.execAtt = func(id string) (types.HijackedResponse, error) {
		if id != "meter" {
			return other(id)
		}
		c1, c2 := net.Pipe()
		go func() {
			defer c2.Close()
			write(stdcopy.NewStdWriter(c2, stdcopy.Stdout))
		}()
		return types.HijackedResponse{Conn: c1, Reader: bufio.NewReader(c1)}, nil
	}
}

// strictFakeSpec is fakeSpec under the strict profile, its meter this
// test binary, with a 384 MiB cap measured every 100 ms.
func strictFakeSpec() Spec {
	s := fakeSpec()
	s.Profile = ProfileStrict
	s.MeterBinary = os.Args[0]
	s.Files = nil
	s.Disk = 384 << 20
	s.DiskPoll = 100 * time.Millisecond
	return s
}

// A transcript poll delivers what its exec printed after the mark, and
// nothing when the exec could not start: the daemon then writes its own
// error to the exec's output (seen as the command ends and the container
// stops under a poll).
func TestTranscriptPollTakesOnlyWhatItsScriptPrinted(t *testing.T) {
	for _, tc := range []struct{ name, printed, want string }{
		{"read", pollMark + "\n{\"n\":1}\n", "{\"n\":1}\n"},
		{"nothing new", pollMark + "\n", ""},
		{"the exec did not start", "OCI runtime exec failed: exec failed: unable to start container process: error writing config to pipe: write init-p: broken pipe: unknown\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := happyDocker(t)
			var script string
			d.execCrt = func(o container.ExecOptions) (container.ExecCreateResponse, error) {
				script = o.Cmd[2]
				return container.ExecCreateResponse{ID: "e1"}, nil
			}
			d.execAtt = func(string) (types.HijackedResponse, error) { return hijacked(tc.printed), nil }
			got := readFrom(context.Background(), d, "c1", fakeSpec(), 41)
			assert.Check(t, is.Equal(string(got), tc.want))
			assert.Check(t, is.Equal(script, "exec 2>/dev/null; echo "+pollMark+"; tail -c +42 /readme2demo/t.jsonl | head -c 8388608"))
		})
	}
}

// When the daemon's wait fails, the end of the command's output is its
// end, and the stopped container's state gives its exit status.
func TestRunTakesTheExitFromTheContainerWhenTheWaitFails(t *testing.T) {
	d := happyDocker(t)
	d.wait = func(string) (container.WaitResponse, error) {
		return container.WaitResponse{}, errors.New("wait: connection reset")
	}
	d.inspect = func(_ string, size bool) (container.InspectResponse, error) {
		c := inspected(100, false, false)
		c.State.ExitCode = 3
		return c, nil
	}
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Assert(t, res.ExitCode != nil)
	assert.Check(t, is.Equal(*res.ExitCode, 3))
	assert.Check(t, is.Equal(string(res.Output), "hello\n"))
}
