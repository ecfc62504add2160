package jsonv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The fast path parses a record that fits on one line straight from the
// source's buffer: strings are scanned eight bytes at a time, Values live
// in a reused arena, and keys and short strings (types, statuses, tool
// names, small numbers: most of a transcript's values) are interned, so a
// record costs almost no allocation beyond its longer strings. A record that runs past
// its line (pretty-printed JSON) or a line longer than Options.MaxLine goes
// to the streaming decoder instead, which gives the same Values.

type fastParser struct {
	r   *Reader
	a   *arena
	b   []byte
	i   int
	all int // inside this many values of Options.KeepAll keys: Keep does not apply
	// ctx says where the value being read is (keyCache.succ's index +1;
	// 0 unknown): the first key of an object there is predicted from it.
	ctx int
}

// rootCtx is fastParser.ctx for a record.
const rootCtx = 4*keySets + 1

// childCtx is fastParser.ctx for the value of the key in slot (+1; 0 none).
func childCtx(slot int) int {
	if slot == 0 {
		return 0
	}
	return 2*keySets + slot
}

// arena holds the Values of the records the fast path hands out, with the
// member and element lists of their objects and arrays, in chunks that are
// cleared and reused once those records are dead: at the next call to Next
// (sequential reading) or once the consumer has left their batch (parallel
// reading). Decoding thus allocates next to nothing but strings, and the
// memory it touches stays small and warm in the caches. Clearing on reuse
// also turns a Value kept past its time into null rather than into another
// record's data; Clone keeps one for longer.
type arena struct {
	vals    chunks[Value]
	members chunks[Member]
	elems   chunks[*Value]
}

func (a *arena) reset() {
	a.vals.reset()
	a.members.reset()
	a.elems.reset()
}

// chunkItems is the size of an arena's chunks, in items; a list longer
// than a quarter of a chunk gets an allocation of its own (not reused).
const (
	chunkItems      = 1024
	firstChunkItems = 32
)

// chunks is a growable list of fixed-size chunks of T.
type chunks[T any] struct {
	list [][]T
	cur  int // the chunk being filled
	used int // items used in list[cur]
}

// take returns n contiguous items.
func (c *chunks[T]) take(n int) []T {
	if n > chunkItems/4 {
		return make([]T, n)
	}
	for c.cur < len(c.list) && c.used+n > len(c.list[c.cur]) {
		c.cur++
		c.used = 0
	}
	if c.cur == len(c.list) {
		// The first chunks are small, so that a short input does not pay
		// for whole ones: they double from firstChunkItems to chunkItems.
		size := chunkItems
		if k := len(c.list); k < bits.Len(chunkItems/firstChunkItems) {
			size = max(n, firstChunkItems<<k)
		}
		c.list = append(c.list, make([]T, size))
	}
	s := c.list[c.cur][c.used : c.used+n : c.used+n]
	c.used += n
	return s
}

// one returns a single item.
func (c *chunks[T]) one() *T {
	if c.cur == len(c.list) || c.used == len(c.list[c.cur]) {
		return &c.take(1)[0]
	}
	c.used++
	return &c.list[c.cur][c.used-1]
}

// reset clears the items used and makes every chunk free again.
func (c *chunks[T]) reset() {
	for i := 0; i < c.cur && i < len(c.list); i++ {
		clear(c.list[i])
	}
	if c.cur < len(c.list) {
		clear(c.list[c.cur][:c.used])
	}
	c.cur, c.used = 0, 0
}

// record reads one record on the fast path into p.a and returns it.
func (p *fastParser) record() (*Value, error) {
	p.ctx = rootCtx
	return p.value(0)
}

// ws skips white space and a UTF-8 BOM, as the streaming reader's
// skipSpace does, so that both paths read the same records.
func (p *fastParser) ws() {
	// Small enough to be inlined: compact JSON has no white space, and
	// this is called before and after every key and value.
	if i := p.i; i >= len(p.b) || p.b[i]-'!' >= 0xEF-'!' { // else the usual case: no white space (nor a byte from 0xEF)
		p.wsSlow()
	}
}

