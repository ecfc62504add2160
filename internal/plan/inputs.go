package plan

import (
	"path"
	"regexp"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// What a command needs that the run may not have: a file, an archive, a
// directory, a server on this machine; and the session's directory.

// inLineData reports an argument that the command line itself gives as
// data: `echo '{"foo":"bar"}' | json foo` reads the key foo of the JSON it
// pipes, `json fred.age` the path fred.age.
func inLineData(text, arg string) bool {
	var data strings.Builder
	if i := strings.Index(quotedRe.ReplaceAllStringFunc(text, func(q string) string { return strings.Repeat("x", len(q)) }), " #"); i >= 0 {
		text = text[:i] // a comment is not data the command reads
	}
	for _, q := range quotedRe.FindAllString(text, -1) {
		if q != "'"+arg+"'" && q != `"`+arg+`"` {
			data.WriteString(q)
			data.WriteByte(' ')
		}
	}
	if data.Len() == 0 {
		return false
	}
	parts := strings.FieldsFunc(strings.Trim(arg, "./~"), func(r rune) bool { return r == '.' || r == '/' })
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(p) + `\b`).MatchString(data.String()) {
			return false
		}
	}
	return true
}

// patternOpts take a value that is an output or a pattern, not an input.
var patternOpts = toSet(`-o --output --out -O -g --glob -e --extension -name -iname --include --exclude -E -t --type`)

// outputOptRe names long options whose value is a file the command writes:
// --report-path, --output-file, --log-dir.
var outputOptRe = lazyre.New(`^--[\w-]*(out|output|report|log|cache|save|dest|target|export|write)[\w-]*$`)

// saveFlags are package managers' options that take no value (`npm
// install --save-dev PKG`: PKG is a package, not a file written).
var saveFlags = toSet(`--save --save-dev --save-exact --save-optional --save-peer --save-prod --save-bundle --no-save`)

// outputOpt reports a long option whose value is a file the command writes.
func outputOpt(opt string) bool { return outputOptRe.MatchString(opt) && !saveFlags[opt] }

// notFileCommands take arguments that are not input files (package names,
// targets, branch names, outputs) or create what they name.
var notFileCommands = toSet(`
git gh npm npx yarn pnpm bun pip pip3 pipx uv poetry go cargo rustup gem bundle brew apt apt-get
docker podman kubectl helm curl wget ssh scp rsync make cmake ninja meson mkdir touch cp mv ln rm rmdir
echo printf export unset alias cd pushd kill pkill chmod chown tar unzip zip sudo mise asdf
sdk conda mamba open xdg-open man which type command help complete eval exec
test [ [[ set shopt sqlite3 duckdb git-lfs hub mvn gradle ./mvnw ./gradlew dotnet composer nix nix-env snap systemctl
service ping dig host nslookup whois ssh-keygen gpg openssl code vim vi nvim nano emacs less more
`)

