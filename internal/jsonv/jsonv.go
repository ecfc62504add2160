// Package jsonv decodes streams of JSON records — JSONL, concatenated or
// pretty-printed values, and top-level arrays whose elements are records —
// into a small generic tree, with bounded memory per record.
//
// It exists because agent transcripts are untrusted, drift between CLI
// versions and can hold single lines of hundreds of MiB. Three properties
// matter to its callers, the engine parsers:
//
//   - Tolerance: a malformed record is reported as a *SyntaxError and the
//     reader resynchronises at the next line, so one bad line never aborts a
//     transcript.
//   - Bounded memory: a string longer than Options.MaxString keeps only its
//     head and tail (Value.Omitted says how many bytes were dropped from the
//     middle), and once a record has kept Options.RecordBudget bytes of string
//     data every further long string is clipped hard. A 256 MiB line costs a
//     few MiB, not 256.
//   - Order and laziness: objects keep their key order, and numbers keep their
//     literal text until asked for.
//
// Lookups are nil-safe: v.Get("a").Get("b").Str() is "" when any step is
// missing or of another type, which is what drift-tolerant parsers want.
package jsonv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is one decoded JSON value.
type Value struct {
	Kind Kind
	// S is the text of a String (possibly clipped, see Omitted) or the
	// literal text of a Number.
	S string
	// B is the value of a Bool.
	B bool
	// Omitted counts the bytes dropped from the middle of a clipped string.
	Omitted int64
	// Arr holds the elements of an Array.
	Arr []*Value
	// Obj holds the members of an Object, in input order.
	Obj []Member
	// raw is the body of a String clipped for Options.Clip, for Whole;
	// valid while its record is.
	raw []byte
}

// Clone returns a deep copy of v that stays valid after the reader has
// moved on (see Reader.Next); nil for nil.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.raw != nil {
		c.S, c.Omitted = v.Whole()
		c.raw = nil
	}
	if v.Arr != nil {
		c.Arr = make([]*Value, len(v.Arr))
		for i, e := range v.Arr {
			c.Arr[i] = e.Clone()
		}
	}
	if v.Obj != nil {
		c.Obj = make([]Member, len(v.Obj))
		for i, m := range v.Obj {
			c.Obj[i] = Member{Key: m.Key, Val: m.Val.Clone()}
		}
	}
	return &c
}

// Member is one key/value pair of an Object.
type Member struct {
	Key string
	Val *Value
}

// Get returns the value of key in an object, or nil when v is nil, not an
// object, or has no such key. With duplicate keys the last one wins, as in
// encoding/json.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Obj) - 1; i >= 0; i-- {
		if v.Obj[i].Key == key {
			return v.Obj[i].Val
		}
	}
	return nil
}

// Has reports whether an object has key (with any value, null included).
func (v *Value) Has(key string) bool {
	if v == nil || v.Kind != Object {
		return false
	}
	for _, m := range v.Obj {
		if m.Key == key {
			return true
		}
	}
	return false
}

// Path follows keys from v; it is nil-safe like Get.
func (v *Value) Path(keys ...string) *Value {
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// Str returns the string of a String value, or "" for anything else.
func (v *Value) Str() string {
	if v == nil || v.Kind != String {
		return ""
	}
	return v.S
}

// Text returns a String's text and how many bytes were clipped from its
// middle; "" and 0 for anything else, a missing value included.
func (v *Value) Text() (string, int64) {
	if v == nil || v.Kind != String {
		return "", 0
	}
	return v.S, v.Omitted
}

// Whole is Text for a String that Options.Clip left clipped: the whole
// text and 0, as a reader without Clip gives it. It decodes the string
// again from the record's bytes, so it is valid only until the following
// call to Next or Close (as the Value is). For any other Value it is Text.
func (v *Value) Whole() (string, int64) {
	if v == nil || v.raw == nil {
		return v.Text()
	}
	dec, err := unescape(make([]byte, 0, len(v.raw)), v.raw)
	if err != nil { // checked when the record was read
		return v.Text()
	}
	return unsafe.String(unsafe.SliceData(dec), len(dec)), 0
}

// Clipped is the second result of Text.
func (v *Value) Clipped() int64 {
	_, n := v.Text()
	return n
}

// IsString reports whether v is a String.
func (v *Value) IsString() bool { return v != nil && v.Kind == String }

// IsNull reports whether v is missing or JSON null.
func (v *Value) IsNull() bool { return v == nil || v.Kind == Null }

// Members returns the members of an Object, or nil.
func (v *Value) Members() []Member {
	if v == nil || v.Kind != Object {
		return nil
	}
	return v.Obj
}

// Items returns the elements of an Array, or nil.
func (v *Value) Items() []*Value {
	if v == nil || v.Kind != Array {
		return nil
	}
	return v.Arr
}

// BoolOK returns the value of a Bool and whether v is one.
func (v *Value) BoolOK() (bool, bool) {
	if v == nil || v.Kind != Bool {
		return false, false
	}
	return v.B, true
}

// True reports whether v is the JSON literal true.
func (v *Value) True() bool { b, ok := v.BoolOK(); return ok && b }

// Float returns a Number as float64. Numbers written as strings are not
// accepted: a transcript that quotes its numbers has drifted and the caller
// should decide.
func (v *Value) Float() (float64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.S, 64)
	return f, err == nil
}

