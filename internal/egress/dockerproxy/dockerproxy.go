// Package dockerproxy runs the egress proxy (package egress) in a container
// of its own on a run's internal Docker network: Setup creates the network
// and the proxy container, copies the readme2demo binary in and starts it
// as egress.ProgramName; Proxy.Close removes both. Every resource carries
// the sandbox's io.readme2demo.* labels, and SweepNetworks removes networks
// whose deadline has passed. It is apart from package egress so that the
// proxy itself (what runs in the container) does not link the Docker
// client.
package dockerproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// Docker is the part of the Docker Engine API the egress setup uses.
// *client.Client implements it.
type Docker interface {
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error)
	ContainerStart(ctx context.Context, containerID string, options container.StartOptions) error
	ContainerRemove(ctx context.Context, containerID string, options container.RemoveOptions) error
	ContainerInspect(ctx context.Context, containerID string) (container.InspectResponse, error)
	CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
	ContainerExecCreate(ctx context.Context, containerID string, options container.ExecOptions) (container.ExecCreateResponse, error)
	ContainerExecAttach(ctx context.Context, execID string, config container.ExecAttachOptions) (types.HijackedResponse, error)
	NetworkCreate(ctx context.Context, name string, options network.CreateOptions) (network.CreateResponse, error)
	NetworkConnect(ctx context.Context, networkID, containerID string, config *network.EndpointSettings) error
	NetworkRemove(ctx context.Context, networkID string) error
	NetworkList(ctx context.Context, options network.ListOptions) ([]network.Summary, error)
}

var _ Docker = (*client.Client)(nil)

// LabelRole says what a labelled resource is: RoleProxy or RoleNetwork.
const (
	LabelRole   = "io.readme2demo.role"
	RoleProxy   = "egress-proxy"
	RoleNetwork = "agent-network"
)

// BinaryEnv names a Linux build of readme2demo to run as the proxy, for
// hosts whose own binary cannot run in a Linux container (macOS, Windows).
const BinaryEnv = "R2D_EGRESS_BINARY"

// Where the binary goes in the proxy container, and who runs it.
const (
	binDir    = "/r2d-egress"
	proxyUser = "65534:65534" // nobody
)

// readyTimeout bounds the wait for the proxy's "ready" line.
const readyTimeout = 30 * time.Second

// Options configure Setup.
type Options struct {
	RunID string
	// Image is the sandbox image; the proxy container is created from it.
	Image string
	// Binary is a host path to a Linux executable that links this package
	// (readme2demo itself); "" means os.Executable().
	Binary string
	Config egress.Config
	// Deadline is when the sweep may remove the proxy and the network.
	Deadline time.Time
	// OnEvent, when set, receives every proxy Event (egress.Event) as it happens, from one
	// goroutine.
	OnEvent func(egress.Event)
	// ExtraHosts are /etc/hosts entries for the proxy container, as the
	// agent's container has them ("host.docker.internal:host-gateway"):
	// an API base URL may name one.
	ExtraHosts []string
}

// Proxy is a running egress proxy and its internal network. Close removes
// both; it is safe to call on a Proxy whose Setup failed.
type Proxy struct {
	d           Docker
	Network     string // the internal network's name: the agent's NetworkMode
	ContainerID string
	IP          string // the proxy's address on Network
	// BridgeIP is the proxy's address on Docker's default bridge, where a
	// container on that bridge (network open) reaches it.
	BridgeIP  string
	networkID string

	done   chan struct{}
	closer io.Closer
}

// NetworkName and ProxyName name a run's resources.
func NetworkName(runID string) string { return "readme2demo-" + runID + "-net" }
func ProxyName(runID string) string   { return "readme2demo-" + runID + "-egress" }

// ForwardURL is the forward proxy's URL, for HTTPS_PROXY and HTTP_PROXY.
func (p *Proxy) ForwardURL() string { return "http://" + p.IP + ":" + strconv.Itoa(egress.ForwardPort) }

// UpstreamURL is the base URL the agent uses for Config.Upstreams[i]: the
// proxy's port for it, on its address on the internal network, and the
// real base URL's path.
func (p *Proxy) UpstreamURL(i int, realBase string) string {
	return upstreamURL(p.IP, i, realBase)
}

// BridgeUpstreamURL is UpstreamURL on the proxy's address on the default
// bridge, for an agent on that bridge.
func (p *Proxy) BridgeUpstreamURL(i int, realBase string) string {
	return upstreamURL(p.BridgeIP, i, realBase)
}

func upstreamURL(ip string, i int, realBase string) string {
	path := ""
	if j := strings.Index(realBase, "://"); j >= 0 {
		if k := strings.IndexByte(realBase[j+3:], '/'); k >= 0 {
			path = strings.TrimSuffix(realBase[j+3+k:], "/")
		}
	}
	return "http://" + ip + ":" + strconv.Itoa(egress.UpstreamPort+i) + path
}

// SetupError is a proxy that could not be started; Reason says what to do.
type SetupError struct {
	Reason string
	Err    error
}

