package readme

import "strings"

// Scanner decides, line by line, whether the shell text fed so far is
// a complete command or needs more lines: a trailing backslash, an open
// quote, a pending or unfinished here-document, an open compound command
// (if/case/for/while/until/select, braces, parentheses) or a trailing
// `&&`, `||` or `|` all ask for the next line.
//
// It is a splitter, not a parser: it only has to find where one README
// command ends so that each command gets its own exit code. Bash still
// parses and runs the text; a misjudged boundary only makes a command
// bigger or smaller, never changes what runs.
type Scanner struct {
	quote      byte // 0, '\'', '"' or '`'
	paren      int  // open $( ( $(( subshells
	compound   int  // open if/case/loops/braces
	cont       bool // the last line ended with a backslash
	pendingOp  bool // the last line ended with && || |
	heredocs   []heredoc
	inHeredoc  []heredoc // here-documents whose bodies are being read
	sawCommand bool      // any non-comment text seen
}

type heredoc struct {
	delim     string
	stripTabs bool
}

// Complete reports whether the lines fed so far form a whole command.
func (s *Scanner) Complete() bool {
	return s.quote == 0 && s.paren <= 0 && s.compound <= 0 && !s.cont && !s.pendingOp &&
		len(s.heredocs) == 0 && len(s.inHeredoc) == 0
}

// Feed scans one line (without its newline).
func (s *Scanner) Feed(line string) {
	if len(s.inHeredoc) > 0 {
		h := s.inHeredoc[0]
		l := line
		if h.stripTabs {
			l = strings.TrimLeft(l, "\t")
		}
		if l == h.delim {
			s.inHeredoc = s.inHeredoc[1:]
		}
		return
	}
	if t := strings.TrimSpace(line); s.pendingOp && (t == "" || strings.HasPrefix(t, "#")) {
		return // after && || |, bash reads on over blank lines and comments
	}
	s.cont = false
	cmdPos := true // every line starts at a command position
	s.pendingOp = false
	lastOp := ""
	var word strings.Builder
	endWord := func() {
		if word.Len() == 0 {
			return
		}
		w := word.String()
		word.Reset()
		s.sawCommand = true
		lastOp = ""
		switch w {
		case "{":
			s.compound++
			cmdPos = true
			return
		case "}":
			s.compound--
			cmdPos = false
			return
		}
		if cmdPos {
			switch w {
			case "if", "case", "for", "while", "until", "select":
				s.compound++
				cmdPos = true
				return
			case "fi", "esac", "done":
				s.compound--
				cmdPos = false
				return
			case "then", "do", "else", "elif", "!", "time", "in":
				cmdPos = true
				return
			}
		}
		cmdPos = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch s.quote {
		case '\'':
			if c == '\'' {
				s.quote = 0
			}
			word.WriteByte(c)
			continue
		case '"', '`':
			if c == '\\' && i+1 < len(line) {
				word.WriteByte(c)
				word.WriteByte(line[i+1])
				i++
				continue
			}
			if c == s.quote {
				s.quote = 0
			}
			word.WriteByte(c)
			continue
		}
		switch {
		case c == '\\':
			if i == len(line)-1 {
				s.cont = true
				endWord()
				return
			}
			word.WriteByte(c)
			word.WriteByte(line[i+1])
			i++
		case c == '\'' || c == '"' || c == '`':
			s.quote = c
			word.WriteByte(c)
		case c == '#' && word.Len() == 0:
			// A comment runs to the end of the line.
			endWord()
			s.pendingOp = lastOp != ""
			return
		case c == '$' && i+1 < len(line) && line[i+1] == '{':
			// ${...} parameter expansion: copy it whole.
			j := strings.IndexByte(line[i:], '}')
			if j < 0 {
				word.WriteString(line[i:])
				i = len(line)
				continue
			}
			word.WriteString(line[i : i+j+1])
			i += j
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			s.paren++
			word.WriteString("$(")
			i++
		case c == '(':
			endWord()
			s.paren++
			cmdPos = true
			lastOp = ""
		case c == ')':
			endWord()
			if s.paren > 0 {
				s.paren--
			}
			cmdPos = true // `foo() {` and case patterns
			lastOp = ""
		case c == ' ' || c == '\t':
			endWord()
		case c == ';' || c == '&' || c == '|':
			endWord()
			op := string(c)
			if i+1 < len(line) && (line[i+1] == c || (c == ';' && line[i+1] == '&') || (c == '|' && line[i+1] == '&')) {
				op += string(line[i+1])
				i++
			}
			cmdPos = true
			if op == "&&" || op == "||" || op == "|" || op == "|&" {
				lastOp = op
			} else {
				lastOp = ""
			}
			s.sawCommand = true
		case c == '<' && strings.HasPrefix(line[i:], "<<") && !strings.HasPrefix(line[i:], "<<<"):
			endWord()
			j := i + 2
			h := heredoc{}
			if j < len(line) && line[j] == '-' {
				h.stripTabs = true
				j++
			}
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			k := j
			for k < len(line) && !strings.ContainsRune(" \t;&|<>()", rune(line[k])) {
				k++
			}
			delim := strings.NewReplacer("'", "", `"`, "", `\`, "").Replace(line[j:k])
			if delim != "" {
				h.delim = delim
				s.heredocs = append(s.heredocs, h)
			}
			i = k - 1
			cmdPos = false
		case c == '<' || c == '>':
			if strings.HasPrefix(line[i:], "<<<") {
				i += 2 // a here-string, not a here-document
			}
			endWord()
			cmdPos = false
			lastOp = ""
		default:
			word.WriteByte(c)
		}
	}
	endWord()
	s.pendingOp = s.quote == 0 && lastOp != ""
	if len(s.heredocs) > 0 && s.quote == 0 {
		s.inHeredoc = append(s.inHeredoc, s.heredocs...)
		s.heredocs = nil
	}
}

// IsBlankOrComment reports whether a script line carries no command.
func IsBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}