// wsSlow is ws past white space or a byte order mark (kept out of ws, which
// is inlined).
//
//go:noinline
func (p *fastParser) wsSlow() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		case 0xEF:
			if !bytes.HasPrefix(p.b[p.i:], []byte{0xEF, 0xBB, 0xBF}) {
				return
			}
			p.i += 3
		default:
			return
		}
	}
}

func (p *fastParser) value(depth int) (*Value, error) {
	if depth > p.r.opt.MaxDepth {
		return nil, synErr("nesting too deep")
	}
	p.ws()
	if p.i >= len(p.b) {
		return nil, errIncomplete
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		return p.object(depth)
	case c == '[':
		p.i++
		return p.array(depth)
	case c == '"':
		p.i++
		raw, esc, err := p.rawString()
		if err != nil {
			return nil, err
		}
		return p.stringValue(raw, esc)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	default:
		return nil, synErr(fmt.Sprintf("unexpected character %q", c))
	}
}

// stringValue is the Value of a string of raw bytes (esc: with escapes).
func (p *fastParser) stringValue(raw []byte, esc bool) (*Value, error) {
	s, omitted, err := p.r.keepString(raw, esc)
	if err != nil {
		return nil, err
	}
	v := p.a.vals.one()
	v.Kind, v.S, v.Omitted = String, s, omitted
	return v, nil
}

func (p *fastParser) literal(word string, k Kind, b bool) (*Value, error) {
	rest := p.b[p.i:]
	if len(rest) < len(word) {
		if string(rest) == word[:len(rest)] {
			return nil, errIncomplete
		}
		return nil, synErr("invalid literal")
	}
	if string(rest[:len(word)]) != word {
		return nil, synErr("invalid literal")
	}
	p.i += len(word)
	v := p.a.vals.one()
	v.Kind, v.B = k, b
	return v, nil
}

func (p *fastParser) number() (*Value, error) {
	start := p.i
	simple := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c >= '0' && c <= '9' || c == '-' && p.i == start {
			p.i++
			continue
		}
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			simple = false
			p.i++
			continue
		}
		break
	}
	lit := p.b[start:p.i]
	if p.i == len(p.b) {
		return nil, errIncomplete
	}
	if len(lit) > 512 {
		return nil, synErr("number too long")
	}
	if !simple || len(lit) == 1 && lit[0] == '-' {
		if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return nil, synErr("invalid number " + strconv.Quote(string(lit)))
			}
		}
	}
	v := p.a.vals.one()
	v.Kind, v.S = Number, p.r.short.get(lit)
	return v, nil
}

// rawString finds the end of a string whose opening quote was consumed and
// returns its raw bytes and whether they hold escapes.
func (p *fastParser) rawString() ([]byte, bool, error) {
	start := p.i
	end, esc := stringEnd(p.b, start)
	if end < 0 {
		return nil, false, errIncomplete
	}
	p.i = end + 1
	return p.b[start:end], esc, nil
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringEnd returns the index of the quote that ends the string body
// starting at b[i] (-1 when b ends first) and whether the body holds
// escapes. Most strings are short: the first 16 bytes are searched eight at
// a time for a quote or a backslash — (x-lsb) &^ x & msb has the top bit set
// in the first zero byte of x (and maybe in later ones), so the lowest set
// bit of the two masks is the first quote or backslash. A longer string is
// searched for its closing quote with bytes.IndexByte, which is fastest on
// long runs, skipping quotes preceded by an odd number of backslashes.
func stringEnd(b []byte, i int) (int, bool) {
	start := i
	for k := 0; k < 2 && i+8 <= len(b); k++ {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^(lsb*'"'), x^(lsb*'\\')
		if m := ((q-lsb)&^q | (s-lsb)&^s) & msb; m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				return i, false
			}
			return longStringEnd(b, start, i)
		}
		i += 8
	}
	return longStringEnd(b, start, i)
}

