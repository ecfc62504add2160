package shell_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// quoterRe is the heart of a POSIX shell quoter: a single quote replaced
// by something ('\” closes, escapes and reopens it).
var quoterRe = regexp.MustCompile("ReplaceAll\\([^,]+,\\s*(\"'\"|`'`|\\[\\]byte\\(\"'\"\\))\\s*,")

// TestOneShellQuoter fails when Go code outside this package quotes for
// the shell on its own: every command line readme2demo writes quotes with
// Quote, so they all follow one rule.
func TestOneShellQuoter(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Base(filepath.Dir(p)) == "shell" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if quoterRe.MatchString(line) {
				found = append(found, p+":"+strings.TrimSpace(line)+" (line "+strconv.Itoa(i+1)+")")
			}
		}
		return nil
	})
	assert.NilError(t, err)
	assert.DeepEqual(t, found, []string(nil))
}
