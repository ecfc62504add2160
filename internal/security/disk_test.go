package security

import (
	"context"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// diskBomb is a hostile README that tries every cheap way to fill the
// host's disk: fallocate (instant, no writes), one file far larger than
// the cap, sparse files, and many parallel writers each under the cap, in
// every writable place ($HOME, the workspace, /tmp, /readme2demo).
const diskBomb = "# disk bomb\n\n" +
	"<!-- readme2demo: continue-on-error -->\n```sh\nfor i in $(seq 1 40); do fallocate -l 900M \"$HOME/fa$i\"; done\n```\n\n" +
	"<!-- readme2demo: continue-on-error -->\n```sh\nhead -c 50G /dev/zero > /workspace/huge\n```\n\n" +
	"<!-- readme2demo: continue-on-error -->\n```sh\ntruncate -s 20G /workspace/sparse\n```\n\n" +
	"```sh\nfor d in \"$HOME\" /workspace /tmp /readme2demo; do for i in 1 2 3 4; do head -c 900M /dev/zero > \"$d/w$i\" & done; done; wait\n" +
	"echo all written\n```\n"

// hostFree is the free space of the file system holding the Docker data
// root, where containers' layers and volumes live.
func hostFree(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	assert.NilError(t, syscall.Statfs(dir, &st))
	return int64(st.Bavail) * int64(st.Bsize)
}

// A hostile README cannot grow the host's disk much past the disk cap,
// under either profile: the run is stopped with the disk-cap reason, the
// host's free space never drops by more than the cap plus what a writer can
// add between two measurements, and the space comes back when the run ends.
// (The free space is the whole file system's: other jobs on the machine add
// noise, hence the margins.)
func TestDiskBombCannotPassTheCap(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	info, err := cli.Info(context.Background())
	assert.NilError(t, err)
	root := info.DockerRootDir
	if _, err := os.Stat(root); err != nil {
		root = "/" // a remote daemon: nothing to measure here
		t.Logf("the Docker data root %s is not on this machine; measuring /", info.DockerRootDir)
	}
	const capBytes = 1 << 30
	for _, profile := range sandbox.Profiles {
		t.Run(profile, func(t *testing.T) {
			danglingBefore := danglingVolumes(t, cli)
			before := hostFree(t, root)
			var mu sync.Mutex
			minFree := before
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					f := hostFree(t, root)
					mu.Lock()
					minFree = min(minFree, f)
					mu.Unlock()
				}
			}()
			runID := sandbox.NewRunID()
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			res, err := pipeline.Run(ctx, pipeline.Config{
				Engine: engines.MarkdownName, RepoDir: writeRepo(t, diskBomb), Image: img, OutDir: t.TempDir(), RunID: runID,
				Network: pipeline.NetworkNone, Sandbox: profile, Resources: sandbox.Resources{Disk: capBytes},
				Limits: engines.Limits{Timeout: 4 * time.Minute}, Docker: cli,
			})
			close(stop)
			<-sampled
			assert.NilError(t, err)
			assertNothingLeft(t, cli, runID)
			after := hostFree(t, root)
			mu.Lock()
			grew := before - minFree
			mu.Unlock()
			t.Logf("%s: the host's free space dropped by at most %d MiB (cap %d MiB); after the run %+d MiB; the sandbox measured a peak of %d bytes",
				profile, grew>>20, capBytes>>20, (before-after)>>20, derefOr(res.Log.Sandbox.DiskPeak))

			l := res.Log
			assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
			assert.Check(t, is.Equal(l.Sandbox.Stopped, "disk"), "reason: %s", l.OutcomeReason)
			assert.Check(t, is.Contains(l.OutcomeReason, "stopped by the sandbox: its writable space passed the disk cap of 1GiB"))
			assert.Check(t, is.Contains(l.OutcomeReason, "--disk"))
			for _, c := range l.Commands {
				assert.Check(t, !strings.Contains(c.Output, "all written"), "the bomb finished")
			}
			assert.Assert(t, len(l.Commands) >= 4, "commands: %+v", l.Commands)
			// fallocate reserved nothing: the seccomp profile refused it.
			assert.Check(t, is.Contains(l.Commands[0].Output, "Operation not supported"))
			// The single 50 GiB file and the 20 GiB sparse one stopped at
			// the file-size limit (SIGXFSZ, EFBIG), named as the disk cap.
			for _, i := range []int{1, 2} {
				c := l.Commands[i]
				assert.Check(t, c.Environment != nil && c.Environment.Kind == "disk-full", "%s: %+v %q", c.Command, c.Environment, c.Output)
			}
			last := l.Commands[len(l.Commands)-1]
			assert.Check(t, last.Environment != nil && last.Environment.Kind == "disk-full", "%+v", last)
			// At most the cap, plus what the writers added between two
			// measurements, plus the noise of other jobs on the machine.
			assert.Check(t, grew < capBytes+1536<<20, "the host's disk lost %d MiB with a %d MiB cap", grew>>20, capBytes>>20)
			// And it is given back: no volume of the run is left, and the
			// free space is back (within what other jobs on the machine
			// may have written meanwhile).
			left := danglingVolumes(t, cli)
			if len(left) > len(danglingBefore) {
				time.Sleep(3 * time.Second) // another job's volume may be between its container and its removal
				left = danglingVolumes(t, cli)
			}
			for v := range left {
				assert.Check(t, danglingBefore[v], "volume %s was left behind", v)
			}
			assert.Check(t, before-after < 1<<30, "the host's disk still misses %d MiB after the run", (before-after)>>20)
		})
	}
}

// danglingVolumes are the volumes no container uses.
func danglingVolumes(t *testing.T, cli *client.Client) map[string]bool {
	t.Helper()
	l, err := cli.VolumeList(context.Background(), volume.ListOptions{Filters: filters.NewArgs(filters.Arg("dangling", "true"))})
	assert.NilError(t, err)
	out := map[string]bool{}
	for _, v := range l.Volumes {
		out[v.Name] = true
	}
	return out
}

func derefOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