// longStringEnd is stringEnd for a body that starts at b[start] and has no
// quote or backslash before b[from].
func longStringEnd(b []byte, start, from int) (int, bool) {
	j := from
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, false
		}
		end := j + k
		bs := 0
		for m := end - 1; m >= start && b[m] == '\\'; m-- {
			bs++
		}
		if bs%2 == 0 {
			return end, bytes.IndexByte(b[from:end], '\\') >= 0
		}
		j = end + 1
	}
}

// skip steps over one value without decoding it.
func (p *fastParser) skip() error {
	p.ws()
	if p.i >= len(p.b) {
		return errIncomplete
	}
	switch p.b[p.i] {
	case '"':
		p.i++
		_, _, err := p.rawString()
		return err
	case '{', '[':
		depth := 0
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '"':
				p.i++
				if _, _, err := p.rawString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.i++
					return nil
				}
			}
			p.i++
		}
		return errIncomplete
	default:
		start := p.i
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				if p.i == start {
					return synErr(fmt.Sprintf("unexpected character %q", p.b[p.i]))
				}
				return nil
			}
			p.i++
		}
		return errIncomplete
	}
}

// keyCache interns object keys and remembers whether each is skipped:
// transcripts repeat a few dozen keys on every line, and a small cache is
// cheaper than a map lookup or an allocation per key. It is two-way set
// associative, so two frequent keys that hash alike ("id" and "type") do
// not keep evicting each other.
type keyCache struct {
	keys  [2 * keySets]string
	flags [2 * keySets]keyFlags
	word  [2 * keySets]uint64 // the first eight bytes of each key (fewer: zeros after)
	next  [keySets]uint8      // the way to replace on a miss
	// succ[i] are the slots of the keys that followed keys[i] in an
	// object the last times (+1; 0 for none), the latest first: objects of
	// one kind repeat their keys in the same order, so the next key is
	// usually known before it is read. A key is followed by different ones
	// in objects of different kinds ("type" by "item", "text", "command"):
	// several are remembered.
	// succ[2*keySets+i] are those of the first keys of objects that were
	// the value of keys[i] (or in an array that was), and succ[4*keySets]
	// those of records' first keys.
	succ [4*keySets + 1][succWays]uint16
}

const keySets = 1024

// succWays is how many successors of a key are remembered.
const succWays = 4

// keyFlags say what Options make of a key.
type keyFlags uint8

const (
	keySkip    keyFlags = 1 << iota // in Skip: never decoded
	keyNotKept                      // Keep is set and names it not (nor KeepAll)
	keyAll                          // in KeepAll: decoded whole
	keyClip                         // in Clip: a long string value keeps its head and tail
)

func (o *Options) keyFlags(k string) keyFlags {
	var f keyFlags
	if o.Skip[k] {
		f |= keySkip
	}
	if o.Keep != nil && !o.Keep[k] && !o.KeepAll[k] {
		f |= keyNotKept
	}
	if o.KeepAll[k] {
		f |= keyAll
	}
	if o.Clip[k] {
		f |= keyClip
	}
	return f
}

// skipped reports whether the value of a key with flags f is stepped over,
// inside all values of KeepAll keys.
func (f keyFlags) skipped(all int) bool {
	return f&keySkip != 0 || f&keyNotKept != 0 && all == 0
}

// get returns the key, its flags and its slot (+1; 0 when not cached).
func (c *keyCache) get(raw []byte, o *Options) (string, keyFlags, int) {
	if len(raw) == 0 || len(raw) > 48 {
		s := string(raw)
		return s, o.keyFlags(s), 0
	}
	set := shortHash(raw) % keySets
	i := 2 * set
	if s := c.keys[i]; s == string(raw) {
		c.next[set] = 1
		return s, c.flags[i], int(i) + 1
	}
	if s := c.keys[i+1]; s == string(raw) {
		c.next[set] = 0
		return s, c.flags[i+1], int(i) + 2
	}
	i += uint(c.next[set])
	c.next[set] ^= 1
	s := string(raw)
	c.keys[i], c.flags[i], c.succ[i], c.word[i] = s, o.keyFlags(s), [succWays]uint16{}, prefixWord(raw)
	return s, c.flags[i], int(i) + 1
}

