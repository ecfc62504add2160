package engines

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/bits"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

// The OpenHands engine dropped the text lines between JSON values with a
// byte-by-byte filter in front of the decoder; the decoder now skips them
// itself (jsonv.Options.TextLines). The filter is kept here as the
// reference: both ways give the same command log, except after a JSON value
// broken across lines, where the filter took every following line for a
// part of the value (TestTextLinesAfterABrokenValue).

// parseWithFilter is the engine's parse as it was: the filter, then the
// decoder without TextLines.
func parseWithFilter(t testing.TB, data []byte) []byte {
	p := newOpenHandsParser(newLogBuilderTo(OpenHandsName, nil))
	opt := openHandsOptions
	opt.TextLines = false
	err := readRecords(newJSONLineFilter(bytes.NewReader(data)), opt, p.b, p.topLevel)
	assert.NilError(t, err)
	return encodeOH(t, p.finish())
}

func encodeOH(t testing.TB, l *commandlog.Log) []byte {
	var b bytes.Buffer
	assert.NilError(t, commandlog.Encode(&b, l))
	return b.Bytes()
}

func parseTextLines(t testing.TB, data []byte) []byte {
	eng, err := Lookup(OpenHandsName)
	assert.NilError(t, err)
	l, err := eng.ParseTranscript(bytes.NewReader(data))
	assert.NilError(t, err)
	return encodeOH(t, l)
}

// noisy mixes OpenHands transcripts with the text a CLI prints between
// events: banners, spinner lines, marker lines, blank lines, lines that
// look like JSON but are not, JSON pretty-printed over several lines.
func noisy(rnd *rand.Rand, events [][]byte) []byte {
	noise := []string{
		"--JSON Event--", "Goodbye!", "", "   ", "\t", "⠋ Thinking...", "[1/3] building", "{not json}", "[1, 2]",
		"true", "\"a string\"", "123", "\xef\xbb\xbf", "[]", "{}", "Agent running…\r", "{\"not\": \"an event\"}",
	}
	var b bytes.Buffer
	for _, e := range events {
		for rnd.Intn(3) == 0 {
			b.WriteString(noise[rnd.Intn(len(noise))])
			b.WriteString([]string{"\n", "\r\n"}[rnd.Intn(2)])
		}
		if rnd.Intn(4) == 0 { // pretty-printed over several lines, as the CLI writes events
			json.Indent(&b, e, "", "  ")
		} else {
			b.Write(e)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestTextLinesMatchTheFilter(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "fixtures", OpenHandsName, "*"))
	assert.NilError(t, err)
	extra, _ := filepath.Glob(filepath.Join("..", "testdata", "bench", OpenHandsName, "*"))
	files = append(files, extra...)
	var lines [][]byte
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		assert.Equal(t, string(parseTextLines(t, data)), string(parseWithFilter(t, data)), f)
		for _, l := range bytes.Split(data, []byte("\n")) {
			if json.Valid(l) && bytes.HasPrefix(l, []byte("{")) && len(l) < 64<<10 {
				lines = append(lines, l)
			}
		}
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < longtest.Count(30, 100); i++ {
		rnd.Shuffle(len(lines), func(a, b int) { lines[a], lines[b] = lines[b], lines[a] })
		data := noisy(rnd, lines[:1+rnd.Intn(25)])
		assert.Equal(t, string(parseTextLines(t, data)), string(parseWithFilter(t, data)), "%q", data)
	}
}

// After a JSON value broken across lines, the lines that follow are read
// as what they are: text is skipped, JSON is decoded. (The filter went on
// counting every line as part of the broken value.)
func TestTextLinesAfterABrokenValue(t *testing.T) {
	data := "{\"id\": 1, \"source\": \"agent\", \"action\": \"run\",\n" + // never closed
		"  \"args\": {\"command\": \"ls\"\n" +
		"--JSON Event--\n" +
		"⠋ Thinking...\n" +
		"{\"id\": 2, \"source\": \"agent\", \"action\": \"run\", \"args\": {\"command\": \"make\"}}\n" +
		"{\"id\": 3, \"cause\": 2, \"observation\": \"run\", \"content\": \"ok\", \"extras\": {\"metadata\": {\"exit_code\": 0}}}\n"
	eng, err := Lookup(OpenHandsName)
	assert.NilError(t, err)
	l, err := eng.ParseTranscript(strings.NewReader(data))
	assert.NilError(t, err)
	assert.Equal(t, l.ParseStats.Malformed, 1, "the broken value")
	assert.Equal(t, l.ParseStats.Lines, 3, "the broken value and the two events; no text line")
	assert.Equal(t, len(l.Commands), 1)
	assert.Equal(t, l.Commands[0].Command, "make")
	assert.Equal(t, l.Commands[0].Status, commandlog.StatusOK)
}

// jsonLineFilter passes JSON values through and drops the text lines between
// them. At the start of a line outside any value, a line whose first
// non-blank byte is "{" or "[" (followed by what JSON allows there) starts a
// value; any other line is text. Inside a value a small lexer tracks strings
// and nesting, so pretty-printed values spanning many lines pass whole. A raw
// newline inside a string cannot be JSON: it ends the broken value there.
// Memory is constant whatever the line length.
type jsonLineFilter struct {
	br        *bufio.Reader
	depth     int
	inStr     bool
	esc       bool
	lineStart bool
	err       error
}

func newJSONLineFilter(r io.Reader) *jsonLineFilter {
	return &jsonLineFilter{br: bufio.NewReaderSize(r, 64<<10), lineStart: true}
}

func (f *jsonLineFilter) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	for {
		if f.lineStart && f.depth == 0 && !f.inStr {
			json, err := f.classifyLine()
			if err != nil {
				f.err = err
				return 0, err
			}
			if !json {
				if err := f.dropLine(); err != nil {
					f.err = err
					return 0, err
				}
				continue
			}
			f.lineStart = false
		}
		n := f.br.Buffered()
		if n == 0 {
			if _, err := f.br.Peek(1); err != nil {
				f.err = err
				return 0, err
			}
			n = f.br.Buffered()
		}
		if n > len(p) {
			n = len(p)
		}
		buf, _ := f.br.Peek(n)
		i := 0
		for i < len(buf) {
			if f.inStr && !f.esc {
				// Inside a string only a quote, a backslash or a newline
				// matter: skip to the next one.
				i += stringSpecial(buf[i:])
				if i == len(buf) {
					break
				}
			}
			i++
			if f.lex(buf[i-1]) {
				break
			}
		}
		copy(p, buf[:i])
		f.br.Discard(i)
		return i, nil
	}
}

