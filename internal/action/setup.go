package action

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/release"
	"github.com/readme2demo/readme2demo/internal/release/pull"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// The Action's setup modes, run by action.yml before the run itself.
const (
	// modeValidate checks the inputs and the engine's credential, before
	// any sandbox image is pulled or built, and sets the step output
	// proceed (false: a fork PR without credentials, which the run then
	// reports as skipped). Bad inputs fail the step with the run's errors.
	modeValidate = "validate"
	// modePullImage pulls the engine's released sandbox image by digest,
	// from the manifest named by ManifestEnv, and sets the step output
	// image to NAME@sha256:DIGEST.
	modePullImage = "pull-image"
)

// ManifestEnv names the released sandbox-images.json for modePullImage.
const ManifestEnv = "R2D_RELEASE_MANIFEST"

func (a *app) runMode(ctx context.Context, s *step, mode string) int {
	switch mode {
	case modeValidate:
		cfg, _, code, proceed := s.check(false)
		if code != exitcode.OK {
			return code
		}
		s.setOutputs(map[string]string{"proceed": fmt.Sprint(proceed)})
		if proceed {
			fmt.Fprintf(s.stdout, "readme2demo: inputs and the %s engine's credentials are in order\n", cfg.Engine)
		}
		return exitcode.OK
	case modePullImage:
		return a.pullImage(ctx, s)
	}
	s.errorf("unknown mode %q", mode)
	return exitcode.Usage
}

func (a *app) pullImage(ctx context.Context, s *step) int {
	engine := cmp.Or(newInputReader(s.getenv)("engine"), engines.Default())
	path := s.getenv(ManifestEnv)
	if path == "" {
		s.errorf("pull the sandbox image: %s is not set (the path of the release's %s)", ManifestEnv, release.ManifestFile)
		return exitcode.Usage
	}
	f, err := os.Open(path)
	if err != nil {
		s.errorf("pull the sandbox image: %v", err)
		return exitcode.Failed
	}
	m, err := release.ParseManifest(f)
	f.Close()
	if err != nil {
		for _, e := range unjoin(err) {
			s.errorf("read %s: %v", path, e)
		}
		return exitcode.Failed
	}
	ref, err := m.ImageFor(engine)
	if err != nil {
		s.errorf("%v", err)
		return exitcode.Usage
	}
	d, closeDocker, err := a.docker(ctx)
	if err != nil {
		s.errorf("%v", err)
		return exitcode.Failed
	}
	defer closeDocker()
	if err := pull.Image(ctx, d, ref, s.stdout); err != nil {
		s.errorf("%v", err)
		return exitcode.Failed
	}
	s.setOutputs(map[string]string{"image": ref})
	return exitcode.OK
}

// dockerClient connects to the daemon for the pull.
func dockerClient(ctx context.Context) (pull.Docker, func(), error) {
	cli, err := sandbox.NewClient(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cli, func() { cli.Close() }, nil
}