// prefixWord is the first eight bytes of b, little-endian, the bytes past
// its end zero.
func prefixWord(b []byte) uint64 {
	var w [8]byte
	copy(w[:], b)
	return binary.LittleEndian.Uint64(w[:])
}

// maxShort is the longest string value interned by shortCache.
const maxShort = 32

// shortCache interns short string values and number literals: type names,
// statuses, roles, tool names and small numbers repeat on every record.
// A miss allocates as usual, so the cache changes no value, only how many
// allocations a record costs. Two-way set associative, like keyCache. A
// nil cache interns nothing (ParseString's short documents).
type shortCache struct {
	s    [2 * shortSets]string
	next [shortSets]uint8
}

const shortSets = 1024

func (c *shortCache) get(b []byte) string {
	if c == nil || len(b) > maxShort {
		return string(b)
	}
	set := shortHash(b) % shortSets
	i := 2 * set
	if s := c.s[i]; s == string(b) {
		c.next[set] = 1
		return s
	}
	if s := c.s[i+1]; s == string(b) {
		c.next[set] = 0
		return s
	}
	i += uint(c.next[set])
	c.next[set] ^= 1
	s := string(b)
	c.s[i] = s
	return s
}

// shortHash mixes the length and the first and last eight bytes of b.
func shortHash(b []byte) uint {
	n := len(b)
	var x, y uint64
	switch {
	case n >= 8:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
	default:
		for i, c := range b {
			x |= uint64(c) << (8 * i)
		}
	}
	h := (x*0x9E3779B97F4A7C15 ^ y*0xC2B2AE3D27D4EB4F ^ uint64(n)) * 0x165667B19E3779F9
	return uint(h >> 32)
}

// key reads an object key and what the options make of it. prev is the
// slot of the object's previous key (+1; 0 for none), and the key's own
// slot is returned: when the key is the one that followed prev last time,
// it is recognised by comparing its bytes, without scanning or hashing.
func (p *fastParser) key(prev int) (string, keyFlags, int, error) {
	c := p.r.keys
	if prev > 0 {
		w := &c.succ[prev-1]
		for way, next := range w {
			if next == 0 {
				break
			}
			// A cached key holds no quote or backslash: equal bytes
			// followed by a quote are that key. The first eight bytes
			// are compared as one word.
			k := c.keys[next-1]
			n := len(k)
			if e := p.i + n; e >= len(p.b) || p.b[e] != '"' || p.i+8 > len(p.b) {
				continue
			}
			x := binary.LittleEndian.Uint64(p.b[p.i:])
			if n < 8 {
				x &= 1<<(8*n) - 1
			}
			if x != c.word[next-1] || n > 8 && string(p.b[p.i+8:p.i+n]) != k[8:] {
				continue
			}
			if way > 0 { // the latest first
				copy(w[1:way+1], w[:way])
				w[0] = next
			}
			p.i += n + 1
			return k, c.flags[next-1], int(next), nil
		}
	}
	raw, esc, err := p.rawString()
	if err != nil {
		return "", 0, 0, err
	}
	if !esc && len(raw) <= p.r.opt.MaxString {
		k, f, slot := c.get(raw, &p.r.opt)
		if prev > 0 && slot > 0 {
			// The latest first: the others move down, the oldest goes.
			w := &c.succ[prev-1]
			copy(w[1:], w[:succWays-1])
			w[0] = uint16(slot)
		}
		return k, f, slot, nil
	}
	if len(raw) > p.r.opt.MaxString {
		s, _, err := p.r.keepString(raw, esc)
		return s, p.r.opt.keyFlags(s), 0, err
	}
	dec, err := unescape(p.r.scratch[:0], raw)
	if err != nil {
		return "", 0, 0, err
	}
	p.r.scratch = dec[:0]
	k := string(dec)
	return k, p.r.opt.keyFlags(k), 0, nil
}

