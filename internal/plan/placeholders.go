package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/containerpath"
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Placeholders: values a reader must fill in, usage syntax and made-up
// example names.

var (
	// rawSynopsisRe finds usage brackets in a command as written: [options],
	// [your node app], [dark|light] (not a test: `[ -f x ]` has spaces inside
	// its brackets, `[[` is doubled).
	rawSynopsisRe = lazyre.New(`(^|\s)\[[^\s\[\]$"'][^\[\]$]*[^\s\[\]]\](\.\.\.|…)?(\s|$)|(^|\s)\[[^\s\[\]$"']\](\.\.\.|…)?(\s|$)`)
	// plainSubstRe is a command substitution with no parentheses inside.
	plainSubstRe = lazyre.New(`\$\(([^()]*)\)`)
	// singleBraceRe is {source_file}: no comma or "..", so not a brace
	// expansion, so a placeholder.
	singleBraceRe = lazyre.New(`(^|\s)\{[A-Za-z_][\w -]*\}(\s|$)`)
	// fakeHostRe is a host that stands for the reader's: host.tld,
	// your-domain.com.
	// quotedRe is a quoted string: what is inside is data, not syntax.
	quotedRe = lazyre.New(`'[^']*'|"(?:[^"\\]|\\.)*"`)
	// keyRe is a key to press, as READMEs write it: <TAB>, <SHIFT-TAB>,
	// <CTRL-R>, <Enter>.
	keyRe      = lazyre.New(`(?i)^<(tab|shift-tab|space|enter|return|esc|escape|up|down|left|right|backspace|(ctrl|control|alt|meta|shift|cmd|option)[-+][^>]+)>$`)
	fakeHostRe = lazyre.New(`(?i)\b[\w.-]+\.tld\b|://(your|my)[-.]|://([\w-]+\.)*(your|my)[-_]?(domain|site|host|server|company|org|app|api)\b`)
	// alternativesRe is a word of three or more bare alternatives joined
	// by | with no space, as a usage text writes them
	// (--target greatest|newest|minor): not a pipeline.
	alternativesRe = lazyre.New(`(^|[\s=])([a-z][\w-]*(\|[a-z][\w-]*){2,})(\s|$)`)
	// orChoiceRe is a choice between two commands written with a bare
	// "or" in one line: ./install.py or ./uninstall.py.
	orChoiceRe = lazyre.New(`\S+\s+or\s+\.{0,2}/\S*`)
	// angleChoiceRe is a choice between values in angle brackets, which a
	// shell would read as a redirection and pipes: pm2 stop <id|name|'all'>.
	angleChoiceRe = lazyre.New(`(^|\s)(<[^<>\s|]+(\|[^<>\s|]+)+>)(\s|$)`)
)

// rawPlaceholder finds placeholders in a command as written, before any
// shell splitting would cut them up.
func rawPlaceholder(text string) (string, bool) {
	written, _, _ := strings.Cut(text, "\n")
	first := quotedRe.ReplaceAllString(written, "''")
	if m := rawSynopsisRe.FindString(first); m != "" && !strings.Contains(first, "[[") {
		return strings.TrimSpace(m), true
	}
	for _, sub := range plainSubstRe.FindAllStringSubmatch(written, -1) {
		// eval "$(tool [OPTION]...)": the synopsis inside quotes.
		if m := rawSynopsisRe.FindString(sub[1]); m != "" && !strings.Contains(sub[1], "[[") {
			return strings.TrimSpace(m), true
		}
	}
	if m := alternativesRe.FindStringSubmatch(first); m != nil && !allKnown(strings.Split(m[2], "|")[1:]) {
		return m[2], true
	}
	if m := orChoiceRe.FindString(stripComment(first)); m != "" && !echoes(first) {
		return strings.TrimSpace(m), true // ./install.py or ./uninstall.py
	}
	if m := angleChoiceRe.FindStringSubmatch(first); m != nil {
		if w := angleChoiceRe.FindStringSubmatch(written); w != nil {
			return w[2], false // as written, its quoted choices shown
		}
		return m[2], false
	}
	if m := singleBraceRe.FindString(first); m != "" {
		return strings.TrimSpace(m), false
	}
	if m := fakeHostRe.FindString(first); m != "" {
		return m, false
	}
	if m := capsBraceRe.FindStringSubmatch(first); m != nil {
		return m[1], false
	}
	if u := hostlessURL(first); u != "" {
		return u, false
	}
	if m := versionPlaceholderRe.FindStringSubmatch(first); m != nil {
		return m[2], false // vx.x.x: the release the reader picks
	}
	if m := exampleDomainRe.FindString(first); m != "" {
		return m, false
	}
	return "", false
}

