// Package pull pulls a released sandbox image by digest through the Docker
// Engine API (the Action's pull-image step). It is apart from package
// release, which reads and writes the release's manifest, so that what
// only needs the manifest does not link the Docker client. Image is tested
// through the Action's pull-image step (internal/action, with a fake
// daemon, and with Docker a real one and a local registry); the
// progress stream it follows is read by dockerstream.FollowPull.
package pull

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/readme2demo/readme2demo/internal/dockerstream"
	"github.com/readme2demo/readme2demo/internal/release"
)

// Docker is the part of the Docker Engine API Image uses; *client.Client
// implements it.
type Docker interface {
	ImagePull(ctx context.Context, ref string, options image.PullOptions) (io.ReadCloser, error)
	ImageInspect(ctx context.Context, imageID string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
}

var _ Docker = (*client.Client)(nil)

// Error says the image could not be pulled; Ref names it.
type Error struct {
	Ref string
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("pull image %s: %v (the released sandbox image; pass the Action's `image` input to use another one)", e.Ref, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Image pulls ref (NAME@sha256:DIGEST) through the Docker Engine API,
// writing a progress line to progress every few seconds, and checks that
// the daemon now holds the image under exactly that digest. An image already
// present under the digest is not pulled again.
func Image(ctx context.Context, d Docker, ref string, progress io.Writer) error {
	name, digest, err := release.SplitRef(ref)
	if err != nil {
		return err
	}
	if ok, err := hasDigest(ctx, d, ref, name, digest); err == nil && ok {
		fmt.Fprintf(progress, "image %s: already present\n", ref)
		return nil
	}
	start := time.Now()
	rc, err := d.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return &Error{Ref: ref, Err: err}
	}
	defer rc.Close()
	if err := dockerstream.FollowPull(rc, progress, ref, 5*time.Second, time.Now); err != nil {
		return &Error{Ref: ref, Err: err}
	}
	ok, err := hasDigest(ctx, d, ref, name, digest)
	if err != nil {
		return &Error{Ref: ref, Err: err}
	}
	if !ok {
		return &Error{Ref: ref, Err: errors.New("the daemon does not list the pulled image under that digest")}
	}
	fmt.Fprintf(progress, "image %s: pulled in %.1fs\n", ref, time.Since(start).Seconds())
	return nil
}

func hasDigest(ctx context.Context, d Docker, ref, name, digest string) (bool, error) {
	info, err := d.ImageInspect(ctx, ref)
	if err != nil {
		return false, fmt.Errorf("inspect image: %w", err)
	}
	return slices.Contains(info.RepoDigests, name+"@"+digest), nil
}
