package ghapi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/ghapi"
	"github.com/readme2demo/readme2demo/internal/gosource"
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
	files, err := gosource.Files(root)
	assert.NilError(t, err)
	var homes []string
	for _, f := range files {
		if strings.Contains(f.Text, `/actions/runs/%s`) {
			homes = append(homes, f.Path)
		}
	}
	assert.Check(t, is.DeepEqual(homes, []string{"internal/ghapi/runurl.go"}))
}
