package sandbox

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/errdefs"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// Prepare reads the image's files from the created container before it
// starts, and what it returns replaces the spec's file of the same path:
// the command reads the input made from the image the run really uses.
func TestPrepareReadsTheImageBeforeTheStart(t *testing.T) {
	d := happyDocker(t)
	d.copyFrom = func(src string) (io.ReadCloser, container.PathStat, error) {
		switch src {
		case "/usr/share/list.txt":
			return tarOf("list.txt", "ls\ncargo\n"), container.PathStat{Mode: 0o644}, nil
		case "/usr/share/dir":
			return tarOf("dir/inner", "x"), container.PathStat{Mode: fs.ModeDir | 0o755}, nil
		case "/usr/share/big":
			return tarOf("big", "0123456789"), container.PathStat{Mode: 0o644}, nil
		}
		return nil, container.PathStat{}, errdefs.NotFound(errors.New("Could not find the file " + src))
	}
	copied := map[string]string{}
	d.copyTo = func(dst string, r io.Reader) error {
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			assert.NilError(t, err)
			b, err := io.ReadAll(tr)
			assert.NilError(t, err)
			copied[path.Join(dst, h.Name)] = string(b)
		}
	}
	var got []string
	s := fakeSpec()
	s.Prepare = func(_ context.Context, read ReadFile) ([]File, error) {
		for _, r := range []struct {
			path  string
			limit int64
		}{{"/usr/share/list.txt", 5 << 10}, {"/usr/share/missing", 5 << 10}, {"/usr/share/dir", 5 << 10}, {"/usr/share/big", 4}} {
			b, err := read(r.path, r.limit)
			got = append(got, fmt.Sprintf("%s: %q nil=%t err=%v", r.path, b, b == nil, err))
		}
		return []File{{Path: "/readme2demo/prompt.md", Data: []byte("made from the image")}}, nil
	}
	_, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, []string{
		`/usr/share/list.txt: "ls\ncargo\n" nil=false err=<nil>`,
		`/usr/share/missing: "" nil=true err=<nil>`,
		`/usr/share/dir: "" nil=true err=read /usr/share/dir: not a regular file (d---------)`,
		`/usr/share/big: "" nil=true err=read /usr/share/big: big: file too large (10 bytes, kept 4)`,
	}))
	assert.Check(t, is.DeepEqual(copied, map[string]string{"/readme2demo/prompt.md": "made from the image"}))
	assert.Check(t, is.DeepEqual(d.mainCalls()[:8], []string{"list", "create", "inspect", "copy-from /usr/share/list.txt", "copy-from /usr/share/missing",
		"copy-from /usr/share/dir", "copy-from /usr/share/big", "attach"}))
}

// A failing Prepare ends the run before the container starts, and the
// container is removed.
func TestPrepareErrorEndsTheRunBeforeTheStart(t *testing.T) {
	d := happyDocker(t)
	boom := errors.New("boom")
	s := fakeSpec()
	s.Prepare = func(context.Context, ReadFile) ([]File, error) { return nil, boom }
	res, err := Run(context.Background(), d, s)
	assert.Check(t, errors.Is(err, boom), "err %v", err)
	assert.Check(t, is.ErrorContains(err, "prepare run: boom"))
	assert.Check(t, res.ExitCode == nil)
	assert.Check(t, is.DeepEqual(d.mainCalls(), []string{"list", "create", "inspect", "remove c1"}))
}
