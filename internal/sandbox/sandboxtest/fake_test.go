package sandboxtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// A whole sandbox.Run succeeds on the fake as it left: the transcript and
// stderr are the fake's files, the exit code its command's, and the container
// is removed.
func TestFakeDockerRunsAWholeSandboxRun(t *testing.T) {
	d := &sandboxtest.FakeDocker{Files: map[string][]byte{
		"/readme2demo/t.jsonl":  []byte("{\"line\":1}\n"),
		"/readme2demo/t.stderr": []byte("warning\n"),
		// What the command's shell wrote as it exited.
		"/readme2demo/.signals": []byte("/sys/fs/cgroup/memory.events oom_kill 2\n"),
	}}
	res, err := sandbox.Run(context.Background(), d, sandbox.Spec{
		Image: "img", RunID: "r1", Command: "agent --go", TranscriptPath: "/readme2demo/t.jsonl", StderrPath: "/readme2demo/t.stderr",
		Collect: []string{"/workspace/README.md"},
		Now:     func() time.Time { return time.Unix(1_000_000, 0) },
	})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(res.Transcript), "{\"line\":1}\n"))
	assert.Check(t, is.Equal(string(res.Stderr), "warning\n"))
	assert.Assert(t, res.ExitCode != nil)
	assert.Check(t, is.Equal(*res.ExitCode, 0))
	assert.Check(t, is.Equal(res.Usage.OOMKills, 2), "the signals the command's shell wrote")
	assert.Check(t, is.Len(res.CopyErrors, 1), "the README the fake does not hold is a copy error: %v", res.CopyErrors)
	assert.Check(t, is.DeepEqual(d.Calls(), []string{
		"list", "create readme2demo-r1", "inspect", "attach readme2demo-r1", "wait readme2demo-r1", "start readme2demo-r1", "copy-to /",
		"copy-from /readme2demo", "copy-from /workspace/README.md", "inspect",
		"remove readme2demo-r1",
	}))
	assert.Check(t, is.Equal(string(d.Stdin()), "\x00\x00"), "no environment given, none handed over (and no copy-out word: the image promises no tar)")
}

// The command's output comes from ContainerAttachFunc and its exit status
// from ContainerWaitFunc; the environment goes to Stdin.
func TestFakeDockerAttachAndWait(t *testing.T) {
	d := &sandboxtest.FakeDocker{
		ContainerAttachFunc: func(string) (types.HijackedResponse, error) { return sandboxtest.Hijacked("hello\n"), nil },
		ContainerWaitFunc:   func(string) (container.WaitResponse, error) { return container.WaitResponse{StatusCode: 3}, nil },
	}
	res, err := sandbox.Run(context.Background(), d, sandbox.Spec{Image: "img", RunID: "r3", Command: "true", Env: map[string]string{"K": "v"}})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(res.Output), "hello\n"))
	assert.Assert(t, res.ExitCode != nil)
	assert.Check(t, is.Equal(*res.ExitCode, 3))
	assert.Check(t, is.Equal(string(d.Stdin()), "K=v\x00\x00\x00"), "the environment, its end and no copy-out word")
}

// A field set replaces the default answer of its method.
func TestFakeDockerFieldsOverrideTheDefaults(t *testing.T) {
	boom := errors.New("no space left on device")
	d := &sandboxtest.FakeDocker{ContainerStartFunc: func(string) error { return boom }}
	res, err := sandbox.Run(context.Background(), d, sandbox.Spec{Image: "img", RunID: "r2", Command: "true"})
	assert.Check(t, errors.Is(err, boom), "%v", err)
	assert.Check(t, is.Equal(res.ContainerID, "readme2demo-r2"))
	assert.Check(t, is.DeepEqual(d.Calls(), []string{"list", "create readme2demo-r2", "inspect", "attach readme2demo-r2", "wait readme2demo-r2",
		"start readme2demo-r2", "remove readme2demo-r2"}))
}