// versionPlaceholderRe is a version a README leaves to the reader:
// vx.x.x, x.x.x, X.Y.Z, x.y.z (ov_x.x.x-1_amd64.deb).
var versionPlaceholderRe = lazyre.New(`(^|[^A-Za-z0-9.])(v?(?:[xX]\.[xX]\.[xX]|X\.Y\.Z|x\.y\.z))([^A-Za-z0-9.]|$)`)

// exampleDomainRe is a URL of the domains reserved for examples (RFC
// 2606) with a path: example.com answers, but its pages and files are
// made up (curl http://example.com/slides.md).
var exampleDomainRe = lazyre.New(`https?://(www\.)?example\.(com|org|net)/[^\s'"]+`)

// echoes reports a line that prints its words (echo, printf), whose "or"
// is text.
func echoes(line string) bool {
	switch firstField(line) {
	case "echo", "printf":
		return true
	}
	return false
}

// capsBraceRe is a {PLACEHOLDER} anywhere in a word: curl {APP}/users.
var capsBraceRe = lazyre.New(`(?:^|[^$\w])(\{[A-Z][A-Z0-9_]*\})`)

// curlValueOpts are curl and wget options that take a value.
var curlValueOpts = toSet(`-H -d -o -O -X -u -A -e -b -c -F -T -x -w -m -K -E -r -C --header --data --data-raw
--data-binary --data-urlencode --output --request --user --user-agent --referer --cookie --cookie-jar --form
--upload-file --proxy --write-out --max-time --config --cert --range --continue-at --output-document`)

// hostlessURL returns the URL argument of a curl or wget command that is a
// path without a host (`curl /users/123`): the README's shorthand for its
// server, not something to fetch.
func hostlessURL(line string) string {
	for _, s := range simples(lex(line)) {
		if n := path.Base(s.name()); n != "curl" && n != "wget" {
			continue
		}
		args := s.args()
		for i := 0; i < len(args); i++ {
			a := args[i]
			if curlValueOpts[a] {
				i++
				continue
			}
			if strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "//") {
				return a
			}
		}
	}
	return ""
}

// placeholder finds a word a reader must replace before running the
// command: <your-token>, YOUR_API_KEY, path/to/file, [dark|light],
// [options], an ALL-CAPS argument such as DRIVER. It returns the word and
// whether it is usage syntax (a synopsis) rather than a value to fill in.
func placeholder(ws []word) (string, bool) {
	cmds := simples(ws)
	for _, s := range cmds {
		for i, w := range s.argv {
			if w.op != "" {
				continue
			}
			if p, syn := placeholderWord(w, i, s); p != "" {
				return p, syn
			}
		}
		for _, f := range slices.Concat(s.inputs, s.outputs) {
			if pathToRe.MatchString(f) {
				return f, false // < /path/to/ruby.patch, > path/to/out.json
			}
		}
	}
	for _, a := range assignments(cmds) {
		_, v, _ := strings.Cut(a, "=")
		v = strings.Trim(v, `"'`)
		if yourRe.MatchString(a) || xxxRe.MatchString(a) || angleRe.MatchString(a) || pathToRe.MatchString(v) ||
			capsRe.MatchString(v) && len(v) >= 4 && !capsWords[v] {
			// GOOSE_DRIVER=DRIVER: the value names what to put there.
			return a, false
		}
	}
	return "", false
}

