package pipeline_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
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

// runFootprint measures, on the host, the disk space the run's own
// writable places take: each of its containers' overlay upper directory
// and the host directories of its volumes, counted in allocated blocks (a
// sparse file takes what it holds, a preallocated one what it reserved).
// Measuring the run's files rather than the file system's free space keeps
// other jobs on the machine (parallel test packages writing gigabytes of
// transcripts) out of the figure. seen collects every directory measured,
// so the test can check they are gone after the run.
func runFootprint(ctx context.Context, cli *client.Client, runID string, seen map[string]bool) int64 {
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelRunID+"="+runID))})
	if err != nil {
		return 0
	}
	dirs := map[string]bool{}
	for _, c := range cs {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			continue // removed meanwhile
		}
		if in.GraphDriver.Data != nil && in.GraphDriver.Data["UpperDir"] != "" {
			dirs[in.GraphDriver.Data["UpperDir"]] = true
		}
		for _, m := range in.Mounts {
			if m.Type == mount.TypeVolume && m.Source != "" {
				dirs[m.Source] = true
			}
		}
	}
	var total int64
	for d := range dirs {
		seen[d] = true
		_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil // a file or directory removed while walking
			}
			if fi, err := e.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					total += st.Blocks * 512
				}
			}
			return nil
		})
	}
	return total
}

// A hostile README's disk bomb is stopped under either profile: the run is
// stopped with the disk-cap reason before its writers finish, and the
// space comes back when the run ends (its layer and volume directories are
// gone). Under the strict profile the run's files on the host never take
// more than the cap plus what the writers add between two of the meter's
// measurements; under dev, whose measurements are calls to the daemon, a
// loaded machine lets them go further (SECURITY.md says so).
func TestDiskBombCannotPassTheCap(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	info, err := cli.Info(context.Background())
	assert.NilError(t, err)
	_, err = os.Stat(info.DockerRootDir)
	assert.NilError(t, err, "the test measures the run's files under the Docker data root, which must be on this machine")
	const capBytes = 1 << 30
	for _, profile := range sandbox.Profiles {
		t.Run(profile, func(t *testing.T) {
			danglingBefore := danglingVolumes(t, cli)
			runID := sandbox.NewRunID()
			var peak int64
			seen := map[string]bool{}
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
					peak = max(peak, runFootprint(context.Background(), cli, runID, seen))
				}
			}()
			res, err := runHostile(t, cli, hostileRun{readme: diskBomb, image: img, profile: profile, runID: runID,
				out: t.TempDir(), resources: sandbox.Resources{Disk: capBytes}, timeout: 4 * time.Minute})
			close(stop)
			<-sampled // peak and seen are the sampler's until here
			assert.NilError(t, err)
			assertNothingLeft(t, cli, runID)
			t.Logf("%s: the run's files on the host took at most %d MiB (cap %d MiB, %d directories measured); the sandbox measured a peak of %d bytes",
				profile, peak>>20, capBytes>>20, len(seen), derefOr(res.Log.Sandbox.DiskPeak))

			l := res.Log
			assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
			assert.Check(t, is.Equal(l.Sandbox.Stopped, "disk"), "reason: %s", l.OutcomeReason)
			assert.Check(t, is.Contains(l.OutcomeReason, "stopped by the sandbox: its writable space passed the disk cap of 1GiB"))
			assert.Check(t, is.Contains(l.OutcomeReason, "--disk"))
			for _, c := range l.Commands {
				assert.Check(t, !strings.Contains(c.Output, "all written"), "the bomb finished")
			}
			// The run may be stopped at any step of the bomb after the
			// first (the measurement can see the single big writer pass
			// the cap before the file-size limit stops it).
			assert.Assert(t, len(l.Commands) >= 2, "commands: %+v", l.Commands)
			// fallocate reserved nothing: the seccomp profile refused it.
			assert.Check(t, is.Contains(l.Commands[0].Output, "Operation not supported"))
			// The single 50 GiB file and the 20 GiB sparse one stopped at
			// the file-size limit (SIGXFSZ, EFBIG) or at the cap, either
			// named as the disk cap.
			for i := 1; i < min(3, len(l.Commands)); i++ {
				c := l.Commands[i]
				assert.Check(t, c.Environment != nil && c.Environment.Kind == "disk-full", "%s: %+v %q", c.Command, c.Environment, c.Output)
			}
			last := l.Commands[len(l.Commands)-1]
			assert.Check(t, last.Environment != nil && last.Environment.Kind == "disk-full", "%+v", last)
			// The sampler saw the run's writable places (else the bound
			// below would hold vacuously) and the bomb writing into them.
			assert.Check(t, len(seen) > 0, "no directory of the run was measured")
			assert.Check(t, peak > capBytes/2, "the run's files took %d MiB: the sampler missed the bomb", peak>>20)
			// At most the cap, plus what the writers added between two
			// measurements: bounded in the strict profile, whose meter
			// streams its measurements from before the first command and
			// does not wait on the daemon. The dev profile's meter starts a
			// second into the run (sandbox.DefaultMeterDelay); until then
			// each measurement is a call to the daemon, which a loaded
			// machine makes take seconds while sixteen writers go on
			// (SECURITY.md; CI once saw 4 GiB over a 1 GiB cap when the
			// daemon measured the whole run): the run is stopped, the
			// writers do not finish (above), and the space comes back
			// (below).
			if profile == sandbox.ProfileStrict {
				assert.Check(t, peak < capBytes+1536<<20, "the run's files took %d MiB with a %d MiB cap", peak>>20, capBytes>>20)
			}
			// And it is given back: the run's layer and volume directories
			// are gone, and no volume of the run is left.
			for d := range seen {
				_, err := os.Lstat(d)
				assert.Check(t, os.IsNotExist(err), "%s is still on the host after the run (%v)", d, err)
			}
			left := danglingVolumes(t, cli)
			if len(left) > len(danglingBefore) {
				time.Sleep(3 * time.Second) // another job's volume may be between its container and its removal
				left = danglingVolumes(t, cli)
			}
			for v := range left {
				assert.Check(t, danglingBefore[v], "volume %s was left behind", v)
			}
		})
	}
}

