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

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/errdefs"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/timing"
)

// sampleRun is the configuration of a keyless run of testdata/sample-repo
// on d, with a fixed clock.
func sampleRun(d *sandboxtest.FakeDocker, runID, out string, progress *bytes.Buffer) pipeline.Config {
	return pipeline.Config{
		Engine: "markdown", RepoDir: "../../testdata/sample-repo", Image: "readme2demo-base:test",
		OutDir: out, RunID: runID, Network: pipeline.NetworkNone,
		Resources: sandbox.Resources{NanoCPUs: 1e9},
		Progress:  progress, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }, Docker: d,
	}
}

// A whole run of the keyless markdown engine on testdata/sample-repo,
// without Docker: sandboxtest.FakeDocker hands back a transcript the
// runner wrote for that README. The command log, the demo and the progress
// lines are those the steps' own tests expect (steps_internal_test.go),
// and the host's token, which the runner's stderr repeats, is in no file.
func TestRunOnFakeDocker(t *testing.T) {
	const secret = "r2d-steps-secret-0123456789" // GITHUB_TOKEN on the host
	readme, err := os.ReadFile("../../testdata/sample-repo/README.md")
	assert.NilError(t, err)
	d := &sandboxtest.FakeDocker{Files: map[string][]byte{
		engines.TranscriptContainerPath: golden.Get(t, "steps/sample-repo.transcript.jsonl"),
		engines.StderrContainerPath:     []byte("the runner's stderr: " + secret + "\n"),
		"/workspace/README.md":          readme,
	}}
	var progress bytes.Buffer
	out := t.TempDir()
	cfg := sampleRun(d, "r2dsteps0001", out, &progress)
	cfg.Getenv = func(k string) string { return map[string]string{"GITHUB_TOKEN": secret}[k] }
	res, err := pipeline.Run(context.Background(), cfg)
	assert.NilError(t, err)
	golden.Assert(t, progress.String(), "steps/run.progress.golden")

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		assert.NilError(t, err)
		return string(b)
	}
	golden.Assert(t, read(pipeline.CommandLogFile), "steps/command_log.json")
	golden.Assert(t, read(pipeline.DemoScriptFile), "steps/demo.sh")
	golden.Assert(t, read(pipeline.DemoCastFile), "steps/demo.cast")
	golden.Assert(t, read(pipeline.ReportFile), "steps/run.report.md")
	assert.Check(t, is.Equal(read(pipeline.StderrFile), "the runner's stderr: [REDACTED:secret]\n"))
	entries, err := os.ReadDir(out)
	assert.NilError(t, err)
	for _, e := range entries {
		assert.Check(t, !strings.Contains(read(e.Name()), secret), "%s holds the host's token", e.Name())
	}
	assert.Check(t, is.Equal(res.ReadmeDiff, ""), "the README came back as it was")
	_, err = os.Stat(filepath.Join(out, pipeline.ReadmeDiffFile))
	assert.Check(t, os.IsNotExist(err))

	assert.Check(t, is.Equal(res.RunID, "r2dsteps0001"))
	assert.Check(t, is.Equal(string(res.Log.Outcome), "failed"))
	assert.Check(t, res.AgentExitCode != nil && *res.AgentExitCode == 0)
	var phases []timing.Phase
	for _, s := range res.Timings.Spans {
		phases = append(phases, s.Phase)
	}
	assert.Check(t, is.DeepEqual(phases, []timing.Phase{
		timing.Prepare, timing.Docker, timing.Network, timing.Sweep, timing.Create, timing.Input, timing.RunnerStart,
		timing.Start, timing.CopyIn, timing.Commands, timing.CopyOut, timing.Signals, timing.Remove, timing.Parse, timing.Reports, timing.Cleanup,
	}))
	assert.Check(t, is.DeepEqual(d.Calls()[len(d.Calls())-1], "remove readme2demo-r2dsteps0001"))
}

// A container the daemon will not remove does not lose the run: the log
// and the reports are written, the outcome is the README's, and a warning
// names the run id to remove it by.
func TestRunKeepsItsLogWhenTheContainerStays(t *testing.T) {
	readme, err := os.ReadFile("../../testdata/sample-repo/README.md")
	assert.NilError(t, err)
	d := &sandboxtest.FakeDocker{
		Files: map[string][]byte{
			engines.TranscriptContainerPath: golden.Get(t, "steps/sample-repo.transcript.jsonl"),
			"/workspace/README.md":          readme,
		},
		ContainerRemoveFunc: func(string, container.RemoveOptions) error {
			return errdefs.System(errors.New("device or resource busy"))
		},
	}
	var progress bytes.Buffer
	out := t.TempDir()
	res, err := pipeline.Run(context.Background(), sampleRun(d, "r2dsteps0002", out, &progress))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(res.Log.Outcome), "failed"))
	_, err = os.Stat(filepath.Join(out, pipeline.CommandLogFile))
	assert.Check(t, err)
	assert.Check(t, is.Contains(progress.String(),
		"[00:00] warning: a container of this run is left behind (remove container readme2demo-: device or resource busy); the next run's sweep removes it, or: docker rm -f $(docker ps -aq --filter label=io.readme2demo.run-id=r2dsteps0002)\n"))
}