func assignments(cmds []simple) []string {
	var out []string
	for _, s := range cmds {
		out = append(out, s.assign...)
		// export NAME=value
		if s.name() == "export" {
			out = append(out, s.args()...)
		}
	}
	return out
}

var (
	angleRe = lazyre.New(`<[A-Za-z.](?:[^<>]*[^<>\s])?>`)
	yourRe  = lazyre.New(`(?i)(^|[^a-z])your[-_]?[a-z0-9]`)
	xxxRe   = lazyre.New(`(?i)x{5,}|\*{3,}|\.\.\.\.+`)
	// namePlaceholderRe is a hyphenated stand-in: package-name, app-name,
	// my-package, another-package.
	namePlaceholderRe = lazyre.New(`(?i)^@?(my|your|another|some|example|sample|foo)?[-_]?(package|app|application|project|file|user|repo|module|service|bucket|cluster|branch|image|container|host|server|db|database|table|key|tag|team|org|plugin|component|library|lib)[-_](name|id)(\.\w+)?$|^@?(my|your|another|some)[-_](package|app|application|project|module|service|plugin|component|library|lib|repo|file)s?$|^@my/`)
	// slugPlaceholderRe is an owner/name that stands for the reader's:
	// user/repo, owner/repo, your-org/your-repo.
	slugPlaceholderRe = lazyre.New(`(?i)^(github\.com/|gitlab\.com/)?(user|username|owner|org|organization|you|your-?\w*|me|my-?\w*|someone|somebody|account|name)/(repo|repository|project|name|your-?\w*|my-?\w*)(#\S*)?$`)
	pathToRe          = lazyre.New(`(^|/)path/to(/|$)|(^|/)some/path(/|$)|^some[_-]|^/path/|^/some/|^/(home|Users)/[^/$]+(/|$)`)
	// numberedRe is a numbered stand-in: command1, cmd2, file1, arg1.
	numberedRe = lazyre.New(`^(command|cmd|arg|argument|file|dir|folder|task|script|program|host|server)[-_]?\d$`)
	bracketRe  = lazyre.New(`^\[[^\[\]\s]*\|[^\[\]\s]*\]$|^\[-{0,2}[A-Za-z][\w-]*(\.\.\.)?\]$|^\[\.\.\.\]$`)
	templateRe = lazyre.New(`\{\{.*\}\}`)
	// exampleNameRe is a person's name that stands for the reader's.
	exampleNameRe = lazyre.New(`(?i)^(john|jane) (doe|smith)$|^(john|jane)\.?doe(@example\.\w+)?$|@example\.(com|org)$`)
	capsRe        = lazyre.New(`^[A-Z][A-Z0-9_]*[A-Z0-9](\.\.\.)?$`)
	// userHostRe matches USER@HOST placeholders.
	userHostRe = lazyre.New(`^[A-Z_]+@[A-Z_.]+$`)
)

// capsWords are upper-case arguments that are literal, not placeholders.
var capsWords = toSet(`GET POST PUT PATCH DELETE HEAD OPTIONS TRACE CONNECT ORIG_HEAD FETCH_HEAD MERGE_HEAD
README LICENSE CHANGELOG TODO UTC EOF END TERM INT KILL HUP USR1 USR2 QUIT SIGTERM SIGINT SIGKILL SIGHUP ALL
PATH HOME PWD OLDPWD SHELL USER LANG DEBUG INFO WARN ERROR JSON YAML CSV AUTHORS MAKEFILE CMAKE API HTTP HTTPS
OK CI NODE_ENV GOPATH GOBIN CC CXX CFLAGS LDFLAGS`)

