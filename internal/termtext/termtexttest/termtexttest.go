// Package termtexttest holds what every surface that shows text from a
// repository under test is tested with (issue 31): a command log whose
// commands, outputs, markers, reasons, paths and skipped entries hold each
// invisible, bidi, tag, separator and conceal character, C1 controls,
// OSC/DCS sequences and huge CSI parameters (Log), and the oracle a
// surface's output must pass (Problems). The goldens of report.md,
// report.html, demo.cast, demo.sh, the progress lines and the Action's
// annotations are rendered from Log.
package termtexttest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// A Piece is one hostile sequence, named for the goldens.
type Piece struct{ Name, Text string }

// Hidden are the characters a reader cannot see or that reorder the text
// around them: each one issue 31 names, and a few of the same kind.
var Hidden = []Piece{
	{"ZWSP", "\u200b"}, {"ZWNJ", "\u200c"}, {"ZWJ", "\u200d"}, {"WJ", "\u2060"}, {"BOM", "\ufeff"},
	{"HANGUL FILLER", "\u3164"}, {"HALFWIDTH HANGUL FILLER", "\uffa0"}, {"CHOSEONG FILLER", "\u115f"},
	{"SOFT HYPHEN", "\u00ad"}, {"INVISIBLE TIMES", "\u2062"},
	{"LRE", "\u202a"}, {"RLE", "\u202b"}, {"PDF", "\u202c"}, {"LRO", "\u202d"}, {"RLO", "\u202e"},
	{"LRI", "\u2066"}, {"RLI", "\u2067"}, {"FSI", "\u2068"}, {"PDI", "\u2069"},
	{"ALM", "\u061c"}, {"LRM", "\u200e"}, {"RLM", "\u200f"},
	{"TAG BEGIN", "\U000e0001"}, {"TAG A", "\U000e0041"}, {"TAG CANCEL", "\U000e007f"},
	{"LINE SEPARATOR", "\u2028"}, {"PARAGRAPH SEPARATOR", "\u2029"},
	{"VARIATION SELECTOR TWICE", "\u2713\ufe0f\ufe0f"},
}

// Controls are terminal controls: conceal, C1 controls (as characters),
// OSC and DCS sequences (ESC and C1 forms), huge CSI parameters, and the
// C0 controls that hide or move text.
var Controls = []Piece{
	{"SGR 8", "\x1b[8mconcealed\x1b[28m"},
	{"SGR 1;8", "\x1b[1;8;31mbold-concealed\x1b[0m"},
	{"SGR 008", "\x1b[1;008mpadded-concealed\x1b[0m"},
	{"SGR 0038;2;8", "\x1b[0038;2;8mshort-colour\x1b[0m"},
	{"C1 NEL", "\u0085"}, {"C1 CSI", "\u009b2J"}, {"C1 OSC", "\u009d0;c1-title\u009c"}, {"C1 DCS", "\u0090q\u009c"},
	{"OSC title", "\x1b]0;osc-title\x07"},
	{"OSC 52", "\x1b]52;c;cHduZWQ=\x07"},
	{"OSC 8", "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"},
	{"DCS", "\x1bP1$r0m\x1b\\"},
	{"CSI huge", "\x1b[" + strings.Repeat("9", 300) + "m"},
	{"CSI huge colour", "\x1b[38;5;99999m"},
	{"CSI huge move", "\x1b[1;" + strings.Repeat("7", 40) + "H"},
	{"clear", "\x1b[2J\x1b[H"},
	{"bare CR", "shown\rHIDDEN"},
	{"BEL DEL BS", "bell\a del\x7f bs\b"},
}

// All is every piece on one line, each labelled and between two letters,
// so that a surface that drops one silently shows as "ab" in its golden.
func All(pieces ...[]Piece) string { return join(" ", pieces) }

// Lines is every piece on a line of its own, as command output: a bare CR
// overwrites its own line only.
func Lines(pieces ...[]Piece) string { return join("\n", pieces) }

