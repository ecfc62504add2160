package pipeline

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// readmeNameRe is a README's name, whatever its case and
// extension: readme.md (common in Node packages), Readme.md,
// README.markdown, README, README.rst, README.adoc, README.txt.
var readmeNameRe = regexp.MustCompile(`(?i)^readme(\.(md|markdown|mdown|mkdn|mkd|rst|rest|adoc|asciidoc|asc|txt))?$`)

// readmeRank orders README names: Markdown (.md first), then
// reStructuredText, then AsciiDoc, then plain text.
func readmeRank(name string) int {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".md":
		return 0
	case ".rst", ".rest":
		return 2
	case ".adoc", ".asciidoc", ".asc":
		return 3
	case ".txt":
		return 4
	}
	return 1
}

// readmeDirs are where GitHub looks for the README it shows on a
// repository's page, in its order: the hidden .github directory, the root,
// then docs.
var readmeDirs = []string{".github", "", "docs"}

// DefaultReadmeIn returns the README to follow when none was named: the
// one GitHub shows on the repository's page. In each of readmeDirs in
// turn (a real directory, not a symlink), DefaultReadme when it is there,
// else the regular file whose name is README in another case or with
// another extension (a .md name first, then other Markdown,
// reStructuredText, AsciiDoc and plain text, then by name). Else
// DefaultReadme (whose absence ReadReadme then reports).
func DefaultReadmeIn(dir string) string {
	for _, sub := range readmeDirs {
		if name := readmeIn(dir, sub); name != "" {
			return name
		}
	}
	return DefaultReadme
}

// readmeIn is the README of one directory of the repository (sub, "" for
// the root) as a path relative to the repository, "" for none.
func readmeIn(dir, sub string) string {
	d := filepath.Join(dir, sub)
	if sub != "" {
		if st, err := os.Lstat(d); err != nil || !st.IsDir() {
			return "" // missing, or a symlink that may lead out of the repository
		}
	}
	if st, err := os.Lstat(filepath.Join(d, DefaultReadme)); err == nil && st.Mode().IsRegular() {
		return path.Join(sub, DefaultReadme)
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && readmeNameRe.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := readmeRank(names[i]), readmeRank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return path.Join(sub, names[0])
}