// caseCommands take upper-case words as literal arguments (redis-cli SET).
var caseCommands = toSet(`redis-cli valkey-cli keydb-cli mysql psql sqlite3 export unset echo printf env set declare local read`)

func placeholderWord(w word, i int, s simple) (string, bool) {
	t, bare := w.text, w.bare
	switch {
	case t == "..." || t == "…" || strings.HasSuffix(bare, "...") && strings.HasPrefix(bare, "<"):
		return t, true
	case angleRe.MatchString(bare):
		return angleRe.FindString(bare), i > 0 && looksLikeSynopsis(s)
	case bracketRe.MatchString(bare) && i > 0:
		return bare, true
	case yourRe.MatchString(t), xxxRe.MatchString(t), pathToRe.MatchString(t), i > 0 && slugPlaceholderRe.MatchString(t),
		i > 0 && namePlaceholderRe.MatchString(path.Base(strings.TrimSuffix(t, "/"))):
		return t, false
	case templateRe.MatchString(bare):
		return bare, false // quoted, {{ … }} is a template the command reads (--format '{{.Name}}')
	case i > 0 && numberedRe.MatchString(firstField(t)), exampleNameRe.MatchString(t), userHostRe.MatchString(bare) && i > 0:
		return t, false
	case i > 0 && capsRe.MatchString(bare) && bare == t && len(t) >= 3 && !capsWords[strings.TrimSuffix(t, "...")] &&
		!caseCommands[s.name()]:
		return t, looksLikeSynopsis(s)
	}
	return "", false
}

// systemDirs are the top-level directories of a Linux system and of the
// sandbox (its workspace and run directory).
var systemDirs = func() map[string]bool {
	dirs := toSet(`bin boot dev etc home lib lib32 lib64 libx32 media mnt opt proc root run sbin srv sys tmp usr var nix snap`)
	for _, p := range []string{containerpath.Workspace, containerpath.RunDir, containerpath.AgentHome} {
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		dirs[first] = true
	}
	return dirs
}()

// readersDirRe is the first directory of a path on the README author's or
// reader's own machine: a capitalised one (/Users/me, /MyDirectory,
// /Volumes/disk) or a stand-in (/user/path/to/code, /path/to/x,
// /my-project).
var readersDirRe = lazyre.New(`^([A-Z][\w.-]*|users?|path|(my|your|some)[\w.-]*)$`)

// homeReadersDirRe is a folder of a person's home directory where their
// own files and checkouts live (~/Desktop, ~/Documents, ~/github,
// ~/projects), not one a program or the README's set-up makes.
var homeReadersDirRe = lazyre.New(`^(Desktop|Documents|Downloads|Pictures|Music|Videos|Movies|Dropbox|projects?|Projects?|code|Code|repos?|github|gitlab|workspace|dev|sites|www|(my|your|some)[\w.-]*)$`)

// readersPath returns an argument that is an absolute path on the README
// author's or reader's own machine (/Users/me/code, /user/path/to/code,
// /MyDirectory): its first directory is no Linux system's, looks like a
// person's, and no earlier command made it; or a path under one of the
// folders of a person's home (~/Desktop/x, ~/github/x) that no earlier
// command made; "" for none.
func (pl *planner) readersPath(cmds []simple) string {
	for _, s := range cmds {
		if n := path.Base(s.name()); n == "mkdir" || n == "touch" || n == "git" && len(s.args()) > 0 && s.args()[0] == "clone" {
			continue // it makes what it names
		}
		for _, a := range s.args() {
			if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
				a = v // --dockerfile-path=/Users/me/Dockerfile
			}
			// The root the path starts at, and what a person's folder
			// there looks like: /Users/me, or ~/Desktop and ~/github (a
			// fresh machine's home has none of them).
			root, readers := "/", readersDirRe
			a = tildeHome(a)
			if strings.HasPrefix(a, "~/") {
				root, readers = "~/", homeReadersDirRe
			}
			rel, ok := strings.CutPrefix(a, root)
			if !ok || strings.ContainsAny(rel, "$*?{}") {
				continue
			}
			first, _, _ := strings.Cut(rel, "/")
			if first != "" && fileArgRe.MatchString(rel) && !(root == "/" && systemDirs[first]) && readers.MatchString(first) && !pl.madeUnder(root+first) {
				return a
			}
		}
	}
	return ""
}

