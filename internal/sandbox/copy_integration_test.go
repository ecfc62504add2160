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
// symlink to the same text, is copied (and the symlink not followed).
func TestRunCopiesOutTheKnownReadmeOnlyWhenChanged(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	repo := t.TempDir()
	readme := "# demo\n"
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte(readme), 0o644))
	for _, tc := range []struct {
		name, cmd string
		copied    bool
		want      map[string][]byte
	}{
		{"left as it was", "cat README.md >/dev/null", false, map[string][]byte{"/workspace/README.md": []byte(readme)}},
		{"edited, same size", "printf '# dome\\n' > README.md", true, map[string][]byte{"/workspace/README.md": []byte("# dome\n")}},
		{"a symlink to the same text", "cp README.md /tmp/r; ln -sf /tmp/r README.md", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &copyCounter{Client: cli}
			s := spec(img, tc.cmd+"; echo ok > "+transcript)
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
