package jsonv

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/longtest"
)

// readAll returns the records as compact strings, with "ERR@line" for each
// malformed one.
func readAll(t *testing.T, in string, opt Options) []string {
	t.Helper()
	r := NewReader(strings.NewReader(in), opt)
	var out []string
	for calls := 0; ; calls++ {
		if calls > len(in)+10 {
			t.Fatalf("Next keeps returning records without consuming input: %v", out[len(out)-5:])
		}
		v, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			out = append(out, "ERR@"+strconv.Itoa(se.Line))
			continue
		}
		if err != nil { // not assert.NilError: its t.Helper calls cost more than the record
			t.Fatalf("record %d: %v", len(out)+1, err)
		}
		out = append(out, compact(v))
	}
}

// equalRecords is assert.DeepEqual(t, got, want) with a cheap comparison
// first: go-cmp takes longer than reading the records of a long input.
func equalRecords(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) || (got == nil) != (want == nil) {
		assert.DeepEqual(t, got, want)
	}
}

func compact(v *Value) string {
	var b strings.Builder
	b.Grow(128) // most records: no regrowing
	var walk func(v *Value)
	walk = func(v *Value) {
		switch v.Kind {
		case Null:
			b.WriteString("null")
		case Bool:
			if v.B {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
		case Number:
			b.WriteString(v.S)
		case String:
			b.WriteByte('"')
			b.WriteString(v.S)
			b.WriteByte('"')
		case Array:
			b.WriteString("[")
			for i, e := range v.Arr {
				if i > 0 {
					b.WriteString(",")
				}
				walk(e)
			}
			b.WriteString("]")
		case Object:
			b.WriteString("{")
			for i, m := range v.Obj {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(m.Key)
				b.WriteByte(':')
				walk(m.Val)
			}
			b.WriteString("}")
		}
	}
	walk(v)
	return b.String()
}

func TestReaderShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"jsonl", "{\"a\":1}\n{\"b\":[true,null]}\n", []string{"{a:1}", "{b:[true,null]}"}},
		{"crlf and blank lines", "{\"a\":1}\r\n\r\n\n{\"b\":2}\r\n", []string{"{a:1}", "{b:2}"}},
		{"top-level array is a container", "[\n {\"a\":1},\n {\"b\":2}\n]\n", []string{"{a:1}", "{b:2}"}},
		{"pretty-printed object", "{\n  \"a\": {\n    \"b\": \"c\"\n  }\n}\n", []string{"{a:{b:\"c\"}}"}},
		{"concatenated values", "{\"a\":1}{\"b\":2} 3", []string{"{a:1}", "{b:2}", "3"}},
		{"malformed line skipped", "{\"a\":1}\nnot json at all\n{\"b\":2}\n", []string{"{a:1}", "ERR@2", "{b:2}"}},
		{"cut in a string, next line kept", "{\"a\":\"unterminated\n{\"b\":2}\n", []string{"ERR@1", "{b:2}"}},
		{"cut after a comma, next line kept", "{\"a\":1,\n{\"b\":2}\n", []string{"ERR@1", "{b:2}"}},
		{"truncated at end of input", "{\"a\":1}\n{\"b\":", []string{"{a:1}", "ERR@2"}},
		{"a literal cut at the end of input", "n", []string{"ERR@1"}},
		{"a literal cut after a record", "{\"a\":1}\ntru", []string{"{a:1}", "ERR@2"}},
		{"a number cut at the end", "[1, 2, -", []string{"1", "2", "ERR@1"}},
		{"BOM", "\ufeff{\"a\":1}\n", []string{"{a:1}"}},
		{"escapes", `{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`, []string{"{s:\"a\"b\\c/d\né😀\"}"}},
		{"lone surrogate", `{"s":"\ud83d!"}`, []string{"{s:\"\uFFFD!\"}"}},
		{"numbers", `[1, -2.5e3, 0.0]`, []string{"1", "-2.5e3", "0.0"}},
		{"bad number", "{\"a\":1.2.3}\n{\"b\":1}", []string{"ERR@1", "{b:1}"}},
		{"empty input", "", nil},
		{"only white space", " \n\t\r\n", nil},
		{"duplicate keys kept in order", `{"a":1,"a":2}`, []string{"{a:1,a:2}"}},
	}
	// Every shape reads the same on the fast path (lines parsed in memory)
	// and on the streaming path (MaxLine: 1 streams every record).
	for _, path := range []struct {
		name string
		opt  Options
	}{{"fast", Options{}}, {"streaming", Options{MaxLine: 1}}, {"parallel", Options{Workers: 2}}, {"parallel-streaming", Options{Workers: 3, MaxLine: 1}}} {
		for _, tt := range tests {
			t.Run(path.name+"/"+tt.name, func(t *testing.T) {
				assert.DeepEqual(t, readAll(t, tt.in, path.opt), tt.want)
			})
		}
	}
}

