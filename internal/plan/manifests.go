package plan

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What a build or task program needs in its directory: its manifest, and
// there the target or script a command names.

// manifests are the files a build or task program needs in its directory.
var manifests = map[string][]string{
	"make": {"Makefile", "makefile", "GNUmakefile"}, "gmake": {"Makefile", "makefile", "GNUmakefile"},
	"cargo": {"Cargo.toml"}, "mvn": {"pom.xml"}, "gradle": {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
	"just": {"justfile", "Justfile", ".justfile"}, "rake": {"Rakefile", "rakefile"}, "composer": {"composer.json"},
	"mix": {"mix.exs"}, "task": {"Taskfile.yml", "Taskfile.yaml"}, "npm": {"package.json"}, "yarn": {"package.json"},
	"pnpm": {"package.json"}, "bun": {"package.json"},
}

// manifestVerbs are, for a program that also works anywhere, the
// subcommands that need its manifest (cargo new does not; cargo build
// does).
var manifestVerbs = map[string]map[string]bool{
	"cargo":    toSet(`build run test check bench clippy doc fmt`),
	"npm":      toSet(`run run-script start test t ci`),
	"yarn":     toSet(`run start test build dev`),
	"pnpm":     toSet(`run start test build dev`),
	"bun":      toSet(`run start test`),
	"composer": toSet(`install update dump-autoload run-script test`),
	"mix":      toSet(`compile test run deps.get phx.server ecto.create ecto.migrate`),
}

// missingManifest says why a build or task command cannot run in the
// checkout as the session stands: `make` where there is no Makefile,
// `make target` or `npm run script` that the manifest does not define, ""
// when it can (or when the plan cannot tell: a directory a build made, an
// option that points elsewhere, a manifest an earlier step generates).
func (pl *planner) missingManifest(cmds []simple) string {
	if !pl.repo.FilesKnown() || pl.seen.cwd == cwdUnknown {
		return ""
	}
	configured := pl.seen.configured
	for _, s := range cmds {
		name, args := path.Base(s.name()), s.args()
		names := manifests[name]
		configured = configured || configures(s) // ./configure && make
		if names == nil || s.onlyInfo() {
			continue
		}
		verb := ""
		for _, a := range args {
			if a == "-C" || a == "-f" || a == "--file" || a == "--manifest-path" || a == "--prefix" || a == "-p" || a == "--project-dir" || strings.HasPrefix(a, "--manifest-path=") || strings.HasPrefix(a, "--prefix=") {
				verb = "\x00" // it points elsewhere
				break
			}
			if !strings.HasPrefix(a, "-") && verb == "" {
				verb = a
			}
		}
		if verb == "\x00" || manifestVerbs[name] != nil && !manifestVerbs[name][verb] {
			continue
		}
		if (name == "make" || name == "gmake") && configured {
			continue // ./configure or cmake wrote a Makefile
		}
		found := ""
		for _, m := range names {
			if pl.inRepo(m) {
				found = m
			}
		}
		if found == "" {
			if pl.seen.cwd != "" || !pl.seen.mentioned[names[0]] {
				return reasonf("runs %s, and the directory it runs in has no %s: an example for the reader's own project, not a step", name, names[0])
			}
			continue
		}
		if pl.seen.cwd != "" {
			continue // the manifests read are the checkout's root ones
		}
		if t := pl.undefinedTarget(name, verb, args, found); t != "" {
			return t
		}
	}
	return ""
}

// configures reports a command that generates a Makefile (or the build
// files a later make reads): ./configure, cmake, autogen.sh, meson.
func configures(s simple) bool {
	switch path.Base(s.name()) {
	case "cmake", "configure", "meson", "autogen.sh", "bootstrap", "bootstrap.sh", "qmake", "build.sh":
		return true
	}
	return false
}

// configureGenerators are the programs that generate an autotools
// project's ./configure script from configure.ac.
var configureGenerators = toSet(`autogen.sh autoreconf autoconf bootstrap bootstrap.sh buildconf buildconf.sh`)

// ungeneratedConfigure returns, for a command that runs ./configure where
// the checkout has none (it is generated, and kept out of the repository),
// the checkout's generator (autogen.sh, or autoreconf for configure.ac)
// when no earlier line that runs generated it: the README's steps for a
// release tarball, which a checkout cannot follow as written. "" otherwise.
func (pl *planner) ungeneratedConfigure(cmds []simple) string {
	if !pl.repo.FilesKnown() || pl.seen.configureMade || pl.inRepo("configure") {
		return ""
	}
	for _, s := range cmds {
		n := s.script()
		if configureGenerators[path.Base(n)] {
			return "" // generated earlier on the line: ./autogen.sh && ./configure
		}
		if n != "./configure" && n != "configure" {
			continue
		}
		for _, g := range []string{"autogen.sh", "bootstrap", "bootstrap.sh", "buildconf", "buildconf.sh"} {
			if pl.inRepo(g) {
				return "./" + g
			}
		}
		if pl.inRepo("configure.ac") || pl.inRepo("configure.in") {
			return "autoreconf -i"
		}
	}
	return ""
}

// proseGenerator returns the command that generates ./configure when the
// text before the block gives it in code ("Run `./autogen.sh` if compiling
// from a cloned repository") and the block's ./configure needs it
// (ungeneratedConfigure); "" otherwise.
func (pl *planner) proseGenerator(b readme.Block, cmds []simple) string {
	if pl.ungeneratedConfigure(cmds) == "" {
		return ""
	}
	for _, m := range codeSpanRe.FindAllStringSubmatch(b.Before, -1) {
		if ss := simples(lex(m[1])); len(ss) == 1 && configureGenerators[path.Base(ss[0].script())] {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// undefinedTarget says when a make target or an npm script the command
// asks for is not in the checkout's manifest, "" otherwise (or when the
// manifest cannot be read).
func (pl *planner) undefinedTarget(name, verb string, args []string, manifest string) string {
	b, ok := pl.repo.Manifests[manifest]
	if !ok {
		return ""
	}
	switch name {
	case "make", "gmake":
		if verb == "" || strings.Contains(verb, "=") {
			return ""
		}
		targets, open := makeTargets(b)
		if open || targets[verb] {
			return ""
		}
		return reasonf("runs make %s, and the checkout's %s has no %s target: an example for the reader's own project, not a step", verb, manifest, verb)
	case "npm", "yarn", "pnpm", "bun":
		script := verb
		if verb == "run" || verb == "run-script" {
			script = ""
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") {
					script = a
					break
				}
			}
		}
		if script == "" || script == "ci" || script == "install" {
			return ""
		}
		var pj struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal(b, &pj) != nil || pj.Scripts[script] != "" {
			return ""
		}
		if script == "start" && pl.inRepo("server.js") {
			return "" // npm start runs server.js by default
		}
		return reasonf("runs the %s script, which the checkout's package.json does not define: an example for the reader's own project, not a step", script)
	}
	return ""
}

// makeTargetRe is a rule's target list: "build test: deps".
var makeTargetRe = lazyre.New(`(?m)^([A-Za-z0-9_./ -]+?)\s*::?(?:[^=]|$)`)

// makeTargets are the targets a Makefile defines; open is true when it
// includes other files or has pattern rules, so a target may be elsewhere.
func makeTargets(b []byte) (targets map[string]bool, open bool) {
	targets = map[string]bool{}
	for _, m := range makeTargetRe.FindAllSubmatch(b, -1) {
		for _, t := range strings.Fields(string(m[1])) {
			targets[t] = true
		}
	}
	open = bytes.Contains(b, []byte("\ninclude ")) || bytes.HasPrefix(b, []byte("include ")) || bytes.Contains(b, []byte("\n-include ")) ||
		bytes.Contains(b, []byte("%:")) || bytes.Contains(b, []byte("$(eval")) || bytes.Contains(b, []byte(".DEFAULT")) ||
		bytes.Contains(b, []byte("\n$(")) || len(targets) == 0
	return targets, open
}

// makeRecipe returns the recipe lines of a Makefile's rule for target,
// without their leading tab and @ or - prefixes; nil when no rule names
// it.
func makeRecipe(b []byte, target string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case in && strings.HasPrefix(l, "\t"):
			out = append(out, strings.TrimLeft(strings.TrimSpace(l), "@-+"))
		case in && strings.TrimSpace(l) == "":
		default:
			in = false
			if m := makeTargetRe.FindStringSubmatch(l); m != nil && slices.Contains(strings.Fields(m[1]), target) {
				in = true
			}
		}
	}
	return out
}

// userInstallRe is a recipe line that installs into the user's own
// directories: the Go command's or cargo's install (into GOPATH/bin,
// ~/.cargo/bin), unless told a system root.
var userInstallRe = lazyre.New(`^(?:go|\$[({]GO(?:CMD)?[)}]|cargo)\s+install\b`)

// installsForUser reports a checkout whose `make install` installs only
// into the user's own directories (its recipe is `go install`): run with
// sudo, it would install into root's instead, out of the reader's PATH.
func (pl *planner) installsForUser() bool {
	for _, name := range manifests["make"] {
		b, ok := pl.repo.Manifests[name]
		if !ok {
			continue
		}
		recipe := makeRecipe(b, "install")
		user := false
		for _, l := range recipe {
			if strings.Contains(l, "--root") || strings.Contains(l, "/usr") || strings.Contains(l, "PREFIX") || strings.Contains(l, "DESTDIR") {
				return false
			}
			user = user || userInstallRe.MatchString(l)
		}
		return user
	}
	return false
}
