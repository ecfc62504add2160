package sandbox_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// What the daemon's archive of the run's directory holds is read as a
// per-file copy would read it: a symlink in the transcript's place is not
// followed, a collected file over its limit is not kept, a missing one is
// reported, and a large file the command left before them costs one more
// copy per file, not the results.
func TestRunCopiesOutOfTheRunDirectoryWithEachFilesProtections(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	for _, tc := range []struct {
		name, crowd string
	}{
		{"directory archive", ":"},
		{"crowded directory", "head -c 20000000 /dev/zero > /readme2demo/aaa-crowd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(img, tc.crowd+`; echo err > `+stderrPath+`; ln -s /etc/passwd `+transcript+
				`; head -c 100 /dev/zero > /readme2demo/big.md; echo notes > /readme2demo/notes.md`)
			s.Collect = []string{"/readme2demo/big.md", "/readme2demo/notes.md", "/readme2demo/missing.md"}
			s.CollectLimits = map[string]int64{"/readme2demo/big.md": 10}
			res, err := sandbox.Run(context.Background(), cli, s)
			assert.NilError(t, err)
			assert.Check(t, is.Len(res.Transcript, 0), "a symlink was followed: %q", res.Transcript)
			assert.Check(t, is.Equal(string(res.Stderr), "err\n"))
			assert.Check(t, is.DeepEqual(res.Collected, map[string][]byte{"/readme2demo/notes.md": []byte("notes\n")}))
			var msgs []string
			tooLarge := false
			for _, e := range res.CopyErrors {
				msgs = append(msgs, e.Error())
				tooLarge = tooLarge || errors.Is(e, sandbox.ErrTooLarge)
			}
			assert.Check(t, is.Len(msgs, 3), "%q", msgs)
			assert.Check(t, tooLarge, "%q", msgs)
			joined := strings.Join(msgs, "\n")
			assert.Check(t, is.Contains(joined, "copy "+transcript+" out of container"))
			assert.Check(t, is.Contains(joined, "copy /readme2demo/missing.md out of container"))
		})
	}
}

// copyCounter is the real daemon, recording the paths copied out.
type copyCounter struct {
	*client.Client
	mu   sync.Mutex
	from []string
}

func (c *copyCounter) CopyFromContainer(ctx context.Context, id, src string) (io.ReadCloser, container.PathStat, error) {
	c.mu.Lock()
	c.from = append(c.from, src)
	c.mu.Unlock()
	return c.Client.CopyFromContainer(ctx, id, src)
}

// A README the command left as it was is not copied out: the signals exec
// found its size and SHA-256 unchanged. An edit of the same size, or a
// symlink to the same text, is copied (and the symlink not followed). With
// an image that has tar the README comes on the command's output whatever
// became of it, but for the symlink, which only the daemon copies.
func TestRunCopiesOutTheKnownReadmeOnlyWhenChanged(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	repo := t.TempDir()
	readme := "# demo\n"
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte(readme), 0o644))
	withoutTar := unlabelled(t, cli, img)
	for _, tc := range []struct {
		name, image, cmd string
		copied           bool
		want             map[string][]byte
	}{
		{"left as it was", withoutTar, "cat README.md >/dev/null", false, map[string][]byte{"/workspace/README.md": []byte(readme)}},
		{"edited, same size", withoutTar, "printf '# dome\\n' > README.md", true, map[string][]byte{"/workspace/README.md": []byte("# dome\n")}},
		{"a symlink to the same text", withoutTar, "cp README.md /tmp/r; ln -sf /tmp/r README.md", true, nil},
		{"on the output: left as it was", img, "cat README.md >/dev/null", false, map[string][]byte{"/workspace/README.md": []byte(readme)}},
		{"on the output: edited, same size", img, "printf '# dome\\n' > README.md", false, map[string][]byte{"/workspace/README.md": []byte("# dome\n")}},
		{"on the output: a symlink to the same text", img, "cp README.md /tmp/r; ln -sf /tmp/r README.md", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &copyCounter{Client: cli}
			s := spec(tc.image, tc.cmd+"; echo ok > "+transcript)
			s.RepoDir = repo
			s.Collect = []string{"/workspace/README.md"}
			s.CollectKnown = map[string][]byte{"/workspace/README.md": []byte(readme)}
			res, err := sandbox.Run(context.Background(), d, s)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(res.Transcript), "ok\n"))
			assert.Check(t, is.DeepEqual(res.Collected, tc.want))
			assert.Check(t, is.Equal(slices.Contains(d.from, "/workspace/README.md"), tc.copied), "copies out: %q", d.from)
		})
	}
}