// looksLikeSynopsis reports a usage line: [options], <arg>, FILE...
func looksLikeSynopsis(s simple) bool {
	n := 0
	for _, w := range s.argv[min(1, len(s.argv)):] {
		if bracketRe.MatchString(w.bare) || strings.HasSuffix(w.bare, "...") && !strings.Contains(w.bare, "/") || w.text == "..." {
			return true
		}
		if angleRe.MatchString(w.bare) {
			n++
		}
	}
	return n >= 2
}

// firstField is the first white-space separated word of s.
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// allKnown reports words that are all programs the plan knows (a real
// pipeline written without spaces: ls|sort|uniq).
func allKnown(ws []string) bool {
	for _, w := range ws {
		if !knownCommands[w] {
			return false
		}
	}
	return true
}

// metasyntactic are the words READMEs use for "any value": foo, bar.
var metasyntactic = toSet(`foo bar baz qux foobar myfile my-file myapp my-app my_app myproject my-project
my_project mydir my-dir myrepo my-repo`)

// someNounRe is "some" and a noun, a README's stand-in for a value:
// someremote, some-branch, some_file.
var someNounRe = lazyre.New(`^some[-_]?(remote|branch|file|dir|directory|folder|repo|repository|project|app|tag|host|server|user|name|package|module|command|value|key|image|service)s?$`)

// makesNames are commands whose arguments name what they create or set,
// so foo there is the README's own demo, not a placeholder.
var makesNames = toSet(`echo printf export mkdir touch cd pushd cat tee cp mv ln alias set unset local declare git npm yarn pnpm cargo go`)

// exampleArg returns an argument that is a metasyntactic word (foo, bar,
// ~/foo, foo/) that no earlier command made real, "" when there is none.
func (pl *planner) exampleArg(cmds []simple) string {
	made := map[string]bool{} // what the line's earlier commands name (mkdir foo && ls foo)
	for _, s := range cmds {
		// `git open x` runs the project git-open: its arguments are its own.
		gitOwn := s.name() == "git" && len(s.argv) > 1 && pl.repo.is("git-"+s.argv[1].text)
		if (makesNames[s.name()] || shellWords[s.name()]) && !gitOwn {
			for _, a := range s.args() {
				made[path.Base(strings.TrimSuffix(a, "/"))] = true
			}
			continue
		}
		for _, w := range s.argv[min(1, len(s.argv)):] {
			if w.text != w.bare || strings.HasPrefix(w.text, "/") {
				continue // quoted: data; absolute: a real place (/tmp/foo)
			}
			a := path.Base(strings.TrimSuffix(w.text, "/"))
			if (metasyntactic[a] || someNounRe.MatchString(a)) && !made[a] && !pl.seen.mentioned[a] && !pl.seen.mentioned[strings.TrimPrefix(w.text, "~/")] {
				return w.text
			}
		}
	}
	return ""
}

// exampleProgs are program names READMEs use for the reader's own program.
var exampleProgs = toSet(`foo bar baz my-cli mycli my-app myapp my-tool mytool my-program myprogram my-command your-app`)

// exampleProgram skips a run of a program name READMEs use for the
// reader's own program (foo, myapp) that nothing made.
func exampleProgram(pl *planner, x *cmd) (Entry, bool) {
	if n := path.Base(x.head[0].name()); exampleProgs[n] && !pl.seen.mentioned[n] && pl.seen.installed[n] == 0 && !pl.repo.is(n) {
		return pl.skip(x, because(KindPlaceholder, "example program %s: the reader's own, not one this README makes", n))
	}
	return pass()
}

