package plan

import (
	"path"
	"regexp"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// File contents: blocks that are a file's content, written where the
// README says or skipped, and blocks of settings.

var (
	// fileNameCommentRe is a comment line holding only a file name:
	// "// index.js", "# app/main.py", "<!-- index.html -->".
	fileNameCommentRe = lazyre.New(`^\s*(?://|#|--|;|/\*|<!--)\s*((?:\./)?[\w.][\w./-]*)\s*(?:\*/|-->)?\s*$`)
	// createFileRe is a sentence that asks the reader to create a file.
	createFileRe = lazyre.New(`(?i)\b(create|creating|save|saving|put|write|add|update|edit|make|paste)\b`)
	// saveAsCommentRe is a first line like "# save this as app.py".
	saveAsCommentRe = lazyre.New(`(?i)^\s*(?:#|//|--|;|/\*)\s*(?:save (?:this |it )?(?:as|to|in)|file(?:name)?:?|in)\s+` + "`?" + `([\w.][\w./-]*\.[A-Za-z0-9]+)` + "`?" + `\.?\s*(?:\*/)?\s*$`)
)

// namedFile returns the file a block is the content of, when the README
// names exactly one ("Create a file `main.py` with:", or a first line
// "# save this as app.py"), with the reason; "" otherwise. A person writes
// such a file before running the commands that use it.
func (pl *planner) namedFile(b readme.Block) (string, Decision) {
	if b.Mode == readme.ModeConsole || otherShellLangs[b.Lang] != "" {
		return "", Decision{}
	}
	if len(b.Lines) > 0 {
		if m := saveAsCommentRe.FindStringSubmatch(b.Lines[0].Text); m != nil && looksLikeFile(m[1]) {
			if pl.repo.hasFile(strings.TrimPrefix(m[1], "./")) {
				return "", Decision{} // the repository's own file, shown (see shownFile)
			}
			use := pl.usedAfter(strings.TrimPrefix(m[1], "./"), b.EndLine)
			if use == 0 {
				return "", Decision{} // nothing runs on it: an example of the file
			}
			return m[1], because(KindWriteFile, "file content: its first line says to save it as %s, which line %d uses, so it is written there, as a person would", m[1], use).with(causeNamedByText)
		}
		// A first line that is only a file's name ("// index.js"), for a
		// file the repository lacks, no earlier command made and a later
		// command uses (`node index.js`).
		if m := fileNameCommentRe.FindStringSubmatch(b.Lines[0].Text); m != nil && looksLikeFile(m[1]) {
			f := strings.TrimPrefix(m[1], "./")
			if !pl.repo.hasFile(f) && !pl.seen.mentioned[f] && pl.usedAfter(f, b.EndLine) > 0 {
				return f, because(KindWriteFile, "file content: its first line names %s, which line %d uses, so it is written there, as a person would", f, pl.usedAfter(f, b.EndLine))
			}
		}
	}
	sentence := lastSentence(b.Before)
	if sentence == "" || !createFileRe.MatchString(sentence) {
		return "", Decision{}
	}
	var names []string
	for _, m := range codeSpanRe.FindAllStringSubmatch(sentence, -1) {
		if looksLikeFile(m[1]) && extRe.MatchString(m[1]) && !strings.HasPrefix(m[1], "/") {
			names = append(names, m[1])
		}
	}
	if len(names) != 1 || (readme.IsShellLang(b.Lang) && rcFileRe.MatchString(names[0])) {
		return "", Decision{}
	}
	use := pl.usedAfter(strings.TrimPrefix(names[0], "./"), b.EndLine)
	if use == 0 {
		return "", Decision{} // nothing runs on it: an example of the file
	}
	return names[0], because(KindWriteFile, "file content: the text before the block says to put it in %s, which line %d uses, so it is written there, as a person would", names[0], use).with(causeNamedByText)
}

// shownFile returns the repository file a block shows, by a first line
// naming it ("# file: examples/math.inc"), "" for none.
func (pl *planner) shownFile(b readme.Block) string {
	if len(b.Lines) == 0 || b.Mode == readme.ModeConsole {
		return ""
	}
	for _, re := range []*lazyre.Regexp{saveAsCommentRe, fileNameCommentRe} {
		if m := re.FindStringSubmatch(b.Lines[0].Text); m != nil {
			if f := strings.TrimPrefix(m[1], "./"); pl.repo.hasFile(f) {
				return f
			}
		}
	}
	return ""
}

// fileEntry is the entry that writes a block to a file.
func (pl *planner) fileEntry(b readme.Block, target string, d Decision) Entry {
	lines := make([]string, len(b.Lines))
	for i, l := range b.Lines {
		lines[i] = l.Text
	}
	content := strings.Join(lines, "\n")
	e := Entry{File: pl.file, Line: b.Line, EndLine: b.EndLine, BlockLine: b.Line, Language: b.Lang}
	if b.Hints.Skip {
		d = because(KindHint, "skip hint")
	}
	e.setDecision(d)
	e.Step.WriteFile, e.Step.Content = target, content
	e.Command = heredoc(target, content)
	pl.seen.mentioned[strings.TrimPrefix(target, "./")] = true
	pl.seen.mentioned[path.Base(target)] = true
	e.Step.Timeout, e.Step.ContinueOnError = b.Hints.Timeout, b.Hints.ContinueOnError
	if b.Hints.Cwd != "" {
		e.Step.Cwd, e.Step.LeaveCwd = b.Hints.Cwd, true
	}
	if b.Hints.Setup != "" {
		e.Step.Setup, e.Step.SetupLine = b.Hints.Setup, b.Line
	}
	return e
}

// fileTarget reads the sentence before a block: when it presents the block
// as a file's content it returns the kind ("bashrc" for bash's startup
// files, "othershell" for another shell's, "file" otherwise) and the
// target as written.
func fileTarget(before string) (kind, target string) {
	before = plainText(before)
	if before == "" || !fileIntroRe.MatchString(before) {
		return "", ""
	}
	if notFileRe.MatchString(lastSentence(before)) && !regexp.MustCompile(`(?i)\bsave|\bfile (named|called)|bashrc|zshrc|profile`).MatchString(before) {
		return "", ""
	}
	target = "a file"
	for _, m := range codeSpanRe.FindAllStringSubmatch(before, -1) {
		if pathLikeRe.MatchString(m[1]) {
			target = m[1]
		}
	}
	switch {
	case otherRcRe.MatchString(before) && !bashrcRe.MatchString(before):
		m := otherRcRe.FindString(before)
		return "othershell", m
	case bashrcRe.MatchString(before) && (shellCfgRe.MatchString(before) || regexp.MustCompile(`(?i)bashrc|bash_profile|\.profile`).MatchString(before)):
		return "bashrc", rcTarget(before, "~/.bashrc")
	case shellCfgRe.MatchString(before) && !otherRcRe.MatchString(before):
		return "bashrc", rcTarget(before, "the shell's startup file")
	}
	if target == "a file" && !regexp.MustCompile(`(?i)\bfile\b|\bsave`).MatchString(before) {
		return "", ""
	}
	return "file", target
}

// rcTarget names the startup file a sentence points at: its code span
// that is one (`~/.bashrc`), else def.
func rcTarget(before, def string) string {
	for _, m := range codeSpanRe.FindAllStringSubmatch(before, -1) {
		if rcFileRe.MatchString(m[1]) {
			return m[1]
		}
	}
	return def
}

// settingsReference reports a block whose every command only sets shell
// variables (not exported, so no program sees them) that no command of the
// block or after it reads: a list of settings and their values, written as
// assignments (`PF_INFO="ascii title"`, `PF_COLOR=1`).
func (pl *planner) settingsReference(b readme.Block, cands []candidate) bool {
	names := map[string]bool{}
	n := 0
	for _, c := range cands {
		if c.shape != shapeCommand {
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) != 1 || len(ss[0].argv) > 0 || len(ss[0].assign) == 0 {
			return false
		}
		for _, a := range ss[0].assign {
			name, _, _ := strings.Cut(a, "=")
			names[name] = true
		}
		n++
	}
	if n < 2 {
		return false
	}
	for name := range names {
		re := regexp.MustCompile(`\$\{?` + regexp.QuoteMeta(name) + `\b`)
		for _, l := range pl.readme.lines {
			if l.Line >= b.Line && re.MatchString(l.Text) {
				return false
			}
		}
	}
	return true
}

var (
	// settingsHeadingRe is a section of options for the program.
	settingsHeadingRe = lazyre.New(`(?i)\b(configur\w*|customi[sz]\w*|settings?|options|preferences|key\s*-?bindings?|themes?|colou?rs?)\b`)
	// optionalCueRe is a sentence that offers a setting rather than
	// requiring it.
	optionalCueRe = lazyre.New(`(?i)\byou can (set|change|configure|customi[sz]e|override|toggle|specify|define)\b|\boptional(ly)?\b|\byou only need to\b|\bwithout any of these\b|\benvironment variable\b[^.]*\b(can be used|is used|used)\b`)
	// userPrefVars are a user's own preferences, never a step.
	userPrefVars = map[string]bool{"EDITOR": true, "VISUAL": true, "PAGER": true, "BROWSER": true}
)

// optionalSettings names the project's settings a block only exports, in
// a section of options or after a sentence that offers them ("You can
// configure … by setting environment variables"): FFF_COL1=2,
// TLDR_LANGUAGE="es", WALK_REMOVE_CMD=trash. Values chosen as examples
// change what the later commands do; "" when the block is not that. Only
// variables named after the project (and EDITOR-like preferences) count:
// a setting of another tool may be a step.
func (pl *planner) optionalSettings(b readme.Block, cands []candidate) string {
	if !settingsHeadingRe.MatchString(plainText(innermost(b.Headings))) && !optionalCueRe.MatchString(proseOnly(lastSentence(b.Before))) {
		return ""
	}
	var prefixes []string
	for _, n := range pl.repo.Names {
		prefixes = append(prefixes, strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(n))+"_")
	}
	var names []string
	for _, c := range cands {
		if c.shape != shapeCommand {
			continue
		}
		for _, s := range simples(lex(c.text)) {
			var assigns []string
			switch {
			case len(s.argv) == 0:
				assigns = s.assign
			case s.name() == "export" && len(s.assign) == 0:
				assigns = s.args()
			default:
				return ""
			}
			for _, a := range assigns {
				name, _, ok := strings.Cut(a, "=")
				if !ok || !isAssignment(a) {
					return ""
				}
				own := userPrefVars[name]
				for _, p := range prefixes {
					own = own || strings.HasPrefix(name, p)
				}
				if !own {
					return ""
				}
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return strings.Join(names, ", ")
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
		for _, l := range pl.readme.uses[n] {
			if l > b.EndLine {
				return ""
			}
		}
	}
	return strings.Join(names, ", ")
}

var (
	// archiveRe is a downloaded archive or package file.
	archiveRe = lazyre.New(`(?i)\.(tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tbz2?|tar\.zst|tar|zip|deb|rpm)$`)
	// positionalRe is a use of a script's arguments: "$@", $1, ${2}.
	positionalRe = lazyre.New(`(^|[^\\$\w])\$(\{[@*1-9]\}|[@*1-9])`)
	// quotedSingleRe is a single-quoted string: awk '{print $1}' is awk's.
	quotedSingleRe = lazyre.New(`'[^']*'`)
)

// writesForNothing skips a file the plan would write because a later line
// uses it, when every line that uses it is skipped: nothing would read it.
func writesForNothing(p *Plan) {
	for i := range p.Entries {
		e := &p.Entries[i]
		if e.Kind != KindWriteFile || e.Step.WriteFile == "" || e.cause&causeNamedByText == 0 {
			continue
		}
		f := strings.TrimPrefix(e.Step.WriteFile, "./")
		used := false
		for _, u := range p.Entries {
			if u.Run && u.Line > e.Line && u.Kind != KindWriteFile && commandUses(u.command(), f) {
				used = true
				break
			}
		}
		if !used {
			e.setDecision(because(KindFileContent, "file content for %s: every line that uses it is skipped, so nothing would read it", f))
		}
	}
}

// commandUses reports a command that names a file as one of its words.
func commandUses(text, file string) bool {
	for _, w := range lex(text) {
		if w.op == "" && (strings.TrimPrefix(w.text, "./") == file || path.Base(w.text) == path.Base(file)) {
			return true
		}
	}
	return false
}
