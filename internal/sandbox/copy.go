package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/readme2demo/readme2demo/internal/repoconfig"
	"github.com/readme2demo/readme2demo/internal/timing"
)

// Copies in and out of the container go through the daemon, and each is a
// round trip that costs far more than the bytes it moves (hundreds of
// milliseconds on a loaded machine): a run makes as few as it can. The
// repository and the run's files go in as one archive, and the files the
// run collects from one directory come out as one.

// maxCopyOutSkip bounds what a directory's archive may hold besides the
// files wanted from it (their headers counted too) before it is given up
// for one copy per file: the directory is writable by the run, and what a
// README command leaves there must not delay the transcript for long.
const maxCopyOutSkip = 16 << 20

// errCopyAborted ends an archive's stream when its copy has ended.
var errCopyAborted = errors.New("copy aborted")

// copyWay is how the repository and the files go in.
type copyWay int

const (
	copyOneArchive copyWay = iota // by the daemon: one archive extracted at "/"
	copyPerVolume                 // by the daemon: one copy into each volume (a read-only root)
	copyOnInput                   // on the command's standard input (inputcopy.go)
)

// copyWayOf is the way for s in a container of those labels.
func copyWayOf(s Spec, labels map[string]string, readonlyRoot bool) copyWay {
	switch {
	case takesInputCopy(s, labels, readonlyRoot):
		return copyOnInput
	case readonlyRoot:
		return copyPerVolume
	}
	return copyOneArchive
}

// copyIn copies the repository into the workdir and the files beside it.
//
// With a writable root file system (one) it is a single archive extracted
// at "/". A read-only root file system (the strict profile) takes copies
// only into its volumes: the repository goes to the workdir and the files
// to their directories, one copy each.
func copyIn(ctx context.Context, d Docker, id string, s Spec, res *Result, one bool) error {
	uid, gid := owner(s.User)
	files := filesByPath(s)
	if one {
		return copyInOne(ctx, d, id, s, res, files, uid, gid)
	}
	if s.RepoDir != "" {
		repo, wait := repoArchive(s.RepoDir, uid, gid)
		err := d.CopyToContainer(ctx, id, s.Workdir, repo, container.CopyToContainerOptions{})
		repo.CloseWithError(errCopyAborted)
		res.RepoConfig = wait()
		if err != nil {
			return fmt.Errorf("copy repository into container: %w", err)
		}
	}
	byDir := map[string]map[string]File{}
	for p, f := range files {
		dir, base := path.Split(p)
		dir = path.Clean(dir)
		if byDir[dir] == nil {
			byDir[dir] = map[string]File{}
		}
		byDir[dir][base] = f
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		var buf bytes.Buffer
		if err := tarFiles(&buf, byDir[dir], uid, gid, s.Now()); err != nil {
			return fmt.Errorf("archive files for %s: %w", dir, err)
		}
		if err := d.CopyToContainer(ctx, id, dir, &buf, container.CopyToContainerOptions{}); err != nil {
			return fmt.Errorf("copy files into %s: %w", dir, err)
		}
	}
	return nil
}

// filesByPath is s.Files by clean path: a later file replaces an earlier
// one.
func filesByPath(s Spec) map[string]File {
	files := make(map[string]File, len(s.Files))
	for _, f := range s.Files {
		files[path.Clean(f.Path)] = f
	}
	return files
}

// copyInOne copies the repository (under the workdir's name) and then the
// files (under their own) in one archive extracted at "/".
func copyInOne(ctx context.Context, d Docker, id string, s Spec, res *Result, files map[string]File, uid, gid int) error {
	out, finish, err := oneArchive(s, files, uid, gid)
	if err != nil {
		return err
	}
	err = d.CopyToContainer(ctx, id, "/", out, container.CopyToContainerOptions{})
	out.CloseWithError(errCopyAborted)
	findings, archErr := finish()
	res.RepoConfig = findings
	if err == nil || archErr != nil {
		err = archErr // the archive's failure made the copy fail
	}
	if err != nil {
		return fmt.Errorf("copy repository and files into container: %w", err)
	}
	return nil
}