// Int returns a Number that is integral (1 and 1.0 both count) as int64.
func (v *Value) Int() (int64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	if n, err := strconv.ParseInt(v.S, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(v.S, 64)
	if err != nil || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// Options bound the memory one record may take.
type Options struct {
	// MaxString is the longest string kept whole; longer ones keep
	// MaxString*3/4 bytes of head and MaxString/4 of tail. Default 1 MiB.
	MaxString int
	// RecordBudget is how many bytes of string data one record may keep
	// before every further string longer than 4 KiB is clipped to 3 KiB head
	// and 1 KiB tail. Default 32 MiB.
	RecordBudget int
	// MaxDepth is the deepest nesting accepted. Default 512.
	MaxDepth int
	// MaxLine is the longest line parsed in memory on the fast path; a
	// longer line is decoded as a stream. Default 8 MiB.
	MaxLine int
	// Workers > 0 decodes one-line records ahead of the caller, on that
	// many goroutines, in input order (see parallel.go); callers that may
	// stop reading before the end call Close. 0 decodes on the caller's
	// goroutine.
	Workers int
	// TextLines skips lines of text between records, as if they were not
	// there (no record, no syntax error): at the start of a line, outside
	// any record, a line whose first non-blank byte is not { or [ followed
	// by what JSON allows there (a quote or a closing brace; a quote, an
	// opening or closing bracket or brace) is text. OpenHands' CLI mixes
	// spinner and log lines with its JSON events.
	TextLines bool
	// Keep, when set, names the only object keys whose values are decoded
	// (with those of KeepAll): every other key is stepped over as if it
	// were in Skip. For callers that read a few fields of large records.
	Keep map[string]bool
	// KeepAll names keys whose values are decoded whole, Keep not applying
	// inside them: their keys are data (file paths, model names).
	KeepAll map[string]bool
	// Clip names keys whose string values the caller keeps only the head
	// and the tail of (command output it truncates). On the fast path, such
	// a value longer than ClipHead+ClipTail bytes keeps its first ClipHead
	// and last ClipTail bytes (less a UTF-8 sequence cut at either edge),
	// Omitted counts the bytes between, and the middle is checked but not
	// decoded (clip.go); Value.Whole gives the whole text while the record
	// is current. Kept whole as usual: a string that may be JSON (its text
	// starts with [ or { after white space), one over MaxString (clipped
	// as usual), and one whose middle holds \\ or \u escapes. Clip applies
	// only when ClipHead and ClipTail are both set.
	Clip               map[string]bool
	ClipHead, ClipTail int
	// Skip names object keys whose values the caller never reads (token
	// usage, tool lists, thinking text). They are stepped over without
	// being decoded and do not appear in the Value. Malformed JSON inside a
	// skipped value may go unnoticed.
	Skip map[string]bool
}

func (o Options) withDefaults() Options {
	if o.MaxString <= 0 {
		o.MaxString = 1 << 20
	}
	if o.RecordBudget <= 0 {
		o.RecordBudget = 32 << 20
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 512
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 8 << 20
	}
	if o.ClipHead <= 0 || o.ClipTail <= 0 {
		o.Clip = nil
	}
	return o
}

// SyntaxError reports a record that is not valid JSON. The reader has
// already skipped to the next line when it is returned.
type SyntaxError struct {
	Line int // 1-based line where the bad record started
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Reader reads a stream of JSON records.
type Reader struct {
	br      *source
	opt     Options
	line    int // current line, 1-based
	inArray bool
	started bool
	budget  int
	scratch []byte
	// scratch2 holds the decoded tail of a clipped string (clip.go)
	scratch2 []byte
	noSkip   bool  // the failed record already ended at a newline
	bol      bool  // nothing but white space read since the last newline
	err      error // sticky read error other than EOF

	// parallel mode (Options.Workers > 0)
	par       *parallel
	seqNext   int // read this many records sequentially before going parallel again
	fallbacks int // records that ran past their line in parallel mode

	all int // the streaming decoder is inside this many KeepAll values

	// fast path state
	arena  *arena   // the sequential reader's arena, reset by Next
	mstack []Member // members of the objects being read
	estack []*Value // elements of the arrays being read
	keys   *keyCache
	short  *shortCache
	pooled *caches // keys and short, back to cachePool on Close
}

// cachePool keeps the caches of closed Readers: fresh ones cost a short
// input (a progress re-parse) 120 KB, more than the rest of its parse.
var cachePool = sync.Pool{New: func() any { return new(caches) }}

type caches struct {
	keys  keyCache
	short shortCache
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opt Options) *Reader {
	opt = opt.withDefaults()
	c := cachePool.Get().(*caches)
	*c = caches{} // as new: the flags of its keys came from other Options
	return &Reader{br: newSource(r, opt.MaxLine), opt: opt, line: 1, bol: true, keys: &c.keys, short: &c.short, pooled: c}
}

// jsonStart reports whether a line whose first non-blank byte starts b
// starts a JSON record (Options.TextLines).
func jsonStart(b []byte) bool {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return false
	}
	j := 1
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r') {
		j++
	}
	if j == len(b) || b[j] == '\n' {
		return true
	}
	if b[0] == '{' {
		return b[j] == '"' || b[j] == '}'
	}
	switch b[j] {
	case '{', '[', ']', '"':
		return true
	}
	return false
}

var errEOF = errors.New("unexpected end of input")

type synErr string

// Next returns the next record. Elements of a top-level array are returned
// one by one as records, so a whole run saved as one array reads like JSONL.
//
// The record's Values are valid until the following call to Next or Close:
// their memory is reused then (strings, keys included, stay valid). A
// caller that keeps a Value longer keeps v.Clone().
// It returns io.EOF at the end, a *SyntaxError for a malformed record (call
// Next again to go on), or another error when the underlying reader fails.
func (r *Reader) Next() (*Value, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.par != nil {
		if v, err, ok := r.nextParallel(); ok {
			return v, err
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	for {
		c, err := r.skipSpace()
		if err != nil {
			return nil, r.eof(err)
		}
		if r.opt.TextLines && r.bol && !r.inArray {
			if b, _ := r.br.Peek(64); !jsonStart(b) {
				r.skipLine()
				continue
			}
		}
		if r.opt.Workers > 0 && !r.inArray && r.seqNext == 0 && (r.started || c != '[') {
			r.started = true
			r.startParallel()
			return r.Next()
		}
		if r.seqNext > 0 {
			r.seqNext--
		}
		if r.inArray {
			switch c {
			case ',':
				r.take(1)
				continue
			case ']':
				r.take(1)
				r.inArray = false
				continue
			}
		} else if c == '[' && !r.started {
			// A top-level array container: its elements are the records.
			r.take(1)
			r.inArray = true
			r.started = true
			continue
		}
		r.started = true
		start := r.line
		r.budget = r.opt.RecordBudget
		if line, ok := r.br.peekLine(); ok {
			if r.arena == nil {
				r.arena = new(arena)
			}
			r.arena.reset()
			p := fastParser{r: r, a: r.arena, b: line}
			v, err := p.record()
			if err == nil {
				r.take(p.i)
				return v, nil
			}
			var se synErr
			if errors.As(err, &se) {
				r.skipLine()
				return nil, &SyntaxError{Line: start, Msg: string(se)}
			}
			// errIncomplete: the record spans lines; stream it.
			r.budget = r.opt.RecordBudget
		}
		v, err := r.value(0)
		if err == nil {
			return v, nil
		}
		var se synErr
		if errors.As(err, &se) || errors.Is(err, errEOF) {
			r.inArray = false
			// A record cut short is often followed by a good one on the
			// next line: when the error was found at the start of a later
			// line, resume right there instead of skipping that line.
			if r.bol && r.line > start {
				r.noSkip = true
			}
			if !errors.Is(err, errEOF) && !r.noSkip {
				r.skipLine()
			}
			r.noSkip = false
			msg := string(se)
			if errors.Is(err, errEOF) {
				// The input ended inside the record: nothing follows it,
				// even where the cut left bytes unread ("nu" of a null).
				msg = errEOF.Error()
				r.err = io.EOF
			}
			return nil, &SyntaxError{Line: start, Msg: msg}
		}
		r.err = err
		return nil, err
	}
}

func (e synErr) Error() string { return string(e) }

func (r *Reader) eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, errEOF) {
		return io.EOF
	}
	r.err = err
	return err
}

// maxKeep is the longest string kept whole now: MaxString, or at most 4 KiB
// once the record has used its budget.
func (r *Reader) maxKeep() int {
	if r.budget <= 0 {
		return min(r.opt.MaxString, 4<<10)
	}
	return r.opt.MaxString
}

// take consumes n bytes that are not white space.
func (r *Reader) take(n int) {
	r.bol = false
	r.br.Discard(n)
}

func (r *Reader) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return errEOF
	}
	return err
}