func (p *fastParser) object(depth int) (*Value, error) {
	v := p.a.vals.one()
	v.Kind = Object
	base := len(p.r.mstack)
	err := p.members(depth)
	if err == nil && len(p.r.mstack) > base {
		v.Obj = p.a.members.take(len(p.r.mstack) - base)
		copy(v.Obj, p.r.mstack[base:])
	}
	clearMembers(p.r.mstack[base:])
	p.r.mstack = p.r.mstack[:base]
	if err != nil {
		return nil, err
	}
	return v, nil
}

// members reads an object's members onto the member stack, from after its
// opening brace.
func (p *fastParser) members(depth int) error {
	prev := p.ctx // where the next key is predicted from: the previous key's slot, or where the object is
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.ws()
		if p.i >= len(p.b) {
			return errIncomplete
		}
		if p.b[p.i] != '"' {
			return synErr(fmt.Sprintf("expected object key, got %q", p.b[p.i]))
		}
		p.i++
		k, flags, slot, err := p.key(prev)
		if err != nil {
			return err
		}
		prev = slot
		p.ctx = childCtx(slot)
		p.ws()
		if p.i >= len(p.b) {
			return errIncomplete
		}
		if p.b[p.i] != ':' {
			return synErr(fmt.Sprintf("expected : after object key, got %q", p.b[p.i]))
		}
		p.i++
		if flags.skipped(p.all) {
			if err := p.skip(); err != nil {
				return err
			}
		} else {
			if flags&keyAll != 0 {
				p.all++
			}
			var val *Value
			var err error
			if flags&keyClip != 0 {
				val, err = p.clipValue(depth + 1)
			} else {
				val, err = p.value(depth + 1)
			}
			if flags&keyAll != 0 {
				p.all--
			}
			if err != nil {
				return err
			}
			p.r.mstack = append(p.r.mstack, Member{Key: k, Val: val})
		}
		p.ws()
		if p.i >= len(p.b) {
			return errIncomplete
		}
		c := p.b[p.i]
		p.i++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			return synErr(fmt.Sprintf("expected , or } in object, got %q", c))
		}
	}
}

func (p *fastParser) array(depth int) (*Value, error) {
	v := p.a.vals.one()
	v.Kind = Array
	base := len(p.r.estack)
	err := p.elements(depth)
	if err == nil && len(p.r.estack) > base {
		v.Arr = p.a.elems.take(len(p.r.estack) - base)
		copy(v.Arr, p.r.estack[base:])
	}
	clearElems(p.r.estack[base:])
	p.r.estack = p.r.estack[:base]
	if err != nil {
		return nil, err
	}
	return v, nil
}

// elements reads an array's elements onto the element stack, from after
// its opening bracket.
func (p *fastParser) elements(depth int) error {
	ctx := p.ctx
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return nil
	}
	for {
		p.ctx = ctx
		e, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		p.r.estack = append(p.r.estack, e)
		p.ws()
		if p.i >= len(p.b) {
			return errIncomplete
		}
		c := p.b[p.i]
		p.i++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return synErr(fmt.Sprintf("expected , or ] in array, got %q", c))
		}
	}
}

// clearMembers and clearElems clear the stacks' entries an object or an
// array used, so that they keep nothing alive: field by field, as most
// objects have a few members, for which clear's call into the runtime
// costs more than the stores.
func clearMembers(m []Member) {
	for i := range m {
		m[i].Key, m[i].Val = "", nil
	}
}

func clearElems(e []*Value) {
	for i := range e {
		e[i] = nil
	}
}

// keepString decodes a raw string and applies the clipping rules.
func (r *Reader) keepString(raw []byte, esc bool) (string, int64, error) {
	maxKeep := r.maxKeep()
	if esc && len(raw) <= maxKeep && len(raw) > maxShort {
		// Decode into a buffer of its own and hand it over as the string:
		// no second copy.
		dec, err := unescape(make([]byte, 0, len(raw)), raw)
		if err != nil {
			return "", 0, err
		}
		r.budget -= len(dec)
		return unsafe.String(unsafe.SliceData(dec), len(dec)), 0, nil
	}
	dec := raw
	if esc {
		var err error
		dec, err = unescape(r.scratch[:0], raw)
		if err != nil {
			return "", 0, err
		}
		r.scratch = dec[:0]
	}
	if len(dec) <= maxKeep {
		r.budget -= len(dec)
		return r.short.get(dec), 0, nil
	}
	head := trimIncompleteEnd(dec[:maxKeep*3/4])
	tail := trimIncompleteStart(dec[len(dec)-maxKeep/4:])
	s := string(head) + string(tail)
	r.budget -= len(s)
	return s, int64(len(dec) - len(s)), nil
}