func TestAccessors(t *testing.T) {
	v, err := ParseString(`{"a":{"b":"x","n":3,"f":1.5,"t":true,"z":null,"l":[1,2]},"a2":1,"a":{"b":"last"}}`, Options{})
	assert.NilError(t, err)
	assert.Equal(t, v.Get("a").Get("b").Str(), "last", "last duplicate key wins")
	assert.Equal(t, v.Get("missing").Get("deeper").Str(), "")
	assert.Assert(t, v.Get("missing").IsNull())
	assert.Assert(t, !v.Get("a2").IsString())
	n, ok := v.Get("a2").Int()
	assert.Assert(t, ok)
	assert.Equal(t, n, int64(1))
	_, ok = v.Get("a").Int()
	assert.Assert(t, !ok, "an object is not an int")
	w, _ := ParseString(`{"n":3.0,"f":1.5,"s":"7"}`, Options{})
	n, ok = w.Get("n").Int()
	assert.Assert(t, ok && n == 3, "3.0 is integral")
	_, ok = w.Get("f").Int()
	assert.Assert(t, !ok, "1.5 is not integral")
	_, ok = w.Get("s").Float()
	assert.Assert(t, !ok, "a quoted number is not a number")
	_, err = ParseString(`{"a":1} trailing`, Options{})
	assert.ErrorContains(t, err, "trailing")
}

func TestLongStringsAreClipped(t *testing.T) {
	long := strings.Repeat("a", 3000) + strings.Repeat("é", 5000) + strings.Repeat("z", 3000)
	in := `{"s":"` + long + `"}` + "\n" + `{"next":1}` + "\n"
	r := NewReader(strings.NewReader(in), Options{MaxString: 4096})
	v, err := r.Next()
	assert.NilError(t, err)
	s := v.Get("s")
	assert.Assert(t, s.Omitted > 0)
	assert.Equal(t, int64(len(s.S))+s.Omitted, int64(len(long)), "kept + omitted = original")
	assert.Assert(t, strings.HasPrefix(s.S, strings.Repeat("a", 3000)))
	assert.Assert(t, strings.HasSuffix(s.S, strings.Repeat("z", 1000)))
	assert.Assert(t, is.Len(s.S, len(s.S)))
	for _, r := range s.S {
		assert.Assert(t, r != '\uFFFD', "clipping must not split a UTF-8 sequence")
	}
	v, err = r.Next()
	assert.NilError(t, err)
	assert.Equal(t, compact(v), "{next:1}")
}

func TestRecordBudget(t *testing.T) {
	// Many medium strings in one record: after the budget, each is clipped
	// hard, so memory stays bounded whatever the record holds.
	var b strings.Builder
	b.Grow(64*(64<<10+3) + 2)
	b.WriteString(`[`)
	for i := 0; i < 64; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strings.Repeat("x", 64<<10) + `"`)
	}
	b.WriteString(`]`)
	v, err := ParseString(b.String(), Options{RecordBudget: 1 << 20})
	assert.NilError(t, err)
	kept := 0
	for _, e := range v.Items() {
		kept += len(e.S)
	}
	assert.Assert(t, kept < 2<<20, "kept %d bytes", kept)
	assert.Equal(t, len(v.Items()), 64)
}