// copyInCounter is the real daemon, recording the containers copied into.
type copyInCounter struct {
	*client.Client
	mu sync.Mutex
	to []string
}

func (c *copyInCounter) CopyToContainer(ctx context.Context, id, dst string, content io.Reader, o container.CopyToContainerOptions) error {
	c.mu.Lock()
	c.to = append(c.to, id)
	c.mu.Unlock()
	return c.Client.CopyToContainer(ctx, id, dst, content, o)
}

// unlabelled builds an image from img whose input-copy label is empty: an
// image that promises nothing.
func unlabelled(t *testing.T, cli *client.Client, img string) string {
	t.Helper()
	tag := "readme2demo-test-no-input-copy:" + sandbox.NewRunID()
	sandboxtest.BuildImage(t, cli, tag, "FROM "+img+"\nLABEL "+sandbox.LabelInputCopy+"=\"\"\n")
	return tag
}

// The repository and the run's files arrive the same whichever way they
// go in: on the command's standard input (the test image promises tar:
// images/base/Dockerfile's label), or by the daemon (an image without the
// promise, and the strict profile's read-only root): modes, owners, a
// symlink, a name with a space, and the environment beside them.
func TestRunCopiesInOnTheCommandsInputOrByTheDaemon(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ins, err := cli.ImageInspect(context.Background(), img)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(ins.Config.Labels[sandbox.LabelInputCopy], sandbox.InputCopyTar), "the test image does not promise the copy on input")

	repo := t.TempDir()
	assert.NilError(t, os.Chmod(repo, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "shared.txt"), nil, 0o600))
	assert.NilError(t, os.Chmod(filepath.Join(repo, "shared.txt"), 0o664))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "a b.txt"), []byte("spaced\n"), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(repo, "docs"), 0o750))
	assert.NilError(t, os.Symlink("docs", filepath.Join(repo, "link")))
	const want = "755 agent:agent /workspace\n755 agent:agent run.sh\n664 agent:agent shared.txt\n644 agent:agent a b.txt\n750 agent:agent docs\n" +
		"docs\nspaced\nthe prompt\n600 agent:agent /readme2demo/prompt.md\nsecret-token\n"
	command := `cd /workspace && stat -c '%a %U:%G %n' /workspace run.sh shared.txt 'a b.txt' docs && readlink link && cat 'a b.txt' /readme2demo/prompt.md && ` +
		`stat -c '%a %U:%G %n' /readme2demo/prompt.md && echo "$TOKEN"`

	for _, tc := range []struct {
		name    string
		image   string
		profile string
		copies  int
	}{
		{"on the command's input", img, sandbox.ProfileDev, 0},
		{"by the daemon: an image without the promise", unlabelled(t, cli, img), sandbox.ProfileDev, 1},
		{"by the daemon: the strict profile", img, sandbox.ProfileStrict, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counter := &copyInCounter{Client: cli}
			s := spec(tc.image, command)
			s.Profile, s.RepoDir = tc.profile, repo
			s.Env = map[string]string{"TOKEN": "secret-token"}
			s.Files = []sandbox.File{{Path: "/readme2demo/prompt.md", Data: []byte("the prompt\n"), Mode: 0o600}}
			res, err := sandbox.Run(context.Background(), counter, s)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(res.Output), want))
			// The disk meter's own container gets its program copied in.
			into := 0
			for _, id := range counter.to {
				if id == res.ContainerID {
					into++
				}
			}
			assert.Check(t, is.Equal(into, tc.copies), "copies into the container")
		})
	}
}

