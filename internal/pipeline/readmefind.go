package pipeline

import (
	"os"
	"regexp"
	"sort"
	"strings"
)

// readmeNameRe is a README at a repository's root, whatever its case and
// Markdown extension: readme.md (common in Node packages), Readme.md,
// README.markdown, README.
var readmeNameRe = regexp.MustCompile(`(?i)^readme(\.(md|markdown|mdown|mkdn|mkd))?$`)

// DefaultReadmeIn returns the README to follow when none was named:
// DefaultReadme when the repository has it, else the one regular file at
// its root whose name is README in another case or with another Markdown
// extension (a .md name first, then by name), else DefaultReadme (whose
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
		mi, mj := strings.HasSuffix(strings.ToLower(names[i]), ".md"), strings.HasSuffix(strings.ToLower(names[j]), ".md")
		if mi != mj {
			return mi
		}
		return names[i] < names[j]
	})
	return names[0]
}
