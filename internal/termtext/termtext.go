// Package termtext is the one sanitiser for text from a repository under
// test, on every surface readme2demo shows it: the terminal (the demo
// recording demo.cast, played by `asciinema play` in the reader's terminal
// or by the HTML report's player; the demo script demo.sh; the progress
// lines and messages readme2demo prints while it runs), markdown
// (report.md, the PR comment, the job summary: internal/report) and HTML
// (report.html: internal/htmlreport).
//
// Command output and command text are attacker-controlled. A README can
// print, or contain, escape sequences that set the window title, write the
// clipboard (OSC 52), reset the terminal (ESC c), query it so that its
// answer lands in the reader's input (CSI 6n, DECRQSS), clear the screen
// or overwrite a line to hide what ran (a bare CR), or conceal text (SGR
// 8). It can also hold characters that draw nothing or reorder what is
// drawn, so that a reader sees something other than what ran ("Trojan
// Source"): zero-width and other default-ignorable characters (U+200B–
// U+200D, U+2060, U+FEFF, the Hangul fillers U+3164, …), bidirectional
// controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), tag
// characters (U+E0000–U+E007F), the line and paragraph separators U+2028
// and U+2029, and variation selectors beyond the one a character may
// carry. Such a character is never passed on silently, nor removed: it is
// shown as a visible escape, ‹U+202E›, so a reader sees that something was
// there (Hidden says which).
//
// Four functions cover the uses:
//
//   - Output keeps what a recording of command output needs: text, tabs,
//     line feeds and colour (SGR, `ESC [ … m`, which only changes how text
//     is drawn; conceal, SGR 8, is taken out of it and shown as ‹SGR 8›,
//     and a colour sequence with a parameter over 255 is dropped). Every
//     other escape sequence is removed whole: CSI other than SGR, OSC
//     (terminated by BEL or ST, or not at all: an unterminated OSC 52 is
//     dropped to the end of its line), DCS, APC, PM, SOS, ESC c and every
//     other two-byte escape, C1 controls (U+0080–U+009F, and raw bytes
//     0x80–0x9F), other C0 controls and DEL. A bare CR or a backspace is
//     rendered as a terminal would finally show the line (progress bars
//     become their last state, not a way to hide text). Invalid UTF-8
//     becomes U+FFFD; hidden characters are shown as ‹U+…›.
//   - Plain is Output without colours: command output in markdown and in
//     text an HTML page shows.
//   - Visible is for text that must be shown as written but never act:
//     the typed command, titles, progress lines, reasons, file names.
//     Nothing is removed; every control character is drawn visibly (^[ for
//     ESC, ^M for a bare CR, ^G, ^?, ‹U+009B›) and every hidden character
//     as ‹U+…›; line feeds and tabs are kept.
//   - Bash writes a command as a bash $'…' string that holds the same
//     bytes, its hidden and control characters as escapes: demo.sh re-runs
//     exactly what ran and a reader sees what it is.
//
// None of Output, Plain and Visible ever returns an ESC except in an SGR
// sequence (Output), nor a C1 control, nor a C0 control other than \n and
// \t, nor a hidden character (FuzzOutput, FuzzVisible).
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
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
	base := false // the last character drawn may carry a variation selector
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == esc:
			base = false
			n, keep := escape(s, i)
			if keep {
				seq, concealed := cleanSGR(s[i : i+n])
				if seq != "" {
					line.sgr(seq)
				}
				if concealed {
					line.put(concealMark)
				}
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
			base = true
			i++
			continue
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r >= 0x80 && r <= 0x9f:
				i += c1Sequence(s, i, r)
				base = false
				continue
			case shownAsEscape(r, base):
				line.put(Escape(r))
				base = false
			default:
				line.put(s[i : i+n])
				base = !isVariationSelector(r)
			}
			i += n
			continue
		}
		base = false
		i++
	}
	line.flush(&out)
	return out.String()
}

// Plain returns command output as Output renders it, without colours: for
// markdown and the text of an HTML page.
func Plain(s string) string {
	s = Output(s)
	if strings.IndexByte(s, esc) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == esc {
			n, _ := escape(s, i)
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
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
	base := false
	for i := 0; i < len(s); {
		c := s[i]
		base = base && c >= utf8.RuneSelf
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
			base = true
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f || shownAsEscape(r, base) {
				out.WriteString(Escape(r))
				base = false
			} else {
				out.WriteString(s[i : i+n])
				base = !isVariationSelector(r)
			}
			i += n
			continue
		}
		i++
	}
	return out.String()
}