// stringSpecial returns the index of the first quote, backslash or newline
// in b, or len(b), looking at eight bytes at a time (see jsonv's
// stringEnd for the bit trick).
func stringSpecial(b []byte) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s, n := x^(lsb*'"'), x^(lsb*'\\'), x^(lsb*'\n')
		if m := ((q-lsb)&^q | (s-lsb)&^s | (n-lsb)&^n) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c == '\n' {
			return i
		}
	}
	return i
}

// lex advances the lexer over one byte; it reports whether the byte ended a
// line outside any value (the next byte must be classified).
func (f *jsonLineFilter) lex(c byte) bool {
	if f.inStr {
		switch {
		case f.esc:
			f.esc = false
		case c == '\\':
			f.esc = true
		case c == '"':
			f.inStr = false
		case c == '\n':
			f.inStr, f.depth = false, 0
			f.lineStart = true
			return true
		}
		return false
	}
	switch c {
	case '"':
		f.inStr = true
	case '{', '[':
		f.depth++
	case '}', ']':
		if f.depth > 0 {
			f.depth--
		}
	case '\n':
		if f.depth == 0 {
			f.lineStart = true
			return true
		}
	}
	return false
}

// classifyLine reports whether the line at the reader starts a JSON value.
func (f *jsonLineFilter) classifyLine() (bool, error) {
	b, err := f.br.Peek(64)
	if len(b) == 0 {
		return false, err
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	if i == len(b) || b[i] == '\n' {
		return false, nil // blank line
	}
	open := b[i]
	if open != '{' && open != '[' {
		if i == 0 && len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
			f.br.Discard(3) // BOM
			return f.classifyLine()
		}
		return false, nil
	}
	j := i + 1
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r') {
		j++
	}
	if j == len(b) || b[j] == '\n' {
		return true, nil
	}
	next := b[j]
	if open == '{' {
		return next == '"' || next == '}', nil
	}
	return next == '{' || next == '[' || next == ']' || next == '"', nil
}

// dropLine discards the rest of the line, newline included.
func (f *jsonLineFilter) dropLine() error {
	for {
		_, err := f.br.ReadSlice('\n')
		if err == nil {
			return nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// noThink removes what the <think> regular expression matches, on texts
// of tags nested, unclosed, repeated and cut.
func TestNoThinkMatchesRegexp(t *testing.T) {
	pieces := []string{"<think>", "</think>", "<think", "think>", "</", "a", "b\n", " ", "<", ">"}
	rng := rand.New(rand.NewSource(9))
	for n := 0; n < longtest.Count(4000, 20000); n++ {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := noThink(s), thinkBlock.ReplaceAllString(s, ""); got != want { // assert only to report
			assert.Equal(t, got, want, "%q", s)
		}
	}
}