var (
	fileArgRe = lazyre.New(`^(\./)?\.?[\w][\w.+-]*(/[\w.+-]+)*/?$`)
	// extRe is a file name extension people give files (not deps.get).
	extRe    = lazyre.New(`(?i)\.(md|markdown|rst|txt|json|jsonl|ya?ml|toml|ini|cfg|conf|env|lock|csv|tsv|xml|html?|css|s[ac]ss|js|mjs|cjs|jsx|tsx?|vue|svelte|py|ipynb|rb|go|mod|sum|rs|c|h|cc|cpp|hpp|cxx|java|kt|kts|scala|swift|dart|php|pl|lua|r|ex|exs|erl|hs|ml|sh|bash|zsh|fish|ps1|bats|sql|db|sqlite|log|png|jpe?g|gif|svg|webp|pdf|zip|tar|gz|tgz|bz2|xz|7z|deb|rpm|whl|gem|jar|war|apk|dmg|exe|msi|proto|graphql|tf|hcl|nix|patch|diff|pem|crt|key|pub|age|asc|gpg|mp4|mp3|wav|iso|img|bin|so|a|o|wasm|dockerfile|gradle|properties|in|am|ac|m4|cmake|mk)$`)
	domainRe = lazyre.New(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|sh|cc|in|me|co|app|xyz|tld|local|gov|edu)/`)
	// generatedRe names what builds and configure steps make: ./configure
	// (autoreconf), Makefile, target/, build/, dist/, bin/ …
	generatedRe = lazyre.New(`^(configure|Makefile|config\.status|(target|build|_build|dist|out|bin|obj|release|debug|node_modules|\.venv|venv|vendor|pkg)(/.*)?)$`)
	versionRe   = lazyre.New(`^v?\d+(\.\d+)+`)
)

// missingFile returns the first argument of a command that names a file
// of the repository that does not exist, when the plan knows the
// repository's files and no earlier command named it; "" otherwise.
func (pl *planner) missingFile(cmds []simple) string {
	if !pl.repo.FilesKnown() {
		return ""
	}
	for _, s := range cmds {
		for _, f := range s.inputs { // the files it reads through `<`
			if looksLikeFile(f) {
				clean := strings.TrimSuffix(strings.TrimPrefix(f, "./"), "/")
				if !generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.seen.mentioned[clean] && !pl.seen.mentioned[path.Base(clean)] {
					return f
				}
			}
		}
	}
	var earlier []string // words of the chain's earlier commands
	madeEarlier := func(d string) bool {
		for _, w := range earlier {
			// An archive extracts to its stem: rcm-1.3.4.tar.gz makes rcm-1.3.4.
			if b := path.Base(w); b == d || strings.HasPrefix(b, d+".") {
				return true
			}
		}
		return false
	}
	for i, s := range cmds {
		if i > 0 {
			earlier = append(earlier, cmds[i-1].args()...)
		}
		if inner, ok := packageCommand(s); ok {
			s = inner // what `npx PKG …` runs: its arguments name files
		}
		for _, a := range s.assign {
			// FOO_PATH=./.env.local: a file the command will read.
			_, v, _ := strings.Cut(a, "=")
			v = strings.Trim(v, `"'`)
			if clean := strings.TrimSuffix(strings.TrimPrefix(v, "./"), "/"); strings.HasPrefix(v, "./") && looksLikeFile(v) &&
				!generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.seen.mentioned[clean] && !pl.seen.mentioned[path.Base(clean)] {
				return v
			}
		}
		name := s.name()
		if (name == "cd" || name == "pushd") && len(s.argv) == 2 {
			// cd into a directory of the README's example project.
			d := strings.TrimSuffix(strings.TrimPrefix(s.argv[1].text, "./"), "/")
			if fileArgRe.MatchString(d) && !strings.Contains(d, "..") && d != "." && !generatedRe.MatchString(d) &&
				!pl.inRepo(d) && !pl.seen.mentioned[d] && !pl.seen.mentioned[strings.SplitN(d, "/", 2)[0]] && !pl.seen.cloneDirs[d] && !madeEarlier(d) {
				return d
			}
			continue
		}
		args := s.args()
		if (notFileCommands[name] || notFileCommands[path.Base(name)]) && !gitFileVerb(name, args) {
			continue
		}
		if name == "git" {
			args = args[1:] // the files after `git add`, `git apply`
		}
		if len(args) > 0 && packageVerbs[args[0]] {
			continue // `clib install clibs/ms`: package names, not files
		}
		if len(args) > 0 && createVerbs[args[0]] {
			continue // `jbang init hello.java`: it makes what it names
		}
		scripts := stdinFilters[path.Base(name)] // jq's filter, sed's script: not files
		for i, a := range args {
			if !strings.HasPrefix(a, "-") && scripts > 0 {
				scripts--
				continue
			}
			if madeEarlier(path.Base(a)) {
				continue // an earlier command of the line downloaded or made it
			}
			if opt, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(opt, "--") && !outputOpt(opt) {
				a = v // --find=src/Utils.hs
			}
			a = fileOfArg(a)
			if i > 0 && patternOpts[args[i-1]] {
				continue // an output to make, or a pattern to match, not a file to read
			}
			if i > 0 && outputOpt(args[i-1]) {
				continue // the value of an option that names what the command writes
			}
			if w := s.argv[i+1]; w.text == w.bare && pl.globMisses(a) {
				return a // *.png, and the checkout has none
			}
			if !genericArg(a, args, i) && (!looksLikeFile(a) || pl.slugArg(a)) {
				continue
			}
			clean := strings.TrimSuffix(strings.TrimPrefix(a, "./"), "/")
			if generatedRe.MatchString(clean) || pl.inRepo(clean) || pl.seen.mentioned[clean] || pl.seen.mentioned[path.Base(clean)] || pl.seen.mentioned[strings.SplitN(clean, "/", 2)[0]] {
				continue
			}
			return a
		}
		// The command itself: ./bin/tool, scripts/x.sh, or a script by its
		// name (test-script.sh), which is on no PATH unless it is here.
		if (strings.HasPrefix(name, "./") || !strings.Contains(name, "/") && scriptExtRe.MatchString(name) && pl.seen.installed[name] == 0) && looksLikeFile(name) {
			clean := strings.TrimPrefix(name, "./")
			if !generatedRe.MatchString(clean) && !pl.inRepo(clean) && !pl.seen.mentioned[clean] && !pl.seen.mentioned[strings.SplitN(clean, "/", 2)[0]] && !pl.seen.mentioned[path.Base(clean)] {
				return name
			}
		}
	}
	return ""
}

