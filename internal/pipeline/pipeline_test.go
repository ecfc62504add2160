package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/prompt"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// noDocker is a Docker that fails the test on any call: configuration
// errors must be found before anything touches the daemon.
type noDocker struct {
	sandbox.Docker
	t *testing.T
}

func (d noDocker) Ping(context.Context) (types.Ping, error) {
	d.t.Error("the Docker daemon was contacted before the configuration was checked")
	return types.Ping{}, errors.New("no docker")
}

func TestRunRejectsBadConfigurationBeforeAnyContainer(t *testing.T) {
	repo := sampleRepo(t)
	tests := []struct {
		name    string
		cfg     pipeline.Config
		check   func(t *testing.T, err error)
		wantMsg string
	}{
		{
			name: "missing credentials",
			cfg:  pipeline.Config{Engine: engines.ClaudeCodeName, RepoDir: repo},
			check: func(t *testing.T, err error) {
				var ee *engines.EngineError
				assert.Assert(t, errors.As(err, &ee), "err %v", err)
				assert.Check(t, is.Equal(ee.Var, "ANTHROPIC_API_KEY"))
			},
			wantMsg: "engine claude-code: ANTHROPIC_API_KEY: not set",
		},
		{
			name: "credential in the wrong variable",
			cfg: pipeline.Config{Engine: engines.ClaudeCodeName, RepoDir: repo,
				Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-oat01-abcdefghijklmnopqrstuvwxyz"})},
			check: func(t *testing.T, err error) {
				var ee *engines.EngineError
				assert.Assert(t, errors.As(err, &ee), "err %v", err)
				assert.Check(t, !strings.Contains(err.Error(), "abcdefghijklmnop"), "the error echoes the credential")
			},
			wantMsg: "put it in CLAUDE_CODE_OAUTH_TOKEN",
		},
		{
			name:    "unknown engine",
			cfg:     pipeline.Config{Engine: "nope", RepoDir: repo},
			check:   func(t *testing.T, err error) { assert.Check(t, errors.Is(err, engines.ErrUnknownEngine)) },
			wantMsg: `unknown engine "nope"`,
		},
		{
			name: "no README",
			cfg: pipeline.Config{Engine: engines.ClaudeCodeName, RepoDir: repo, Readme: "docs/MISSING.md",
				Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-dummy"})},
			check: func(t *testing.T, err error) {
				var ce *pipeline.ConfigError
				assert.Check(t, errors.As(err, &ce), "err %v", err)
			},
			wantMsg: "pass --readme",
		},
		{
			name: "README outside the repository",
			cfg: pipeline.Config{Engine: engines.ClaudeCodeName, RepoDir: repo, Readme: "../../README.md",
				Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-dummy"})},
			check: func(t *testing.T, err error) {
				var pe *prompt.PathError
				assert.Check(t, errors.As(err, &pe), "err %v", err)
			},
			wantMsg: "inside the repository",
		},
		{
			name: "no repository",
			cfg: pipeline.Config{Engine: engines.ClaudeCodeName, RepoDir: filepath.Join(t.TempDir(), "nothing"),
				Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-api03-dummy"})},
			check: func(t *testing.T, err error) {
				var ce *pipeline.ConfigError
				assert.Check(t, errors.As(err, &ce), "err %v", err)
			},
			wantMsg: "not a readable directory",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			tc.cfg.Image, tc.cfg.OutDir, tc.cfg.Docker = "img", out, noDocker{t: t}
			res, err := pipeline.Run(context.Background(), tc.cfg)
			assert.Check(t, res == nil)
			assert.ErrorContains(t, err, tc.wantMsg)
			tc.check(t, err)
			_, statErr := os.Stat(out)
			assert.Check(t, errors.Is(statErr, os.ErrNotExist), "the output directory was created")
		})
	}
}
