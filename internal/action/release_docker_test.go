package action

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/release/releasetest"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// The released path's image step for real: a built sandbox image (the
// keyless flavour, releasetest.Image) is pushed
// to an in-process registry as a release would publish it (an OCI index,
// pinned by digest in sandbox-images.json), and the Action's pull-image
// step pulls it through the Docker API, checks the digest and hands the
// pinned reference to the run.
func TestPullImagePullsTheReleasedImageByDigest(t *testing.T) {
	cli, _ := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	img := releasetest.Image()
	if err := sandbox.CheckImage(ctx, cli, img); err != nil {
		sandboxtest.Unavailable(t, "no keyless sandbox image: %v (IMAGE=%s CLAUDE_CODE_VERSION= CODEX_VERSION= GEMINI_CLI_VERSION= scripts/build-test-image.sh)", err, img)
	}

	reg := releasetest.Registry(t)
	start := time.Now()
	ref, nonce := releasetest.PushFromDaemon(ctx, t, cli, img, reg+"/readme2demo/readme2demo-sandbox-keyless")
	t.Logf("pushed %s to the in-process registry in %s", ref, time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = cli.ImageRemove(ctx, ref, image.RemoveOptions{PruneChildren: true})
	})

	dir := t.TempDir()
	manifest := filepath.Join(dir, "sandbox-images.json")
	assert.NilError(t, os.WriteFile(manifest, testManifest(t, ref), 0o644))

	pull := func(t *testing.T, manifest string) (int, string, string) {
		out := filepath.Join(t.TempDir(), "github_output")
		env := map[string]string{
			"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": out,
			"INPUT_ENGINE": "markdown", ManifestEnv: manifest,
		}
		var stdout, stderr bytes.Buffer
		code := Run(ctx, []string{"pull-image"}, func(k string) string { return env[k] }, &stdout, &stderr)
		o, _ := os.ReadFile(out)
		return code, stdout.String() + stderr.String(), string(o)
	}

	start = time.Now()
	code, log, outputs := pull(t, manifest)
	assert.Equal(t, code, exitcode.OK, log)
	t.Logf("pulled in %s:\n%s", time.Since(start).Round(time.Millisecond), log)
	assert.Check(t, is.Contains(outputs, "\n"+ref+"\n"), "the step output image is the pinned reference: %q", outputs)
	assert.Check(t, is.Contains(log, "image "+ref+": pulled in "))

	// The daemon holds the pushed image under that digest, with the layer
	// only the pushed image has.
	info, err := cli.ImageInspect(ctx, ref)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(info.RepoDigests, ref))
	assert.Check(t, is.Equal(readFileInImage(ctx, t, cli, ref, "/etc/readme2demo-release-test"), nonce+"\n"))

	// Present already: no second download.
	code, log, _ = pull(t, manifest)
	assert.Equal(t, code, exitcode.OK, log)
	assert.Check(t, is.Contains(log, "image "+ref+": already present"))

	// A digest the registry does not have fails the step and names the image.
	name, _, _ := strings.Cut(ref, "@")
	missing := name + "@sha256:" + strings.Repeat("e", 64)
	bad := filepath.Join(dir, "bad.json")
	assert.NilError(t, os.WriteFile(bad, testManifest(t, missing), 0o644))
	code, log, outputs = pull(t, bad)
	assert.Check(t, is.Equal(code, exitcode.Failed), log)
	assert.Check(t, is.Contains(log, "::error::pull image "+missing+": "))
	assert.Check(t, !strings.Contains(outputs, "image"), "no image output after a failed pull: %q", outputs)
}

// readFileInImage copies one file out of a created (never started) container.
func readFileInImage(ctx context.Context, t *testing.T, cli *client.Client, ref, path string) string {
	t.Helper()
	c, err := cli.ContainerCreate(ctx, &container.Config{Image: ref, Cmd: []string{"true"}, Labels: map[string]string{"io.readme2demo.test": "release-pull"}}, nil, nil, nil, "")
	assert.NilError(t, err)
	defer func() {
		_ = cli.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true})
	}()
	rc, _, err := cli.CopyFromContainer(ctx, c.ID, path)
	assert.NilError(t, err)
	defer rc.Close()
	tr := tar.NewReader(rc)
	_, err = tr.Next()
	assert.NilError(t, err)
	b, err := io.ReadAll(tr)
	assert.NilError(t, err)
	return string(b)
}