// fileGlobRe is a relative path with a wildcard the shell expands:
// *.png, src/*.rs, docs/**/*.md (not a URL, not a quoted pattern).
var fileGlobRe = lazyre.New(`^(\./)?([\w.+*?-]+/)*[\w.+-]*[*?][\w.+*?-]*$`)

// globMisses reports an unquoted wildcard argument for files with an
// extension (*.png, notebooks/*.ipynb) that matches no file of the
// checkout where the command runs, nor anything an earlier line named: the
// shell would hand the program the pattern itself.
func (pl *planner) globMisses(a string) bool {
	if !fileGlobRe.MatchString(a) || !extRe.MatchString(a) || pl.seen.cwd == cwdUnknown {
		return false
	}
	pat := path.Clean(path.Join(pl.seen.cwd, a))
	base := path.Base(pat)
	deep := strings.Contains(pat, "**")
	for f := range pl.repo.Files {
		if ok, _ := path.Match(pat, f); ok {
			return false
		}
		if ok, _ := path.Match(base, path.Base(f)); ok && deep {
			return false
		}
	}
	for m := range pl.seen.mentioned {
		if ok, _ := path.Match(base, path.Base(m)); ok {
			return false
		}
	}
	return true
}

// genericPathRe is a path made only of the words READMEs write for "a
// file of yours": file, dir/file, folder/file.txt, some/dir.
var genericPathRe = lazyre.New(`^(\./)?((dir|directory|folder|path|file|filename|some|my)/)*(dir|directory|folder|file|filename)(\.[a-z0-9]+)?/?$`)

// genericArg reports an argument (a, args[i] as the file it names) made
// only of the words for a file of yours, even shaped like owner/name
// (dir/file); a bare word first before other arguments may be a
// subcommand instead (`tool file list`).
func genericArg(a string, args []string, i int) bool {
	return genericPathRe.MatchString(a) && (i > 0 || strings.ContainsAny(a, "/.") || len(args) == 1 || strings.HasPrefix(args[1], "-"))
}

// fileLocRe is a file with a place in it, as compilers and linters print
// them: src/main.cr:26:83, app.py:12.
var fileLocRe = lazyre.New(`^([^:]+\.[A-Za-z0-9]+):\d+(:\d+)?$`)

// schemeFileRe is a file named with a source scheme before it, as scanners
// and image tools take them: sbom:./sbom.json, dir:./src,
// docker-archive:./image.tar.
var schemeFileRe = lazyre.New(`^[a-z][a-z0-9+-]*:(\.\.?/.*)$`)

// fileOfArg returns the file an argument names when it wraps one in a
// location (path:LINE:COL) or a scheme (sbom:./x.json); a itself otherwise.
func fileOfArg(a string) string {
	if m := fileLocRe.FindStringSubmatch(a); m != nil {
		return m[1]
	}
	if m := schemeFileRe.FindStringSubmatch(a); m != nil {
		return m[1]
	}
	return a
}

// gitFileVerbs are git subcommands whose arguments are files of the
// working tree or patches to read.
var gitFileVerbs = toSet(`add apply am rm blame`)

