package containerpath_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
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
	var found []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Base(filepath.Dir(p)) == "containerpath" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range spelled.FindAllString(line, -1) {
				if use := filepath.ToSlash(rel) + ": " + m; notPaths[use] == "" {
					found = append(found, use)
				}
			}
		}
		return nil
	})
	assert.NilError(t, err)
	assert.Check(t, is.Len(found, 0), "use the containerpath constants: %v", found)
}
