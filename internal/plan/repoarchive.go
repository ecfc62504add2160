package plan

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// A repository archive is what the plan reads of a checkout, kept beside a
// README of the real-README corpus (testdata/readmes/*/NAME.repo) so that
// the corpus is planned exactly as the checkout would be. It is a txtar
// archive: its comment holds "slug owner/name", "dir NAME" (the checkout
// directory's name) and one "file PATH" line per listed path; its files
// are the checkout's manifests (IsManifest), unchanged.
//
// An older form, with only the comment's lines and "module", "package" and
// "name" lines, is still read.

// WriteRepoArchive writes the archive of a checkout's listing and
// manifests.
func WriteRepoArchive(slug, dirName string, files []string, manifests map[string][]byte) []byte {
	var c bytes.Buffer
	if slug != "" {
		fmt.Fprintf(&c, "slug %s\n", slug)
	}
	if dirName != "" {
		fmt.Fprintf(&c, "dir %s\n", dirName)
	}
	files = slices.Sorted(slices.Values(files))
	for _, f := range files {
		fmt.Fprintf(&c, "file %s\n", f)
	}
	a := &txtar.Archive{Comment: c.Bytes()}
	for _, name := range slices.Sorted(maps.Keys(manifests)) {
		data := manifests[name]
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(slices.Clip(data), '\n')
		}
		a.Files = append(a.Files, txtar.File{Name: name, Data: data})
	}
	return txtar.Format(a)
}

// RepoFromArchive reads a repository archive (WriteRepoArchive).
func RepoFromArchive(b []byte) Repo {
	a := txtar.Parse(b)
	var slug, dirName string
	var files []string
	var extra Repo
	sc := bufio.NewScanner(bytes.NewReader(a.Comment))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch key {
		case "slug":
			slug = val
		case "dir":
			dirName = val
		case "file":
			files = append(files, val)
		case "module": // the older form
			extra.add(&extra.Modules, val)
		case "package":
			extra.add(&extra.Packages, val)
			extra.add(&extra.Names, npmTool(val))
		case "name":
			extra.add(&extra.Names, val)
		}
	}
	manifests := map[string][]byte{}
	for _, f := range a.Files {
		manifests[f.Name] = f.Data
	}
	r := repoFrom(slug, dirName, nil, files, manifests)
	r.add(&r.Modules, extra.Modules...)
	r.add(&r.Packages, extra.Packages...)
	r.add(&r.Names, extra.Names...)
	return r
}

// ArchiveDir is the repository archive of a checkout: what RepoFromDir
// reads of it, so that RepoFromArchive of the result plans like the
// checkout (but for .git/config: slug stands for its remotes).
func ArchiveDir(dir, slug string) []byte {
	base, files, manifests := checkout(dir)
	return WriteRepoArchive(slug, base, files, manifests)
}