// gitFileVerb reports `git add FILE`, `git apply PATCH`: a git command
// whose arguments name files.
func gitFileVerb(name string, args []string) bool {
	return name == "git" && len(args) > 0 && gitFileVerbs[args[0]]
}

// createVerbs are subcommands that make what their arguments name.
var createVerbs = toSet(`init new create generate gen scaffold touch mkdir`)

// looksLikeFile reports an argument shaped like a relative file path with
// an extension or a directory part: server.js, app/server.js, ./x.
func looksLikeFile(a string) bool {
	if a == "" || a == "." || a == ".." || strings.HasPrefix(a, "-") || !fileArgRe.MatchString(a) ||
		domainRe.MatchString(a) || versionRe.MatchString(a) || strings.Contains(a, "...") {
		return false
	}
	return strings.Contains(strings.TrimPrefix(a, "./"), "/") || extRe.MatchString(a) || strings.HasPrefix(a, "./") || dotFileRe.MatchString(a) ||
		capsStemRe.MatchString(a)
}

// capsStemRe is a file name with an upper-case stem and any extension:
// FILE.zpln, INPUT.ipynb.bak, a README's stand-in for the reader's file.
var capsStemRe = lazyre.New(`^[A-Z][A-Z0-9_]{2,}(\.[A-Za-z0-9]+)+$`)

// packageVerbs are subcommands whose arguments name packages.
var packageVerbs = toSet(`install i add get remove uninstall update upgrade up`)

// scriptExtRe is a script's file name.
var scriptExtRe = lazyre.New(`\.(sh|bash|py|rb|pl|js|mjs|ts)$`)

// dotFileRe is an env or rc file with a suffix: .env.local, .eslintrc.json
// (not .a.b, a jq path).
var dotFileRe = lazyre.New(`^\.(env|[\w-]*rc)(\.[\w-]+)+$`)

// cwdUnknown is planner.cwd when the session's directory is not known: a
// directory of the checkout that the repository does not have (one a build
// made), or above the checkout.
const cwdUnknown = "\x00"

// follow tracks the session's directory through the `cd` commands that run,
// so that later commands' files are looked up where they run.
func (pl *planner) follow(cmds []simple) {
	for _, s := range cmds {
		if s.name() != "cd" && s.name() != "pushd" {
			continue
		}
		args := s.args()
		switch {
		case pl.seen.cwd == cwdUnknown:
		case len(args) != 1 || strings.HasPrefix(args[0], "/") || strings.HasPrefix(args[0], "~") || strings.HasPrefix(args[0], "$") || args[0] == "-":
			// Out of the checkout: later examples are still judged against
			// its files, as a reader reads them.
			pl.seen.cwd = ""
		default:
			d := path.Clean(path.Join(pl.seen.cwd, args[0]))
			switch {
			case d == ".":
				pl.seen.cwd = ""
			case strings.HasPrefix(d, ".."):
				pl.seen.cwd = cwdUnknown
			case pl.repo.hasFile(d):
				pl.seen.cwd = d
			default:
				pl.seen.cwd = cwdUnknown // a directory an earlier command made
			}
		}
	}
}

// inRepo reports a path (relative to the session's directory) the
// repository has; true when the directory is not known.
func (pl *planner) inRepo(p string) bool {
	if pl.seen.cwd == cwdUnknown {
		return true
	}
	return pl.repo.hasFile(path.Clean(path.Join(pl.seen.cwd, p)))
}

// slugRe is an owner/name pair: a GitHub repository (zyedidia/micro) or an
// os/arch pair (darwin/amd64), with no file extension.
var slugRe = lazyre.New(`^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w-]*$`)

// slugArg reports an argument that names a repository, not a file: an
// owner/name whose owner is no directory of the checkout and that no
// earlier command made.
func (pl *planner) slugArg(a string) bool {
	if !slugRe.MatchString(a) {
		return false
	}
	owner := strings.SplitN(a, "/", 2)[0]
	return !pl.inRepo(owner) && !pl.seen.mentioned[owner] && !generatedRe.MatchString(owner)
}

