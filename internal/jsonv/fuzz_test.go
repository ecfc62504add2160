package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// FuzzReader feeds arbitrary bytes to the record reader. Properties: it
// never panics and always terminates (every Next call either consumes input
// or ends the stream); with small limits no string is ever kept longer than
// MaxString; reading is deterministic; and a single valid JSON object reads
// as exactly one record equal to what encoding/json decodes.
//
//	go test ./internal/jsonv -run '^$' -fuzz '^FuzzReader$' -fuzztime 20s
func FuzzReader(f *testing.F) {
	seeds := []string{
		"", "{}", "[]", "[{},{}]", `{"a":[1,2,{"b":null}],"c":"d"}` + "\n" + `{"e":true}`,
		`{"s":"\ud83d\ude00 \ud800 \u0041\n\t\"\\"}`,
		"{\"a\":1}{\"b\":2} {\"c\":3}\r\n",
		"{\"cut\":\"abc\n{\"ok\":1}\n",
		"\xef\xbb\xbf{\"bom\":1}",
		strings.Repeat("[", 600) + strings.Repeat("]", 600),
		`{"n":-1.5e+300,"m":1e999,"o":01}`,
		"{\"raw\":\"\x00\x01\xff\"}",
		`[1, "two", {"three": 3}, [4]]`,
		`{"dup":1,"dup":2}`,
		"nul\x00l",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// Real transcripts: those up to 16 KiB in a plain go test, up to 64 KiB
	// in long mode (CI) and while fuzzing.
	limit := longtest.Count(16<<10, 64<<10)
	if fz := flag.Lookup("test.fuzz"); fz != nil && fz.Value.String() != "" {
		limit = 64 << 10
	}
	if entries, err := filepath.Glob("../../testdata/fixtures/*/*"); err == nil {
		for _, p := range entries {
			if b, err := os.ReadFile(p); err == nil && len(b) <= limit {
				f.Add(b)
			}
		}
	}
	small := Options{MaxString: 64, RecordBudget: 256, MaxDepth: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := fuzzRead(t, data, small)
		if same, _ := fuzzSame(t, data, small, a); !same {
			t.Fatal("same input, different records")
		}
		for _, v := range a {
			checkClipped(t, v, small.MaxString)
		}
		// The fast path (a record on one line) and the streaming decoder
		// (MaxLine 1 sends every line to it) give the same records, and so
		// does the parallel mode.
		streamedOpt := small
		streamedOpt.MaxLine = 1
		if same, valid := fuzzSame(t, data, streamedOpt, a); allValid(a) && valid && !same {
			t.Fatalf("fast path and streaming decoder differ:\n%s\n%s", dump(a), dump(fuzzRead(t, data, streamedOpt)))
		}
		for _, w := range []int{1, 2} {
			par := small
			par.Workers = w
			if same, _ := fuzzSame(t, data, par, a); !same {
				t.Fatalf("parallel (%d) and sequential reading differ:\n%s\n%s", w, dump(a), dump(fuzzRead(t, data, par)))
			}
		}

		// Differential check against encoding/json on one valid object.
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) || !utf8.Valid(trimmed) {
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		got := fuzzRead(t, trimmed, Options{MaxString: 1 << 30, RecordBudget: 1 << 30, MaxDepth: 20000})
		if len(got) != 1 || got[0] == nil {
			t.Fatalf("one valid object read as %d records", len(got))
		}
		if g := toAny(got[0]); !reflect.DeepEqual(g, want) {
			t.Fatalf("decoded differently:\n got %#v\nwant %#v", g, want)
		}
	})
}

// valueFields is Value's list of fields: the conversion below stops the
// build when a field is added that sameValue does not compare.
type valueFields struct {
	Kind    Kind
	S       string
	B       bool
	Omitted int64
	Arr     []*Value
	Obj     []Member
	raw     []byte
}

var _ = valueFields(Value{})

// sameValue is reflect.DeepEqual(a, b) written out for Values: the reflect
// one spends more time in its map of visited pointers than the reader
// spends reading them.
func sameValue(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.S != b.S || a.B != b.B || a.Omitted != b.Omitted ||
		!bytes.Equal(a.raw, b.raw) || (a.raw == nil) != (b.raw == nil) ||
		len(a.Arr) != len(b.Arr) || (a.Arr == nil) != (b.Arr == nil) ||
		len(a.Obj) != len(b.Obj) || (a.Obj == nil) != (b.Obj == nil) {
		return false
	}
	for i := range a.Arr {
		if !sameValue(a.Arr[i], b.Arr[i]) {
			return false
		}
	}
	for i := range a.Obj {
		if a.Obj[i].Key != b.Obj[i].Key || !sameValue(a.Obj[i].Val, b.Obj[i].Val) {
			return false
		}
	}
	return true
}

func allValid(vs []*Value) bool {
	for _, v := range vs {
		if v == nil {
			return false
		}
	}
	return true
}

func dump(vs []*Value) string {
	var b strings.Builder
	for _, v := range vs {
		if v == nil {
			b.WriteString("ERR\n")
			continue
		}
		j, _ := json.Marshal(toAny(v))
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// fuzzRead returns the records of data; nil stands for a syntax error.
func fuzzRead(t *testing.T, data []byte, opt Options) []*Value {
	t.Helper()
	var out []*Value
	fuzzEach(t, data, opt, func(_ int, v *Value) { out = append(out, v.Clone()) })
	return out
}

// fuzzSame reads data as fuzzRead does and reports whether the records
// are want's and none was a syntax error, comparing each as it is read:
// without Options.Clip a record is equal to its Clone, which fuzzRead keeps
// (and which costs more than reading).
func fuzzSame(t *testing.T, data []byte, opt Options, want []*Value) (same, valid bool) {
	t.Helper()
	same, valid = opt.Clip == nil, true
	n := fuzzEach(t, data, opt, func(i int, v *Value) {
		valid = valid && v != nil
		same = same && i < len(want) && sameValue(want[i], v)
	})
	return same && n == len(want), valid
}

// fuzzEach passes each record of data to fn, nil for a syntax error, and
// returns how many there were; it fails t when the Reader makes no
// progress or fails otherwise.
func fuzzEach(t *testing.T, data []byte, opt Options, fn func(i int, v *Value)) int {
	t.Helper()
	r := NewReader(bytes.NewReader(data), opt)
	for i := 0; ; i++ {
		if i > len(data)+2 {
			t.Fatalf("no progress after %d calls on %d bytes", i, len(data))
		}
		v, err := r.Next()
		if errors.Is(err, io.EOF) {
			return i
		}
		var se *SyntaxError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		fn(i, v)
	}
}

func checkClipped(t *testing.T, v *Value, max int) {
	t.Helper()
	if v == nil {
		return
	}
	if v.Kind == String && len(v.S) > max {
		t.Fatalf("string of %d bytes kept, limit %d: %q", len(v.S), max, v.S)
	}
	for _, e := range v.Arr {
		checkClipped(t, e, max)
	}
	for _, m := range v.Obj {
		if len(m.Key) > max {
			t.Fatalf("key of %d bytes kept, limit %d", len(m.Key), max)
		}
		checkClipped(t, m.Val, max)
	}
}

// toAny converts a Value the way encoding/json decodes into any with
// UseNumber: the last of duplicate keys wins.
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.B
	case Number:
		return json.Number(v.S)
	case String:
		return v.S
	case Array:
		out := []any{}
		for _, e := range v.Arr {
			out = append(out, toAny(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range v.Obj {
		out[m.Key] = toAny(m.Val)
	}
	return out
}