func (e *SetupError) Error() string {
	if e.Err == nil {
		return "set up egress proxy: " + e.Reason
	}
	return fmt.Sprintf("set up egress proxy: %s: %v", e.Reason, e.Err)
}

func (e *SetupError) Unwrap() error { return e.Err }

// ResolveBinary returns the binary to run as the proxy: an explicit one,
// R2D_EGRESS_BINARY, or this executable when the host is Linux.
func ResolveBinary(explicit string, getenv func(string) string) (string, error) {
	if explicit == "" && getenv != nil {
		explicit = getenv(BinaryEnv)
	}
	if explicit != "" {
		if st, err := os.Stat(explicit); err != nil || !st.Mode().IsRegular() {
			return "", &SetupError{Reason: fmt.Sprintf("%s %s is not a file", BinaryEnv, explicit)}
		}
		return explicit, nil
	}
	if runtime.GOOS != "linux" {
		return "", &SetupError{Reason: "the egress proxy runs this binary inside a Linux container, and this is a " +
			runtime.GOOS + " build: point " + BinaryEnv + " at a Linux build (GOOS=linux GOARCH=" + runtime.GOARCH +
			" CGO_ENABLED=0 go build -o readme2demo-linux ./cmd/readme2demo), or, with a keyless engine, use --network open"}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", &SetupError{Reason: "find this executable to run as the proxy", Err: err}
	}
	return exe, nil
}

// Setup sweeps expired leftovers, creates the run's internal network and
// the proxy container (attached to it and to the default bridge), copies
// the binary in, starts the proxy and waits until it listens. The returned
// Proxy is never nil: defer its Close before checking the error.
func Setup(ctx context.Context, d Docker, o Options) (*Proxy, error) {
	p := &Proxy{d: d, Network: NetworkName(o.RunID), done: make(chan struct{})}
	if o.Image == "" || o.RunID == "" {
		close(p.done)
		return p, &SetupError{Reason: "no image or run id given"}
	}
	bin, err := ResolveBinary(o.Binary, nil)
	if err != nil {
		close(p.done)
		return p, err
	}
	cfgJSON, err := json.Marshal(o.Config)
	if err != nil {
		close(p.done)
		return p, fmt.Errorf("encode egress config: %w", err)
	}
	if _, err := egress.NewServer(o.Config, func(egress.Event) {}); err != nil {
		close(p.done)
		return p, &SetupError{Reason: "bad configuration", Err: err}
	}
	_, _ = SweepNetworks(ctx, d, time.Now())

	labels := func(role string) map[string]string {
		return map[string]string{
			sandbox.LabelManaged:  "true",
			sandbox.LabelRunID:    o.RunID,
			sandbox.LabelDeadline: strconv.FormatInt(o.Deadline.Unix(), 10),
			LabelRole:             role,
		}
	}
	nw, err := d.NetworkCreate(ctx, p.Network, network.CreateOptions{
		Driver:   "bridge",
		Internal: true,
		Labels:   labels(RoleNetwork),
		Options: map[string]string{
			// No address on the host's side of the bridge: without it an
			// internal network still reaches every address of the host
			// itself (Docker 20.10 filters only forwarded traffic).
			"com.docker.network.bridge.inhibit_ipv4": "true",
		},
	})
	if err != nil {
		close(p.done)
		return p, fmt.Errorf("create internal network: %w", err)
	}
	p.networkID = nw.ID

	life := int64(time.Until(o.Deadline).Seconds()) + 1
	if life < 60 {
		life = 60
	}
	init := true
	pids := int64(256)
	created, err := d.ContainerCreate(ctx, &container.Config{
		Image:      o.Image,
		User:       proxyUser,
		Entrypoint: []string{"sleep"},
		Cmd:        []string{strconv.FormatInt(life, 10)},
		Labels:     labels(RoleProxy),
	}, &container.HostConfig{
		LogConfig:      sandbox.NoContainerLog,
		NetworkMode:    "bridge",
		ExtraHosts:     o.ExtraHosts,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges:true"},
		ReadonlyRootfs: true,
		Init:           &init,
		Tmpfs:          map[string]string{"/tmp": "rw,nosuid,nodev,size=16m"},
		Mounts:         []mount.Mount{{Type: mount.TypeVolume, Target: binDir}},
		Resources: container.Resources{
			Memory: 256 << 20, MemorySwap: 256 << 20, NanoCPUs: 1e9, PidsLimit: &pids,
		},
	}, nil, nil, ProxyName(o.RunID))
	if err != nil {
		close(p.done)
		if cerrdefs.IsNotFound(err) {
			return p, &sandbox.ImageMissingError{Image: o.Image}
		}
		return p, fmt.Errorf("create egress proxy container: %w", err)
	}
	p.ContainerID = created.ID
	if err := d.NetworkConnect(ctx, nw.ID, created.ID, &network.EndpointSettings{}); err != nil {
		close(p.done)
		return p, fmt.Errorf("connect egress proxy to the internal network: %w", err)
	}
	if err := d.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		close(p.done)
		return p, fmt.Errorf("start egress proxy container: %w", err)
	}
	if err := copyBinary(ctx, d, created.ID, bin); err != nil {
		close(p.done)
		return p, err
	}
	ins, err := d.ContainerInspect(ctx, created.ID)
	if err != nil {
		close(p.done)
		return p, fmt.Errorf("inspect egress proxy container: %w", err)
	}
	if ep := ins.NetworkSettings; ep != nil {
		if n := ep.Networks[p.Network]; n != nil {
			p.IP = n.IPAddress
		}
		if n := ep.Networks["bridge"]; n != nil {
			p.BridgeIP = n.IPAddress
		}
	}
	if p.IP == "" {
		close(p.done)
		return p, &SetupError{Reason: "the proxy container has no address on " + p.Network}
	}
	return p, p.start(ctx, o, string(cfgJSON))
}