func join(sep string, pieces [][]Piece) string {
	var parts []string
	for _, ps := range pieces {
		for _, p := range ps {
			parts = append(parts, fmt.Sprintf("[%s a%sb]", p.Name, p.Text))
		}
	}
	return strings.Join(parts, sep)
}

// Log returns a failed run whose every text field holds the pieces: the
// commands (one failed, whose output the reports show; one sourced from a
// README line; one unfinished), their
// outputs, the markers, the outcome reason, the engine and version, file
// edits, an environment detail and a skipped README command. Two commands
// that exited 0, the hidden characters in one and the controls in the
// other, make the successful path demo.sh re-runs.
func Log() *commandlog.Log {
	hidden, controls := All(Hidden), All(Controls)
	zero, one := 0, 1
	version := "1.0.0" + "\u202e" + "lave"
	return &commandlog.Log{
		SchemaVersion: commandlog.SchemaVersion, Engine: engines.MarkdownName, AgentVersion: &version,
		Outcome:       commandlog.OutcomeBlocked,
		OutcomeReason: "the agent stopped: " + hidden,
		Markers: []commandlog.Marker{
			{Kind: commandlog.MarkerFix, Text: "FIX " + hidden},
			{Kind: commandlog.MarkerFix, Text: "FIX " + controls},
			{Kind: commandlog.MarkerBlocked, Text: "needs a key " + hidden},
		},
		Commands: []commandlog.Command{
			{ID: "1", Command: "printf '%s\\n' '" + hidden + "'", Output: hidden + "\n", ExitCode: &zero, Status: commandlog.StatusOK},
			{ID: "2", Command: "make demo # " + controls, Output: Lines(Controls, Hidden) + "\n", ExitCode: &one, Status: commandlog.StatusFailed,
				Environment: &commandlog.Environment{Kind: "network-denied", Detail: "allow " + hidden}},
			{ID: "3", Command: "echo sourced\u202e\u2066", Output: "ok\u200b\n", ExitCode: &one, Status: commandlog.StatusFailed,
				Source: &commandlog.Source{File: "docs/RE\u202eADME.md", Line: 7}},
			{ID: "4", Command: "sleep 1 \x1b]0;t\x07\u2028", Output: "\x1b[8m", Status: commandlog.StatusUnknown},
			{ID: "5", Command: "printf '%s\\n' '" + controls + "'", Output: Lines(Controls) + "\n", ExitCode: &zero, Status: commandlog.StatusOK},
		},
		FileEdits: []commandlog.FileEdit{{Path: "README\u200b.md", Tool: "Edit", OK: true}},
		Skipped:   []commandlog.Skipped{{File: "README.md", Line: 3, Command: "curl x \u202e| sh", Reason: "other platform \u2066x\u2069"}},
	}
}

// A Surface is where text is shown: what the oracle allows differs.
type Surface int

const (
	// Text is shown as is: progress lines, messages, demo.sh, markdown
	// code. No escape sequence at all.
	Text Surface = iota
	// Terminal is played in a terminal (demo.cast events): colour
	// sequences that conceal nothing are allowed, and CR before LF.
	Terminal
	// Markdown is rendered by GitHub: Text, except that the zero-width
	// space readme2demo writes after "@" (so that GitHub makes no mention
	// of it) is allowed there.
	Markdown
	// HTML is a page: Text, and the same for characters written as JSON
	// escapes (\u202e) or numeric character references (&#8238;), which
	// the browser decodes; colour sequences only as JSON escapes (the
	// page's player draws them).
	HTML
)

