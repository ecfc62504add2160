package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// archived lists a tar's entries as "name type uid:gid [content]".
func archived(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		assert.NilError(t, err)
		b, err := io.ReadAll(tr)
		assert.NilError(t, err)
		line := fmt.Sprintf("%s %c %d:%d", h.Name, h.Typeflag, h.Uid, h.Gid)
		if h.Typeflag == tar.TypeReg {
			line += " " + string(b)
		}
		if h.Typeflag == tar.TypeSymlink {
			line += " -> " + h.Linkname
		}
		out = append(out, line)
	}
}

// copyCalls are the run's copies in and out, in order.
func (f *fakeDocker) copyCalls() []string {
	var out []string
	for _, c := range f.mainCalls() {
		if strings.HasPrefix(c, "copy-") {
			out = append(out, c)
		}
	}
	return out
}

func repoForCopy(t *testing.T) string {
	repo := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# the repo's"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "src", "main.go"), []byte("package main"), 0o644))
	assert.NilError(t, os.Symlink("src/main.go", filepath.Join(repo, "run")))
	assert.NilError(t, os.MkdirAll(filepath.Join(repo, ".claude"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), []byte(`{"hooks":{}}`), 0o644))
	return repo
}

// Each copy is a daemon round trip: in the dev profile the repository and
// the run's files go in as one archive at "/" (the repository under the
// workdir, filtered, then the files, which replace a repository file of
// the same path), and the transcript and stderr come out in one archive of
// their directory; the README, alone in its directory, on its own.
func TestRunCopiesInOnceAndOutOncePerDirectory(t *testing.T) {
	d := happyDocker(t)
	var in []string
	d.copyTo = func(dst string, r io.Reader) error {
		in = append(in, archived(t, r)...)
		return nil
	}
	d.copyFrom = containerFS(map[string]string{
		"/readme2demo/t.jsonl":   "the transcript",
		"/readme2demo/t.stderr":  "the stderr",
		"/readme2demo/prompt.md": "p",
		"/workspace/README.md":   "# edited",
	})
	s := fakeSpec()
	s.RepoDir = repoForCopy(t)
	s.Files = append(s.Files, File{Path: "/workspace/README.md", Data: []byte("# given")})
	s.Collect = []string{"/workspace/README.md"}
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(d.copyCalls(), []string{"copy-to /", "copy-from /readme2demo", "copy-from /workspace/README.md"}))
	assert.Check(t, is.DeepEqual(in, []string{
		"workspace/ 5 1000:1000",
		"workspace/.claude/ 5 1000:1000",
		"workspace/README.md 0 1000:1000 # the repo's",
		"workspace/run 2 1000:1000 -> src/main.go",
		"workspace/src/ 5 1000:1000",
		"workspace/src/main.go 0 1000:1000 package main",
		"readme2demo/prompt.md 0 1000:1000 p",
		"workspace/README.md 0 1000:1000 # given",
	}))
	assert.Check(t, is.Equal(res.RepoConfig[0].Path, ".claude/settings.json"), "the repository's agent configuration is filtered on the way in: %v", res.RepoConfig)
	assert.Check(t, is.Equal(string(res.Transcript), "the transcript"))
	assert.Check(t, is.Equal(string(res.Stderr), "the stderr"))
	assert.Check(t, is.DeepEqual(res.Collected, map[string][]byte{"/workspace/README.md": []byte("# edited")}))
	assert.Check(t, is.Len(res.CopyErrors, 0))
}

// The strict profile's read-only root file system takes copies only into
// its volumes: the repository into the workdir, the files into theirs.
func TestRunCopiesIntoEachVolumeUnderStrict(t *testing.T) {
	d := happyDocker(t)
	in := map[string][]string{}
	var mu sync.Mutex // the meter's copy runs beside the sandbox's
	d.copyTo = func(dst string, r io.Reader) error {
		files := archived(t, r)
		mu.Lock()
		defer mu.Unlock()
		in[dst] = append(in[dst], files...)
		return nil
	}
	s := fakeSpec()
	s.Profile = ProfileStrict
	s.MeterBinary = os.Args[0]
	s.RepoDir = repoForCopy(t)
	_, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(d.copyCalls()[:2], []string{"copy-to /workspace", "copy-to /readme2demo"}))
	assert.Check(t, is.Contains(in["/workspace"], "./ 5 1000:1000"))
	assert.Check(t, is.DeepEqual(in["/readme2demo"], []string{"prompt.md 0 1000:1000 p"}))
}

