// Package termtext makes text from a repository under test safe to show
// in a terminal: the demo recording (demo.cast, played by `asciinema play`
// in the reader's terminal or by the HTML report's player), the demo
// script (demo.sh, read with cat) and the progress lines readme2demo
// prints while it runs.
//
// Command output and command text are attacker-controlled: a README can
// print, or contain, escape sequences that set the window title, write the
// clipboard (OSC 52), reset the terminal (ESC c), query it so that its
// answer lands in the reader's input (CSI 6n, DECRQSS), clear the screen
// or overwrite a line to hide what ran (a bare CR). Two functions cover
// the two uses:
//
//   - Output keeps what a recording of command output needs: text, tabs,
//     line feeds and colour (SGR, `ESC [ … m`, which only changes how text
//     is drawn). Every other escape sequence is removed whole: CSI other
//     than SGR, OSC (terminated by BEL or ST, or not at all: an
//     unterminated OSC 52 is dropped to the end of its line), DCS, APC,
//     PM, SOS, ESC c and every other two-byte escape, C1 controls (U+0080–
//     U+009F, and raw bytes 0x80–0x9F), other C0 controls and DEL. A bare
//     CR or a backspace is rendered as a terminal would finally show the
//     line (progress bars become their last state, not a way to hide
//     text). Invalid UTF-8 becomes U+FFFD; bidirectional controls are shown
//     as <U+202E>.
//   - Visible is for text that must be shown as written but never act:
//     the typed command, titles, progress lines. Nothing is removed; every
//     control character is drawn visibly (^[ for ESC, ^M for a bare CR,
//     ^G, ^?, <U+009B>, <U+202E>), line feeds and tabs kept.
//
// Neither ever returns an ESC except in an SGR sequence (Output), nor a
// C1 control, nor a C0 control other than \n and \t (FuzzOutput,
// FuzzVisible).
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

const esc = 0x1b

// maxSGR bounds the parameters of a colour sequence kept.
const maxSGR = 32

// Output returns command output made safe for a terminal recording (see
// the package comment).
func Output(s string) string {
	if safe(s, true) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var out strings.Builder
	out.Grow(len(s))
	var line lineBuf
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == esc:
			n, keep := escape(s, i)
			if keep {
				line.sgr(s[i : i+n])
			}
			i += n
			continue
		case c == '\n':
			line.flush(&out)
			out.WriteByte('\n')
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
				continue // the \n ends the line
			}
			line.cr()
		case c == '\b':
			line.bs()
		case c == '\t':
			line.put("\t")
		case c < 0x20 || c == 0x7f:
		case c < utf8.RuneSelf:
			line.put(s[i : i+1])
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r >= 0x80 && r <= 0x9f:
				i += c1Sequence(s, i, r)
				continue
			case isBidi(r):
				line.put(fmt.Sprintf("<U+%04X>", r))
			default:
				line.put(s[i : i+n])
			}
			i += n
			continue
		}
		i++
	}
	line.flush(&out)
	return out.String()
}

// Visible returns s with every control character drawn visibly (see the
// package comment); \n and \t are kept, CRLF becomes \n.
func Visible(s string) string {
	if safe(s, false) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var out strings.Builder
	out.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case c == '\n' || c == '\t':
			out.WriteByte(c)
		case c < 0x20:
			out.WriteByte('^')
			out.WriteByte(c + '@')
		case c == 0x7f:
			out.WriteString("^?")
		case c < utf8.RuneSelf:
			out.WriteByte(c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f || isBidi(r) {
				fmt.Fprintf(&out, "<U+%04X>", r)
			} else {
				out.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		i++
	}
	return out.String()
}

// HasControl reports whether s holds a character Visible would draw
// differently: a control character other than \n and \t (a CR of a CRLF
// included), a C1 control, a bidirectional control or invalid UTF-8.
func HasControl(s string) bool { return !safe(s, false) }

// safe reports whether s needs no change: valid UTF-8 with no control but
// \n and \t (and, when sgr, colour sequences), no C1 or bidi control.
func safe(s string, sgr bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c == esc && sgr:
			n, keep := escape(s, i)
			if !keep {
				return false
			}
			i += n
			continue
		case c < 0x20 || c == 0x7f:
			return false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || isBidi(r) {
				return false
			}
			i += n
			continue
		}
		i++
	}
	return true
}