func TestDepthLimit(t *testing.T) {
	in := strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n{\"ok\":1}\n"
	got := readAll(t, in, Options{})
	assert.DeepEqual(t, got, []string{"ERR@1", "{ok:1}"})
}

// A huge line is read with bounded memory: the kept string is clipped.
// Twice the default MaxLine (8 MiB) is enough to be streamed.
func TestHugeLine(t *testing.T) {
	const size = 16 << 20
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"type":"user","content":"`))
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for n := 0; n < size; n += len(chunk) {
			pw.Write(chunk)
		}
		pw.Write([]byte("\"}\n{\"after\":true}\n"))
		pw.Close()
	}()
	r := NewReader(pr, Options{})
	v, err := r.Next()
	assert.NilError(t, err)
	c := v.Get("content")
	assert.Equal(t, int64(len(c.S))+c.Omitted, int64(size))
	assert.Assert(t, len(c.S) <= 1<<20)
	v, err = r.Next()
	assert.NilError(t, err)
	assert.Assert(t, v.Get("after").True())
}

func TestSkipKeys(t *testing.T) {
	in := `{"a":1,"usage":{"x":[1,{"y":"]}"}]},"b":"keep","thinking":"long \"text\" here","n":null}` + "\n" +
		`{"usage":-1.5e3,"c":true}` + "\n"
	for _, opt := range []Options{{Skip: map[string]bool{"usage": true, "thinking": true}}, {MaxLine: 1, Skip: map[string]bool{"usage": true, "thinking": true}}} {
		assert.DeepEqual(t, readAll(t, in, opt), []string{`{a:1,b:"keep",n:null}`, `{c:true}`})
	}
	// A skipped value cut short is still a malformed record.
	assert.DeepEqual(t, readAll(t, `{"usage":{"x":1}`+"\n"+`{"ok":1}`+"\n", Options{Skip: map[string]bool{"usage": true}}), []string{"ERR@1", "{ok:1}"})
}

func TestKeyCacheCollisions(t *testing.T) {
	var c keyCache
	skip := map[string]bool{"7919": true, "15838": true}
	opt := Options{Skip: skip}
	for round := 0; round < 2; round++ {
		for i := 0; i < 5000; i++ {
			k := strconv.Itoa(i * 7919)
			got, flags, _ := c.get([]byte(k), &opt)
			// assert only on a mismatch: its t.Helper calls cost more than the case
			if got != k || flags.skipped(0) != skip[k] {
				assert.Equal(t, got, k)
				assert.Equal(t, flags.skipped(0), skip[k], k)
			}
		}
	}
}

// Keep decodes only the keys it names, KeepAll values whole; Skip still
// applies inside them. The fast path and the streaming decoder agree.
func TestKeepKeys(t *testing.T) {
	in := `{"type":"x","drop":{"a":1},"message":{"id":"m","usage":{"n":1},"extra":2,"content":[{"type":"t","text":"hi","junk":true}]},"changes":{"/a/b.go":{"type":"add","usage":3}}}` + "\n"
	for _, maxLine := range []int{0, 1} {
		opt := Options{MaxLine: maxLine, Keep: map[string]bool{"type": true, "message": true, "id": true, "content": true, "text": true},
			KeepAll: map[string]bool{"changes": true}, Skip: map[string]bool{"usage": true}}
		assert.DeepEqual(t, readAll(t, in, opt), []string{`{type:"x",message:{id:"m",content:[{type:"t",text:"hi"}]},changes:{/a/b.go:{type:"add"}}}`})
	}
}

// mixedInput is a long transcript-like input with every shape the reader
// meets: good lines, malformed lines, several values on a line, records
// spread over lines, lines longer than MaxLine, CRLF and blank lines.
func mixedInput(n int) string { return mixed(n, true) }

func mixed(n int, multiLine bool) string {
	var b strings.Builder
	rnd := uint32(1)
	next := func() uint32 { rnd = rnd*1664525 + 1013904223; return rnd >> 8 }
	for i := 0; i < n; i++ {
		switch next() % 12 {
		case 0:
			b.WriteString("not json " + strconv.Itoa(i) + "\n")
		case 1:
			b.WriteString(`{"a":` + strconv.Itoa(i) + `}{"b":"two on a line"}` + "\n")
		case 2:
			if !multiLine {
				b.WriteString(`{"not":"pretty"}` + "\n")
				continue
			}
			b.WriteString("{\n  \"pretty\": " + strconv.Itoa(i) + ",\n  \"x\": [1,\n 2]\n}\n")
		case 3:
			b.WriteString(`{"long":"` + strings.Repeat("y", 300) + `","i":` + strconv.Itoa(i) + "}\n")
		case 4:
			if !multiLine {
				b.WriteString(`{"cut":}` + "\r\n")
				continue
			}
			b.WriteString(`{"cut":` + "\n")
		case 5:
			b.WriteString("\r\n\n")
		default:
			b.WriteString(`{"type":"assistant","i":` + strconv.Itoa(i) + `,"s":"esc\n\u00e9\""}` + "\r\n")
		}
	}
	return b.String()
}