// The files come out on the command's output as its shell exits (the test
// image promises tar): no copy by the daemon, the output as the command
// wrote it (without a last new line too), and the same files; a process
// the command left writing to the same output is killed first. A root
// process the agent may not kill (sudo, in the dev profile) leaves the
// copy to the daemon, with the same files; so does an image without tar.
func TestRunCopiesOutOnTheCommandsOutput(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	const files = `echo '{"n":1}' > ` + transcript + `; echo err > ` + stderrPath + `; echo notes > /readme2demo/notes.md; `
	for _, tc := range []struct {
		name, image, command string
		daemonCopies         bool
	}{
		{"on the output", img, files + `printf 'no new line'`, false},
		// Past the dev profile's first second the disk meter runs in the
		// container's process namespace, as root: the shell leaves it be.
		{"beside the disk meter", img, files + `sleep 1.5; printf 'no new line'`, false},
		{"a writer left behind is killed first", img, files + `(while :; do echo noise; sleep 0.001; done) & sleep 0.2; printf 'no new line'`, false},
		{"a root writer left behind: the daemon copies", img, files + `sudo -n sh -c 'while :; do echo noise; sleep 0.001; done' >/dev/null & sleep 0.2; printf 'no new line'`, true},
		{"an image without tar's promise: the daemon copies", unlabelled(t, cli, img), files + `printf 'no new line'`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counter := &copyCounter{Client: cli}
			s := spec(tc.image, tc.command)
			s.Collect = []string{"/readme2demo/notes.md"}
			res, err := sandbox.Run(context.Background(), counter, s)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(string(res.Transcript), "{\"n\":1}\n"))
			assert.Check(t, is.Equal(string(res.Stderr), "err\n"))
			assert.Check(t, is.DeepEqual(res.Collected, map[string][]byte{"/readme2demo/notes.md": []byte("notes\n")}))
			assert.Check(t, is.Len(res.CopyErrors, 0))
			assert.Check(t, is.Equal(res.Usage.OOMKills, 0), "the signals were read")
			assert.Assert(t, res.ExitCode != nil)
			assert.Check(t, is.Equal(*res.ExitCode, 0))
			out := strings.ReplaceAll(string(res.Output), "noise\n", "")
			assert.Check(t, is.Equal(out, "no new line"))
			assert.Check(t, !strings.Contains(string(res.Output), "readme2demo-copy"), "the copy-out's lines in the output")
			assert.Check(t, is.Equal(len(counter.from) > 0, tc.daemonCopies), "daemon copies: %q", counter.from)
			if tc.name == "beside the disk meter" {
				assert.Check(t, res.Usage.LayerMetered, "the meter did not measure")
			}
		})
	}
}

// On the output, the shell leaves out only what it may not take: a file
// over its limit and a symlink are the daemon's to copy (and refuse), the
// rest comes on the output.
func TestRunCopiesOutOnTheOutputAllButWhatItMayNotTake(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	counter := &copyCounter{Client: cli}
	s := spec(img, `echo ok > `+transcript+`; echo err > `+stderrPath+`; head -c 100 /dev/zero > /readme2demo/big.md; ln -s /etc/passwd /workspace/link.md`)
	s.Collect = []string{"/readme2demo/big.md", "/workspace/link.md"}
	s.CollectLimits = map[string]int64{"/readme2demo/big.md": 10}
	res, err := sandbox.Run(context.Background(), counter, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(res.Transcript), "ok\n"))
	assert.Check(t, is.Equal(string(res.Stderr), "err\n"))
	assert.Check(t, is.Len(res.Collected, 0))
	assert.Check(t, is.Len(res.CopyErrors, 2), "%v", res.CopyErrors)
	slices.Sort(counter.from)
	assert.Check(t, is.DeepEqual(counter.from, []string{"/readme2demo/big.md", "/workspace/link.md"}))
}
