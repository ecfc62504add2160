package plan

import (
	_ "embed"
	"strings"
	"sync"
)

// defaultProgramsText is the list of the commands the default sandbox image
// (images/base) knows for its user's login shell: programs on its PATH,
// shell builtins and keywords (`compgen -c`), one a line. The image records
// the same list when it is built; a Docker test keeps this copy equal to it.
//
//go:embed programs.txt
var defaultProgramsText string

var defaultPrograms = sync.OnceValue(func() map[string]bool { return ParsePrograms(defaultProgramsText) })

// DefaultPrograms is the command list of the default sandbox image, for
// plans made without Docker (`readme2demo plan`).
func DefaultPrograms() map[string]bool { return defaultPrograms() }

// ParsePrograms reads a command list: one name a line; blank lines and
// lines starting with # are ignored.
func ParsePrograms(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}
