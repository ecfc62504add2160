package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// What reaches a container's first process's output (here 8 MB written
// to /proc/1/fd/1 by a command of the run, which runs as the same user) is
// kept nowhere on the host: the daemon has no log file for the container
// and no log to give.
func TestContainerOutputLeavesNoLogOnTheHost(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx := context.Background()
	s := spec(img, "true")
	s.RunID = sandbox.NewRunID()
	id, err := sandbox.CreateForTest(ctx, cli, s)
	assert.NilError(t, err)
	t.Cleanup(func() {
		_ = cli.ContainerRemove(context.Background(), id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	})
	assert.NilError(t, cli.ContainerStart(ctx, id, container.StartOptions{}))
	ex, err := cli.ContainerExecCreate(ctx, id, container.ExecOptions{
		Cmd: []string{"sh", "-c", "head -c 8000000 /dev/zero | tr '\\0' a > /proc/1/fd/1"},
	})
	assert.NilError(t, err)
	assert.NilError(t, cli.ContainerExecStart(ctx, ex.ID, container.ExecStartOptions{Detach: true}))
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := cli.ContainerExecInspect(ctx, ex.ID)
		assert.NilError(t, err)
		if !st.Running {
			assert.Check(t, is.Equal(st.ExitCode, 0), "the write to /proc/1/fd/1 failed")
			break
		}
		assert.Assert(t, time.Now().Before(deadline), "the write did not end")
		time.Sleep(100 * time.Millisecond)
	}
	c, err := cli.ContainerInspect(ctx, id)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(c.HostConfig.LogConfig.Type, "none"))
	assert.Check(t, is.Equal(c.LogPath, ""), "the daemon keeps a log file for the container")
	_, err = cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true})
	assert.Check(t, err != nil, "the daemon gives a log of the container")
}

// A run whose container holds very many files (here 200,000) still ends
// with what it found and with its container gone, even when one removal
// call gives up long before the daemon has deleted them (here after
// 50 ms): the daemon goes on, and the run waits for it.
func TestRunWithManyFilesEndsWithItsContainerGone(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	defer sandbox.ShortRemovalForTest(50 * time.Millisecond)()
	s := spec(img, `mkdir -p /tmp/many && cd /tmp/many && seq 1 200000 | xargs touch && echo '{"files":200000}' > `+transcript)
	s.RunID = sandbox.NewRunID()
	res, err := sandbox.Run(context.Background(), cli, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(res.Transcript), "{\"files\":200000}\n"))
	assert.Check(t, res.RemoveErr, "the container was not removed")
	assert.Check(t, is.Len(containersOf(t, cli, s.RunID), 0))
}
