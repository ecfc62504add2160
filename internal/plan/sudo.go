package plan

import (
	"path"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/shell"
)

// System package steps as a person runs them: with sudo where the README
// leaves it out, and -y where apt would ask.

// aptCommand reports an apt or apt-get command (update or install).
func aptCommand(text string) bool {
	for _, s := range simples(lex(text)) {
		if n := s.name(); n == "apt" || n == "apt-get" || n == "aptitude" {
			return true
		}
	}
	return false
}

// pkgIndexUpdate reports `apt update`, `apt-get update`, `brew update`:
// the refresh before an install, part of it.
func pkgIndexUpdate(s simple) bool {
	switch path.Base(s.name()) {
	case "apt", "apt-get", "aptitude", "brew", "port", "dnf", "yum", "zypper", "pacman":
		args := s.args()
		return len(args) > 0 && (args[0] == "update" || args[0] == "selfupdate" || args[0] == "refresh")
	}
	return false
}

// sameManager reports that the command text runs the package manager s
// runs (apt and apt-get count as one).
func sameManager(s simple, text string) bool {
	norm := func(n string) string {
		n = path.Base(n)
		if n == "apt-get" || n == "aptitude" {
			return "apt"
		}
		return n
	}
	for _, g := range simples(lex(text)) {
		if norm(g.name()) == norm(s.name()) {
			return true
		}
	}
	return false
}

// needsRoot names what in a command needs root when the README leaves out
// sudo: every part of it is a system package step (`apt install x`,
// `apt-get update`, `dpkg -i x.deb`) or a system-wide `make install`; ""
// when any part has sudo or needs no root.
func needsRoot(cmds []simple) string {
	what := ""
	for _, s := range cmds {
		if s.sudo {
			return ""
		}
		args := s.args()
		switch n := s.name(); n {
		case "apt", "apt-get", "aptitude":
			if len(args) == 0 {
				return ""
			}
			switch args[0] {
			case "install", "update", "upgrade", "remove", "purge", "autoremove", "dist-upgrade", "full-upgrade", "build-dep":
			default:
				return ""
			}
			what = n + " " + args[0]
		case "dpkg":
			if len(args) == 0 || args[0] != "-i" && args[0] != "--install" && args[0] != "-r" {
				return ""
			}
			what = "dpkg " + args[0]
		case "make":
			install := false
			for _, a := range args {
				if a == "install" {
					install = true
				}
				if strings.HasPrefix(a, "DESTDIR=") || strings.HasPrefix(a, "PREFIX=~") || strings.HasPrefix(a, "PREFIX=$HOME") ||
					strings.HasPrefix(a, "prefix=~") || strings.HasPrefix(a, "prefix=$HOME") {
					return "" // an install into the reader's own directories
				}
			}
			if !install {
				return ""
			}
			what = "make install"
		default:
			return ""
		}
	}
	return what
}

// asRoot is what runs for a README command that needs root without sudo:
// the command through sudo when the sandbox user has passwordless sudo,
// else the command as written (root already, or no sudo: it then fails
// as it would for the reader).
func asRoot(text string) string {
	return "if [ \"$(id -u)\" != 0 ] && sudo -n true 2>/dev/null; then sudo env \"PATH=$PATH\" bash -c " + shell.Quote(text) + "; else\n" + text + "\nfi"
}

// aptAsks are the apt verbs that ask for confirmation; aptVerbRe finds
// them in a command line.
var (
	aptAsks   = toSet(aptAskVerbs)
	aptVerbRe = lazyre.New(`\b(apt|apt-get|aptitude) (` + strings.ReplaceAll(aptAskVerbs, " ", "|") + `)\b`)
)

const aptAskVerbs = "install upgrade remove purge autoremove dist-upgrade full-upgrade build-dep reinstall"

// assumeYes returns an apt step with -y added when it asks for
// confirmation and the README leaves -y out: a person at the prompt
// answers yes; the sandbox has no terminal. "" when it is not such a step.
func assumeYes(cmds []simple, text string) string {
	if len(cmds) > 1 && !strings.Contains(text, "\n") && !strings.ContainsAny(text, "|;><#\"'`$") {
		// A chain (`sudo apt update && sudo apt install x y`): -y after
		// each apt verb that asks.
		changed := false
		out := aptVerbRe.ReplaceAllStringFunc(text, func(m string) string {
			changed = true
			return m + " -y"
		})
		for _, s := range cmds {
			for _, a := range s.args() {
				if a == "-y" || a == "--yes" || a == "--assume-yes" || a == "-qq" {
					return ""
				}
			}
		}
		if changed {
			return out
		}
		return ""
	}
	if len(cmds) != 1 || strings.Contains(text, "\n") || strings.ContainsAny(text, "|;&><#") {
		return ""
	}
	s := cmds[0]
	switch s.name() {
	case "apt", "apt-get", "aptitude":
	default:
		return ""
	}
	args := s.args()
	if len(args) == 0 || !aptAsks[args[0]] {
		return ""
	}
	for _, a := range args {
		switch a {
		case "-y", "--yes", "--assume-yes", "-qq":
			return ""
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'y') {
			return ""
		}
	}
	return strings.TrimSpace(text) + " -y"
}