// inodeBomb is a hostile README that makes files, directories and links
// (nearly no bytes) in every writable place, fast: 300,000 inodes.
const inodeBomb = "# inode bomb\n\n" +
	"```sh\nfor d in \"$HOME\" /workspace /tmp /readme2demo; do (mkdir -p \"$d/many\" && cd \"$d/many\" && " +
	"for i in $(seq 1 150); do mkdir d$i && (cd d$i && touch $(seq 1 500) && ln -s 1 link) || exit 1; done) & done; wait\n" +
	"echo all made\n```\n"

// An inode bomb is stopped by the inode cap and named, in both profiles;
// the run writes its log and leaves nothing behind.
func TestInodeBombIsStoppedAndNamed(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	const capInodes = 40000
	for _, profile := range sandbox.Profiles {
		t.Run(profile, func(t *testing.T) {
			runID := sandbox.NewRunID()
			out := t.TempDir()
			res, err := runHostile(t, cli, hostileRun{readme: inodeBomb, image: img, profile: profile, runID: runID,
				out: out, resources: sandbox.Resources{Inodes: capInodes}, timeout: 3 * time.Minute})
			assert.NilError(t, err)
			assertNothingLeft(t, cli, runID)
			l := res.Log
			t.Logf("%s: peak %d inodes (cap %d): %s", profile, derefOr(l.Sandbox.InodesPeak), capInodes, l.OutcomeReason)
			assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
			assert.Check(t, is.Equal(l.Sandbox.Stopped, "inodes"), "reason: %s", l.OutcomeReason)
			assert.Check(t, is.Equal(l.Sandbox.Inodes, int64(capInodes)))
			assert.Check(t, l.Sandbox.InodesPeak != nil && *l.Sandbox.InodesPeak > capInodes)
			assert.Check(t, is.Contains(l.OutcomeReason, "stopped by the sandbox: its writable space held more files, directories and links than the cap of 40000"))
			assert.Check(t, is.Contains(l.OutcomeReason, "--inodes"))
			assert.Assert(t, len(l.Commands) >= 1)
			last := l.Commands[len(l.Commands)-1]
			assert.Check(t, last.Environment != nil && last.Environment.Kind == "disk-full", "%+v", last)
			assert.Check(t, !strings.Contains(last.Output, "all made"), "the bomb finished")
			_, err = os.Stat(filepath.Join(out, "command_log.json"))
			assert.Check(t, err, "the run wrote no command_log.json")
		})
	}
}

// deletedBomb is a hostile README that writes into files it deleted while
// holding them open: no walk of the run's files sees them, and their
// blocks stay on the disk until the last descriptor closes (1152 MiB).
const deletedBomb = "# deleted files\n\n" +
	"```sh\nfor k in 1 2 3 4 5 6; do exec {fd}>\"$HOME/gone$k\" && rm \"$HOME/gone$k\" && " +
	"for i in 1 2 3 4 5 6; do head -c 32M /dev/zero >&$fd; sleep 0.1; done; done; echo all written\n```\n"

// Space held by files deleted while still open counts against the disk
// cap, in both profiles, and the reason says how much of it they held.
func TestDeletedFilesBombIsStoppedAndNamed(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	const capBytes = 384 << 20
	for _, profile := range sandbox.Profiles {
		t.Run(profile, func(t *testing.T) {
			runID := sandbox.NewRunID()
			res, err := runHostile(t, cli, hostileRun{readme: deletedBomb, image: img, profile: profile, runID: runID,
				out: t.TempDir(), resources: sandbox.Resources{Disk: capBytes}, timeout: 2 * time.Minute})
			assert.NilError(t, err)
			assertNothingLeft(t, cli, runID)
			l := res.Log
			t.Logf("%s: peak %d MiB: %s", profile, derefOr(l.Sandbox.DiskPeak)>>20, l.OutcomeReason)
			assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeFailed))
			assert.Check(t, is.Equal(l.Sandbox.Stopped, "disk"), "reason: %s", l.OutcomeReason)
			assert.Check(t, is.Contains(l.OutcomeReason, "stopped by the sandbox: its writable space passed the disk cap of 384MiB (measured "))
			assert.Check(t, is.Contains(l.OutcomeReason, " held by files deleted while still open)"))
			assert.Assert(t, len(l.Commands) == 1, "%+v", l.Commands)
			c := l.Commands[0]
			assert.Check(t, c.Environment != nil && c.Environment.Kind == "disk-full", "%+v", c)
			assert.Check(t, !strings.Contains(c.Output, "all written"), "the bomb finished")
		})
	}
}

// hostileRun is a hostile README's keyless run without network.
type hostileRun struct {
	readme, image, profile, runID, out string
	resources                          sandbox.Resources
	timeout                            time.Duration // the run's limit; the test allows two minutes more
}

// runHostile runs h.readme as a repository's README.
func runHostile(t *testing.T, cli *client.Client, h hostileRun) (*pipeline.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout+2*time.Minute)
	defer cancel()
	return pipeline.Run(ctx, pipeline.Config{
		Engine: engines.MarkdownName, RepoDir: writeRepo(t, h.readme), Image: h.image, OutDir: h.out, RunID: h.runID,
		Network: pipeline.NetworkNone, Sandbox: h.profile, Resources: h.resources,
		Limits: engines.Limits{Timeout: h.timeout}, Docker: cli,
	})
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
