package repoconfig

import (
	"path"
	"slices"
	"strings"
)

// Git configuration is scrubbed by an ALLOWLIST: git has many keys that
// run a program (core.hooksPath, core.fsmonitor, core.sshCommand,
// core.pager, core.editor, core.askPass, filter.<x>.clean/smudge/process,
// diff.<x>.textconv/command, merge.<x>.driver, credential.helper,
// gpg.program, alias.<x> = !cmd, remote.<x>.uploadpack/receivepack/vcs,
// submodule.<x>.update = !cmd, include.path and includeIf pulling in more
// configuration, …) and new ones appear; a denylist always lags. A
// repository only needs the keys below to be a working clone inside the
// sandbox; everything else is dropped, and the file is re-written from
// what was parsed (nothing unparsed is copied through).

// gitKeyRule says whether section.key (section and key lower case,
// subsection as written) survives.
type gitKeyRule struct {
	sub  bool            // the section has a subsection ([remote "origin"])
	keys map[string]bool // allowed keys, lower case
}

var gitAllow = map[string]gitKeyRule{
	"core": {keys: set("repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
		"precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf", "quotepath", "checkstat",
		"trustctime", "sparsecheckout", "sparsecheckoutcone", "abbrev", "compression",
		"loosecompression", "bigfilethreshold", "untrackedcache", "splitindex", "protecthfs",
		"protectntfs", "commitgraph", "multipackindex", "longpaths")},
	// worktreeConfig is left out: it only makes git read config.worktree,
	// which is scrubbed too.
	"extensions": {keys: set("objectformat", "refstorage", "partialclone", "preciousobjects", "noop")},
	"remote": {sub: true, keys: set("url", "pushurl", "fetch", "push", "tagopt", "prune", "prunetags",
		"mirror", "promisor", "partialclonefilter", "skipdefaultupdate", "skipfetchall")},
	"branch": {sub: true, keys: set("remote", "merge", "rebase", "pushremote", "description")},
	"submodule": {sub: true, keys: set("url", "active", "branch", "fetchrecursesubmodules", "ignore",
		"shallow")},
	"user":  {keys: set("name", "email")},
	"init":  {keys: set("defaultbranch")},
	"pull":  {keys: set("rebase", "ff")},
	"fetch": {keys: set("prune", "prunetags")},
	"gc":    {keys: set("auto")},
	"index": {keys: set("version")},
}

func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// urlKeys hold a repository address: credentials are removed and only
// ordinary transports are kept.
var urlKeys = map[string]bool{"url": true, "pushurl": true}

// gitEntry is one parsed variable.
type gitEntry struct {
	section, sub string // section lower case, subsection as written
	key          string // lower case
	value        string
	hasValue     bool // "key" alone means true
}

// ScrubGitConfig returns the git configuration b reduced to the allowed
// keys, re-written from what was parsed: credentials are removed from
// remote URLs (user:token@, as actions/checkout's extraheader is not an
// allowed key at all), addresses using a remote helper (ext::, fd::) or
// starting with "-" are dropped, and lines that do not parse are dropped.
// The result is stable: scrubbing it again changes nothing.
func ScrubGitConfig(b []byte) []byte {
	var out strings.Builder
	cur := ""
	for _, e := range parseGitConfig(string(b)) {
		rule, ok := gitAllow[e.section]
		if !ok || rule.sub != (e.sub != "") || !rule.keys[e.key] {
			continue
		}
		if !e.hasValue {
			e.value = "true"
		}
		if urlKeys[e.key] {
			v, ok := scrubURL(e.value)
			if !ok {
				continue
			}
			e.value = v
		}
		head := "[" + e.section + "]\n"
		if e.sub != "" {
			head = "[" + e.section + ` "` + quoteGit(e.sub) + "\"]\n"
		}
		if head != cur {
			out.WriteString(head)
			cur = head
		}
		out.WriteString("\t" + e.key + " = " + gitValue(e.value) + "\n")
	}
	return []byte(out.String())
}

// scrubURL removes user:password@ from a URL and refuses transports that
// run programs.
func scrubURL(v string) (string, bool) {
	if v == "" || strings.HasPrefix(v, "-") {
		return "", false
	}
	if scheme, rest, ok := strings.Cut(v, "://"); ok {
		if !validScheme(scheme) {
			return "", false
		}
		if at := strings.IndexByte(rest, '@'); at >= 0 && at < strings.IndexAny(rest+"/", "/") {
			rest = rest[at+1:]
		}
		return scheme + "://" + rest, true
	}
	// "<transport>::<address>" runs git-remote-<transport>.
	if strings.Contains(v, "::") {
		return "", false
	}
	return v, true
}

