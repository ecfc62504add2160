package jsonv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// writeJSONString writes s as json.Marshal does, without calling it for
// the plain ASCII strings it would only put between quotes.
func writeJSONString(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			b.Write(j)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// orderedDump writes v as JSON with its object keys in order.
func orderedDump(b *strings.Builder, v *Value) {
	switch v.Kind {
	case Object:
		b.WriteByte('{')
		for i, m := range v.Obj {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, m.Key)
			b.WriteByte(':')
			orderedDump(b, m.Val)
		}
		b.WriteByte('}')
	case Array:
		b.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
			}
			orderedDump(b, e)
		}
		b.WriteByte(']')
	case String:
		writeJSONString(b, v.S)
	default:
		b.WriteString(v.S)
	}
}

// TestKeysPredictedOrNot checks the fast path's key reading, which
// recognises a key by its bytes when it is one that followed the previous
// key (or began an object in the same place) before: records whose keys
// change from one to the next, keys that share their first eight bytes or
// are a prefix of another, keys of 7, 8, 9 and 16 bytes, escaped keys, a
// key at the very end of a line, objects in arrays. Each record reads as
// the keys and values written, in order, on one reader and in parallel.
func TestKeysPredictedOrNot(t *testing.T) {
	keys := []string{"type", "types", "typ", "item", "items", "a", "", "abcdefg", "abcdefgh", "abcdefghi",
		"abcdefgX", "abcdefghijklmnop", "abcdefghijklmnoq", "aggregated_output", "aggregated_outpuX", "é", "k\"q", "A"}
	// written is how a key appears in the input: some escaped.
	written := func(k string) string {
		switch k {
		case "A":
			return `"\u0041"`
		case "k\"q":
			return `"k\"q"`
		}
		return `"` + k + `"`
	}
	seed := uint64(7)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	var in, want strings.Builder
	var object func(depth int)
	object = func(depth int) {
		// distinct keys, in a random order
		perm := make([]int, len(keys))
		for i := range perm {
			perm[i] = i
		}
		n := rnd(5)
		in.WriteByte('{')
		want.WriteByte('{')
		for i := 0; i < n; i++ {
			j := i + rnd(len(perm)-i)
			perm[i], perm[j] = perm[j], perm[i]
			k := keys[perm[i]]
			if i > 0 {
				in.WriteByte(',')
				want.WriteByte(',')
			}
			in.WriteString(written(k) + ":")
			writeJSONString(&want, k)
			want.WriteByte(':')
			switch c := rnd(4); {
			case c == 0 && depth < 3:
				object(depth + 1)
			case c == 1 && depth < 3:
				in.WriteByte('[')
				want.WriteByte('[')
				for e := rnd(3); e >= 0; e-- {
					object(depth + 1)
					if e > 0 {
						in.WriteByte(',')
						want.WriteByte(',')
					}
				}
				in.WriteByte(']')
				want.WriteByte(']')
			default:
				in.WriteString(`"v"`)
				want.WriteString(`"v"`)
			}
		}
		in.WriteByte('}')
		want.WriteByte('}')
	}
	for i := 0; i < 3000; i++ {
		object(0)
		in.WriteByte('\n')
		want.WriteByte('\n')
	}
	// A key ending right at the end of the input, after the same key was
	// seen in that place.
	in.WriteString(`{"abcdefgh":1}` + "\n" + `{"abcdefgh":2}`)
	want.WriteString(`{"abcdefgh":1}` + "\n" + `{"abcdefgh":2}` + "\n")
	for _, opt := range []Options{{}, {Workers: 2}} {
		r := NewReader(bytes.NewReader([]byte(in.String())), opt)
		var got strings.Builder
		for {
			v, err := r.Next()
			if err != nil {
				break
			}
			orderedDump(&got, v)
			got.WriteByte('\n')
		}
		if got.String() != want.String() {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("workers %d, record %d:\n got %s\nwant %s", opt.Workers, i+1, g[i], w[i])
				}
			}
			t.Fatalf("workers %d: %d records, want %d", opt.Workers, len(g), len(w))
		}
	}
}