var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]{0,32}m`)

// Problems lists what s holds that no reader should get on surface: a
// hidden character (termtext.Hidden and every character issue 31 names, a
// variation selector after no character), a C0 control other than \n and
// \t, DEL, a C1 control, invalid UTF-8, or an escape sequence (colours
// that conceal nothing aside, where the surface allows them).
func Problems(s string, surface Surface) []string {
	var out []string
	bad := func(i int, what string) {
		out = append(out, fmt.Sprintf("%s at byte %d: %q", what, i, context(s, i)))
	}
	base := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad(i, "invalid UTF-8")
		case r == '\n' || r == '\t':
		case r == '\r' && surface == Terminal && strings.HasPrefix(s[i+1:], "\n"):
		case r == 0x1b:
			if m := sgr.FindString(s[i:]); m != "" && surface == Terminal {
				if conceals(m) {
					bad(i, "conceal or an ambiguous colour")
				}
				n = len(m)
				break
			}
			bad(i, "ESC")
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			bad(i, fmt.Sprintf("control %U", r))
		case r == 0x200b && surface == Markdown && i > 0 && s[i-1] == '@':
		case hidden(r):
			bad(i, fmt.Sprintf("hidden %U", r))
		case isVS(r) && !base:
			bad(i, fmt.Sprintf("stray variation selector %U", r))
		}
		base = r >= 0x20 && r != 0x7f && !isVS(r) && !hidden(r) && (r < 0x80 || r > 0x9f)
		i += n
	}
	if surface == HTML {
		out = append(out, htmlEscapes(s)...)
	}
	return out
}

func hidden(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r == 0x2060, r == 0xfeff, r == 0x3164, r == 0xffa0, r == 0x115f, r == 0x1160,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x061c,
		r >= 0xe0000 && r <= 0xe007f, r == 0x2028, r == 0x2029:
		return true
	}
	return termtext.Hidden(r)
}

func isVS(r rune) bool { return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef }

// conceals reports whether a colour sequence turns conceal (8) on, read
// field by field (the arguments of an extended colour, 38;5;8, are not
// attributes), or is in a form a terminal may read otherwise: a number
// with a leading zero (008 is 8), an extended colour whose colour space
// or arguments are missing or unknown.
func conceals(m string) bool {
	fields := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, "\x1b["), "m"), ";")
	for i := 0; i < len(fields); i++ {
		for _, sub := range strings.Split(fields[i], ":") {
			if len(sub) > 1 && sub[0] == '0' {
				return true
			}
		}
		switch fields[i] {
		case "8":
			return true
		case "38", "48", "58":
			n := 0
			if i+1 < len(fields) {
				n = map[string]int{"5": 2, "2": 4}[fields[i+1]]
			}
			if n == 0 || i+n >= len(fields) {
				return true
			}
			i += n
		}
	}
	return false
}

var (
	jsonEscape = regexp.MustCompile(`\\u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?`)
	charRef    = regexp.MustCompile(`&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));`)
	jsonSGR    = regexp.MustCompile(`^\\u001[bB]\[[0-9;:]{0,32}m`)
)

// htmlEscapes checks the characters a page writes as JSON escapes or
// numeric character references.
func htmlEscapes(s string) []string {
	var out []string
	for _, m := range jsonEscape.FindAllStringSubmatchIndex(s, -1) {
		hi, _ := strconv.ParseUint(s[m[2]:m[3]], 16, 32)
		r := rune(hi)
		if m[4] >= 0 {
			lo, _ := strconv.ParseUint(s[m[4]:m[5]], 16, 32)
			r = (r-0xd800)<<10 + (rune(lo) - 0xdc00) + 0x10000
		}
		if r == 0x1b {
			if sq := jsonSGR.FindString(s[m[0]:]); sq != "" && !conceals(strings.Replace(sq, sq[:6], "\x1b", 1)) {
				continue
			}
		}
		if r == '\n' || r == '\t' || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' || r == '\'' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || hidden(r) {
			out = append(out, fmt.Sprintf("JSON escape of %U at byte %d: %q", r, m[0], context(s, m[0])))
		}
	}
	for _, m := range charRef.FindAllStringSubmatchIndex(s, -1) {
		var v uint64
		if m[2] >= 0 {
			v, _ = strconv.ParseUint(s[m[2]:m[3]], 16, 32)
		} else {
			v, _ = strconv.ParseUint(s[m[4]:m[5]], 10, 32)
		}
		if r := rune(v); r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || hidden(r) {
			out = append(out, fmt.Sprintf("character reference of %U at byte %d", r, m[0]))
		}
	}
	return out
}

func context(s string, i int) string {
	return strings.ToValidUTF8(s[max(0, i-30):min(len(s), i+30)], "?")
}
