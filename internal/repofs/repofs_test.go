package repofs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const canary = "HOST-FILE-CANARY-7f3a"

// tree makes a repository directory and a host file beside it.
func tree(t *testing.T) (repo, hostFile string) {
	t.Helper()
	base := t.TempDir()
	repo = filepath.Join(base, "repo")
	assert.NilError(t, os.MkdirAll(filepath.Join(repo, "docs"), 0o755))
	hostFile = filepath.Join(base, "host.txt")
	assert.NilError(t, os.WriteFile(hostFile, []byte(canary), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("# readme\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "docs", "guide.md"), []byte("# guide\n"), 0o644))
	return repo, hostFile
}

func TestReadFileRefusesEscapes(t *testing.T) {
	repo, host := tree(t)
	must := func(err error) { t.Helper(); assert.NilError(t, err) }
	must(os.Symlink(host, filepath.Join(repo, "abs.md")))
	must(os.Symlink("../host.txt", filepath.Join(repo, "rel.md")))
	must(os.Symlink("/proc/self/environ", filepath.Join(repo, "environ.md")))
	must(os.Symlink(filepath.Dir(host), filepath.Join(repo, "outdir")))
	must(os.Symlink("docs/../../host.txt", filepath.Join(repo, "sneaky.md")))
	must(os.Symlink("chain2.md", filepath.Join(repo, "chain1.md")))
	must(os.Symlink("../host.txt", filepath.Join(repo, "chain2.md")))
	must(os.Link(host, filepath.Join(repo, "hard.md")))
	must(syscall.Mkfifo(filepath.Join(repo, "fifo.md"), 0o644))
	must(os.Symlink("fifo.md", filepath.Join(repo, "to-fifo.md")))
	must(os.Symlink("loop2", filepath.Join(repo, "loop1")))
	must(os.Symlink("loop1", filepath.Join(repo, "loop2")))

	for _, tc := range []struct {
		rel, want string
	}{
		{"abs.md", "symlink abs.md"},
		{"rel.md", "symlink rel.md"},
		{"environ.md", "symlink environ.md"},
		{"outdir/host.txt", "symlink outdir"},
		{"sneaky.md", "symlink sneaky.md"},
		{"chain1.md", "symlink chain1.md"},
		{"hard.md", "hard link"},
		{"fifo.md", "not a regular file (a FIFO)"},
		{"to-fifo.md", "not a regular file (a FIFO)"},
		{"docs", "not a regular file (a directory)"},
		{"loop1", "loop1"},
		{"../host.txt", "leads out of the repository"},
		{"/etc/passwd", "not a path relative"},
		{"missing.md", "not found"},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			done := make(chan struct{})
			var b []byte
			var err error
			go func() { b, err = ReadFile(repo, tc.rel, 1<<20); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile blocks")
			}
			assert.Check(t, b == nil)
			assert.ErrorContains(t, err, tc.want)
			var re *Error
			assert.Check(t, errors.As(err, &re), "%T", err)
			assert.Check(t, !strings.Contains(err.Error(), canary))
			assert.Check(t, !strings.Contains(err.Error(), filepath.Dir(host)), "the error names a host path: %v", err)
		})
	}
}

func TestReadFileFollowsLinksInside(t *testing.T) {
	repo, _ := tree(t)
	assert.NilError(t, os.Symlink("docs/guide.md", filepath.Join(repo, "GUIDE.md")))
	assert.NilError(t, os.Symlink("docs", filepath.Join(repo, "d")))
	for _, rel := range []string{"README.md", "./README.md", "GUIDE.md", "d/guide.md", "docs/../README.md"} {
		b, err := ReadFile(repo, rel, 1<<20)
		assert.NilError(t, err, rel)
		assert.Check(t, len(b) > 0)
	}
}

func TestReadFileCap(t *testing.T) {
	repo, _ := tree(t)
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "big.md"), make([]byte, 2048), 0o644))
	b, err := ReadFile(repo, "big.md", 2048)
	assert.NilError(t, err)
	assert.Check(t, is.Len(b, 2048))
	_, err = ReadFile(repo, "big.md", 2047)
	assert.Check(t, errors.Is(err, ErrTooLarge))
	assert.ErrorContains(t, err, "big.md: 2048 bytes, larger than the 2047 bytes readme2demo reads")
}

