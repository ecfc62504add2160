package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// readmeNameRe is a README at a repository's root, whatever its case and
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

// DefaultReadmeIn returns the README to follow when none was named:
// DefaultReadme when the repository has it, else the one regular file at
// its root whose name is README in another case or with another Markdown
// extension (a .md name first, then other Markdown, reStructuredText,
// AsciiDoc and plain text, then by name), else DefaultReadme (whose
// absence ReadReadme then reports).
func DefaultReadmeIn(dir string) string {
	if st, err := os.Lstat(dir + string(os.PathSeparator) + DefaultReadme); err == nil && st.Mode().IsRegular() {
		return DefaultReadme
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return DefaultReadme
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && readmeNameRe.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return DefaultReadme
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := readmeRank(names[i]), readmeRank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names[0]
}
