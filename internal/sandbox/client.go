package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

// UnavailableError says the Docker daemon could not be reached, and how to
// fix that.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("reach docker daemon: %v\n"+
		"readme2demo runs the agent in a Docker container: start Docker (Docker Desktop, `sudo systemctl start docker`, "+
		"or scripts/docker-up.sh in this repository) or point DOCKER_HOST at a daemon", e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ImageMissingError says the sandbox image is not on the daemon.
type ImageMissingError struct{ Image string }

func (e *ImageMissingError) Error() string {
	return fmt.Sprintf("image %s not found on the Docker daemon: build it with "+
		"`docker build -t %s images/base`, or without registry access `IMAGE=%s scripts/build-test-image.sh`, "+
		"or pass --image", e.Image, e.Image, e.Image)
}

// NewClient connects to the daemon named by the DOCKER_* environment (the
// local socket by default), negotiating the API version, and checks that it
// answers. The error is an *UnavailableError.
func NewClient(ctx context.Context) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, &UnavailableError{Err: err}
	}
	if err := Check(ctx, cli); err != nil {
		cli.Close()
		return nil, err
	}
	return cli, nil
}

// Check pings the daemon; the error is an *UnavailableError.
func Check(ctx context.Context, d Docker) error {
	if _, err := d.Ping(ctx); err != nil {
		return &UnavailableError{Err: err}
	}
	return nil
}

// CheckImage says whether image is on the daemon; the error is an
// *ImageMissingError when it is not. Images are never pulled here.
func CheckImage(ctx context.Context, d Docker, image string) error {
	_, err := ImageID(ctx, d, image)
	return err
}

// ImageID is CheckImage that also returns the image's ID (the digest
// "sha256:…" of its configuration, which names its layers: the same ID
// holds the same files).
func ImageID(ctx context.Context, d Docker, image string) (string, error) {
	ins, err := d.ImageInspect(ctx, image)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return "", &ImageMissingError{Image: image}
		}
		return "", fmt.Errorf("inspect image %s: %w", image, err)
	}
	return ins.ID, nil
}

// networkInspector is the one extra call BridgeGateway needs.
type networkInspector interface {
	NetworkInspect(ctx context.Context, networkID string, options network.InspectOptions) (network.Inspect, error)
}

// BridgeGateway returns the host's address on Docker's default bridge: a
// server bound there is reachable from sandbox containers (and, unlike
// 0.0.0.0, not from the rest of the network). It reads the gateway from the
// network's IPAM configuration, then from the bridge interface, then takes
// the subnet's first address.
func BridgeGateway(ctx context.Context, d networkInspector) (string, error) {
	nw, err := d.NetworkInspect(ctx, "bridge", network.InspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspect bridge network: %w", err)
	}
	for _, c := range nw.IPAM.Config {
		if c.Gateway != "" {
			return c.Gateway, nil
		}
	}
	if name := nw.Options["com.docker.network.bridge.name"]; name != "" {
		if ifc, err := net.InterfaceByName(name); err == nil {
			if addrs, err := ifc.Addrs(); err == nil {
				for _, a := range addrs {
					if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
						return ipn.IP.String(), nil
					}
				}
			}
		}
	}
	for _, c := range nw.IPAM.Config {
		if p, err := netip.ParsePrefix(c.Subnet); err == nil && p.Addr().Is4() {
			return p.Masked().Addr().Next().String(), nil
		}
	}
	return "", errors.New("find bridge gateway: the bridge network has no IPv4 gateway or subnet")
}

// isNotFound reports a NotFound answer from the daemon (a container that is
// already gone).
func isNotFound(err error) bool {
	return cerrdefs.IsNotFound(err) || (err != nil && strings.Contains(err.Error(), "No such container"))
}

// isGone reports whether a forced removal failed only because the container
// is already gone or another removal of it is under way (409 Conflict: a
// concurrent run's sweep got there first). Either way it is being removed.
func isGone(err error) bool {
	return isNotFound(err) || cerrdefs.IsConflict(err)
}