// One archive of a directory keeps copyOut's protections for each file:
// a symlink is not followed, a file over its limit is not collected (and
// the transcript keeps its first limit bytes), a missing file is not found.
func TestCopyOutOfADirectoryKeepsTheProtections(t *testing.T) {
	d := happyDocker(t)
	d.copyFrom = containerFS(map[string]string{
		"/readme2demo/t.jsonl":     "symlink:/etc/shadow",
		"/readme2demo/big.md":      "0123456789",
		"/readme2demo/notes.md":    "notes",
		"/readme2demo/runner/out":  "x",
		"/readme2demo/session.log": "symlink:../workspace/secret",
	})
	s := fakeSpec()
	s.Collect = []string{"/readme2demo/big.md", "/readme2demo/notes.md", "/readme2demo/session.log"}
	s.CollectLimits = map[string]int64{"/readme2demo/big.md": 4}
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(d.copyCalls(), []string{"copy-to /", "copy-from /readme2demo"}))
	assert.Check(t, is.Len(res.Transcript, 0))
	assert.Check(t, is.DeepEqual(res.Collected, map[string][]byte{"/readme2demo/notes.md": []byte("notes")}))
	var msgs []string
	for _, e := range res.CopyErrors {
		msgs = append(msgs, e.Error())
	}
	assert.Check(t, is.DeepEqual(msgs, []string{
		"copy /readme2demo/t.jsonl out of container: not a regular file",
		"copy /readme2demo/t.stderr out of container: not found",
		"copy /readme2demo/big.md out of container: big.md: file too large (10 bytes, kept 4)",
		"copy /readme2demo/session.log out of container: not a regular file",
	}))
	assert.Check(t, cerrdefs.IsNotFound(res.CopyErrors[1]))
	assert.Check(t, errors.Is(res.CopyErrors[2], ErrTooLarge))
}

// What the run leaves in the directory before the wanted files cannot
// hold them up for long: past maxCopyOutSkip, the directory's archive is
// given up and each file copied on its own.
func TestCopyOutGivesUpACrowdedDirectory(t *testing.T) {
	d := happyDocker(t)
	d.copyFrom = containerFS(map[string]string{
		"/readme2demo/a-lot":    strings.Repeat("x", maxCopyOutSkip+1),
		"/readme2demo/t.jsonl":  "the transcript",
		"/readme2demo/t.stderr": "the stderr",
	})
	res, err := Run(context.Background(), d, fakeSpec())
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(d.copyCalls(), []string{"copy-to /", "copy-from /readme2demo",
		"copy-from /readme2demo/t.jsonl", "copy-from /readme2demo/t.stderr", "copy-from /readme2demo/.signals"}))
	assert.Check(t, is.Equal(string(res.Transcript), "the transcript"))
	assert.Check(t, is.Equal(string(res.Stderr), "the stderr"))
}

// A repository archive's entry that would leave the workdir once moved
// under it is refused, not extracted elsewhere in the container.
func TestRebaseRefusesEntriesLeavingTheRepository(t *testing.T) {
	for _, name := range []string{"../etc/passwd", "a/../../etc/passwd", "/etc/passwd"} {
		var src, dst bytes.Buffer
		tw := tar.NewWriter(&src)
		assert.NilError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg}))
		assert.NilError(t, tw.Close())
		err := rebase(tar.NewWriter(&dst), tar.NewReader(&src), "workspace")
		assert.Check(t, is.ErrorContains(err, "leaves the repository"), name)
	}
}

// A collected file whose content the run knows (the README copied in) is
// checked by the command's EXIT trap (signalsTrap); one the command left as
// it was comes back without a copy out, and one it changed, or a check
// that did not run (the command timed out), is copied as before.
func TestRunCopiesOutOnlyTheKnownFilesThatChanged(t *testing.T) {
	readme := []byte("# the repo's\n")
	sum := sha256.Sum256(readme)
	for _, tc := range []struct {
		name      string
		signals   string
		timeout   bool
		wantCalls []string
		want      string
	}{
		{"unchanged", "known 0 " + hex.EncodeToString(sum[:]) + "\n", false,
			[]string{"copy-to /", "copy-from /readme2demo"}, "# the repo's\n"},
		{"changed", "known 0 " + strings.Repeat("0", 64) + "\n", false,
			[]string{"copy-to /", "copy-from /readme2demo", "copy-from /workspace/README.md"}, "# edited"},
		{"no answer", "", false,
			[]string{"copy-to /", "copy-from /readme2demo", "copy-from /workspace/README.md"}, "# edited"},
		{"timed out", "known 0 " + hex.EncodeToString(sum[:]) + "\n", true,
			[]string{"copy-to /", "copy-from /readme2demo", "copy-from /workspace/README.md"}, "# edited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := happyDocker(t)
			if tc.timeout {
				d, _ = hangingDocker(t)
			}
			var cmd []string
			create := d.create
			d.create = func(c *container.Config, hc *container.HostConfig, name string) (container.CreateResponse, error) {
				cmd = c.Cmd
				return create(c, hc, name)
			}
			files := map[string]string{
				"/readme2demo/t.jsonl":  "the transcript",
				"/readme2demo/t.stderr": "the stderr",
				"/workspace/README.md":  "# edited",
			}
			if tc.signals != "" {
				files[signalsPath] = tc.signals
			}
			d.copyFrom = containerFS(files)
			s := fakeSpec()
			s.Collect = []string{"/workspace/README.md"}
			s.CollectKnown = map[string][]byte{"/workspace/README.md": readme}
			if tc.timeout {
				s.Timeout = time.Millisecond
			}
			res, err := Run(context.Background(), d, s)
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(d.copyCalls(), tc.wantCalls))
			assert.Check(t, is.DeepEqual(res.Collected, map[string][]byte{"/workspace/README.md": []byte(tc.want)}))
			assert.Assert(t, is.Len(cmd, 3))
			assert.Check(t, is.Contains(cmd[2], `[ -f /workspace/README.md ] && [ ! -L /workspace/README.md ] && `+
				`[ "$(wc -c < /workspace/README.md)" -eq 13 ] && h=$(sha256sum < /workspace/README.md) && echo "known 0 ${h%% *}"`))
		})
	}
}
