package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

// Programs that read standard input: a line that runs one with no input
// shows its syntax, and would wait for a person to type.

// stdinFilters are programs that read standard input when the line names
// no file for them; the value is how many leading non-option arguments are
// not files (jq's filter, grep's pattern, sed's and awk's script).
var stdinFilters = map[string]int{
	"jq": 1, "gojq": 1, "yq": 1, "grep": 1, "egrep": 1, "fgrep": 1, "rg": -1, "sed": 1, "awk": 1, "gawk": 1,
	"sort": 0, "uniq": 0, "wc": 0, "tr": -1, "cut": 0, "head": 0, "tail": 0, "cat": 0, "tac": 0, "tee": -1,
	"base64": 0, "md5sum": 0, "sha256sum": 0, "xxd": 0, "hexdump": 0, "od": 0, "column": 0, "fmt": 0, "fold": 0,
	"nl": 0, "rev": 0, "bc": 0, "dc": 0, "less": 0, "more": 0, "xargs": -1, "python": 0, "python3": 0, "node": 0,
}

// readsStdin names the program of a line that would wait for a person to
// type its input: a filter first in its pipeline, given no file, no input
// redirection and no here-document (`jq '.name'` alone shows the syntax).
// rg, tr, tee and xargs are judged by their use elsewhere.
func readsStdin(text string, cmds []simple) string {
	if strings.Contains(text, "<<") || len(cmds) == 0 {
		return ""
	}
	s := cmds[0]
	n, ok := stdinFilters[path.Base(s.name())]
	if !ok || n < 0 || len(s.inputs) > 0 {
		return ""
	}
	pos := 0
	for _, a := range s.args() {
		switch {
		case a == "-":
			return s.name() // reads standard input by name
		case strings.HasPrefix(a, "-"):
			if a == "-e" || a == "-f" || a == "--file" || a == "--expression" || a == "-r" || a == "-R" || a == "--recursive" {
				return "" // the script or pattern given apart, or a search of the directory
			}
		default:
			pos++
		}
	}
	if pos > n || s.onlyInfo() || n == 1 && (slices.Contains(s.args(), "-n") || slices.Contains(s.args(), "--null-input")) {
		return "" // it names a file
	}
	if (s.name() == "python" || s.name() == "python3" || s.name() == "node") && pos == 0 {
		return "" // a REPL: judged as interactive
	}
	return s.name()
}

// stdinRule skips a line that would wait for a person to type its input.
func stdinRule(pl *planner, x *cmd) (Entry, bool) {
	if prog := readsStdin(x.c.text, x.cmds); prog != "" && !x.funcDef {
		return pl.skip(x, because(KindInteractive, "%s reads standard input, and the line gives it none: it shows the syntax, and would wait for a person to type", prog))
	}
	if len(x.cmds) == 1 && !x.funcDef && !strings.Contains(x.c.text, "<<") {
		s := x.cmds[0]
		n := path.Base(s.name())
		switch {
		case s.stdinGiven:
		case len(s.args()) == 0 && pl.readme.filters[n]:
			return pl.skip(x, because(KindInteractive, "%s with no argument reads standard input (the README pipes into it elsewhere), and the line gives it none: it would wait for a person to type", n))
		case dashInput(s) && pl.resolve(s.name()) != unresolved:
			return pl.skip(x, because(KindInteractive, "%s is given - (standard input) as its input, and the line gives it none: it would wait for a person to type", n))
		}
	}
	return pass()
}

// dashKeeps are programs for which "-" is not standard input: cd's and
// git's previous directory or branch, su's login shell.
var dashKeeps = toSet(`cd pushd popd git su sudo`)

// dashInput reports a command whose one argument that is no option is "-"
// (`typos - --write-changes`, `lint -`): the usual name for standard input.
// A "-" that is an option's value (`tar -cf -`, `curl -o -`) is not one,
// nor a "-" among other arguments, where it may be a value of the
// program's own (`hr - '#' -` draws dashes).
func dashInput(s simple) bool {
	if dashKeeps[path.Base(s.name())] {
		return false
	}
	args, dash, others := s.args(), false, 0
	for i, a := range args {
		switch {
		case a == "-" && (i == 0 || !strings.HasPrefix(args[i-1], "-")):
			dash = true
		case !strings.HasPrefix(a, "-"):
			others++
		}
	}
	return dash && others == 0
}

// pipeFilters are the programs a shell line of the README pipes into
// with no argument but options or "-".
func pipeFilters(doc *readme.Doc) map[string]bool {
	out := map[string]bool{}
	for _, b := range doc.Blocks {
		if !b.Shell {
			continue
		}
		for _, l := range b.Lines {
			ss := simples(lex(l.Text))
			for i := 1; i < len(ss); i++ {
				if !ss[i-1].piped {
					continue
				}
				files := slices.ContainsFunc(ss[i].args(), func(a string) bool { return a != "-" && !strings.HasPrefix(a, "-") })
				if n := path.Base(ss[i].name()); n != "" && !files {
					out[n] = true
				}
			}
		}
	}
	return out
}
