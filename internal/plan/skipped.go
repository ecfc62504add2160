package plan

import (
	"path"
	"slices"
	"strings"
)

// What skipped lines would have made: a file a skipped download, copy or
// redirection writes does not exist for the lines after it, so a line that
// uses it (`chmod +x /usr/local/bin/tool` after a skipped `curl -o
// /usr/local/bin/tool …`) is skipped with it.

// writtenBy returns the files a command writes: its `>` redirections, the
// values of its output options (-o, --output-file), what curl -O and wget
// save, the destination of cp, mv, ln and install, the programs tar
// extracts into a bin directory, and what mkdir, touch and tee make.
func writtenBy(cmds []simple) []string {
	var out []string
	for _, s := range cmds {
		for _, o := range s.outputs {
			if o != "/dev/null" && !strings.HasPrefix(o, "&") {
				out = append(out, o)
			}
		}
		name, args := path.Base(s.name()), s.args()
		if name == "curl" || name == "wget" {
			if f := downloadOutput(name, args); f != "" {
				out = append(out, f)
			}
		} else {
			for i, a := range args {
				if i+1 < len(args) && (a == "-o" || outputOpt(a)) {
					out = append(out, args[i+1])
				}
			}
		}
		var operands []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				operands = append(operands, a)
			}
		}
		switch name {
		case "cp", "mv", "ln", "install":
			if len(operands) >= 2 && !hasTargetDirOpt(args) {
				out = append(out, operands[len(operands)-1])
			}
		case "tar":
			if extract, dir, members := tarExtracts(args); extract {
				for _, m := range members {
					out = append(out, path.Join(dir, m)) // the members it names
				}
			}
		case "mkdir", "touch", "tee":
			out = append(out, operands...)
		case "curl", "wget":
			saves := name == "wget" && !slices.Contains(args, "-O") && !slices.Contains(args, "-qO-")
			saves = saves || name == "curl" && (slices.Contains(args, "-O") || slices.Contains(args, "--remote-name") || hasShortFlag(args, 'O'))
			if saves {
				for _, a := range operands {
					if u, _, _ := strings.Cut(a, "?"); urlRe.MatchString(u) {
						out = append(out, path.Base(u))
					}
				}
			}
		}
	}
	return out
}

// downloads reports a command that saves a file it fetches with curl or
// wget.
func downloads(text string) bool {
	for _, s := range simples(lex(text)) {
		if n := path.Base(s.name()); (n == "curl" || n == "wget") && len(writtenBy([]simple{s})) > 0 {
			return true
		}
	}
	return false
}

// hasTargetDirOpt reports `-t DIR` / `--target-directory`: the
// destination is a directory the command names apart.
func hasTargetDirOpt(args []string) bool {
	for _, a := range args {
		if a == "-t" || strings.HasPrefix(a, "--target-directory") || strings.HasSuffix(a, "t") && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			return true
		}
	}
	return false
}

// hasShortFlag reports a bundle of short options that holds f (-fsSLO).
func hasShortFlag(args []string, f byte) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f) >= 0 {
			return true
		}
	}
	return false
}

// cleanPath is a path as the plan keys files: without ./ and a trailing /.
func cleanPath(p string) string {
	return strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
}

// noteUnmade records the files a skipped command would have written, when
// no command that ran made them and the repository does not have them.
func (pl *planner) noteUnmade(x *cmd) {
	for _, f := range writtenBy(x.cmds) {
		c := cleanPath(f)
		if c == "" || strings.ContainsAny(c, "$*?{}") || pl.seen.mentioned[c] || pl.repo.hasFile(c) {
			continue
		}
		if pl.seen.unmade[c] == 0 {
			pl.seen.unmade[c] = x.c.line
		}
	}
}

// usedFiles are the words of a command that name files it uses: a path,
// an operand of a program whose operands are files, a word that looks
// like a file; not the program on the PATH, nor what it writes (cp's
// destination). Its redirected inputs are s.inputs.
func usedFiles(s simple) []string {
	files := fileOperandProgs[path.Base(s.name())]
	writes := writtenBy([]simple{s})
	var out []string
	for i, w := range s.argv {
		if !strings.Contains(w.text, "/") && (i == 0 || !files && !looksLikeFile(w.text)) {
			continue // a program on the PATH, or a word that names no file
		}
		if !slices.Contains(writes, w.text) {
			out = append(out, w.text)
		}
	}
	return out
}

// fileOperandProgs are programs whose operands are files, so that a bare
// word among them (`install -m 755 tool /usr/local/bin`) names one.
var fileOperandProgs = toSet(`cp mv install chmod ln gunzip sha256sum shasum`)

// madeBySkipped skips a command that uses a file only a skipped line
// would have written.
func madeBySkipped(pl *planner, x *cmd) (Entry, bool) {
	if len(pl.seen.unmade) == 0 {
		return pass()
	}
	for _, s := range x.cmds {
		// Any operand counts, whatever it looks like: it is the very name
		// a skipped line writes (`cat sloccount.scc` after a skipped
		// `… > sloccount.scc`).
		writes := writtenBy([]simple{s})
		for _, f := range append(usedFiles(s), s.args()...) {
			if slices.Contains(writes, f) {
				continue
			}
			c := cleanPath(f)
			if l := pl.seen.unmade[c]; l > 0 && !pl.seen.mentioned[c] {
				return pl.skip(x, because(KindMissingInput, "uses %s, which only line %d writes, and that line is not run", f, l))
			}
		}
		for _, in := range s.inputs {
			c := cleanPath(in)
			if l := pl.seen.unmade[c]; l > 0 && !pl.seen.mentioned[c] {
				return pl.skip(x, because(KindMissingInput, "reads %s, which only line %d writes, and that line is not run", in, l))
			}
		}
	}
	return pass()
}