// skipSpace skips white space (and a UTF-8 BOM) and peeks the next byte.
func (r *Reader) skipSpace() (byte, error) {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case '\n':
			r.line++
			r.bol = true
			r.br.Discard(1)
		case ' ', '\t', '\r':
			r.br.Discard(1)
		case 0xEF:
			if bom, _ := r.br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
				r.br.Discard(3)
				continue
			}
			return b[0], nil
		default:
			return b[0], nil
		}
	}
}

// skipLine discards input up to and including the next newline.
func (r *Reader) skipLine() {
	if r.br.skipLine() {
		r.line++
		r.bol = true
	}
}

func (r *Reader) value(depth int) (*Value, error) {
	if depth > r.opt.MaxDepth {
		return nil, synErr("nesting too deep")
	}
	c, err := r.skipSpace()
	if err != nil {
		return nil, r.readErr(err)
	}
	switch {
	case c == '{':
		r.take(1)
		return r.object(depth)
	case c == '[':
		r.take(1)
		return r.array(depth)
	case c == '"':
		r.take(1)
		s, omitted, err := r.str(true)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, S: s, Omitted: omitted}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	case c == 't':
		return r.literal("true", &Value{Kind: Bool, B: true})
	case c == 'f':
		return r.literal("false", &Value{Kind: Bool})
	case c == 'n':
		return r.literal("null", &Value{Kind: Null})
	}
	return nil, synErr(fmt.Sprintf("unexpected character %q", c))
}

