package plan

import (
	"path"
	"regexp"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What a command needs that the run may not have: an archive a download
// described in prose would have brought, a server on this machine, the
// arguments of a script; and blocks that are references or options rather
// than steps.

var (
	// archiveRe is a downloaded archive or package file.
	archiveRe = lazyre.New(`(?i)\.(tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tbz2?|tar\.zst|tar|zip|deb|rpm)$`)
	// positionalRe is a use of a script's arguments: "$@", $1, ${2}.
	positionalRe = lazyre.New(`(^|[^\\$\w])\$(\{[@*1-9]\}|[@*1-9])`)
	// quotedSingleRe is a single-quoted string: awk '{print $1}' is awk's.
	quotedSingleRe = lazyre.New(`'[^']*'`)
	// localURLRe is a URL of this machine.
	localURLRe = lazyre.New(`(?i)^(https?|wss?)://(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(:\d+)?|^(localhost|127\.0\.0\.1):\d+`)
)

// httpClients are programs whose argument names a server to talk to.
var httpClients = toSet(`curl wget http https xh curlie httpie wrk hey ab siege vegeta k6 websocat wscat grpcurl`)

// missingArchive returns the archive a `tar x` or `unzip` extracts when it
// is not in the repository and no earlier command downloaded it (the README
// says in prose to download it from a releases page), "" otherwise.
func (pl *planner) missingArchive(cmds []simple) string {
	if !pl.repo.FilesKnown() {
		return ""
	}
	made := map[string]bool{} // what the chain's earlier commands download
	for _, s := range cmds {
		name := path.Base(s.name())
		if name != "tar" && name != "unzip" {
			for _, a := range s.args() {
				u, _, _ := strings.Cut(a, "?")
				made[path.Base(u)] = true
			}
			continue
		}
		for _, a := range s.args() {
			if strings.HasPrefix(a, "-") || !archiveRe.MatchString(a) || strings.ContainsAny(a, "$*") {
				continue
			}
			clean := strings.TrimPrefix(a, "./")
			if !pl.inRepo(clean) && !pl.mentioned[clean] && !pl.mentioned[path.Base(clean)] && !made[path.Base(clean)] {
				return a
			}
		}
	}
	return ""
}

// localURL returns the URL of a server on this machine that an HTTP client
// talks to, "" for none.
func localURL(cmds []simple) string {
	for _, s := range cmds {
		if !httpClients[path.Base(s.name())] {
			continue
		}
		for _, a := range s.args() {
			if m := localURLRe.FindString(a); m != "" {
				return m
			}
		}
	}
	return ""
}

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

// trailingComment returns the comment at the end of a command line
// (`ncu "/x/" # windows`), "" for none.
func trailingComment(line string) string {
	t := quotedRe.ReplaceAllString(line, "''")
	if i := strings.Index(t, " #"); i >= 0 {
		return strings.TrimSpace(t[i+2:])
	}
	return ""
}

// argForms returns the program of a block that lists one program's
// argument forms, one argument a line with nothing to act on (`pup
// '.class'`, `pup '#id'`, … under "Implemented Selectors"): five or more
// lines, each the same program with exactly one argument, no pipe, no
// redirection; "" when the block is not one.
func argForms(cands []candidate) string {
	if len(cands) < 5 {
		return ""
	}
	prog := ""
	for _, c := range cands {
		if c.shape != shapeCommand {
			return ""
		}
		ws := lex(stripComment(c.text))
		if len(ws) != 2 || ws[0].op != "" || ws[1].op != "" || strings.Contains(c.text, "$(") {
			return ""
		}
		if prog == "" {
			prog = ws[0].text
		}
		if ws[0].text != prog || shellWords[prog] || ws[1].text == "--help" || ws[1].text == "--version" {
			return ""
		}
	}
	return prog
}

// unusedAliases returns the names a block of alias definitions defines when
// no later shell line of the README uses any of them (optional
// conveniences, as "you may alias ungron to gron --ungron"), "" otherwise.
func (pl *planner) unusedAliases(b readme.Block, cands []candidate) string {
	var names []string
	for _, c := range cands {
		if c.shape != shapeCommand {
			continue
		}
		ws := lex(stripComment(c.text))
		if len(ws) < 2 || ws[0].text != "alias" {
			return ""
		}
		for _, w := range ws[1:] {
			if n, _, ok := strings.Cut(w.text, "="); ok && n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	for _, n := range names {
		for _, l := range pl.uses[n] {
			if l > b.EndLine {
				return ""
			}
		}
	}
	return strings.Join(names, ", ")
}

// upgradeHeading returns the heading of a section about upgrading an
// installed copy that the block stands in (its own heading, or one above
// it other than the README's title and not also about installing:
// "Installing and Updating"), "" for none.
func upgradeHeading(hs []string) string {
	for i := len(hs) - 1; i >= 0; i-- {
		if i == len(hs)-1 && upgradeRe.MatchString(hs[i]) || i > 0 && upgradeRe.MatchString(hs[i]) && !installSectionRe.MatchString(hs[i]) {
			return hs[i]
		}
	}
	return ""
}