// unescape appends the decoded form of a raw JSON string body to dst. It
// writes into room made once: transcripts' long strings are command output,
// dense with \n escapes, where copying runs between escapes would cost a
// call per line. Eight bytes are copied at once up to the first backslash
// (found as stringEnd finds it), and a \n there is decoded in the same
// loop; other escapes are decoded byte by byte.
func unescape(dst, raw []byte) ([]byte, error) {
	out, _, err := unescapeUpTo(dst, raw, len(raw))
	return out, err
}

// unescapeUpTo is unescape that stops once it has appended at least limit
// bytes (a few more at most), at the end of an escape; it also returns how
// many raw bytes it read.
func unescapeUpTo(dst, raw []byte, limit int) ([]byte, int, error) {
	n := len(dst)
	stop := n + limit
	if cap(dst)-n < len(raw) {
		dst = append(dst[:n:n], make([]byte, len(raw))...)
	}
	out := dst[:cap(dst)]
	i := 0
	for i < len(raw) && n < stop {
		// out has room for len(raw)-i more bytes past n (a decoded byte
		// never takes fewer raw ones), so eight fit when eight remain.
		for i+8 <= len(raw) && n < stop {
			x := binary.LittleEndian.Uint64(raw[i:])
			binary.LittleEndian.PutUint64(out[n:], x)
			s := x ^ (lsb * '\\')
			if m := (s - lsb) &^ s & msb; m != 0 {
				// Keep the bytes before the first backslash.
				k := bits.TrailingZeros64(m) >> 3
				n += k
				i += k
				// A \n, most of what output escapes, is decoded
				// here (two raw bytes, one decoded: the room holds).
				if i+1 < len(raw) && raw[i+1] == 'n' {
					out[n] = '\n'
					n++
					i += 2
					continue
				}
				break
			}
			n += 8
			i += 8
		}
		if i >= len(raw) {
			break
		}
		c := raw[i]
		if c != '\\' {
			out[n] = c
			n++
			i++
			continue
		}
		if i+1 >= len(raw) {
			return out[:n], i, synErr("invalid escape at end of string")
		}
		e := raw[i+1]
		i += 2
		switch e {
		case 'n':
			out[n] = '\n'
		case '"', '\\', '/':
			out[n] = e
		case 't':
			out[n] = '\t'
		case 'r':
			out[n] = '\r'
		case 'b':
			out[n] = '\b'
		case 'f':
			out[n] = '\f'
		case 'u':
			r1, ok := hex4(raw[i:])
			if !ok {
				return out[:n], i, synErr("invalid \\u escape")
			}
			i += 4
			var buf [2 * utf8.UTFMax]byte
			enc := buf[:0]
			if utf16.IsSurrogate(r1) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok := hex4(raw[i+2:])
					if !ok {
						return out[:n], i, synErr("invalid \\u escape")
					}
					i += 6
					if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
						enc = utf8.AppendRune(enc, d)
					} else {
						enc = utf8.AppendRune(enc, utf8.RuneError)
						enc = utf8.AppendRune(enc, r2)
					}
				} else {
					enc = utf8.AppendRune(enc, utf8.RuneError)
				}
			} else {
				enc = utf8.AppendRune(enc, r1)
			}
			// A \u escape takes 6 raw bytes and at most 3 decoded ones (6
			// for a surrogate pair from 12), so out has room.
			n += copy(out[n:], enc)
			continue
		default:
			return out[:n], i, synErr(fmt.Sprintf("invalid escape \\%c", e))
		}
		n++
	}
	return out[:n], i, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var n rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}