func (r *Reader) literal(word string, v *Value) (*Value, error) {
	b, err := r.br.Peek(len(word))
	if err != nil && len(b) < len(word) {
		if string(b) == word[:len(b)] {
			return nil, errEOF
		}
		return nil, synErr("invalid literal")
	}
	if string(b) != word {
		return nil, synErr("invalid literal")
	}
	r.take(len(word))
	return v, nil
}

func (r *Reader) number() (*Value, error) {
	r.scratch = r.scratch[:0]
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			break
		}
		c := b[0]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			r.scratch = append(r.scratch, c)
			r.take(1)
			if len(r.scratch) > 512 {
				return nil, synErr("number too long")
			}
			continue
		}
		break
	}
	s := string(r.scratch)
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, synErr("invalid number " + strconv.Quote(s))
		}
	}
	return &Value{Kind: Number, S: s}, nil
}

func (r *Reader) array(depth int) (*Value, error) {
	v := &Value{Kind: Array}
	c, err := r.skipSpace()
	if err != nil {
		return nil, r.readErr(err)
	}
	if c == ']' {
		r.take(1)
		return v, nil
	}
	for {
		e, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Arr = append(v.Arr, e)
		c, err := r.skipSpace()
		if err != nil {
			return nil, r.readErr(err)
		}
		switch c {
		case ',':
			r.take(1)
		case ']':
			r.take(1)
			return v, nil
		default:
			return nil, synErr(fmt.Sprintf("expected , or ] in array, got %q", c))
		}
	}
}

