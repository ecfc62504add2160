package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Searches of the checkout: a search for files of an extension that no
// file of the checkout has is an example for the reader's own files.

// searchFindsNothing returns the extension an `fd -e EXT` or `find …
// -name '*.EXT'` in the checkout searches for when no file of the
// checkout has it (every one given, for several), "" otherwise.
func (pl *planner) searchFindsNothing(cmds []simple) string {
	if !pl.repo.FilesKnown() || pl.seen.cwd == cwdUnknown {
		return ""
	}
	for _, s := range cmds {
		var exts []string
		args := s.args()
		switch path.Base(s.name()) {
		case "fd", "fdfind":
			outside := false // a search of a directory outside the checkout
			for i, a := range args {
				switch {
				case (a == "-e" || a == "--extension") && i+1 < len(args):
					exts = append(exts, args[i+1])
				case strings.HasPrefix(a, "--extension="):
					exts = append(exts, strings.TrimPrefix(a, "--extension="))
				case strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.HasPrefix(a, "$"):
					outside = true
				}
			}
			if outside {
				continue
			}
		case "find":
			if len(args) == 0 || args[0] != "." {
				continue
			}
			for i, a := range args {
				if (a == "-name" || a == "-iname") && i+1 < len(args) {
					if e, ok := strings.CutPrefix(args[i+1], "*."); ok && extWordRe.MatchString(e) {
						exts = append(exts, e)
					}
				}
			}
		}
		if len(exts) > 0 && !slices.ContainsFunc(exts, pl.repo.hasExt) && !slices.ContainsFunc(exts, pl.mentionedExt) {
			return exts[0]
		}
	}
	return ""
}

// extWordRe is a file name extension on its own: zip, tar.gz.
var extWordRe = lazyre.New(`^[A-Za-z0-9]+(\.[A-Za-z0-9]+)?$`)

// mentionedExt reports a file with the extension that an earlier command
// made or named.
func (pl *planner) mentionedExt(ext string) bool {
	for m := range pl.seen.mentioned {
		if strings.HasSuffix(strings.ToLower(m), "."+strings.ToLower(ext)) {
			return true
		}
	}
	return false
}