// Bash returns s as a bash ANSI-C quoted string, $'…', that holds exactly
// its bytes, for a script that must run what ran (demo.sh): printable
// ASCII and characters drawn as themselves are written as they are (a
// backslash or a quote escaped), line feeds and tabs too, and every byte of
// a control character, a hidden character (Hidden, and a variation
// selector Visible shows) or invalid UTF-8 as \xHH. Bytes rather than
// \uXXXX: bash turns \u202e into the character only in a UTF-8 locale; in
// the C locale, a container's default, it writes the six characters
// "\u202E". ok is false when s holds a NUL, which no bash string can.
func Bash(s string) (quoted string, ok bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString("$'")
	hex := func(bs string) {
		for i := 0; i < len(bs); i++ {
			fmt.Fprintf(&b, "\\x%02x", bs[i])
		}
	}
	base := false
	for i := 0; i < len(s); {
		c := s[i]
		base = base && c >= utf8.RuneSelf
		switch {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
			base = true
		case c == '\n' || c == '\t':
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			hex(s[i : i+1])
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			base = true
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || shownAsEscape(r, base) {
				hex(s[i : i+n])
				base = false
			} else {
				b.WriteString(s[i : i+n])
				base = !isVariationSelector(r)
			}
			i += n
			continue
		}
		i++
	}
	b.WriteByte('\'')
	return b.String(), true
}

// HasControl reports whether s holds a character Visible would draw
// differently: a control character other than \n and \t (a CR of a CRLF
// included), a C1 control, a hidden character or invalid UTF-8.
func HasControl(s string) bool { return !safe(s, false) }

// safe reports whether s needs no change: valid UTF-8 with no control but
// \n and \t (and, when sgr, colour sequences that conceal nothing), no
// C1 control and no hidden character.
func safe(s string, sgr bool) bool {
	base := false
	for i := 0; i < len(s); {
		c := s[i]
		base = base && c >= utf8.RuneSelf
		switch {
		case c == '\n' || c == '\t':
		case c == esc && sgr:
			n, keep := escape(s, i)
			if !keep {
				return false
			}
			if seq, concealed := cleanSGR(s[i : i+n]); concealed || seq != s[i:i+n] {
				return false
			}
			i += n
			continue
		case c < 0x20 || c == 0x7f:
			return false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || shownAsEscape(r, base) {
				return false
			}
			base = !isVariationSelector(r)
			i += n
			continue
		default:
			base = true
		}
		i++
	}
	return true
}

// Escape is how a hidden character is shown: ‹U+202E›.
func Escape(r rune) string { return fmt.Sprintf("‹U+%04X›", r) }

// concealMark stands where a colour sequence asked to conceal the text
// that follows (SGR 8).
const concealMark = "‹SGR 8›"

// Hidden reports the characters a reader cannot see, or that change how
// the text around them is shown, whatever comes before them: the Unicode
// default-ignorable code points (DerivedCoreProperties.txt: soft hyphen,
// combining grapheme joiner, Hangul and Mongolian fillers, zero-width
// characters, word joiner and invisible operators, the byte-order mark,
// tags and the unassigned rest of their block), bidirectional controls,
// the line and paragraph separators and the interlinear annotation
// controls. Variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) are not
// in it: one after a character is how an emoji or a glyph variant is
// written, and Visible and Output keep it; any other is shown.
func Hidden(r rune) bool { return unicode.Is(hidden, r) }

var hidden = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00ad, Hi: 0x00ad, Stride: 1}, // soft hyphen
		{Lo: 0x034f, Hi: 0x034f, Stride: 1}, // combining grapheme joiner
		{Lo: 0x061c, Hi: 0x061c, Stride: 1}, // Arabic letter mark
		{Lo: 0x115f, Hi: 0x1160, Stride: 1}, // Hangul choseong and jungseong fillers
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1}, // Khmer inherent vowels
		{Lo: 0x180b, Hi: 0x180f, Stride: 1}, // Mongolian free variation selectors, vowel separator
		{Lo: 0x200b, Hi: 0x200f, Stride: 1}, // zero width space, non-joiner, joiner; LRM, RLM
		{Lo: 0x2028, Hi: 0x202e, Stride: 1}, // line and paragraph separators; LRE, RLE, PDF, LRO, RLO
		{Lo: 0x2060, Hi: 0x206f, Stride: 1}, // word joiner, invisible operators, LRI, RLI, FSI, PDI, deprecated format
		{Lo: 0x3164, Hi: 0x3164, Stride: 1}, // Hangul filler
		{Lo: 0xfeff, Hi: 0xfeff, Stride: 1}, // zero width no-break space (BOM)
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1}, // halfwidth Hangul filler
		{Lo: 0xfff0, Hi: 0xfffb, Stride: 1}, // unassigned specials; interlinear annotation controls
	},
	R32: []unicode.Range32{
		{Lo: 0x1bca0, Hi: 0x1bca3, Stride: 1}, // shorthand format controls
		{Lo: 0x1d173, Hi: 0x1d17a, Stride: 1}, // musical symbol formatting
		{Lo: 0xe0000, Hi: 0xe00ff, Stride: 1}, // tags (U+E0000–U+E007F) and the unassigned rest
		{Lo: 0xe01f0, Hi: 0xe0fff, Stride: 1}, // unassigned default-ignorable
	},
	LatinOffset: 1,
}