// oneArchive streams the repository (under the workdir's name) and then
// the files (under their own) as one archive to extract at "/". Once the
// caller has closed out, finish returns what repoArchive found and the
// archive's own error (nil when it ended because out was closed first).
func oneArchive(s Spec, files map[string]File, uid, gid int) (out *io.PipeReader, finish func() ([]repoconfig.Finding, error), err error) {
	workdir := strings.TrimPrefix(path.Clean(s.Workdir), "/")
	if workdir == "" || !path.IsAbs(s.Workdir) {
		return nil, nil, &ConfigError{fmt.Sprintf("workdir %q: give an absolute directory other than /", s.Workdir)}
	}
	var repo *io.PipeReader
	wait := func() []repoconfig.Finding { return nil }
	if s.RepoDir != "" {
		repo, wait = repoArchive(s.RepoDir, uid, gid)
	}
	out, ow := io.Pipe()
	done := make(chan error, 1)
	go func() {
		tw := tar.NewWriter(ow)
		err := func() error {
			if repo != nil {
				if err := rebase(tw, tar.NewReader(repo), workdir); err != nil {
					return err
				}
			}
			named := make(map[string]File, len(files))
			for p, f := range files {
				if !path.IsAbs(p) || p == "/" {
					return fmt.Errorf("archive files: %q is not an absolute file path", f.Path)
				}
				named[strings.TrimPrefix(p, "/")] = f
			}
			if err := writeFiles(tw, named, uid, gid, s.Now()); err != nil {
				return fmt.Errorf("archive files: %w", err)
			}
			return tw.Close()
		}()
		if repo != nil {
			repo.CloseWithError(err) // stops the repository's archive early on an error
		}
		ow.CloseWithError(err)
		done <- err
	}()
	return out, func() ([]repoconfig.Finding, error) {
		err := <-done
		if errors.Is(err, errCopyAborted) || errors.Is(err, io.ErrClosedPipe) {
			err = nil // the copy ended first: its error says why
		}
		return wait(), err
	}, nil
}

// repoArchive streams the repository's tar, with names relative to it,
// through repoconfig.FilterTar: agent configuration that could run code
// or widen permissions at agent start never reaches the container. The
// host checkout is only read. The caller closes r when done with it; wait
// then returns what was removed, scrubbed, flagged or skipped.
func repoArchive(dir string, uid, gid int) (r *io.PipeReader, wait func() []repoconfig.Finding) {
	pr, pw := io.Pipe()
	skippedc := make(chan []repoconfig.Finding, 1)
	go func() {
		skipped, err := tarDir(pw, dir, uid, gid)
		skippedc <- skipped
		pw.CloseWithError(err)
	}()
	fr, fw := io.Pipe()
	findingsc := make(chan []repoconfig.Finding, 1)
	go func() {
		findings, err := repoconfig.FilterTar(fw, pr)
		pr.CloseWithError(err)
		fw.CloseWithError(err)
		findingsc <- findings
	}()
	return fr, func() []repoconfig.Finding { return repoconfig.Merge(<-findingsc, <-skippedc) }
}

// rebase copies the entries of tr to tw with their names (and hard
// links' targets, which tar names from the archive's root) moved under
// dir. A name that would leave dir is an error; symlink targets are kept
// as they are: they resolve inside the container, as they did before.
func rebase(tw *tar.Writer, tr *tar.Reader, dir string) error {
	under := func(name string) (string, error) {
		clean := path.Clean(name)
		switch {
		case clean == ".":
			return dir + "/", nil
		case path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../"):
			return "", fmt.Errorf("archive repository: entry %q leaves the repository", name)
		}
		return dir + "/" + clean, nil
	}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read repository tar: %w", err)
		}
		name, err := under(hdr.Name)
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeDir && !strings.HasSuffix(name, "/") {
			name += "/"
		}
		hdr.Name = name
		if hdr.Typeflag == tar.TypeLink {
			if hdr.Linkname, err = under(hdr.Linkname); err != nil {
				return err
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("write archive: %w", err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return fmt.Errorf("copy %s: %w", name, err)
		}
	}
}

