package drift

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/dockerstream"
)

// ImageBuilder is the part of the Docker API EnsureImage uses; *client.Client
// implements it.
type ImageBuilder interface {
	ImageInspect(ctx context.Context, imageID string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

var _ ImageBuilder = (*client.Client)(nil)

// ImageRepo is the repository of the images EnsureImage builds, tagged
// <engine>-<version>: built once, reused afterwards.
const ImageRepo = "readme2demo-drift"

// ImageTag is the tag of the image holding version of c's CLI.
func ImageTag(c agentcli.CLI, version string) string {
	return ImageRepo + ":" + c.Engine + "-" + version
}

// baseLabel records the base image a drift image was built on.
const baseLabel = "io.readme2demo.drift-base"

// EnsureImage returns an image holding version of c's CLI: base itself
// when its label says it has that version, else ImageTag(c, version), built
// FROM base with c.Dockerfile when it does not exist yet. Build output goes
// to progress.
func EnsureImage(ctx context.Context, d ImageBuilder, c agentcli.CLI, base, version string, progress io.Writer) (string, error) {
	if !agentcli.ValidVersion(version) {
		return "", fmt.Errorf("ensure image: %q is not a version like 1.2.3", version)
	}
	if progress == nil {
		progress = io.Discard
	}
	info, err := d.ImageInspect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("inspect base image %s: %w", base, err)
	}
	if labelOf(info, c.ImageLabel()) == version {
		return base, nil
	}
	tag := ImageTag(c, version)
	if have, err := d.ImageInspect(ctx, tag); err == nil && labelOf(have, c.ImageLabel()) == version &&
		labelOf(have, baseLabel) == base {
		fmt.Fprintf(progress, "drift: reusing image %s\n", tag)
		return tag, nil
	}
	fmt.Fprintf(progress, "drift: building %s (%s@%s on %s)\n", tag, c.Package, version, base)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	text, err := c.Dockerfile(base, version)
	if err != nil {
		return "", fmt.Errorf("ensure image: %w", err)
	}
	df := []byte(text)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(df))}); err != nil {
		return "", fmt.Errorf("write build context: %w", err)
	}
	if _, err := tw.Write(df); err != nil {
		return "", fmt.Errorf("write build context: %w", err)
	}
	if err := tw.Close(); err != nil {
		return "", fmt.Errorf("write build context: %w", err)
	}
	resp, err := d.ImageBuild(ctx, &buf, build.ImageBuildOptions{
		Tags: []string{tag}, Remove: true, ForceRemove: true, PullParent: false,
		Labels: map[string]string{"io.readme2demo.managed": "drift", baseLabel: base},
	})
	if err != nil {
		return "", fmt.Errorf("build image %s: %w", tag, err)
	}
	defer resp.Body.Close()
	if err := dockerstream.FollowBuild(resp.Body, func(l string) { fmt.Fprintln(progress, l) }); err != nil {
		return "", fmt.Errorf("build image %s: %w", tag, err)
	}
	return tag, nil
}

func labelOf(info image.InspectResponse, key string) string {
	if info.Config == nil {
		return ""
	}
	return info.Config.Labels[key]
}

// ResolveVersion turns "pinned" (or "") into the pin, "latest" into the
// newest published version of c's package (reg.Latest), and checks any other
// value is a version.
func ResolveVersion(ctx context.Context, reg agentcli.Registries, c agentcli.CLI, v string) (string, error) {
	switch v {
	case "", agentcli.VersionPinned:
		return c.Pinned, nil
	case agentcli.VersionLatest:
		return reg.Latest(ctx, c)
	}
	if !agentcli.ValidVersion(v) {
		return "", fmt.Errorf("resolve version: %q is not a version like 1.2.3, \"pinned\" or \"latest\"", v)
	}
	return v, nil
}
