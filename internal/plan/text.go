package plan

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Output and text: which lines of a block look like commands, and which
// are output, prose, data or a help text.

// shellWords are shell keywords and builtins that start a command.
var shellWords = toSet(`if for while until case select function then do else elif fi done esac { } ( (( [[ [ ! . :
source export alias unalias cd pushd popd echo eval exec set unset read printf test trap exit return local declare
typeset shopt ulimit umask wait type hash command builtin true false time complete bind history jobs fg bg kill`)

var (
	commandNameRe = lazyre.New(`^[a-z0-9_][a-z0-9_.+-]*$`)
	versionLikeRe = lazyre.New(`^[0-9][0-9.,:/%x-]*$`)
	urlRe         = lazyre.New(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)
	columnsRe     = lazyre.New(`\S {3,}\S.* {3,}\S`)
	timingRe      = lazyre.New(`\d(\.\d+)?s user .*\bsystem\b.*\bcpu\b|\breal\s+\d+m[\d.]+s`)
	bareVarRe     = lazyre.New(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`)
	funcDefRe     = lazyre.New(`^[\w:.-]+\(\)(\{.*)?$`)
)

// lineShape says what a script line looks like.
type lineShape int

const (
	shapeCommand lineShape = iota // looks like a shell command
	shapeText                     // output, prose or data: not a command
	shapeREPL                     // a Python/Node REPL line (>>> …)
)

// shapeOf classifies the first line of a would-be command by its first
// word. A command starts with a command name (lower case), a path, an
// assignment, a shell keyword or builtin, or an expansion; output and data
// start with anything else: a capital letter ("Hello, world!", "Usage:"),
// a digit ("3 passed"), punctuation ("{", "-", "|", "→"), a word ending in
// a colon ("direnv: loading"), a URL.
func shapeOf(line string) lineShape {
	t := strings.TrimSpace(line)
	if t == "" {
		return shapeText
	}
	if rest, ok := strings.CutPrefix(t, "[sudo] "); ok {
		t = rest // sudo where the reader needs it (decide)
	}
	if ws := strings.Fields(t); len(ws) >= 3 && ws[1] == "=" && !comparers[ws[0]] {
		return shapeText // a setting of TOML or INI, `rev = "26.01.0"`: no shell command has "=" for its first argument
	}
	if closers[stripComment(t)] {
		// The end of a compound whose start was no command (`@test 'x' {`
		// of a bats file): bash could not run it alone.
		return shapeText
	}
	if strings.HasPrefix(t, ">>>") || strings.HasPrefix(t, "...") && len(t) > 3 && t[3] == ' ' {
		return shapeREPL
	}
	first := t
	if i := strings.IndexAny(t, " \t"); i >= 0 {
		first = t[:i]
	}
	if columnsRe.MatchString(stripComment(t)) && !strings.ContainsAny(t, "|&;<>$`\"'\\") {
		return shapeText // a table of output: words in aligned columns
	}
	if bareVarRe.MatchString(t) {
		return shapeText // a variable's name, as prose lists it
	}
	if timingRe.MatchString(t) {
		return shapeText // what `time` printed: "4.67s user 4.58s system 286% cpu"
	}
	switch {
	case keyLegendRe.MatchString(first):
		return shapeText // a key and what it does: "/: search", ".: toggle hidden files"
	case shellWords[first]:
		return shapeCommand
	case psVerbNoun.MatchString(first):
		return shapeCommand // PowerShell: judged as another platform's command
	case funcDefRe.MatchString(first):
		return shapeCommand // a function definition: greet() {, :(){
	case strings.HasPrefix(first, "{") || strings.HasPrefix(first, "["):
		// `{ cmd; }` and `[ -f x ]` are shell; `{"a": 1}` and `[INFO]` are not.
		if first == "{" || first == "[" || first == "[[" {
			return shapeCommand
		}
		return shapeText
	case strings.HasPrefix(first, "("):
		return shapeCommand // a subshell: (cd x && make)
	case strings.HasPrefix(first, "$"):
		return shapeCommand // $VAR/bin/tool, $(cmd)
	case strings.HasPrefix(first, "./") || strings.HasPrefix(first, "../") || strings.HasPrefix(first, "~/") ||
		strings.HasPrefix(first, "/") && len(first) > 1:
		return shapeCommand
	case strings.HasPrefix(first, `"$`) || strings.HasPrefix(first, `"./`) || strings.HasPrefix(first, `"/`) ||
		strings.HasPrefix(first, `'./`) || strings.HasPrefix(first, `"~/`):
		return shapeCommand
	case isAssignment(first):
		return shapeCommand
	case urlRe.MatchString(first):
		return shapeText
	case strings.HasSuffix(first, ":") || strings.HasSuffix(first, ","):
		return shapeText
	case strings.HasSuffix(t, ":") && !strings.ContainsAny(t, "$|&;`'\"="):
		return shapeText // "http-server settings:"
	case versionLikeRe.MatchString(first):
		return shapeText
	case commandNameRe.MatchString(first):
		return shapeCommand
	case strings.Contains(first, "/") && commandNameRe.MatchString(strings.ReplaceAll(first, "/", "")):
		return shapeCommand // bin/tool, node_modules/.bin/x
	}
	return shapeText
}

// comparers are the commands whose arguments may be a lone "=".
var comparers = toSet(`test [ [[ expr`)

// closers are the words that end or continue a compound command.
var closers = toSet(`} }; fi done esac then else do ) }) end`)

// keyLegendRe is a key of a key list, punctuation and a colon: "/:",
// "~:", "!:" ("::" too; ":" alone is the shell's no-op).
var keyLegendRe = lazyre.New(`^[^\w\s]{1,2}:$`)

// functionWords are words of sentences that commands do not have as
// arguments.
var functionWords = toSet(`a an the of to for by in on with from your this that these those is are was were
and or per all every each into when if its their you it be can will should which`)

// copulas are the verbs of a sentence that says what its subject is.
var copulas = toSet(`is are was were`)

var proseWordRe = lazyre.New(`^[a-z][a-z'’-]*[,.;:]?$`)

// isProse reports a line that is a sentence rather than a command: three
// or more lower-case words with no option, path, quote or operator, one of
// them after the first a function word ("give a detailed list of git
// stats"), and a first word that is no command the plan knows; or any
// first word followed by "is a", "are the", … ("cowsay is a configurable
// talking cow").
func (pl *planner) isProse(line string) bool {
	ws := strings.Fields(strings.TrimSpace(line))
	if len(ws) < 3 {
		return false
	}
	first := ws[0]
	if copulas[ws[1]] && functionWords[ws[2]] {
		return true // "cowsay is a configurable talking cow", whatever its first word
	}
	if knownCommands[first] || shellWords[first] || platformTools[first] != "" || pl.repo.is(first) || pl.seen.installed[first] > 0 {
		return false
	}
	fn := false
	for i, w := range ws {
		if !proseWordRe.MatchString(w) {
			return false
		}
		if i > 0 && functionWords[strings.TrimRight(w, ",.;:")] {
			fn = true
		}
	}
	return fn
}

// nameList reports a block whose lines are each one bare program name
// (awk, basename, cat, …): a list of requirements, not commands.
func nameList(cands []candidate) bool {
	if len(cands) < 3 {
		return false
	}
	for _, c := range cands {
		t := strings.TrimSpace(stripComment(c.text))
		if c.shape != shapeCommand || strings.ContainsAny(t, " \t\n") || !commandNameRe.MatchString(t) {
			return false
		}
	}
	return true
}

// markHelpText turns into text the command-shaped lines of a block that
// are indented under a line of text: the descriptions of a help text's
// options ("-T, --detailed-git-stats" over "    give a detailed list").
func markHelpText(cands []candidate, lines []readme.Line) {
	indent := map[int]int{}
	for _, l := range lines {
		indent[l.Line] = len(l.Text) - len(strings.TrimLeft(l.Text, " \t"))
	}
	minIndent := -1
	for _, c := range cands {
		if i := indent[c.line]; minIndent < 0 || i < minIndent {
			minIndent = i
		}
	}
	for i := 1; i < len(cands); i++ {
		c, prev := &cands[i], cands[i-1]
		if c.shape == shapeCommand && prev.shape == shapeText && prev.endLine == c.line-1 &&
			indent[c.line] > minIndent && indent[c.line] >= indent[prev.line] && c.endLine == c.line {
			c.shape = shapeText
		}
	}
}

// jsonBodyRe is a line of a JSON object: "key": value.
var jsonBodyRe = lazyre.New(`(?m)^\s*"[^"]+"\s*:\s*\S`)

// compoundRe finds what makes a command's later lines a body rather than
// more arguments: a here-document, a function, a loop or condition.
var compoundRe = lazyre.New(`<<|^\s*(if|for|while|until|case|select|function)\b|^\s*[\w:.-]+\s*\(\)|[{(]\s*$`)

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

// commandReference returns the program of a block that lists its
// subcommands with what each does: five lines or more, every one the same
// program and a subcommand (at most one an option, such as --help) with a
// comment at its end (`dbmate up   # run any pending migrations`); "" for
// others.
func commandReference(cands []candidate) string {
	if len(cands) < 5 {
		return ""
	}
	prog, options := "", 0
	for _, c := range cands {
		if c.shape != shapeCommand || trailingComment(firstLineOf(c.text)) == "" {
			return ""
		}
		ss := simples(lex(stripComment(c.text)))
		if len(ss) != 1 || len(ss[0].argv) < 2 {
			return ""
		}
		if prog == "" {
			prog = ss[0].name()
		}
		if ss[0].name() != prog || shellWords[prog] {
			return ""
		}
		if strings.HasPrefix(ss[0].argv[1].text, "-") {
			options++ // `tool --help`: one such line among subcommands
		}
	}
	if options > 1 {
		return "" // a list of an option's forms, not of commands
	}
	return prog
}

// outputIntroRe is the sentence before a block that presents it as what a
// command prints: "and get something like:", "Output should look
// something like".
var outputIntroRe = lazyre.New(`(?i)\b(get|gets|see|prints?|outputs?|generates?|shows?|returns?|displays?)\b[^.]{0,30}\bsomething like\s*(this|the following|below)?\s*:?\s*$|\boutput (should|will|would) look\b[^.]*$`)

// iniSectionRe is an INI or TOML section header line.
var iniSectionRe = lazyre.New(`^\s*\[[A-Za-z0-9_. "-]+\]\s*$`)

// iniContent reports a block in the shape of an INI file: a [section]
// header, and no command but bare assignments (`extdiff=`).
func iniContent(cands []candidate) bool {
	header := false
	for _, c := range cands {
		if c.shape != shapeCommand {
			header = header || iniSectionRe.MatchString(c.text)
			continue
		}
		ss := simples(lex(c.text))
		if len(ss) != 1 || len(ss[0].argv) > 0 {
			return false
		}
	}
	return header
}

// stripComment drops a trailing " # comment".
func stripComment(t string) string {
	if i := strings.Index(t, " #"); i >= 0 {
		return strings.TrimSpace(t[:i])
	}
	return t
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
