package sandbox_test

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/pkg/stdcopy"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// The disk meter reads every directory of the run (CAP_DAC_READ_SEARCH),
// which under Docker's default seccomp profile would also let it open any
// file of the host by its handle (open_by_handle_at, the "shocker" way out
// of a container): its profile refuses that call.
func TestDiskMeterCannotOpenFilesByHandle(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	nr := map[string]int{"amd64": 304, "arm64": 265}[runtime.GOARCH]
	if nr == 0 {
		t.Fatalf("no open_by_handle_at syscall number for %s: add it", runtime.GOARCH)
	}
	s := spec(img, "sleep 6")
	s.Profile = sandbox.ProfileStrict
	s.RunID = sandbox.NewRunID()
	done := make(chan error, 1)
	go func() { _, err := sandbox.Run(context.Background(), cli, s); done <- err }()

	ctx := context.Background()
	var meter string
	for deadline := time.Now().Add(20 * time.Second); meter == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		list, err := cli.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", sandbox.LabelRunID+"="+s.RunID), filters.Arg("label", sandbox.LabelRole+"="+sandbox.RoleDiskMeter))})
		assert.NilError(t, err)
		if len(list) == 1 && list[0].State == "running" {
			meter = list[0].ID
		}
	}
	assert.Assert(t, meter != "", "the run's disk meter never ran")
	// The call with a null handle: EFAULT (14) where it is allowed, EPERM
	// (1) where seccomp refuses it.
	script := "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); " +
		"r = libc.syscall(" + strconv.Itoa(nr) + ", -100, None, 0); print(r, ctypes.get_errno())"
	ex, err := cli.ContainerExecCreate(ctx, meter, container.ExecOptions{User: "0:0", Cmd: []string{"python3", "-c", script}, AttachStdout: true, AttachStderr: true})
	assert.NilError(t, err)
	att, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	assert.NilError(t, err)
	var out bytes.Buffer
	_, _ = stdcopy.StdCopy(&out, &out, att.Reader)
	att.Close()
	assert.Check(t, is.Equal(out.String(), "-1 1\n"), "open_by_handle_at in the meter: %s", out.String())
	assert.NilError(t, <-done)
}
