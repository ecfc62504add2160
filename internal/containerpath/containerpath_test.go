package containerpath_test

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/gosource"
)

// No Go file outside this package spells a container path as a string of
// its own ("/workspace", "/readme2demo/prompt.md", "/home/agent"). Comments
// may name them; so may the uses below, which are not container paths.
func TestPathsHaveOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	spelled := regexp.MustCompile(`"(/workspace|/readme2demo|/home/agent)(/[^"\n]*)?"`)
	notPaths := map[string]string{
		`scripts/releaseserve/main.go: "/readme2demo"`: "the registry namespace of the release images",
	}
	files, err := gosource.Files(root)
	assert.NilError(t, err)
	var found []string
	for _, f := range files {
		if path.Dir(f.Path) == "internal/containerpath" {
			continue
		}
		for _, line := range strings.Split(f.Text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range spelled.FindAllString(line, -1) {
				if use := f.Path + ": " + m; notPaths[use] == "" {
					found = append(found, use)
				}
			}
		}
	}
	assert.Check(t, is.Len(found, 0), "use the containerpath constants: %v", found)
}
