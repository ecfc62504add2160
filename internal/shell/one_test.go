package shell_test

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/gosource"
)

// quoterRe is the heart of a POSIX shell quoter: a single quote replaced
// by something ('\” closes, escapes and reopens it).
var quoterRe = regexp.MustCompile("ReplaceAll\\([^,]+,\\s*(\"'\"|`'`|\\[\\]byte\\(\"'\"\\))\\s*,")

// TestOneShellQuoter fails when Go code outside this package quotes for
// the shell on its own: every command line readme2demo writes quotes with
// Quote, so they all follow one rule.
func TestOneShellQuoter(t *testing.T) {
	files, err := gosource.Files("../..")
	assert.NilError(t, err)
	var found []string
	for _, f := range files {
		if path.Dir(f.Path) == "internal/shell" {
			continue
		}
		for i, line := range strings.Split(f.Text, "\n") {
			if quoterRe.MatchString(line) {
				found = append(found, f.Path+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
	}
	assert.DeepEqual(t, found, []string(nil))
}