// isVariationSelector reports U+FE00–U+FE0F and U+E0100–U+E01EF.
func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// shownAsEscape reports whether r is drawn as ‹U+…›: a hidden character,
// or a variation selector that does not follow a character drawn as
// itself (base).
func shownAsEscape(r rune, base bool) bool {
	return Hidden(r) || isVariationSelector(r) && !base
}

// cleanSGR returns a colour sequence (ESC [ params m) with conceal (SGR 8)
// taken out, and whether it was there. The sequence comes back in one
// form a terminal cannot read otherwise than this package does: every
// parameter written as its number (0038 is 38, and a reader comparing
// text would take its 8 for conceal), and an extended colour (38, 48, 58)
// whose colour space or arguments are missing or unknown dropped with
// everything after it (terminals differ on what they make of the rest).
// A parameter over 255 (no colour needs one; terminals have been made to
// allocate or loop on them) drops the whole sequence. The sequence comes
// back unchanged when it needs nothing.
func cleanSGR(seq string) (string, bool) {
	params := seq[2 : len(seq)-1]
	if params == "" {
		return seq, false
	}
	fields := strings.Split(params, ";")
	for i, f := range fields {
		var ok bool
		if fields[i], ok = sgrParam(f); !ok {
			return "", false
		}
	}
	kept := fields[:0:0]
	concealed := false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		main, _, colon := strings.Cut(f, ":")
		switch main {
		case "8":
			concealed = true
			continue
		case "38", "48", "58":
			if colon {
				break // 38:2:r:g:b carries its arguments in one field
			}
			args, ok := extendedColour(fields[i+1:])
			if !ok {
				i = len(fields) // the rest, which a terminal might read as attributes
				continue
			}
			kept = append(append(kept, f), args...)
			i += len(args)
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == 0 {
		return "", concealed
	}
	out := "\x1b[" + strings.Join(kept, ";") + "m"
	if out == seq {
		return seq, concealed
	}
	return out, concealed
}

// sgrParam returns a colour sequence's parameter (digits and colons) with
// each number written without leading zeros, "" staying "" (it means 0),
// and false for a number over 255.
func sgrParam(f string) (string, bool) {
	subs := strings.Split(f, ":")
	for i, sub := range subs {
		if sub == "" {
			continue
		}
		v, err := strconv.Atoi(sub)
		if err != nil || v > 255 {
			return "", false
		}
		subs[i] = strconv.Itoa(v)
	}
	return strings.Join(subs, ":"), true
}

// extendedColour returns the arguments of an extended colour written
// with semicolons (5;N or 2;R;G;B), false when they are missing, of an
// unknown colour space or hold colons.
func extendedColour(fields []string) ([]string, bool) {
	if len(fields) == 0 {
		return nil, false
	}
	n := map[string]int{"5": 1, "2": 3}[fields[0]]
	if n == 0 || len(fields) < n+1 {
		return nil, false
	}
	for _, a := range fields[1 : n+1] {
		if strings.Contains(a, ":") {
			return nil, false
		}
	}
	return fields[:n+1], true
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
		base := false
		for _, c := range l.cells {
			// Overwriting can leave a variation selector after a tab:
			// it no longer belongs to a character.
			r, _ := utf8.DecodeRuneInString(c)
			if isVariationSelector(r) && !base {
				c = Escape(r)
			}
			out.WriteString(c)
			base = c != "\t" && !isVariationSelector(r)
		}
	} else {
		out.WriteString(l.plain.String())
	}
	l.plain.Reset()
	l.cells = l.cells[:0]
	l.col = 0
	l.overlaid = false
}