// wanted is a file to copy out and the most of it to keep.
type wanted struct {
	path  string
	limit int64
}

// copied is a file copied out: what was read of it, and what went wrong.
type copied struct {
	data []byte
	err  error
}

// copyOutAll copies the transcript, stderr and the collected files out of
// the container (running or stopped) into res, and reads what the kernel
// counted (readSignals). The signals file the command's exit trap wrote
// (signalsPath) comes out with the transcript; without it (the command
// was stopped, or its shell never reached its end) the counters are
// unknown but for the daemon's OOM state. A collected file they show
// unchanged is its Spec.CollectKnown content, without a copy. framed are
// the files the command's shell wrote to its output as it exited
// (outputcopy.go): those need no copy at all. Each copy gets timeout;
// phase measures the copies (timing.CopyOut) and the signals' reading
// (timing.Signals).
func copyOutAll(d Docker, id string, s Spec, res *Result, timeout time.Duration, phase func(timing.Phase) func(), framed map[string][]byte) {
	// Everything but the files whose copy depends on the signals (those
	// with known content) comes out at once: what the shell wrote to its
	// output as it exited needs no copy.
	var wants []wanted
	got := map[string]copied{}
	for _, w := range outputWants(s) {
		if data, ok := framed[w.path]; ok {
			got[w.path] = copied{data: data}
		} else if _, known := s.CollectKnown[w.path]; !known {
			wants = append(wants, w)
		}
	}
	done := phase(timing.CopyOut)
	maps.Copy(got, copyOutFiles(d, id, wants, timeout))
	done()
	if s.TranscriptPath != "" {
		c := got[s.TranscriptPath]
		res.Transcript = c.data
		if c.err != nil {
			res.CopyErrors = append(res.CopyErrors, c.err)
		}
	}
	if s.StderrPath != "" {
		c := got[s.StderrPath]
		res.Stderr = c.data
		if c.err != nil {
			res.CopyErrors = append(res.CopyErrors, c.err)
		}
	}
	var trapped []byte
	if c := got[signalsPath]; c.err == nil {
		trapped = c.data
	}
	done = phase(timing.Signals)
	unchanged := readSignals(d, id, s, res, trapped)
	done()

	wants = nil
	for _, p := range s.Collect {
		if _, known := s.CollectKnown[p]; !known {
			continue
		}
		if _, ok := got[p]; ok {
			continue // on the output
		}
		if unchanged[p] {
			got[p] = copied{data: bytes.Clone(s.CollectKnown[p])}
			continue
		}
		wants = append(wants, wanted{p, collectLimit(s, p)})
	}
	if len(wants) > 0 {
		done = phase(timing.CopyOut)
		maps.Copy(got, copyOutFiles(d, id, wants, timeout))
		done()
	}
	for _, p := range s.Collect {
		c := got[p]
		if c.err != nil {
			res.CopyErrors = append(res.CopyErrors, c.err)
			continue
		}
		if res.Collected == nil {
			res.Collected = map[string][]byte{}
		}
		res.Collected[p] = c.data
	}
}

// outputWants are the files a run copies out, each with the most of it
// kept: the transcript, stderr, the signals and the collected files.
func outputWants(s Spec) []wanted {
	wants := []wanted{{s.TranscriptPath, MaxCopyOut}, {s.StderrPath, MaxCopyOut}, {signalsPath, signalsLimit}}
	for _, p := range s.Collect {
		wants = append(wants, wanted{p, collectLimit(s, p)})
	}
	return slices.DeleteFunc(wants, func(w wanted) bool { return w.path == "" })
}

// outputLimits is outputWants by path.
func outputLimits(s Spec) map[string]int64 {
	limits := map[string]int64{}
	for _, w := range outputWants(s) {
		limits[w.path] = w.limit
	}
	return limits
}

// collectLimit is the most of the collected file p kept.
func collectLimit(s Spec, p string) int64 {
	if limit := s.CollectLimits[p]; limit > 0 {
		return limit
	}
	return MaxCopyOut
}

