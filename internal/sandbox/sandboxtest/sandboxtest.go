// Package sandboxtest connects tests to Docker: to the real daemon and the
// sandbox test image, with the project's skip policy (skip under -short or,
// outside CI, when Docker or the image is missing; FAIL when CI=true), or
// to FakeDocker, a sandbox.Docker without a daemon for tests that run
// everywhere.
package sandboxtest

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// DefaultImage is the image tests run in unless R2D_TEST_IMAGE names another
// (scripts/build-test-image.sh builds it).
const DefaultImage = "readme2demo-base:test"

// Image is the test image's name.
func Image() string {
	if img := os.Getenv("R2D_TEST_IMAGE"); img != "" {
		return img
	}
	return DefaultImage
}

// InCI reports whether the tests run in CI, where missing Docker is a failure.
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable skips the test outside CI and fails it in CI.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and "+format+" (run scripts/docker-up.sh and scripts/build-test-image.sh)", args...)
	}
	t.Skipf(format+" (outside CI: skipped)", args...)
}

// Docker returns a client of the real daemon and the test image's name.
func Docker(t testing.TB) (*client.Client, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("docker test: skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout())
	defer cancel()
	cli, err := sandbox.NewClient(ctx)
	if err != nil {
		Unavailable(t, "no Docker daemon: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	img := Image()
	if err := sandbox.CheckImage(ctx, cli, img); err != nil {
		Unavailable(t, "no test image: %v", err)
	}
	return cli, img
}

// checkTimeout bounds the check that the daemon answers and has the image.
// Outside CI a missing daemon skips the test, so the check is short; in CI
// the daemon must be there, and on a loaded machine (tests of many packages
// side by side, seen: a daemon silent for a minute) it may answer late, so
// the check waits rather than failing the test as "no Docker".
func checkTimeout() time.Duration {
	if InCI() {
		return 3 * time.Minute
	}
	return 10 * time.Second
}

// BuildImage builds a one-file Dockerfile as tag with the classic builder
// (no registry needed when its FROM is local) and removes the image when
// the test ends.
func BuildImage(t testing.TB, cli *client.Client, tag, dockerfile string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		t.Fatalf("archive the Dockerfile: %v", err)
	}
	if _, err := tw.Write([]byte(dockerfile)); err != nil {
		t.Fatalf("archive the Dockerfile: %v", err)
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("archive the Dockerfile: %v", err)
	}
	resp, err := cli.ImageBuild(context.Background(), &buf, build.ImageBuildOptions{Tags: []string{tag}, Remove: true, ForceRemove: true, Version: build.BuilderV1})
	if err != nil {
		t.Fatalf("build %s: %v", tag, err)
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || bytes.Contains(out, []byte(`"error"`)) {
		t.Fatalf("build %s: %v: %s", tag, err, out)
	}
	t.Cleanup(func() {
		_, _ = cli.ImageRemove(context.Background(), tag, image.RemoveOptions{Force: true, PruneChildren: true})
	})
}
