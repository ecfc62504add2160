package jsonv

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The fast path parses a record that fits on one line straight from the
// source's buffer: no per-byte calls, Values allocated from chunks, keys
// interned. A record that runs past its line (pretty-printed JSON) or a line
// longer than Options.MaxLine goes to the streaming decoder instead, which
// gives the same Values.

type fastParser struct {
	r *Reader
	b []byte
	i int
}

func (r *Reader) alloc() *Value {
	if len(r.arena) == cap(r.arena) {
		r.arena = make([]Value, 0, 256)
	}
	r.arena = r.arena[:len(r.arena)+1]
	return &r.arena[len(r.arena)-1]
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
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
		v := p.r.alloc()
		v.Kind = String
		v.S, v.Omitted, err = p.r.keepString(raw, esc)
		return v, err
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
	v := p.r.alloc()
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
	v := p.r.alloc()
	v.Kind, v.S = Number, string(lit)
	return v, nil
}

// rawString finds the end of a string whose opening quote was consumed and
// returns its raw bytes and whether they hold escapes.
func (p *fastParser) rawString() ([]byte, bool, error) {
	start := p.i
	j := start
	for {
		k := bytes.IndexByte(p.b[j:], '"')
		if k < 0 {
			return nil, false, errIncomplete
		}
		end := j + k
		bs := 0
		for m := end - 1; m >= start && p.b[m] == '\\'; m-- {
			bs++
		}
		if bs%2 == 0 {
			p.i = end + 1
			raw := p.b[start:end]
			return raw, bytes.IndexByte(raw, '\\') >= 0, nil
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
// transcripts repeat a few dozen keys on every line, and a direct-mapped
// table is cheaper than a map lookup or an allocation per key.
type keyCache struct {
	keys [512]string
	skip [512]bool
}

func (c *keyCache) get(raw []byte, skip map[string]bool) (string, bool) {
	if len(raw) == 0 || len(raw) > 48 {
		s := string(raw)
		return s, skip[s]
	}
	h := (uint(len(raw))*31 + uint(raw[0])*7 + uint(raw[len(raw)-1]) + uint(raw[len(raw)/2])*3) % uint(len(c.keys))
	if s := c.keys[h]; len(s) == len(raw) && s == string(raw) {
		return s, c.skip[h]
	}
	s := string(raw)
	c.keys[h], c.skip[h] = s, skip[s]
	return s, c.skip[h]
}

// key reads an object key and whether its value is to be skipped.
func (p *fastParser) key() (string, bool, error) {
	raw, esc, err := p.rawString()
	if err != nil {
		return "", false, err
	}
	if !esc && len(raw) <= p.r.opt.MaxString {
		k, skip := p.r.keys.get(raw, p.r.opt.Skip)
		return k, skip, nil
	}
	if len(raw) > p.r.opt.MaxString {
		s, _, err := p.r.keepString(raw, esc)
		return s, p.r.opt.Skip[s], err
	}
	dec, err := unescape(p.r.scratch[:0], raw)
	if err != nil {
		return "", false, err
	}
	p.r.scratch = dec[:0]
	k := string(dec)
	return k, p.r.opt.Skip[k], nil
}

func (p *fastParser) object(depth int) (*Value, error) {
	v := p.r.alloc()
	v.Kind = Object
	base := len(p.r.members)
	defer func() { p.r.members = p.r.members[:base] }()
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.ws()
		if p.i >= len(p.b) {
			return nil, errIncomplete
		}
		if p.b[p.i] != '"' {
			return nil, synErr(fmt.Sprintf("expected object key, got %q", p.b[p.i]))
		}
		p.i++
		k, skip, err := p.key()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.b) {
			return nil, errIncomplete
		}
		if p.b[p.i] != ':' {
			return nil, synErr(fmt.Sprintf("expected : after object key, got %q", p.b[p.i]))
		}
		p.i++
		if skip {
			if err := p.skip(); err != nil {
				return nil, err
			}
		} else {
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			p.r.members = append(p.r.members, Member{Key: k, Val: val})
		}
		p.ws()
		if p.i >= len(p.b) {
			return nil, errIncomplete
		}
		c := p.b[p.i]
		p.i++
		switch c {
		case ',':
		case '}':
			v.Obj = append(make([]Member, 0, len(p.r.members)-base), p.r.members[base:]...)
			return v, nil
		default:
			return nil, synErr(fmt.Sprintf("expected , or } in object, got %q", c))
		}
	}
}

func (p *fastParser) array(depth int) (*Value, error) {
	v := p.r.alloc()
	v.Kind = Array
	base := len(p.r.elems)
	defer func() { p.r.elems = p.r.elems[:base] }()
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.r.elems = append(p.r.elems, e)
		p.ws()
		if p.i >= len(p.b) {
			return nil, errIncomplete
		}
		c := p.b[p.i]
		p.i++
		switch c {
		case ',':
		case ']':
			v.Arr = append(make([]*Value, 0, len(p.r.elems)-base), p.r.elems[base:]...)
			return v, nil
		default:
			return nil, synErr(fmt.Sprintf("expected , or ] in array, got %q", c))
		}
	}
}

// keepString decodes a raw string and applies the clipping rules.
func (r *Reader) keepString(raw []byte, esc bool) (string, int64, error) {
	maxKeep := r.maxKeep()
	if esc && len(raw) <= maxKeep {
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
		return string(dec), 0, nil
	}
	head := trimIncompleteEnd(dec[:maxKeep*3/4])
	tail := trimIncompleteStart(dec[len(dec)-maxKeep/4:])
	s := string(head) + string(tail)
	r.budget -= len(s)
	return s, int64(len(dec) - len(s)), nil
}

// unescape appends the decoded form of a raw JSON string body to dst.
func unescape(dst, raw []byte) ([]byte, error) {
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(dst, raw...), nil
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i+1:]
		if len(raw) == 0 {
			return dst, synErr("invalid escape at end of string")
		}
		c := raw[0]
		raw = raw[1:]
		switch c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r1, ok := hex4(raw)
			if !ok {
				return dst, synErr("invalid \\u escape")
			}
			raw = raw[4:]
			if utf16.IsSurrogate(r1) {
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					r2, ok := hex4(raw[2:])
					if !ok {
						return dst, synErr("invalid \\u escape")
					}
					raw = raw[6:]
					if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
					} else {
						dst = utf8.AppendRune(dst, utf8.RuneError)
						dst = utf8.AppendRune(dst, r2)
					}
					continue
				}
				dst = utf8.AppendRune(dst, utf8.RuneError)
				continue
			}
			dst = utf8.AppendRune(dst, r1)
		default:
			return dst, synErr(fmt.Sprintf("invalid escape \\%c", c))
		}
	}
	return dst, nil
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