func (r *Reader) object(depth int) (*Value, error) {
	v := &Value{Kind: Object}
	c, err := r.skipSpace()
	if err != nil {
		return nil, r.readErr(err)
	}
	if c == '}' {
		r.take(1)
		return v, nil
	}
	for {
		c, err := r.skipSpace()
		if err != nil {
			return nil, r.readErr(err)
		}
		if c != '"' {
			return nil, synErr(fmt.Sprintf("expected object key, got %q", c))
		}
		r.take(1)
		key, _, err := r.str(false)
		if err != nil {
			return nil, err
		}
		if c, err = r.skipSpace(); err != nil {
			return nil, r.readErr(err)
		}
		if c != ':' {
			return nil, synErr(fmt.Sprintf("expected : after object key, got %q", c))
		}
		r.take(1)
		flags := r.opt.keyFlags(key)
		if flags&keyAll != 0 {
			r.all++
		}
		val, err := r.value(depth + 1)
		if flags&keyAll != 0 {
			r.all--
		}
		if err != nil {
			return nil, err
		}
		if !flags.skipped(r.all) {
			v.Obj = append(v.Obj, Member{Key: key, Val: val})
		}
		if c, err = r.skipSpace(); err != nil {
			return nil, r.readErr(err)
		}
		switch c {
		case ',':
			r.take(1)
		case '}':
			r.take(1)
			return v, nil
		default:
			return nil, synErr(fmt.Sprintf("expected , or } in object, got %q", c))
		}
	}
}

// clipper keeps the head and tail of a string being decoded.
type clipper struct {
	head    []byte
	tail    []byte // ring of the last tailCap bytes, as a plain buffer
	headCap int
	tailCap int
	total   int64
}

func (c *clipper) write(p []byte) {
	c.total += int64(len(p))
	if n := c.headCap - len(c.head); n > 0 {
		if n > len(p) {
			n = len(p)
		}
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 || c.tailCap == 0 {
		return
	}
	if len(p) >= c.tailCap {
		c.tail = append(c.tail[:0], p[len(p)-c.tailCap:]...)
		return
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailCap {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailCap:]...)
	}
}

func (c *clipper) result() string {
	tail := c.tail
	if len(tail) > c.tailCap {
		tail = tail[len(tail)-c.tailCap:]
	}
	return string(trimIncompleteEnd(c.head)) + string(trimIncompleteStart(tail))
}