// missingInput skips a command on something nothing made: an archive no
// command downloaded, a file or directory the repository lacks, a server
// on this machine that no command started.
func missingInput(pl *planner, x *cmd) (Entry, bool) {
	if !x.funcDef {
		if g := pl.ungeneratedConfigure(x.head); g != "" && pl.proseGenerator(x.b, x.head) == "" {
			return pl.skip(x, because(KindMissingInput, "runs ./configure, which the checkout does not have: %s generates it, and no earlier line runs that "+
				"(the steps of a release tarball)", g))
		}
		for _, ss := range [][]simple{x.head, x.nested()} {
			if what := pl.missingManifest(ss); what != "" {
				return pl.skip(x, because(KindMissingInput, "%s", what))
			}
		}
		if f := pl.missingFile(x.nested()); f != "" {
			return pl.skip(x, because(KindMissingInput, "refers to %s, which is not in the repository and which no earlier command creates: an example, not a step", f))
		}
		if p := systemPath(x.head); p != "" && !pl.seen.mentioned[p] {
			return pl.skip(x, because(KindMissingInput, "reads %s, a system file of the reader's machine that no earlier command makes", p))
		}
		if step := pl.inReleaseFolder(x.b, x.head); step != "" {
			return pl.skip(x, because(KindMissingInput, "runs %s in the folder of a release archive, which the text says to download and unpack: the run has the checkout, not that folder", step).with(causeArchive))
		}
		if f := pl.missingArchive(x.head); f != "" {
			return pl.skip(x, because(KindMissingInput, "extracts %s, which no earlier command downloads (a download the text describes)", f).with(causeArchive))
		}
		if ext := pl.searchFindsNothing(x.head); ext != "" {
			return pl.skip(x, because(KindMissingInput, "searches for .%s files, and the checkout has none: an example for the reader's own files", ext))
		}
		if f := pl.missingFile(x.head); f != "" && !inLineData(x.c.text, f) {
			return pl.skip(x, because(KindMissingInput, "refers to %s, which is not in the repository and which no earlier command creates: an example, not a step", f))
		}
	}
	if u := localURL(x.cmds); u != "" && !pl.seen.serverUp && server(x.cmds) == "" {
		return pl.skip(x, because(KindMissingInput, "needs a server at %s, and no earlier command starts one", u))
	}
	return pass()
}

// changesDir reports a command that only changes the session's
// directory: the lines after it in its block run there.
func changesDir(text string) bool {
	ss := simples(lex(text))
	return len(ss) == 1 && (ss[0].name() == "cd" || ss[0].name() == "pushd")
}

// runners are programs that run the commands their quoted arguments hold.
var runners = toSet(`hyperfine watch entr parallel timeout time nice nohup xargs`)

// nested are the commands the command's runner programs run from their
// arguments (`hyperfine 'make -j4'`, `bash -c 'cat x'`), and the build
// program a wrapper runs after `--` (`dotenv -- mvn exec:java`).
func (x *cmd) nested() []simple {
	var out []simple
	for _, s := range x.head {
		for i, w := range s.argv[:max(len(s.argv)-1, 0)] {
			if w.text == "--" && manifests[path.Base(s.argv[i+1].text)] != nil {
				out = append(out, simple{argv: s.argv[i+1:]})
				break
			}
		}
		name, args := path.Base(s.name()), s.args()
		shell := (name == "bash" || name == "sh") && len(args) > 1 && args[0] == "-c"
		if !runners[name] && !shell {
			continue
		}
		for i, w := range s.argv[1:] {
			if w.text != w.bare && strings.Contains(w.text, " ") || shell && i == 1 {
				out = append(out, simples(lex(w.text))...)
			}
		}
	}
	return out
}

// systemPathRe is a file of the reader's own system configuration: what
// the README's reader has set up, not this machine.
var systemPathRe = lazyre.New(`^/(etc|opt|srv|var/(lib|www|log))/[\w.-]+/[\w./-]+$`)

// systemPath returns an argument naming a file under the reader's system
// directories (/etc/valkey/6379.conf), "" for none.
func systemPath(cmds []simple) string {
	for _, s := range cmds {
		if notFileCommands[path.Base(s.name())] {
			continue
		}
		for _, a := range s.args() {
			if systemPathRe.MatchString(a) && extRe.MatchString(a) {
				return a
			}
		}
	}
	return ""
}
