package repoconfig

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// maxScrubSize is the largest file Scrub rewrites; a bigger one is removed.
const maxScrubSize = 1 << 20

// FilterTar copies the tar stream src (a repository, entry names relative
// to its root, "./" prefixes allowed) to dst, leaving out what Classify
// removes, scrubbing what it scrubs, and reports every path not simply kept
// (flagged ones included), sorted by path. It also drops entries that would
// be written through a symlink of the archive, and hard links to removed
// entries. It never reads the file system.
//
// The sandbox calls it between the tar of the checkout and CopyToContainer:
//
//	pr, pw := io.Pipe()
//	go func() { pw.CloseWithError(tarDir(pw, repoDir, uid, gid)) }()
//	fr, fw := io.Pipe()
//	go func() { findings, err = repoconfig.FilterTar(fw, pr); fw.CloseWithError(err) }()
//	err := d.CopyToContainer(ctx, id, workdir, fr, opts)
func FilterTar(dst io.Writer, src io.Reader) ([]Finding, error) {
	tr := tar.NewReader(src)
	tw := tar.NewWriter(dst)
	var findings []Finding
	removed := map[string]bool{}
	symlinks := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return findings, fmt.Errorf("read repository tar: %w", err)
		}
		name := strings.TrimPrefix(path.Clean("/"+hdr.Name), "/")
		isDir := hdr.Typeflag == tar.TypeDir
		action, reason := Classify(name, isDir)
		if action == Keep || action == Flag {
			if p := throughSymlink(name, symlinks); p != "" {
				action, reason = Remove, "written through the symlink "+p+" of the archive"
			} else if hdr.Typeflag == tar.TypeLink && removed[strings.TrimPrefix(path.Clean("/"+hdr.Linkname), "/")] {
				action, reason = Remove, "hard link to a removed file"
			}
		}
		if action != Keep {
			findings = append(findings, Finding{Path: name, Action: action, Reason: reason})
		}
		switch action {
		case Remove:
			removed[name] = true
			continue
		case Scrub:
			// Only a regular file can be scrubbed: a symlink or hard link
			// in its place would make git read another, unscrubbed file.
			if hdr.Typeflag != tar.TypeReg || hdr.Size > maxScrubSize {
				findings[len(findings)-1].Action = Remove
				removed[name] = true
				continue
			}
			b, err := io.ReadAll(io.LimitReader(tr, maxScrubSize))
			if err != nil {
				return findings, fmt.Errorf("read %s: %w", name, err)
			}
			b = ScrubFile(name, b)
			hdr.Size = int64(len(b))
			if err := tw.WriteHeader(hdr); err != nil {
				return findings, fmt.Errorf("write repository tar: %w", err)
			}
			if _, err := tw.Write(b); err != nil {
				return findings, fmt.Errorf("write repository tar: %w", err)
			}
			continue
		}
		if hdr.Typeflag == tar.TypeSymlink {
			symlinks[name] = true
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return findings, fmt.Errorf("write repository tar: %w", err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return findings, fmt.Errorf("copy %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return findings, fmt.Errorf("write repository tar: %w", err)
	}
	sortFindings(findings)
	return findings, nil
}

// throughSymlink returns the symlink among name's parents, if any.
func throughSymlink(name string, symlinks map[string]bool) string {
	for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
		if symlinks[d] {
			return d
		}
	}
	return ""
}

func sortFindings(f []Finding) {
	sort.SliceStable(f, func(i, j int) bool { return f[i].Path < f[j].Path })
}
