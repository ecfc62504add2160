// Package gosource reads the project's own Go sources for the tests that
// keep a fact in one home (a container path, the run's URL, the version
// words, the shell quoter, the engines' names): each looks through the
// same files, the non-test Go files of the checkout.
package gosource

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one Go source file: its path relative to the root, with
// slashes, and its text.
type File struct {
	Path string
	Text string
}

// Files returns the non-test Go files under root, in walk order, outside
// testdata, vendor and node_modules directories and directories whose
// name starts with a dot (.git, the CI's .cache).
func Files(root string) ([]File, error) {
	var out []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, File{Path: filepath.ToSlash(rel), Text: string(b)})
		return nil
	})
	return out, err
}
