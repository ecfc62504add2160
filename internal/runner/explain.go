package runner

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// What a failure's reason adds to an exit code: the program that was not
// found and the README line that installs it, a redirection the shell
// could not open, a host that could not be reached.

// notFoundRe finds bash's "command not found" message (after the runner's
// own path was replaced with "bash") and "No such file or directory" for a
// path that was run.
var notFoundRe = lazyre.New(`(?m)^bash: (?:line \d+: )?([^\s:]+): (?:command not found|No such file or directory)$`)

// Missing is a program a command could not find (exit 127, bash's "command
// not found"), and what the README's install lines say about it.
type Missing struct {
	Program string // as bash named it
	// Install is the README line that installs it (nil when none does);
	// How says how that line stands.
	Install *Install
	How     Installed
	line    int // the command's README line
}

// Installed is how the README line that installs a missing program
// stands.
type Installed int

// The ways a missing program is installed.
const (
	NotInstalled   Installed = iota // no README line installs it
	InstalledFirst                  // a line that installs it ran before and passed
	InstalledLater                  // a line the plan runs installs it, later in the README
	InstallSkipped                  // a line would install it, but the plan skips it
)

func (m *Missing) String() string {
	base := baseName(m.Program)
	out := fmt.Sprintf(" (%s: command not found)", m.Program)
	switch in := m.Install; m.How {
	case InstalledFirst:
		// It ran first (install-first order, or earlier in the README)
		// and passed, yet the program is not there.
		return out + fmt.Sprintf("; line %d (%s) ran before it and passed, but did not put %s on the PATH (the package may install it under another name)", in.Line, quoteCommand(in.Command), base)
	case InstalledLater:
		return out + fmt.Sprintf("; line %d installs it (%s), later in the README: move that step before line %d, or run with --order install-first", in.Line, quoteCommand(in.Command), m.line)
	case InstallSkipped:
		return out + fmt.Sprintf("; line %d would install it, but the plan skips it (%s)", in.Line, in.Skipped)
	}
	return out
}

// baseName is the last element of a slash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// notFound finds the program an exit code 127 did not find and, when a
// README line installs it, which line; line is the command's README line,
// ran holds the README lines whose commands already ran and passed. nil
// when the command did not fail that way.
func notFound(c *commandlog.Command, line int, installs []Install, ran map[int]bool) *Missing {
	if c.ExitCode == nil || *c.ExitCode != 127 {
		return nil
	}
	m := notFoundRe.FindStringSubmatch(c.Output)
	if m == nil {
		return nil
	}
	miss := &Missing{Program: m[1], line: line}
	base := baseName(miss.Program)
	// A later line that the plan runs is the advice to give; a skipped one
	// only when no line that runs installs it.
	ordered := slices.Clone(installs)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Skipped == "" && ordered[j].Skipped != "" })
	for _, in := range ordered {
		if !strings.EqualFold(in.Tool, base) || in.Line == line {
			continue
		}
		switch {
		case ran[in.Line] && in.Skipped == "":
			miss.How = InstalledFirst
		case in.Skipped != "":
			miss.How = InstallSkipped
		case in.Line > line:
			miss.How = InstalledLater
		default:
			continue
		}
		miss.Install = &in
		return miss
	}
	return miss
}

// networkNote says that a failure came from the network: the host could
// not be reached from the sandbox, which is about where the run happens,
// not about the README.
func networkNote(output, command string, code *int, pipeStatus ...int) string {
	host := ""
	urls := envcause.URLHosts(command)
	if hosts, ok := envcause.Unreached(output); ok {
		if len(hosts) > 0 {
			host = hosts[0] // the first message that names a host
		} else if len(urls) == 1 && strings.Count(command, "://") == 1 {
			host = urls[0] // the one host the command names
		}
	} else if code != nil && envcause.QuietNetworkFailure(command, *code) || slices.ContainsFunc(pipeStatus, func(st int) bool { return envcause.QuietNetworkFailure(command, st) }) {
		// Quiet downloads say it by their exit code alone; in a pipeline
		// (`wget -qO- URL | tar -xJ`), by their own status.
		if len(urls) > 0 {
			host = urls[0]
		}
	} else {
		return ""
	}
	if host == "" {
		host = "the network"
	}
	return "; it could not reach " + host + " (check that the sandbox can reach the hosts the README downloads from)"
}

