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
		// Where GitHub looks, in its order: .github, the root, docs.
		{[]string{"docs/README.md"}, "docs/README.md"},
		{[]string{"docs/readme.rst", "docs/index.md"}, "docs/readme.rst"},
		{[]string{"README.rst", "docs/README.md"}, "README.rst"},
		{[]string{".github/README.md", "README.md", "docs/README.md"}, ".github/README.md"},
		{[]string{".github/CONTRIBUTING.md", "docs/README.md"}, "docs/README.md"},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
			assert.NilError(t, os.WriteFile(filepath.Join(dir, f), []byte("# x\n"), 0o644))
		}
		assert.Equal(t, DefaultReadmeIn(dir), tc.want, "%v", tc.files)
	}
	// A directory named like a README is not one.
	dir := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "readme.md"), 0o755))
	assert.Equal(t, DefaultReadmeIn(dir), "README.md")

	// A docs directory that is a symlink (it may lead out of the
	// repository) is not looked in.
	dir = t.TempDir()
	outside := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(outside, "README.md"), []byte("# x\n"), 0o644))
	assert.NilError(t, os.Symlink(outside, filepath.Join(dir, "docs")))
	assert.Equal(t, DefaultReadmeIn(dir), "README.md")
}