func validScheme(s string) bool {
	switch strings.ToLower(s) {
	case "https", "http", "ssh", "git", "file", "git+ssh", "ssh+git":
		return true
	}
	return false
}

// gitValue writes a value so that git reads it back exactly and no
// character of it can be read as a comment, a continuation or syntax:
// plain when it is plain, else in double quotes with git's escapes.
func gitValue(v string) string {
	plain := v != "" && v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; plain && i < len(v); i++ {
		c := v[i]
		plain = c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c != '#' && c != ';'
	}
	if plain {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		if e, ok := gitEscapes[r]; ok {
			b.WriteString(e)
		} else if r >= 0x20 && r != 0x7f { // git would refuse other controls
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// gitEscapes are the escapes git reads in a quoted value.
var gitEscapes = map[rune]string{'\\': `\\`, '"': `\"`, '\n': `\n`, '\t': `\t`, '\b': `\b`}

func quoteGit(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// parseGitConfig reads git's configuration syntax: [section],
// [section "subsection"], the old [section.subsection], variables with or
// without "= value", quoted values with \\ \" \n \t \b escapes, comments
// after # or ; outside quotes, continuation lines ending in a backslash,
// and a variable on the line of its section header. Anything it cannot
// read is skipped (and so dropped by the scrub).
func parseGitConfig(s string) []gitEntry {
	var out []gitEntry
	section, sub := "", ""
	valid := false // the current section header parsed
	i := 0
	for i < len(s) {
		// One logical line.
		i = skipBlank(s, i)
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			i++
			continue
		case c == '#' || c == ';':
			i = lineEnd(s, i)
			continue
		case c == '[':
			var ok bool
			section, sub, i, ok = parseHeader(s, i)
			valid = ok
			if !ok {
				i = lineEnd(s, i)
			}
			continue
		case isAlpha(c):
			e, next, ok := parseVar(s, i)
			i = next
			if ok && valid {
				e.section, e.sub = section, sub
				out = append(out, e)
			}
		default:
			i = lineEnd(s, i)
		}
	}
	return out
}

func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// lineEnd returns the index after the end of the line holding i.
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// parseHeader reads a section header at s[i] == '['. It returns the index
// right after ']' (the rest of the line may hold a variable).
func parseHeader(s string, i int) (section, sub string, next int, ok bool) {
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-' || s[j] == '.') {
		j++
	}
	name := strings.ToLower(s[i+1 : j])
	if name == "" || j >= len(s) {
		return "", "", j, false
	}
	if s[j] == ']' {
		// [section] or the old [section.subsection] (subsection lower case).
		if sec, old, found := strings.Cut(name, "."); found {
			return sec, old, j + 1, sec != "" && old != ""
		}
		return name, "", j + 1, true
	}
	if s[j] != ' ' && s[j] != '\t' {
		return "", "", j, false
	}
	j = skipBlank(s, j)
	if j >= len(s) || s[j] != '"' || strings.Contains(name, ".") {
		return "", "", j, false
	}
	var b strings.Builder
	for j++; j < len(s); j++ {
		switch c := s[j]; c {
		case '\\':
			j++
			if j >= len(s) || s[j] == '\n' {
				return "", "", j, false
			}
			b.WriteByte(s[j])
		case '"':
			if j+1 < len(s) && s[j+1] == ']' {
				return name, b.String(), j + 2, b.Len() > 0
			}
			return "", "", j, false
		case '\n', 0:
			return "", "", j, false
		default:
			b.WriteByte(c)
		}
	}
	return "", "", j, false
}

// parseVar reads "name [= value]" at s[i] and returns the index after its
// (last continuation) line.
func parseVar(s string, i int) (gitEntry, int, bool) {
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		j++
	}
	e := gitEntry{key: strings.ToLower(s[i:j])}
	j = skipBlank(s, j)
	if j >= len(s) || s[j] == '\n' || s[j] == '\r' || s[j] == '#' || s[j] == ';' {
		return e, lineEnd(s, min(j, len(s)-1)), true
	}
	if s[j] != '=' {
		return e, lineEnd(s, j), false
	}
	j++
	var b strings.Builder
	quoted, pendingSpace := false, 0
	for j < len(s) {
		c := s[j]
		switch {
		case c == '\n' && !quoted:
			return finishVar(e, b.String()), j + 1, true
		case c == '\n' || c == 0:
			// A newline inside quotes is an error for git.
			return e, lineEnd(s, j), false
		case c == '\r' && j+1 < len(s) && s[j+1] == '\n':
			j++
			continue
		case (c == '#' || c == ';') && !quoted:
			return finishVar(e, b.String()), lineEnd(s, j), true
		case c == '"':
			quoted = !quoted
			j++
			continue
		case c == '\\':
			if j+1 >= len(s) {
				return e, len(s), false
			}
			switch n := s[j+1]; n {
			case '\n':
				// Continuation.
			case '\r':
				if j+2 < len(s) && s[j+2] == '\n' {
					j++
				}
			case '\\', '"', 'n', 't', 'b':
				flushSpace(&b, &pendingSpace)
				b.WriteByte("\\\"\n\t\b"[strings.IndexByte(`\"ntb`, n)])
			default:
				return e, lineEnd(s, j), false
			}
			j += 2
			continue
		case (c == ' ' || c == '\t') && !quoted:
			// Inner white space is kept as is, trailing white space
			// dropped: hold it until a non-space follows.
			if b.Len() > 0 {
				pendingSpace++
			}
			j++
			continue
		}
		flushSpace(&b, &pendingSpace)
		b.WriteByte(c)
		j++
	}
	if quoted {
		return e, len(s), false
	}
	return finishVar(e, b.String()), len(s), true
}

func flushSpace(b *strings.Builder, n *int) {
	for ; *n > 0; *n-- {
		b.WriteByte(' ')
	}
}

func finishVar(e gitEntry, v string) gitEntry {
	e.value, e.hasValue = v, true
	return e
}

// gitConfigFile reports whether rel (clean, slash-separated, at or below a
// ".git" directory at index gitAt of parts) is a git configuration file:
// .git/config, .git/config.worktree, .git/worktrees/<w>/config.worktree
// and the config files of submodule git directories under .git/modules.
func gitConfigFile(parts []string, gitAt int) bool {
	inner := parts[gitAt+1:]
	base := inner[len(inner)-1]
	if base != "config" && base != "config.worktree" {
		return false
	}
	switch {
	case len(inner) == 1:
		return true
	case inner[0] == "worktrees" && len(inner) == 3:
		return true
	case inner[0] == "modules" && len(inner) >= 3:
		// Not a ref or a reflog named "config" inside a submodule's git
		// directory.
		return !inGitData(inner[1 : len(inner)-1])
	}
	return false
}

// inGitData reports a path inside a git directory's refs, logs or objects.
func inGitData(parts []string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return p == "refs" || p == "logs" || p == "objects" })
}