// isBidi reports the bidirectional formatting characters that reorder
// how text is displayed ("Trojan Source").
func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// escape reads the escape sequence at s[i] (an ESC) and returns its
// length and whether it is a colour sequence to keep.
func escape(s string, i int) (int, bool) {
	if i+1 >= len(s) {
		return 1, false
	}
	switch c := s[i+1]; {
	case c == '[':
		n, final, sgrOK := csi(s, i+2)
		return 2 + n, final == 'm' && sgrOK
	case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
		return 2 + str(s, i+2, c == ']'), false
	case c >= 0x20 && c <= 0x2f:
		// nF: intermediates then one final byte (charset designations).
		j := i + 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j - i, false
	case c < 0x20 || c == 0x7f || c >= 0x80:
		// ESC before a control or a non-ASCII byte: only the ESC goes.
		return 1, false
	}
	// Two-byte escapes: ESC c (reset), ESC 7/8, ESC =, ESC M, …
	return 2, false
}

// csi reads the parameters, intermediates and final byte of a control
// sequence starting at s[i] (after the introducer). It returns their
// length, the final byte (0 when the sequence is cut short) and whether
// the parameters are those of a colour sequence.
func csi(s string, i int) (n int, final byte, sgr bool) {
	j := i
	sgr = true
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		if !(s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
			sgr = false
		}
		j++
	}
	if j-i > maxSGR {
		sgr = false
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		sgr = false
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1 - i, s[j], sgr
	}
	return j - i, 0, false
}

// str reads a control string's body starting at s[i] up to its
// terminator: ST (ESC \ or U+009C), BEL for OSC, or CAN/SUB which abort
// it. An unterminated string is dropped to the end of its line (a
// terminal would swallow everything after it).
func str(s string, i int, osc bool) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case 0x07:
			if osc {
				return j + 1 - i
			}
		case 0x18, 0x1a:
			return j + 1 - i
		case esc:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2 - i
			}
		case 0xc2:
			if j+1 < len(s) && s[j+1] == 0x9c {
				return j + 2 - i
			}
		case '\n':
			return j - i
		}
	}
	return len(s) - i
}

// c1Sequence returns the length of what a C1 control at s[i] (rune r,
// two bytes) starts: a whole control sequence or string for CSI, OSC,
// DCS, APC, PM and SOS, else the control alone.
func c1Sequence(s string, i int, r rune) int {
	switch r {
	case 0x9b: // CSI
		n, _, _ := csi(s, i+2)
		return 2 + n
	case 0x9d, 0x90, 0x9f, 0x9e, 0x98: // OSC, DCS, APC, PM, SOS
		return 2 + str(s, i+2, r == 0x9d)
	}
	return 2
}

// lineBuf renders one line as a terminal would finally show it when CRs
// and backspaces move the cursor back: later text overwrites earlier
// text. A line without them is passed through as is, colours included;
// in an overwritten line colours are dropped.
type lineBuf struct {
	plain    strings.Builder // the line as given (no CR or BS seen)
	cells    []string        // the line's cells once the cursor moved back
	col      int
	overlaid bool
}

func (l *lineBuf) put(t string) {
	if !l.overlaid {
		l.plain.WriteString(t)
		l.col++
		return
	}
	if l.col < len(l.cells) {
		l.cells[l.col] = t
	} else {
		l.cells = append(l.cells, t)
	}
	l.col++
}

func (l *lineBuf) sgr(seq string) {
	if !l.overlaid {
		l.plain.WriteString(seq)
	}
}

// toCells switches to overwrite mode, splitting the line so far into
// cells (colours dropped).
func (l *lineBuf) toCells() {
	if l.overlaid {
		return
	}
	l.overlaid = true
	text := l.plain.String()
	l.cells = l.cells[:0]
	for i := 0; i < len(text); {
		if text[i] == esc {
			n, _ := escape(text, i)
			i += n
			continue
		}
		_, n := utf8.DecodeRuneInString(text[i:])
		l.cells = append(l.cells, text[i:i+n])
		i += n
	}
	l.col = len(l.cells)
}

func (l *lineBuf) cr() {
	l.toCells()
	l.col = 0
}

func (l *lineBuf) bs() {
	l.toCells()
	if l.col > 0 {
		l.col--
	}
}

func (l *lineBuf) flush(out *strings.Builder) {
	if l.overlaid {
		for _, c := range l.cells {
			out.WriteString(c)
		}
	} else {
		out.WriteString(l.plain.String())
	}
	l.plain.Reset()
	l.cells = l.cells[:0]
	l.col = 0
	l.overlaid = false
}
