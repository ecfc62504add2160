package engines

import (
	"fmt"
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// redirectFailRe is bash's message when it cannot open a redirection's
// file: the command itself never ran.
var redirectFailRe = lazyre.New(`^bash: (?:line \d+: )?(\S+): (No such file or directory|Permission denied|Is a directory|Read-only file system)$`)

// redirectNote explains an exit 1 that came from the shell, not the
// command: the file it was to write could not be opened (`curl … >
// ~/bin/hr` when ~/bin does not exist). "" otherwise.
func redirectNote(c commandlog.Command) string {
	if c.ExitCode == nil || *c.ExitCode != 1 || !strings.Contains(c.Command, ">") {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(c.Output), "\n")
	m := redirectFailRe.FindStringSubmatch(first)
	if m == nil {
		return ""
	}
	why := strings.ToLower(m[2])
	if m[2] == "No such file or directory" {
		why = fmt.Sprintf("the directory %s does not exist", path.Dir(m[1]))
	}
	return fmt.Sprintf(" (the shell could not write %s: %s; the command did not start)", m[1], why)
}
