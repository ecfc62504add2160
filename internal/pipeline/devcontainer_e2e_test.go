package pipeline_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// rootfsImage is a plain Debian image on this machine, the base of the
// test's "devcontainer image" (scripts/build-test-image.sh makes it: no
// registry is reachable here). R2D_ROOTFS_IMAGE names another.
func rootfsImage() string {
	if v := os.Getenv("R2D_ROOTFS_IMAGE"); v != "" {
		return v
	}
	return "readme2demo-rootfs:bookworm"
}

// --image devcontainer: the repository names an image (here one built
// locally, as no registry is reachable) in .devcontainer/devcontainer.json;
// the run happens in it, with the agent user, the dev profile and the
// limits, and the derived image is reused on the next run.
func TestDevcontainerImageRunsTheREADME(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx := context.Background()
	if _, err := cli.ImageInspect(ctx, rootfsImage()); err != nil {
		sandboxtest.Unavailable(t, "no base image %s for the test's devcontainer image: %v", rootfsImage(), err)
	}
	devImage := "readme2demo-devtest:" + sandbox.NewRunID()
	sandboxtest.BuildImage(t, cli, devImage, "FROM "+rootfsImage()+"\nRUN echo from-the-devcontainer-image > /etc/r2d-devcontainer-marker\n"+
		"ENV R2D_DEVCONTAINER_VAR=kept\n")

	repo := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(repo, ".devcontainer"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, ".devcontainer", "devcontainer.json"),
		[]byte("// a devcontainer as VS Code writes it\n{\n  \"name\": \"test\",\n  \"image\": \""+devImage+"\",\n  \"postCreateCommand\": \"touch /tmp/post-create\",\n}\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# in the devcontainer\n\n```sh\n"+
		"cat /etc/r2d-devcontainer-marker\nid -un\necho \"home=$HOME ci=$CI var=$R2D_DEVCONTAINER_VAR\"\n"+
		"touch /usr/local/bin/r2d-probe && echo usr-local-writable\ntest ! -e /tmp/post-create && echo no-lifecycle-commands\n```\n"), 0o644))

	run := func() (*pipeline.Result, string) {
		var progress bytes.Buffer
		res, err := pipeline.Run(ctx, pipeline.Config{
			Engine: engines.MarkdownName, RepoDir: repo, Image: img, Devcontainer: true, OutDir: t.TempDir(),
			Network: pipeline.NetworkNone, Limits: engines.Limits{Timeout: 3 * time.Minute}, Docker: cli, Progress: &progress,
		})
		assert.NilError(t, err, "progress: %s", progress.String())
		return res, progress.String()
	}
	res, progress := run()
	derived := res.Log.Sandbox.Image
	t.Cleanup(func() { _, _ = cli.ImageRemove(context.Background(), derived, image.RemoveOptions{Force: true}) })
	assert.Check(t, strings.HasPrefix(derived, devcontainer.ImageRepo+":"), "image %s", derived)
	assert.Check(t, is.Contains(progress, "devcontainer: .devcontainer/devcontainer.json names "+devImage+"; building"))
	l := res.Log
	assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess), "reason: %s; %+v", l.OutcomeReason, l.Commands)
	out := ""
	for _, c := range l.Commands {
		out += c.Output
	}
	for _, want := range []string{"from-the-devcontainer-image", "agent\n", "home=/home/agent ci=true var=kept", "usr-local-writable", "no-lifecycle-commands"} {
		assert.Check(t, is.Contains(out, want))
	}
	assert.Check(t, is.Equal(l.Sandbox.Profile, sandbox.ProfileDev))

	// The second run reuses the derived image.
	res, progress = run()
	assert.Check(t, is.Equal(res.Log.Sandbox.Image, derived))
	assert.Check(t, is.Contains(progress, "; reusing "+derived))
}

// A devcontainer.json that builds from a Dockerfile is refused before any
// container starts, with what to do.
func TestDevcontainerDockerfileIsRefused(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	repo := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(repo, ".devcontainer"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, ".devcontainer", "devcontainer.json"), []byte(`{"build": {"dockerfile": "Dockerfile"}}`), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# x\n"), 0o644))
	res, err := pipeline.Run(context.Background(), pipeline.Config{
		Engine: engines.MarkdownName, RepoDir: repo, Image: img, Devcontainer: true, OutDir: t.TempDir(), Docker: cli,
	})
	assert.Check(t, res == nil)
	var ce *pipeline.ConfigError
	assert.Assert(t, errorsAs(err, &ce), "err %v", err)
	assert.Check(t, is.ErrorContains(err, "pass --image NAME"))
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
