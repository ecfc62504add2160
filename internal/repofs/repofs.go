// Package repofs is the one way readme2demo reads repository content on
// the host: the README, repository configuration files and the tree copied
// into the sandbox.
//
// The repository is untrusted (it may come from a pull request), so a path
// inside it may be a symlink to a host file (/proc/self/environ, a key
// under $HOME, "../../elsewhere"), a hard link to one, a FIFO that blocks
// the reader forever, a device, or a file of many gigabytes. Whatever
// readme2demo reads from it on the host may end up published (in
// command_log.json, the PR comment, the demo) or, under the markdown
// engine, run. The rules, enforced here and nowhere else:
//
//   - Every path is resolved beneath the repository root with os.Root:
//     a symlink may lead anywhere inside the repository, never out of it
//     (absolute symlinks are refused, ".." past the root is refused), and
//     the check is race-free (no check-then-open window).
//   - Only regular files are read. FIFOs, sockets and devices are refused
//     without being opened for reading (the open is non-blocking and the
//     type is checked on the open descriptor).
//   - A regular file with more than one link is read only when every one
//     of its names lies inside the repository (ReadFile: never; Walk counts
//     the names it sees): a hard link can make a host file look like a
//     repository file.
//   - Every read is capped; a larger file is refused, not truncated
//     silently.
//
// Mount points inside the repository are crossed (only root can create
// them). On systems without link counts (Windows) the hard-link rule is
// not applied.
package repofs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Error is a repository path readme2demo refuses to read. Its message
// names the path and says why, and never quotes file content.
type Error struct {
	Path   string // slash-separated, relative to the repository root
	Reason string
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// ErrTooLarge is wrapped by the error for a file larger than the cap.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is a regular file over the read cap.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, larger than the %s readme2demo reads", e.Path, e.Size, Size(e.Max))
}

// Unwrap lets errors.Is(err, ErrTooLarge) classify it.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Size formats a byte count for messages ("2 MiB", "512 KiB", "100 bytes").
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Clean turns a user- or repository-given relative path into a clean,
// slash-separated path inside the root, or reports why it is not one.
func Clean(rel string) (string, error) {
	p := filepath.ToSlash(rel)
	if p == "" || path.IsAbs(p) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", &Error{Path: rel, Reason: "not a path relative to the repository root"}
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", &Error{Path: rel, Reason: "leads out of the repository"}
	}
	return p, nil
}

// ReadFile reads the regular file rel (relative to the repository root
// dir) and returns at most max bytes of it, under the package's rules: no
// escape through symlinks or "..", only a regular file with one link, no
// more than max bytes (a larger file is a *TooLargeError). A refused path
// is an *Error.
func ReadFile(dir, rel string, max int64) ([]byte, error) {
	p, err := Clean(rel)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	defer root.Close()
	f, err := openRegular(root, dir, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if n, ok := links(info); ok && n > 1 {
		return nil, &Error{Path: p, Reason: fmt.Sprintf("a hard link (%d names): it may be a file outside the repository, so readme2demo does not read it; replace it with a copy", n)}
	}
	return readCapped(f, p, info.Size(), max)
}

// readCapped reads at most max bytes of f and refuses more.
func readCapped(r io.Reader, p string, size, max int64) ([]byte, error) {
	if size > max {
		return nil, &TooLargeError{Path: p, Size: size, Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if int64(len(b)) > max {
		// It grew while being read.
		return nil, &TooLargeError{Path: p, Size: int64(len(b)), Max: max}
	}
	return b, nil
}

// openRegular opens p beneath root for reading and makes sure the open
// descriptor is a regular file. Errors explain what p is instead.
func openRegular(root *os.Root, dir, p string) (*os.File, error) {
	// The type is looked at before opening (a device is never opened) and
	// again on the descriptor (the path may change in between).
	st, err := root.Stat(p)
	if err != nil {
		return nil, explain(dir, p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: p, Reason: "not a regular file (" + kind(st.Mode()) + ")"}
	}
	f, err := root.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, explain(dir, p, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Path: p, Reason: "not a regular file (" + kind(info.Mode()) + ")"}
	}
	return f, nil
}

// explain turns an os.Root error into the reason a user can act on: a
// symlink that leads out of the repository, or a missing file.
func explain(dir, p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if link := escapingLink(dir, p, 0); link != "" {
			return &Error{Path: p, Reason: "passes through the symlink " + link + ", which leads out of the repository (or to a missing file); readme2demo reads nothing outside the repository"}
		}
		return &Error{Path: p, Reason: "not found"}
	}
	if link := escapingLink(dir, p, 0); link != "" {
		return &Error{Path: p, Reason: "passes through the symlink " + link + ", which leads out of the repository; readme2demo reads nothing outside the repository"}
	}
	return &Error{Path: p, Reason: "cannot be read beneath the repository root: " + rootReason(err)}
}

// rootReason is an os.Root error without the absolute host path.
func rootReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// escapingLink finds, for diagnosis only, the first component of p that is
// a symlink whose target is absolute or climbs out of the repository.
func escapingLink(dir, p string, hops int) string {
	if hops > 40 {
		return ""
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		cur := strings.Join(parts[:i+1], "/")
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(cur)))
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(filepath.Join(dir, filepath.FromSlash(cur)))
			if err != nil {
				return cur
			}
			t := filepath.ToSlash(target)
			if path.IsAbs(t) || filepath.IsAbs(target) {
				return cur
			}
			resolved := path.Clean(path.Join(strings.Join(parts[:i], "/"), t))
			if resolved == ".." || strings.HasPrefix(resolved, "../") {
				return cur
			}
			// A link inside the repository: keep looking (a chain may
			// still leave it).
			if sub := escapingLink(dir, path.Join(append([]string{resolved}, parts[i+1:]...)...), hops+1); sub != "" {
				return cur
			}
			return ""
		}
	}
	return ""
}