func TestWalk(t *testing.T) {
	repo, host := tree(t)
	assert.NilError(t, os.Symlink(host, filepath.Join(repo, "abs.md")))
	assert.NilError(t, os.Link(host, filepath.Join(repo, "hard.md")))
	assert.NilError(t, os.Link(filepath.Join(repo, "docs", "guide.md"), filepath.Join(repo, "guide-again.md")))
	assert.NilError(t, syscall.Mkfifo(filepath.Join(repo, "fifo"), 0o644))
	got := map[string]string{}
	var order []string
	err := Walk(repo, func(e Entry, open func() (io.ReadCloser, error)) error {
		order = append(order, e.Rel)
		switch {
		case e.Skip != "":
			got[e.Rel] = "skip: " + e.Skip
		case e.Link != "":
			got[e.Rel] = "link: " + e.Link
		case open != nil:
			rc, err := open()
			assert.NilError(t, err)
			b, _ := io.ReadAll(rc)
			rc.Close()
			got[e.Rel] = "file: " + string(b)
		default:
			got[e.Rel] = "dir"
		}
		return nil
	})
	assert.NilError(t, err)
	assert.Check(t, sort.StringsAreSorted(order[1:]), "%v", order)
	assert.Check(t, is.Equal(got["."], "dir"))
	assert.Check(t, is.Equal(got["abs.md"], "link: "+host))
	assert.Check(t, strings.HasPrefix(got["hard.md"], "skip: a hard link with names outside the repository (2 names, 1 inside)"), got["hard.md"])
	assert.Check(t, is.Equal(got["fifo"], "skip: not a regular file (a FIFO)"))
	assert.Check(t, is.Equal(got["guide-again.md"], "file: # guide\n"), "hard links inside the tree are content")
	assert.Check(t, is.Equal(got["docs/guide.md"], "file: # guide\n"))
	for k, v := range got {
		assert.Check(t, !strings.Contains(v, canary), "%s: %s", k, v)
	}
}

// FuzzReadFile plants a host file beside a repository, builds one entry
// of the repository from the fuzzer's choices (a file, a symlink with any
// target, a FIFO, a directory) and reads an arbitrary path: ReadFile never
// returns host content, never blocks, never exceeds its cap, and its
// errors are typed and carry no content.
//
//	go test ./internal/repofs -run '^$' -fuzz '^FuzzReadFile$' -fuzztime 20s
func FuzzReadFile(f *testing.F) {
	f.Add("README.md", byte(0), "", "README.md", uint16(100))
	f.Add("README.md", byte(1), "../host.txt", "README.md", uint16(100))
	f.Add("README.md", byte(1), "/proc/self/environ", "README.md", uint16(100))
	f.Add("d", byte(1), "..", "d/host.txt", uint16(100))
	f.Add("a/b.md", byte(1), "../../host.txt", "a/b.md", uint16(100))
	f.Add("x", byte(2), "", "x", uint16(100))
	f.Add("x", byte(3), "", "x/../../host.txt", uint16(100))
	f.Add("x.md", byte(4), "", "x.md", uint16(3))
	f.Fuzz(func(t *testing.T, name string, kindSel byte, target, read string, max uint16) {
		name = filepath.ToSlash(filepath.Clean(name))
		if name == "." || strings.HasPrefix(name, "../") || name == ".." || filepath.IsAbs(name) ||
			strings.ContainsRune(name, 0) || strings.ContainsRune(target, 0) || strings.ContainsRune(read, 0) || len(name) > 200 {
			t.Skip()
		}
		repo, _ := tree(t)
		p := filepath.Join(repo, filepath.FromSlash(name))
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
			t.Skip()
		}
		_ = os.RemoveAll(p)
		var err error
		switch kindSel % 5 {
		case 0, 4:
			err = os.WriteFile(p, []byte("content of "+name), 0o644)
		case 1:
			err = os.Symlink(target, p)
		case 2:
			err = syscall.Mkfifo(p, 0o644)
		case 3:
			err = os.MkdirAll(p, 0o755)
		}
		if err != nil {
			t.Skip()
		}
		done := make(chan struct{})
		var b []byte
		go func() { b, err = ReadFile(repo, read, int64(max)); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%q) blocks", read)
		}
		if strings.Contains(string(b), canary) {
			t.Fatalf("ReadFile(%q) returned the host file", read)
		}
		if int64(len(b)) > int64(max) {
			t.Fatalf("ReadFile returned %d bytes, cap %d", len(b), max)
		}
		if err != nil {
			var re *Error
			var tl *TooLargeError
			if !errors.As(err, &re) && !errors.As(err, &tl) && !errors.Is(err, fs.ErrPermission) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if strings.Contains(err.Error(), canary) {
				t.Fatal("the error quotes the host file")
			}
		}
	})
}
