package readme

import (
	"regexp"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Map sets commands[].source on the commands of l that match a command of
// the README's code blocks, and returns how many it mapped. Commands that
// already carry a source keep it. readmeName is the README's path relative
// to the repository root ("README.md", "docs/README.md"); it becomes
// source.file.
//
// Matching, after normalising both sides (prompts removed, backslash
// continuations joined, white space collapsed):
//  1. the whole command equals a README command;
//  2. otherwise the agent's command is unwrapped (`bash -lc '…'`) and cut
//     into its parts at && || ; and newlines, with trailing `2>&1`,
//     `| tail …`, `| head …` dropped from each part; the first part that
//     equals a README command wins, a part that only changes directory
//     (`cd x`) counting only when nothing else matches.
//
// When a README command occurs several times, the occurrence at or after
// the previous match is preferred, so repeated lines (`cd ..`) map in order.
// Every shell-like block counts (shell, console, unlabelled and indented
// blocks), whatever its hints: an AI agent may run any of them.
func Map(l *commandlog.Log, readmeName string, readme []byte) int {
	if l == nil || len(readme) == 0 {
		return 0
	}
	var cands []candidate
	for _, b := range ExtractFile(readmeName, readme) {
		for _, c := range b.Commands {
			n := normalize(c.Text)
			if n == "" {
				continue
			}
			cands = append(cands, candidate{norm: n, line: c.Line})
		}
	}
	if len(cands) == 0 {
		return 0
	}
	mapped, cursor := 0, 0
	for i := range l.Commands {
		c := &l.Commands[i]
		if c.Source != nil {
			continue
		}
		idx := match(cands, c.Command, cursor)
		if idx < 0 {
			continue
		}
		c.Source = &commandlog.Source{File: readmeName, Line: cands[idx].line}
		cursor = idx
		mapped++
	}
	return mapped
}

type candidate struct {
	norm string
	line int
}

// match returns the index of the candidate a command matches, or -1.
func match(cands []candidate, command string, cursor int) int {
	if i := find(cands, normalize(command), cursor); i >= 0 {
		return i
	}
	cdMatch := -1
	for _, part := range parts(unwrapShell(command)) {
		i := find(cands, part, cursor)
		if i < 0 {
			continue
		}
		if isCd(part) {
			if cdMatch < 0 {
				cdMatch = i
			}
			continue
		}
		return i
	}
	return cdMatch
}

// find looks for norm among the candidates, from cursor on, then from the
// start.
func find(cands []candidate, norm string, cursor int) int {
	if norm == "" {
		return -1
	}
	for i := cursor; i < len(cands); i++ {
		if cands[i].norm == norm {
			return i
		}
	}
	for i := 0; i < cursor && i < len(cands); i++ {
		if cands[i].norm == norm {
			return i
		}
	}
	return -1
}

// normalize removes prompts, joins backslash continuations and collapses
// white space.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\\\r\n", " ")
	s = strings.ReplaceAll(s, "\\\n", " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if c, ok := CutPrompt(l); ok {
			l = c
		} else if c, ok := strings.CutPrefix(strings.TrimSpace(l), "> "); ok && i > 0 {
			l = c
		}
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	if s = strings.Join(lines, "\n"); strings.ContainsAny(s, "|&") { // what opNewlineRe needs, and few commands have
		s = opNewlineRe.ReplaceAllString(s, "$1 ")
	}
	return strings.TrimSpace(s)
}

// opNewlineRe finds a line break after && || or |, which continues the
// command: `make &&⏎ make test` equals `make && make test`.
var opNewlineRe = regexp.MustCompile(`(&&|\|\||\|)\s*\n\s*`)

var (
	// bash -lc 'cmd' / /bin/bash -c "cmd" / sh -c 'cmd', as Codex records.
	wrapRe = regexp.MustCompile(`^(?:/usr)?(?:/bin/)?(?:ba)?sh\s+-l?c\s+(?:'((?:[^']|'\\'')*)'|"((?:[^"\\]|\\.)*)")\s*$`)
	// trailing noise agents add to a README command.
	tailPipeRe = regexp.MustCompile(`\s*\|\s*(?:tail|head)(?:\s+-[\w-]+(?:\s+\d+)?)*\s*$`)
	redirRe    = regexp.MustCompile(`\s*2>&1\s*$`)
)

func unwrapShell(s string) string {
	s = strings.TrimSpace(s)
	m := wrapRe.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	if m[1] != "" {
		return strings.ReplaceAll(m[1], `'\''`, "'")
	}
	return regexp.MustCompile(`\\(.)`).ReplaceAllString(m[2], "$1")
}

// parts cuts a command at top-level && || ; and newlines (outside quotes)
// and normalises each part.
func parts(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		p := normalize(cur.String())
		cur.Reset()
		for {
			q := tailPipeRe.ReplaceAllString(p, "")
			q = redirRe.ReplaceAllString(q, "")
			if q == p {
				break
			}
			p = q
		}
		if p != "" {
			out = append(out, p)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' && quote == '"' && i+1 < len(s) {
				cur.WriteByte(c)
				cur.WriteByte(s[i+1])
				i++
				continue
			}
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
			continue
		}
		switch {
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case c == '\n' || c == ';':
			flush()
		case (c == '&' || c == '|') && i+1 < len(s) && s[i+1] == c:
			flush()
			i++
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

func isCd(part string) bool {
	return part == "cd" || strings.HasPrefix(part, "cd ") || strings.HasPrefix(part, "pushd ")
}