// kind names a non-regular file type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}

// Entry is one path of a repository tree as Walk sees it.
type Entry struct {
	Rel  string      // slash-separated, relative to the root ("." for the root)
	Info fs.FileInfo // from lstat: a symlink is described, not followed
	Link string      // the target of a symlink
	// Skip says why the entry is left out ("" when it is used): a FIFO,
	// socket or device, or a hard link with names outside the tree.
	Skip string
}

// Walk visits the tree at dir in lexical order without following symlinks
// (a symlink is an entry with its target, to be recreated as a link, never
// read through). For a regular file, open returns its content, opened
// beneath the root and checked to be the file that was walked. Entries
// with a Skip reason are reported but must not be copied; fn returning
// fs.SkipDir on a directory skips it.
func Walk(dir string, fn func(e Entry, open func() (io.ReadCloser, error)) error) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open repository %s: %w", dir, err)
	}
	defer root.Close()
	// First pass: how many names each multiply-linked file has in the
	// tree. A hard link whose names are all inside is repository content.
	inTree := map[fileID]uint64{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if n, ok := links(info); ok && n > 1 {
			if id, ok := idOf(info); ok {
				inTree[id]++
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk repository %s: %w", dir, err)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := Entry{Rel: filepath.ToSlash(rel), Info: info}
		mode := info.Mode()
		switch {
		case mode.IsDir():
		case mode&fs.ModeSymlink != 0:
			if e.Link, err = os.Readlink(p); err != nil {
				return err
			}
		case mode.IsRegular():
			if n, ok := links(info); ok && n > 1 {
				if id, ok := idOf(info); !ok || inTree[id] < n {
					e.Skip = fmt.Sprintf("a hard link with names outside the repository (%d names, %d inside): it may be a host file", n, inTree[id])
				}
			}
		default:
			e.Skip = "not a regular file (" + kind(mode) + ")"
		}
		var open func() (io.ReadCloser, error)
		if mode.IsRegular() && e.Skip == "" {
			open = func() (io.ReadCloser, error) {
				f, err := openRegular(root, dir, e.Rel)
				if err != nil {
					return nil, err
				}
				st, err := f.Stat()
				if err == nil && !os.SameFile(st, info) {
					err = &Error{Path: e.Rel, Reason: "changed while being read"}
				}
				if err != nil {
					f.Close()
					return nil, err
				}
				return f, nil
			}
		}
		return fn(e, open)
	})
}
