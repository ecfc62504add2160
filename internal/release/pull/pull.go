// Package pull pulls a released sandbox image by digest through the Docker
// Engine API (the Action's pull-image step). It is apart from package
// release, which reads and writes the release's manifest, so that what
// only needs the manifest does not link the Docker client.
package pull

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"

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
	if err := followPull(rc, progress, ref, 5*time.Second, time.Now); err != nil {
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

// followPull reads the daemon's JSON progress stream to its end, fails on
// an error message in it, and prints a summary line at most every interval:
// layers done of layers seen and the bytes downloaded so far.
func followPull(r io.Reader, progress io.Writer, ref string, interval time.Duration, now func() time.Time) error {
	dec := json.NewDecoder(r)
	type layer struct {
		current, total int64
		done           bool
	}
	layers := map[string]*layer{}
	var order []string
	last := now()
	report := func() {
		var done int
		var cur, total int64
		for _, id := range order {
			l := layers[id]
			if l.done {
				done++
			}
			cur += l.current
			total += l.total
		}
		fmt.Fprintf(progress, "image %s: %d/%d layers, %d/%d MB downloaded\n", ref, done, len(order), cur>>20, total>>20)
	}
	for {
		var m jsonmessage.JSONMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("read pull progress: %w", err)
		}
		if m.Error != nil { // the daemon sends errorDetail with every error (and the deprecated error string)
			return m.Error
		}
		if m.ID == "" || len(m.ID) != 12 {
			continue // status lines about the whole image, not a layer
		}
		l, ok := layers[m.ID]
		if !ok {
			l = &layer{}
			layers[m.ID] = l
			order = append(order, m.ID)
		}
		switch m.Status {
		case "Downloading":
			if m.Progress != nil {
				l.current, l.total = m.Progress.Current, m.Progress.Total
			}
		case "Download complete", "Verifying Checksum":
			l.current = l.total
		case "Pull complete", "Already exists":
			l.done = true
			l.current = l.total
		}
		if t := now(); t.Sub(last) >= interval {
			last = t
			report()
		}
	}
	if len(order) > 0 {
		report()
	}
	return nil
}
