package transcriptgen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Stretch makes the string values of the named keys in a JSONL transcript
// at least as long as asked, by repeating each value's own text: the
// shapes real transcripts reach but the recorded ones do not (a 100 KB
// answer or thinking block, a Write of a large file, big Edit strings),
// from real text. A value is repeated whole, escapes included, so every
// line stays valid JSON; empty values are left as they are. Keys are
// matched in compact JSON ("key":"…), as the agents write it.
func Stretch(fixture []byte, minLen map[string]int) []byte {
	if len(minLen) == 0 {
		return fixture
	}
	var out bytes.Buffer
	next := map[string]int{} // where each key's "key":" is, if at or after done (-1: nowhere)
	for done := 0; done < len(fixture); {
		// the next "key":" of any named key
		at, key := -1, ""
		for k := range minLen {
			if i, ok := next[k]; !ok || 0 <= i && i < done {
				if next[k] = bytes.Index(fixture[done:], []byte(`"`+k+`":"`)); next[k] >= 0 {
					next[k] += done
				}
			}
			if i := next[k]; i >= 0 && (at < 0 || i < at) {
				at, key = i, k
			}
		}
		start := at + len(key) + 4       // the value's first byte
		end := stringEnd(fixture, start) // (neither is used when at < 0)
		if at < 0 || end < 0 {
			out.Write(fixture[done:])
			break
		}
		out.Write(fixture[done:start])
		body := fixture[start:end]
		out.Write(body)
		if len(body) > 0 {
			for n := len(body); n < minLen[key]; n += len(body) {
				out.Write(body)
			}
		}
		done = end
	}
	return out.Bytes()
}

// stringEnd returns the index of the quote that ends the JSON string body
// starting at b[i], or -1.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		case '\n':
			return -1
		}
	}
	return -1
}

// ParseStretch reads KEY=BYTES[,KEY=BYTES…] (gentranscript -stretch).
func ParseStretch(s string) (map[string]int, error) {
	if s == "" {
		return nil, nil
	}
	m := map[string]int{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || k == "" || err != nil || n <= 0 {
			return nil, fmt.Errorf("read -stretch %q: want KEY=BYTES[,KEY=BYTES…], e.g. thinking=100000", kv)
		}
		m[k] = n
	}
	return m, nil
}