// copyOutFiles copies the files wants out: the files of one directory in
// one archive of it (copyOutDir); a file alone in its directory, or one
// the directory's archive did not give, on its own. Each path asked for
// gets its data or its error; an empty path is skipped.
func copyOutFiles(d Docker, id string, wants []wanted, timeout time.Duration) map[string]copied {
	byDir := map[string][]wanted{}
	var dirs []string
	seen := map[string]bool{}
	for _, w := range wants {
		if w.path == "" || seen[w.path] {
			continue
		}
		seen[w.path] = true
		dir := path.Dir(w.path)
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], w)
	}
	got := map[string]copied{}
	for _, dir := range dirs {
		ws := byDir[dir]
		if len(ws) > 1 && path.IsAbs(dir) && dir != "/" {
			maps.Copy(got, copyOutDir(d, id, dir, ws, timeout))
		}
		for _, w := range ws {
			if _, ok := got[w.path]; !ok {
				data, err := copyOut(d, id, w.path, timeout, w.limit)
				got[w.path] = copied{data, err}
			}
		}
	}
	return got
}

// copyOutDir copies the directory dir out in one archive and reads the
// files ws (each directly in dir) from it, at most each one's limit,
// without following symlinks, as copyOut does. Files it could not settle
// are left out of the answer, for one copy each: the directory's copy
// failed, dir is not a directory (a symlink in its place is resolved by
// the daemon in a copy of the file's own path), or more than
// maxCopyOutSkip of other entries came first. A file the whole archive
// does not hold is not found.
func copyOutDir(d Docker, id, dir string, ws []wanted, timeout time.Duration) map[string]copied {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rc, st, err := d.CopyFromContainer(ctx, id, dir)
	if err != nil {
		return nil
	}
	defer rc.Close()
	if !st.Mode.IsDir() {
		return nil
	}
	pending := map[string]wanted{}
	for _, w := range ws {
		pending[path.Base(dir)+"/"+path.Base(w.path)] = w
	}
	got := map[string]copied{}
	tr := tar.NewReader(rc)
	var skipped int64
	for len(pending) > 0 && skipped <= maxCopyOutSkip {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			for _, w := range pending {
				got[w.path] = copied{err: fmt.Errorf("copy %s out of container: %w", w.path, cerrdefs.ErrNotFound)}
			}
			break
		}
		if err != nil {
			break // the rest one by one
		}
		w, ok := pending[path.Clean(hdr.Name)]
		if !ok {
			skipped += hdr.Size + 512
			continue
		}
		delete(pending, path.Clean(hdr.Name))
		if hdr.Typeflag != tar.TypeReg {
			got[w.path] = copied{err: fmt.Errorf("copy %s out of container: not a regular file", w.path)}
			continue
		}
		data, err := readTarEntry(tr, hdr, w.limit)
		if err != nil {
			err = fmt.Errorf("copy %s out of container: %w", w.path, err)
		}
		got[w.path] = copied{data, err}
	}
	return got
}

// copyOut reads one regular file out of the container (running or
// stopped), at most limit bytes of it.
func copyOut(d Docker, id, p string, timeout time.Duration, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rc, _, err := d.CopyFromContainer(ctx, id, p)
	if err != nil {
		return nil, fmt.Errorf("copy %s out of container: %w", p, err)
	}
	defer rc.Close()
	data, err := readTarFile(rc, limit)
	if err != nil {
		return data, fmt.Errorf("copy %s out of container: %w", p, err)
	}
	return data, nil
}

// readFile reads one file of a container for Spec.Prepare: nil and no
// error when the path does not exist; an error when it is not a regular
// file.
func readFile(ctx context.Context, d Docker, id, p string, limit int64) ([]byte, error) {
	rc, st, err := d.CopyFromContainer(ctx, id, p)
	if cerrdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer rc.Close()
	if !st.Mode.IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", p, st.Mode.Type())
	}
	data, err := readTarFile(rc, limit)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}
