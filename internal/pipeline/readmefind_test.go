package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

func TestDefaultReadmeIn(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{"README.md", "readme.txt"}, "README.md"},
		{[]string{"readme.md"}, "readme.md"},
		{[]string{"Readme.md", "LICENSE"}, "Readme.md"},
		{[]string{"README.markdown"}, "README.markdown"},
		{[]string{"README", "readme.md"}, "readme.md"},
		{[]string{"README.rst"}, "README.rst"},
		{[]string{"README.adoc", "README.rst"}, "README.rst"},
		{[]string{"README.txt", "README.adoc"}, "README.adoc"},
		{[]string{"README.rst", "README"}, "README"},
		{nil, "README.md"},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			assert.NilError(t, os.WriteFile(filepath.Join(dir, f), []byte("# x\n"), 0o644))
		}
		assert.Equal(t, DefaultReadmeIn(dir), tc.want, "%v", tc.files)
	}
	// A directory named like a README is not one.
	dir := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "readme.md"), 0o755))
	assert.Equal(t, DefaultReadmeIn(dir), "README.md")
}
