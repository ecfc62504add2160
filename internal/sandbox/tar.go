package sandbox

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/readme2demo/readme2demo/internal/repoconfig"
	"github.com/readme2demo/readme2demo/internal/repofs"
)

// owner parses "uid:gid" (or "uid") into numbers; names count as 1000, the
// image's agent user.
func owner(user string) (uid, gid int) {
	u, g, _ := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil {
		uid = 1000
	}
	gid, err = strconv.Atoi(g)
	if err != nil {
		gid = uid
	}
	return uid, gid
}

// tarDir writes dir's tree to w as a tar whose entries belong to uid:gid,
// starting with the "./" entry (so the destination directory gets that owner
// too). It reads the tree only through repofs: regular files, directories
// and symlinks (as links, never followed) are copied; FIFOs, sockets,
// devices and hard links with names outside the tree are left out and
// returned as Skip findings. It only reads dir.
func tarDir(w io.Writer, dir string, uid, gid int) ([]repoconfig.Finding, error) {
	tw := tar.NewWriter(w)
	var skipped []repoconfig.Finding
	err := repofs.Walk(dir, func(e repofs.Entry, open func() (io.ReadCloser, error)) error {
		if e.Skip != "" {
			skipped = append(skipped, repoconfig.Finding{Path: e.Rel, Action: repoconfig.Skip, Reason: e.Skip})
			return nil
		}
		hdr, err := tar.FileInfoHeader(e.Info, e.Link)
		if err != nil {
			return err
		}
		name := e.Rel
		if e.Info.IsDir() {
			name += "/"
		}
		if e.Rel == "." {
			name = "./"
		}
		hdr.Name = name
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = uid, gid, "", ""
		hdr.Format = tar.FormatPAX
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if open == nil {
			return nil
		}
		f, err := open()
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.CopyN(tw, f, hdr.Size); err != nil {
			return fmt.Errorf("copy %s: %w", e.Rel, err)
		}
		return nil
	})
	if err != nil {
		return skipped, fmt.Errorf("archive %s: %w", dir, err)
	}
	return skipped, tw.Close()
}

// tarFiles writes files (paths relative to the archive root) to a tar.
func tarFiles(w io.Writer, files map[string]File, uid, gid int, now time.Time) error {
	tw := tar.NewWriter(w)
	if err := writeFiles(tw, files, uid, gid, now); err != nil {
		return err
	}
	return tw.Close()
}

// writeFiles adds files (by their names in the archive, in name order) to
// tw, owned by uid:gid.
func writeFiles(tw *tar.Writer, files map[string]File, uid, gid int, now time.Time) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f := files[name]
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{Name: name, Mode: mode, Size: int64(len(f.Data)), Uid: uid, Gid: gid, ModTime: now, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	return nil
}

// ErrTooLarge is wrapped by the error of a file copied out that is larger
// than its limit (Result.CopyErrors).
var ErrTooLarge = errors.New("file too large")

// CopyExecutable copies the open file f (st is its stat) into container id
// as dir/name with mode 0755, streaming the archive.
func CopyExecutable(ctx context.Context, d interface {
	CopyToContainer(ctx context.Context, containerID, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
}, id, dir, name string, f io.Reader, st fs.FileInfo) error {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg})
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	err := d.CopyToContainer(ctx, id, dir, pr, container.CopyToContainerOptions{})
	pr.CloseWithError(errors.New("copy aborted"))
	return err
}

// readTarFile returns the contents of the first regular file in a tar
// stream, at most limit bytes.
func readTarFile(r io.Reader, limit int64) ([]byte, error) {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("read archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		return readTarEntry(tr, hdr, limit)
	}
}

// readTarEntry reads the current entry of tr (hdr), at most limit bytes:
// a larger entry gives what was read and an error wrapping ErrTooLarge.
func readTarEntry(tr *tar.Reader, hdr *tar.Header, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(tr, limit))
	if err != nil {
		return data, fmt.Errorf("read %s: %w", path.Base(hdr.Name), err)
	}
	if hdr.Size > limit {
		return data, fmt.Errorf("%s: %w (%d bytes, kept %d)", path.Base(hdr.Name), ErrTooLarge, hdr.Size, limit)
	}
	return data, nil
}