// goGetInstallRe is the Go command's refusal to install a program with
// `go get`, which it did up to Go 1.16.
var goGetInstallRe = lazyre.New(`'go get' is no longer supported outside a module|go get: installing executables with 'go get' in module mode is deprecated`)

// goGetNote says that the README installs a Go program the way the Go
// command no longer does.
func goGetNote(output string) string {
	if !goGetInstallRe.MatchString(output) {
		return ""
	}
	return " (the Go command no longer installs programs with `go get`: the README's install would be `go install PACKAGE@latest`)"
}

// redirectFailRe is bash's message when it cannot open a redirection's
// file: the command itself never ran.
var redirectFailRe = lazyre.New(`^bash: (?:line \d+: )?(\S+): (No such file or directory|Permission denied|Is a directory|Read-only file system)$`)

// redirectNote explains an exit 1 that came from the shell, not the
// command: the file it was to write could not be opened (`curl … >
// ~/bin/hr` when ~/bin does not exist). "" otherwise.
// headerMissingRe is a C or C++ compiler that could not find a header:
// "src/bcal.c:35:10: fatal error: readline/history.h: No such file or
// directory" (gcc, clang).
var headerMissingRe = lazyre.New(`(?m)fatal error: '?([\w./+-]+\.(?:h|hh|hpp|hxx))'?(?:: No such file or directory| file not found)`)

// missingLibRe finds what a configure script, pkg-config or CMake says a
// build lacks: "configure: error: libunistring required to build", "No
// package 'ncursesw' found", "Package libpcre2-8 was not found",
// "checking for NCURSES_LIBS (-lncurses)... no", "Could NOT find ZLIB".
var missingLibRe = lazyre.New(`(?m)configure: error: (?:[Cc]ould not find |[Cc]annot find |[Nn]o |[Mm]issing |[Uu]nable to find )?(?:the )?([\w.+-]+)|No package '([\w.+-]+)' found|Package '?([\w.+-]+)'? was not found|checking for (\w+)_LIBS\b.*\.\.\. no$|Could NOT find (\w+)`)

// missingLibraries returns what a build's output says it lacks: the
// header it could not find and the libraries its configure names.
func missingLibraries(output string) []string {
	var out []string
	if h := missingHeader(output); h != "" {
		out = append(out, h)
	}
	return append(out, missingLibRe.Groups(output)...)
}

// libStem is a library's name as prose and package names share it:
// lower case, without a lib prefix, a header's extension and directory,
// a -dev or -devel suffix, configure's _LIBS or a trailing version
// (libncursesw5-dev: ncursesw, which contains curses.h's curses).
func libStem(s string) string {
	s = strings.ToLower(path.Base(s))
	for _, suf := range []string{".h", ".hpp", "-dev", "-devel", "_libs"} {
		s = strings.TrimSuffix(s, suf)
	}
	s = strings.TrimPrefix(s, "lib")
	return strings.TrimRight(s, "0123456789.-_")
}

// compileErrorRe is a C or C++ compiler's error on a source file, or its
// refusal of a language standard it does not know.
var compileErrorRe = lazyre.New(`(?m)^[^\s:]+\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|tpp|inl)(:\d+)+: (fatal )?error: |unrecognized command[- ]line option '-std=|invalid value '[^']*' in '-std=`)

// namedPrerequisite returns the prerequisite the README's text names
// (prereqs) that a build's output says it lacks, "" for none: a stem of
// four letters or more that one contains.
func namedPrerequisite(output string, prereqs []string) string {
	if len(prereqs) == 0 {
		return ""
	}
	for _, lack := range missingLibraries(output) {
		l := libStem(lack)
		if len(l) < 4 {
			continue
		}
		for _, p := range prereqs {
			if ps := libStem(p); len(ps) >= 4 && (strings.Contains(ps, l) || strings.Contains(l, ps)) {
				return lack
			}
		}
	}
	return ""
}

// missingHeader is the header a build could not find, "" when none.
func missingHeader(output string) string {
	if m := headerMissingRe.FindStringSubmatch(output); m != nil {
		return m[1]
	}
	return ""
}

func redirectNote(c *commandlog.Command) string {
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
