package plan

import (
	"path"
	"strings"
)

// word is one shell word of a command line.
type word struct {
	// text is the word with its quotes removed (escapes kept as written
	// outside quotes minus the backslash).
	text string
	// bare is the part of the word outside any quotes, as written: a
	// placeholder such as <file> counts only there.
	bare string
	// op is set for an operator token (| || && ; & ( ) and redirections).
	op string
}

// lex splits a command into words and operators. It is a classifier's
// lexer, not a parser: it never fails, and what it gets wrong only changes
// a decision, never what runs.
func lex(s string) []word {
	s = strings.ReplaceAll(s, "\\\r\n", " ")
	s = strings.ReplaceAll(s, "\\\n", " ")
	var out []word
	var text, bare strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, word{text: text.String(), bare: bare.String()})
		}
		text.Reset()
		bare.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			text.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				j++
			}
			text.WriteString(s[i+1 : min(j, len(s))])
			i = j
			inWord = true
		case c == '\\' && i+1 < len(s):
			text.WriteByte(s[i+1])
			bare.WriteByte(s[i+1])
			i++
			inWord = true
		case c == '\n':
			flush()
			out = append(out, word{op: ";"})
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '#' && !inWord:
			// A comment runs to the end of the line.
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j - 1
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			// $( … ): copy it whole into the word.
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			end := min(j+1, len(s))
			text.WriteString(s[i:end])
			i = end - 1
			inWord = true
		case c == '|' || c == '&' || c == ';' || c == '(' || c == ')':
			flush()
			op := string(c)
			if i+1 < len(s) && (s[i+1] == c && c != '(' && c != ')') {
				op += string(c)
				i++
			}
			out = append(out, word{op: op})
		case c == '<' || c == '>':
			if c == '<' && i+1 < len(s) && isWordStart(s[i+1]) && closesAngle(s[i+1:]) {
				// <placeholder>: a word, not a redirection.
				j := strings.IndexByte(s[i:], '>')
				text.WriteString(s[i : i+j+1])
				bare.WriteString(s[i : i+j+1])
				i += j
				inWord = true
				continue
			}
			if inWord && isDigits(text.String()) && text.String() == bare.String() {
				text.Reset()
				bare.Reset()
				inWord = false
			}
			flush()
			op := string(c)
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '<' || s[i+1] == '&') {
				op += string(s[i+1])
				i++
			}
			out = append(out, word{op: op})
		default:
			text.WriteByte(c)
			bare.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return out
}

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// closesAngle reports whether s (after a '<') holds a '>' before any space
// or shell operator that would end a placeholder like <your-token> or
// <path/to/file>; spaces are allowed inside (<your api key>) only when the
// closing '>' comes before the end of the line.
func closesAngle(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '>':
			return i > 0
		case '<', '|', ';', '&', '(', ')', '\n', '"', '\'', '$', '`':
			return false
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// simple is one simple command: its words after assignments and wrappers
// (sudo, env, time, nohup, …) are removed.
type simple struct {
	argv   []word
	sudo   bool // run through sudo or doas
	assign []string
	// inputs are the files of its `<` redirections.
	inputs []string
	// piped says its output goes into a pipe (`yes | cmd`).
	piped bool
	// redirected says its output goes to a file (`cmd > out`).
	redirected bool
	// outputs are the files of its `>` and `>>` redirections.
	outputs []string
	// stdinGiven says its standard input is redirected: `<`, a
	// here-document or a here-string.
	stdinGiven bool
}

// name is the command's first word, "" when there is none.
func (s simple) name() string {
	if len(s.argv) == 0 {
		return ""
	}
	return s.argv[0].text
}

// args are the words after the command name.
func (s simple) args() []string {
	var out []string
	for _, w := range s.argv[min(1, len(s.argv)):] {
		out = append(out, w.text)
	}
	return out
}

// line is the command's words joined by spaces, for a pattern to read.
func (s simple) line() string {
	ws := make([]string, len(s.argv))
	for i, w := range s.argv {
		ws[i] = w.text
	}
	return strings.Join(ws, " ")
}

// values are the values of its NAME=value words, then its words: where a
// $( … ) it runs can stand.
func (s simple) values() []string {
	var out []string
	for _, a := range s.assign {
		_, v, _ := strings.Cut(a, "=")
		out = append(out, v)
	}
	for _, w := range s.argv {
		out = append(out, w.text)
	}
	return out
}

// onlyInfo reports a command that only prints its version or help.
func (s simple) onlyInfo() bool {
	for _, a := range s.args() {
		switch a {
		case "--version", "-V", "--help", "-h", "version", "help":
			return true
		}
	}
	return false
}

// script is the program a simple command runs, or the script that sh or
// bash runs (`sh autogen.sh`: autogen.sh).
func (s simple) script() string {
	n := s.name()
	if b := path.Base(n); (b == "sh" || b == "bash") && len(s.args()) > 0 && !strings.HasPrefix(s.args()[0], "-") {
		return s.args()[0]
	}
	return n
}

// simples splits a command line into its simple commands.
func simples(ws []word) []simple {
	var out []simple
	var cur []word
	var inputs, outputs []string
	redirected, stdinGiven := false, false
	end := func(op string) {
		if len(cur) > 0 {
			s := unwrap(cur)
			s.inputs = inputs
			s.outputs = outputs
			s.piped = op == "|" || op == "|&"
			s.redirected = redirected
			s.stdinGiven = stdinGiven
			out = append(out, s)
		}
		cur, inputs, outputs, redirected, stdinGiven = nil, nil, nil, false, false
	}
	skipNext, input, output := false, false, false
	for _, w := range ws {
		if skipNext {
			skipNext = false
			if input && w.op == "" {
				inputs = append(inputs, w.text)
			}
			if output && w.op == "" {
				outputs = append(outputs, w.text)
			}
			continue
		}
		switch {
		case w.op == "":
			cur = append(cur, w)
		case w.op[0] == '<' || w.op[0] == '>':
			skipNext = true // the redirection's target is not an argument
			input = w.op == "<"
			output = w.op == ">" || w.op == ">>"
			redirected = redirected || output
			stdinGiven = stdinGiven || strings.HasPrefix(w.op, "<") && !strings.HasPrefix(w.op, "<&")
		default:
			end(w.op)
		}
	}
	end("")
	return out
}

// wrappers run the command that follows them.
var wrappers = toSet(`sudo doas env time nohup command exec nice stdbuf`)

func unwrap(ws []word) simple {
	var s simple
	i := 0
	for i < len(ws) {
		t := ws[i].text
		switch {
		case isAssignment(t):
			s.assign = append(s.assign, t)
			i++
		case wrappers[t]:
			if t == "sudo" || t == "doas" {
				s.sudo = true
			}
			i++
			// Options of the wrapper (sudo -E, sudo -u user, env -i).
			for i < len(ws) && strings.HasPrefix(ws[i].text, "-") {
				opt := ws[i].text
				i++
				if (t == "sudo" || t == "doas") && (opt == "-u" || opt == "-g") && i < len(ws) {
					i++
				}
				if t == "nice" && opt == "-n" && i < len(ws) {
					i++
				}
			}
		default:
			s.argv = ws[i:]
			return s
		}
	}
	return s
}

// isAssignment reports NAME=value words.
func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// substituted are the commands of a line's command substitutions, `$(…)`
// (nested ones included) and backquotes: `export LS_COLORS="$(vivid
// generate molokai)"` runs vivid.
func substituted(text string) []simple {
	var out []simple
	for i := 0; i < len(text); i++ {
		switch {
		case strings.HasPrefix(text[i:], "$(") && !strings.HasPrefix(text[i:], "$(("):
			depth, j := 0, i+1
			for ; j < len(text); j++ {
				if text[j] == '(' {
					depth++
				} else if text[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j >= len(text) {
				return out
			}
			inner := text[i+2 : j]
			out = append(out, simples(lex(inner))...)
			out = append(out, substituted(inner)...)
			i = j
		case text[i] == '`':
			j := strings.IndexByte(text[i+1:], '`')
			if j < 0 {
				return out
			}
			out = append(out, simples(lex(text[i+1:i+1+j]))...)
			i += j + 1
		}
	}
	return out
}
