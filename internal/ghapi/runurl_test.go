package ghapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/ghapi"
)

func TestRunURL(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"outside actions", map[string]string{}, ""},
		{"no run id", map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r"}, ""},
		{"first attempt", map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "1"},
			"https://github.com/o/r/actions/runs/42"},
		{"enterprise server with a slash", map[string]string{"GITHUB_SERVER_URL": "https://ghe.example/", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "7"},
			"https://ghe.example/o/r/actions/runs/7"},
		{"re-run", map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "3"},
			"https://github.com/o/r/actions/runs/42/attempts/3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Check(t, is.Equal(ghapi.RunURL(func(k string) string { return c.env[k] }), c.want))
		})
	}
}

// One home for the run's URL: no other Go file spells its path.
func TestRunURLHasOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	var homes []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), `/actions/runs/%s`) {
			rel, _ := filepath.Rel(root, p)
			homes = append(homes, filepath.ToSlash(rel))
		}
		return nil
	})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(homes, []string{"internal/ghapi/runurl.go"}))
}