// fillInRe is a comment that asks the reader to put their own value in
// the command: "# replace with the path to your dotfiles".
var fillInRe = lazyre.New(`(?i)\b(replace|substitute|fill in|adjust|change)\b[^.]{0,40}\b(with|by|to|for)\b|\b(path|name|url|address|id) (to|of) your\b|\byour own\b|\bset (this|it) to\b`)

// placeholderRule skips a command with a value to fill in, usage syntax,
// a key press, or a made-up example argument.
func placeholderRule(pl *planner, x *cmd) (Entry, bool) {
	for _, c := range []string{trailingComment(firstLineOf(x.c.text)), x.c.comment} {
		if fillInRe.MatchString(c) {
			return pl.skip(x, because(KindPlaceholder, "a value to fill in: the comment says so (%q)", strings.TrimLeft(c, "# ")))
		}
	}
	ph, synopsis := rawPlaceholder(x.c.text)
	if ph == "" {
		ph, synopsis = placeholder(x.ws)
	}
	if ph != "" {
		if k := angleRe.FindString(ph); k != "" && keyRe.MatchString(k) {
			return pl.skip(x, because(KindText, "key press %s: shows an interactive completion, not a command to run", k))
		}
		if synopsis {
			return pl.skip(x, because(KindSynopsis, "usage synopsis (%s), not a command to run", ph))
		}
		return pl.skip(x, because(KindPlaceholder, "placeholder %s: a value to fill in", ph))
	}
	if p := pl.readersPath(x.head); p != "" && !x.funcDef {
		return pl.skip(x, because(KindPlaceholder, "placeholder %s: a path on the README author's or reader's own machine", p))
	}
	if a := pl.exampleArg(x.head); a != "" && !x.funcDef && !inLineData(x.c.text, a) {
		return pl.skip(x, because(KindPlaceholder, "example argument %s: an illustration, not a value for this run", a))
	}
	return pass()
}

// varUseRe is a use of a shell variable: $NAME, ${NAME}, ${NAME:?}.
var varUseRe = lazyre.New(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// unsetVariable skips a command that uses a variable only a skipped line
// sets (`KUBESEAL_VERSION=” # set this to …` skipped, then a download of
// v${KUBESEAL_VERSION:?}).
func unsetVariable(pl *planner, x *cmd) (Entry, bool) {
	if len(pl.seen.unset) == 0 {
		return pass()
	}
	for _, v := range usedVars(x.c.text) {
		if l := pl.seen.unset[v]; l > 0 {
			return pl.skip(x, because(KindPlaceholder, "uses $%s, which only line %d sets, and that line is not run", v, l))
		}
	}
	return pass()
}

// usedVars are the shell variables a command uses, outside single quotes.
func usedVars(command string) []string {
	var vars []string
	for _, m := range varUseRe.FindAllStringSubmatch(quotedSingleRe.ReplaceAllString(command, "''"), -1) {
		vars = append(vars, m[1])
	}
	return vars
}

// tildeHome writes a path under $HOME/ or ${HOME}/ as ~/: one folder,
// however the README names it.
func tildeHome(p string) string {
	for _, home := range []string{"$HOME/", "${HOME}/"} {
		if rest, ok := strings.CutPrefix(p, home); ok {
			return "~/" + rest
		}
	}
	return p
}

// madeUnder reports a path at or under dir that an earlier command named
// (`sudo mkdir -p /MyData/db`).
func (pl *planner) madeUnder(dir string) bool {
	for m := range pl.seen.mentioned {
		if m = tildeHome(m); m == dir || strings.HasPrefix(m, dir+"/") {
			return true
		}
	}
	return false
}