func TestParallelMatchesSequential(t *testing.T) {
	// One-line records only: the parallel mode runs throughout, handing
	// long lines (MaxLine 200) to the streaming reader and back. Batches
	// are batchLines long: a plain go test reads a few of them per worker.
	n := longtest.Count(8000, 30000)
	in := mixed(n, false)
	want := readAll(t, in, Options{})
	for _, opt := range []Options{{Workers: 1}, {Workers: 2}, {Workers: 4}, {Workers: 1, MaxLine: 200}, {Workers: 2, MaxLine: 200}} {
		equalRecords(t, readAll(t, in, opt), want)
	}
	// With records spread over lines it falls back to sequential reading,
	// with the same result.
	in = mixedInput(n)
	want = readAll(t, in, Options{})
	for _, opt := range []Options{{Workers: 1}, {Workers: 2}, {Workers: 4}, {Workers: 1, MaxLine: 200}, {Workers: 2, MaxLine: 200}} {
		equalRecords(t, readAll(t, in, opt), want)
	}
	assert.Assert(t, len(want) > n*2/3)
}

// A short input costs buffers in proportion to it, not the full-size ones
// a long transcript grows into: tests and small transcripts parse many
// short inputs, and an embedded document is parsed per tool call.
func TestShortInputAllocatesLittle(t *testing.T) {
	const doc = `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","n":[1,2.5,true,null]}`
	perRun := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 20
		for i := 0; i < runs; i++ {
			f()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	for _, opt := range []Options{{}, {Workers: 1}, {Workers: 2}} {
		got := perRun(func() {
			r := NewReader(strings.NewReader(doc+"\n"+doc+"\n"), opt)
			defer r.Close()
			for {
				if _, err := r.Next(); err != nil {
					assert.Assert(t, errors.Is(err, io.EOF), err)
					return
				}
			}
		})
		// Both caches (about 120 KB) per decoding goroutine, the rest small:
		// about 150 KB a goroutine. Before, it was 550 KB to 1 MB.
		limit := uint64(200<<10) * uint64(max(1, opt.Workers))
		assert.Assert(t, got < limit, "Workers %d: %d bytes for two short records", opt.Workers, got)
	}
	got := perRun(func() {
		_, err := ParseString(doc, Options{})
		assert.NilError(t, err)
	})
	assert.Assert(t, got < 32<<10, "ParseString: %d bytes for a short document (14 KB; 395 KB before)", got)
}

type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// A long input is read in large pieces: the buffer that starts small for a
// short input grows as the input goes on, streamed or read ahead.
func TestLongInputIsReadInLargePieces(t *testing.T) {
	in := mixed(20000, false) // several MiB of one-line records
	for _, opt := range []Options{{}, {Workers: 1}, {Workers: 2}} {
		cr := &countingReader{r: strings.NewReader(in)}
		r := NewReader(cr, opt)
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var se *SyntaxError
			assert.Assert(t, err == nil || errors.As(err, &se), err) // mixed has malformed records
		}
		assert.NilError(t, r.Close())
		most := len(in)/minBuf + 16 // 256 KiB reads, after a few smaller ones
		assert.Assert(t, cr.reads <= most, "Workers %d: %d reads of %d bytes, want at most %d", opt.Workers, cr.reads, len(in), most)
	}
}

func TestParallelCloseStopsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	in := mixedInput(20000)
	for i := 0; i < 20; i++ {
		r := NewReader(strings.NewReader(in), Options{Workers: 2})
		_, err := r.Next()
		assert.NilError(t, err)
		assert.NilError(t, r.Close())
		_, err = r.Next()
		assert.Assert(t, errors.Is(err, io.EOF))
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Assert(t, runtime.NumGoroutine() <= before, "goroutines leak: %d > %d", runtime.NumGoroutine(), before)
}