// trimIncompleteEnd drops a UTF-8 sequence cut at the end of b.
func trimIncompleteEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimIncompleteStart drops continuation bytes at the start of b.
func trimIncompleteStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// str decodes a string whose opening quote was consumed. Long strings are
// clipped when clip is true; keys are never long in practice but are
// bounded by MaxString all the same.
func (r *Reader) str(clip bool) (string, int64, error) {
	maxKeep := r.maxKeep()
	buf := r.scratch[:0]
	var cl *clipper
	flush := func() {
		if cl == nil && len(buf) > maxKeep {
			cl = &clipper{headCap: maxKeep * 3 / 4, tailCap: maxKeep / 4}
			cl.write(buf)
			buf = buf[:0]
		} else if cl != nil {
			cl.write(buf)
			buf = buf[:0]
		}
	}
	for {
		chunk, err := r.br.Window()
		if err != nil {
			return "", 0, r.readErr(err)
		}
		// Copy the runs between quotes, backslashes and line breaks, and
		// decode the two-byte escapes found whole in the window, without
		// leaving it; the rest (the closing quote, a \u escape, an escape
		// cut by the window's end, a line break) byte by byte below.
		i := 0
		for {
			j := indexStringStop(chunk[i:])
			if j < 0 {
				buf = append(buf, chunk[i:]...)
				i = len(chunk)
				break
			}
			buf = append(buf, chunk[i:i+j]...)
			i += j
			if chunk[i] != '\\' || i+1 == len(chunk) || twoByteEscape[chunk[i+1]] == 0 {
				break
			}
			buf = append(buf, twoByteEscape[chunk[i+1]])
			i += 2
			if len(buf) > maxKeep {
				flush() // the buffer stays within maxKeep and a run
			}
		}
		r.take(i)
		if len(buf) > maxKeep {
			flush()
		}
		if i == len(chunk) {
			continue
		}
		c, _ := r.br.ReadByte()
		r.bol = false
		switch {
		case c == '"':
			var s string
			var omitted int64
			flush()
			if cl != nil {
				s = cl.result()
				omitted = cl.total - int64(len(s))
			} else {
				s = string(buf)
			}
			r.scratch = buf[:0]
			r.budget -= len(s)
			if !clip {
				omitted = 0
			}
			return s, omitted, nil
		case c == '\\':
			var err error
			buf, err = r.escape(buf)
			if err != nil {
				return "", 0, err
			}
		case c == '\n':
			r.line++
			r.noSkip = true
			r.bol = true
			return "", 0, synErr("newline in string")
		default:
			// JSON forbids raw control characters in strings; agents' logs
			// sometimes contain them anyway. Keep them: tolerance wins.
			buf = append(buf, c)
		}
		if len(buf) > maxKeep {
			flush()
		}
	}
}

// indexStringStop returns the index of the first quote, backslash or line
// break in b, or -1: the bytes the streaming decoder cannot copy as they
// are (a raw control character other than a line break is kept as it is).
// Eight bytes at a time, as stringEnd searches.
func indexStringStop(b []byte) int {
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
	return -1
}

// twoByteEscape is the byte a two-byte escape \c stands for, by c; 0 for
// \u and what is not an escape.
var twoByteEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (r *Reader) escape(buf []byte) ([]byte, error) {
	c, err := r.br.ReadByte()
	if err != nil {
		return buf, r.readErr(err)
	}
	if b := twoByteEscape[c]; b != 0 {
		return append(buf, b), nil
	}
	if c != 'u' {
		return buf, synErr(fmt.Sprintf("invalid escape \\%c", c))
	}
	r1, err := r.hex4()
	if err != nil {
		return buf, err
	}
	if utf16.IsSurrogate(r1) {
		if b, _ := r.br.Peek(2); len(b) == 2 && b[0] == '\\' && b[1] == 'u' {
			r.take(2)
			r2, err := r.hex4()
			if err != nil {
				return buf, err
			}
			if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
				return utf8.AppendRune(buf, dec), nil
			}
			buf = utf8.AppendRune(buf, utf8.RuneError)
			return utf8.AppendRune(buf, r2), nil
		}
		return utf8.AppendRune(buf, utf8.RuneError), nil
	}
	return utf8.AppendRune(buf, r1), nil
}

func (r *Reader) hex4() (rune, error) {
	b, err := r.br.Peek(4)
	if err != nil {
		return 0, r.readErr(err)
	}
	n, perr := strconv.ParseUint(string(b), 16, 32)
	if perr != nil {
		return 0, synErr("invalid \\u escape")
	}
	r.take(4)
	return rune(n), nil
}

// ParseString decodes a complete JSON document held in a string, for the
// transcripts that embed JSON inside a JSON string. It returns an error when
// s is not exactly one JSON value.
func ParseString(s string, opt Options) (*Value, error) {
	opt = opt.withDefaults()
	// No caches: the streaming decoder reads keys without one, and a short
	// document repeats too little to pay for interning (an embedded
	// document per tool call would otherwise cost both caches' 120 KB).
	r := &Reader{br: newSource(strings.NewReader(s), opt.MaxLine), opt: opt, line: 1, started: true}
	r.budget = r.opt.RecordBudget
	v, err := r.value(0)
	if err != nil {
		return nil, fmt.Errorf("parse embedded json: %w", err)
	}
	if _, err := r.skipSpace(); err == nil {
		return nil, errors.New("parse embedded json: trailing data")
	}
	return v, nil
}