// start runs the proxy program and waits for its "ready" line.
func (p *Proxy) start(ctx context.Context, o Options, cfgJSON string) error {
	ex, err := p.d.ContainerExecCreate(ctx, p.ContainerID, container.ExecOptions{
		User:         proxyUser,
		Cmd:          []string{binDir + "/" + egress.ProgramName},
		Env:          []string{egress.ConfigEnv + "=" + cfgJSON},
		AttachStdout: true,
		AttachStderr: true,
	})
	if err != nil {
		close(p.done)
		return fmt.Errorf("create egress proxy exec: %w", err)
	}
	att, err := p.d.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		close(p.done)
		return fmt.Errorf("start egress proxy: %w", err)
	}
	p.closer = att.Conn
	pr, pw := io.Pipe()
	stderr := &limited{max: 4 << 10}
	go func() {
		_, err := stdcopy.StdCopy(pw, stderr, att.Reader)
		pw.CloseWithError(err)
	}()
	ready := make(chan struct{})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		once := false
		for sc.Scan() {
			var e egress.Event
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				stderr.Write(append(sc.Bytes(), '\n'))
				continue
			}
			if e.Event == "ready" && !once {
				once = true
				close(ready)
				continue
			}
			if o.OnEvent != nil {
				o.OnEvent(e)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case <-p.done:
		return &SetupError{Reason: "the proxy program exited at start in image " + o.Image +
			" (the readme2demo binary must be a Linux build the image can run: CGO_ENABLED=0 makes it static)",
			Err: errors.New(strings.TrimSpace(stderr.String()))}
	case <-t.C:
		return &SetupError{Reason: "the proxy did not report ready within " + readyTimeout.String(), Err: errors.New(strings.TrimSpace(stderr.String()))}
	case <-ctx.Done():
		return fmt.Errorf("start egress proxy: %w", context.Cause(ctx))
	}
}

// copyBinary copies the host binary into the proxy container as
// binDir/egress.ProgramName.
func copyBinary(ctx context.Context, d Docker, id, bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return &SetupError{Reason: "open the proxy binary", Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return &SetupError{Reason: "stat the proxy binary", Err: err}
	}
	if err := sandbox.CopyExecutable(ctx, d, id, binDir, egress.ProgramName, f, st); err != nil {
		return fmt.Errorf("copy proxy binary into container: %w", err)
	}
	return nil
}

// Close removes the proxy container and the network on a fresh context;
// what is already gone counts as removed.
func (p *Proxy) Close() error {
	if p == nil {
		return nil
	}
	var errs []error
	if p.ContainerID != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := p.d.ContainerRemove(ctx, p.ContainerID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		cancel()
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove egress proxy container: %w", err))
		}
		p.ContainerID = ""
	}
	if p.closer != nil {
		p.closer.Close()
		p.closer = nil
	}
	if p.networkID != "" {
		// The agent container's endpoint may take a moment to go.
		var err error
		for i := 0; i < 20; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = p.d.NetworkRemove(ctx, p.networkID)
			cancel()
			if err == nil || cerrdefs.IsNotFound(err) {
				err = nil
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove internal network: %w", err))
		}
		p.networkID = ""
	}
	return errors.Join(errs...)
}

// SweepNetworks removes readme2demo networks whose deadline has passed
// (leftovers of runs that were killed); a network still in use is left for
// a later sweep. It returns the ids it removed.
func SweepNetworks(ctx context.Context, d Docker, now time.Time) ([]string, error) {
	list, err := d.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=true"))})
	if err != nil {
		return nil, fmt.Errorf("list readme2demo networks: %w", err)
	}
	var removed []string
	var errs []error
	for _, n := range list {
		dl, err := strconv.ParseInt(n.Labels[sandbox.LabelDeadline], 10, 64)
		if err == nil && time.Unix(dl, 0).After(now) {
			continue
		}
		if err := d.NetworkRemove(ctx, n.ID); err != nil {
			if !cerrdefs.IsNotFound(err) && !cerrdefs.IsPermissionDenied(err) && !cerrdefs.IsConflict(err) {
				errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
			}
			continue
		}
		removed = append(removed, n.ID)
	}
	return removed, errors.Join(errs...)
}

// limited keeps the first max bytes written to it.
type limited struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (l *limited) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limited) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
