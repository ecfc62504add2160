package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Installs by hand: a file copied, moved, downloaded or extracted into a
// bin directory.

// binTargetRe is a file put in a bin directory: /usr/local/bin/yq.
var binTargetRe = lazyre.New(`(^|/)bin/([\w.+-]+)$`)

// binInstalls names the tools a command puts in a bin directory by hand:
// `mv yq_linux /usr/local/bin/yq`, `wget -O /usr/local/bin/yq URL`,
// `install x -D -t /usr/local/bin/` (the file's own name), `… | sudo tee
// /usr/local/bin/yq`.
func binInstalls(cmds []simple) []string {
	var out []string
	for _, s := range cmds {
		args := s.args()
		switch path.Base(s.name()) {
		case "mv", "cp", "install":
			if len(args) == 0 {
				continue
			}
			dest := args[len(args)-1]
			for i, a := range args {
				if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
					dest = args[i+1] + "/"
				}
			}
			if m := binTargetRe.FindStringSubmatch(dest); m != nil {
				out = append(out, strings.ToLower(m[2]))
			} else if strings.HasSuffix(dest, "/bin/") || strings.HasSuffix(dest, "/bin") {
				for _, a := range args {
					if !strings.HasPrefix(a, "-") && a != dest && !strings.HasSuffix(a, "/bin/") && !strings.HasSuffix(a, "/bin") {
						out = append(out, strings.ToLower(path.Base(a)))
						break
					}
				}
			}
		case "tar":
			_, programs := tarIntoBin(args)
			out = append(out, programs...)
		case "tee": // curl -sL URL | sudo tee /usr/local/bin/tool
			for _, a := range args {
				if m := binTargetRe.FindStringSubmatch(a); m != nil && !strings.HasPrefix(a, "-") {
					out = append(out, strings.ToLower(m[2]))
				}
			}
		case "wget", "curl":
			for _, o := range s.outputs {
				if m := binTargetRe.FindStringSubmatch(o); m != nil {
					out = append(out, strings.ToLower(m[2]))
				}
			}
			if m := binTargetRe.FindStringSubmatch(downloadOutput(path.Base(s.name()), args)); m != nil {
				out = append(out, strings.ToLower(m[2]))
			}
		}
	}
	return out
}

// tarIntoBin returns the bin directory a `tar x` extracts into and the
// members it extracts there (`tar xz -C /usr/local/bin goss`): the
// programs it installs. With no members named, what it installs is not
// known.
func tarIntoBin(args []string) (dir string, programs []string) {
	extract, dir, files := tarExtracts(args)
	if !extract || !strings.HasSuffix(strings.TrimSuffix(dir, "/"), "/bin") {
		return "", nil
	}
	for _, f := range files {
		programs = append(programs, strings.ToLower(path.Base(f)))
	}
	return dir, programs
}

// tarExtracts reads a tar command's arguments: whether it extracts, the
// directory it extracts into (-C, "" for the current one) and the members
// it names.
func tarExtracts(args []string) (extract bool, dir string, members []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case i == 0 && !strings.HasPrefix(a, "-") && strings.Contains(a, "x"):
			extract = true // xzf: the old form's letters
			if strings.HasSuffix(a, "f") && i+1 < len(args) {
				i++ // the archive
			}
		case a == "-x" || a == "--extract" || a == "--get" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "x"):
			extract = true
			if strings.HasSuffix(a, "f") && i+1 < len(args) {
				i++
			}
		case (a == "-C" || a == "--directory") && i+1 < len(args):
			dir = args[i+1]
			i++
		case strings.HasPrefix(a, "--directory="):
			dir = strings.TrimPrefix(a, "--directory=")
		case a == "-f" || a == "--file":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			members = append(members, a)
		}
	}
	return extract, dir, members
}