// gitHooksPath reports whether the path is a hooks directory (or inside
// one) of the repository's git directory or of a submodule's.
func gitHooksPath(parts []string, gitAt int) bool {
	inner := parts[gitAt+1:]
	for i, p := range inner {
		if p != "hooks" {
			continue
		}
		if i == 0 {
			return true
		}
		if (inner[0] == "modules" || inner[0] == "worktrees") && !inGitData(inner[1:i]) {
			return true
		}
	}
	return false
}

// ScrubGitFile keeps a ".git" file (a submodule's or worktree's
// "gitdir: <path>" pointer) only when it points into a ".git" directory,
// whose configuration is scrubbed; a pointer anywhere else could make git
// read an unscrubbed configuration and is emptied.
func ScrubGitFile(b []byte) []byte {
	line, _, _ := strings.Cut(string(b), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return nil
	}
	dir = strings.TrimSpace(dir)
	for _, p := range strings.Split(path.Clean(strings.ReplaceAll(dir, `\`, "/")), "/") {
		if p == ".git" {
			return []byte("gitdir: " + dir + "\n")
		}
	}
	return nil
}

// GitEnv is added to the environment of every command in the sandbox, as
// defence in depth behind the scrub: git configuration from the command
// line level (GIT_CONFIG_COUNT) outranks any repository file, and
// safe.bareRepository=explicit stops git from using a bare repository
// committed inside the tree (whose config the scrub does not know) unless
// a command names it with --git-dir.
func GitEnv() map[string]string {
	return map[string]string{
		"GIT_CONFIG_COUNT":   "1",
		"GIT_CONFIG_KEY_0":   "safe.bareRepository",
		"GIT_CONFIG_VALUE_0": "explicit",
	}
}
