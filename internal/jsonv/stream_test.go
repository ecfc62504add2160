package jsonv

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// chunkReader returns at most n bytes per Read, so that the streaming
// decoder's window ends anywhere: inside an escape, between a backslash and
// the byte it escapes, inside a \u escape or a UTF-8 sequence.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

func readRecords(t *testing.T, r io.Reader, opt Options) ([]*Value, []string) {
	t.Helper()
	rd := NewReader(r, opt)
	var vals []*Value
	var errs []string
	for i := 0; i < 1000; i++ {
		v, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return vals, errs
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			errs = append(errs, se.Error())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v.Clone())
	}
	t.Fatal("no end")
	return nil, nil
}

// TestStreamingStringsAcrossWindows reads strings dense with every kind of
// escape, raw control characters and multi-byte UTF-8 on the streaming path
// (MaxLine 1) through reads of every size from 1 to 17 bytes, and compares
// the records and errors with the fast path's, which sees each line whole.
// The streaming decoder copies runs and two-byte escapes found whole in its
// window, and reads the rest byte by byte: a window ending anywhere must
// not change what it decodes.
func TestStreamingStringsAcrossWindows(t *testing.T) {
	body := strings.Repeat(`ab\n\"c\\d\/e\tf\r\bg\fh\u00e9\ud83d\ude00 é 😀`+"\x01\x1f"+`\\\\\"\n\n`, 40)
	lines := []string{
		`{"s":"` + body + `","k":"v"}`,
		`{"` + body[:60] + `":1,"a":["` + body + `","x\\"]}`,
		`{"s":"bad \q escape","t":1}`,
		`{"s":"cut \u12"}`,
		"{\"s\":\"line\nbreak\"}",
		`{"ok":"` + strings.Repeat(`\\`, 33) + `"}`,
		`{"end":"` + body + `\\"}`,
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	for _, opt := range []Options{{}, {MaxString: 100}} {
		wantV, wantE := readRecords(t, bytes.NewReader(data), opt)
		if len(wantV) < 4 || len(wantE) < 2 {
			t.Fatalf("fast path read %d records, %d errors: the test lost its cases", len(wantV), len(wantE))
		}
		stream := opt
		stream.MaxLine = 1
		for n := 1; n <= 17; n++ {
			gotV, gotE := readRecords(t, &chunkReader{data: data, n: n}, stream)
			if !reflect.DeepEqual(gotV, wantV) || !reflect.DeepEqual(gotE, wantE) {
				t.Fatalf("MaxString %d, reads of %d bytes: streaming decoder differs from the fast path:\n%s%q\n%s%q",
					opt.MaxString, n, dump(gotV), gotE, dump(wantV), wantE)
			}
		}
	}
}

// TestStreamingStringMemory reads one line longer than MaxLine, a string of
// escape-dense output, on the streaming decoder: the buffer it decodes
// into is handed to the clipper as soon as it passes MaxString, so it stays
// well under the source's window (which grew to MaxLine looking for the
// line's end), and the string is clipped as usual.
func TestStreamingStringMemory(t *testing.T) {
	const maxString, maxLine = 64 << 10, 1 << 20
	body := strings.Repeat(`build output line 0123456789 abcdefghij\n`, (2*maxLine)/41)
	data := []byte(`{"out":"` + body + `"}` + "\n")
	r := NewReader(bytes.NewReader(data), Options{MaxString: maxString, MaxLine: maxLine})
	v, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	s, omitted := v.Get("out").Text()
	decoded := len(body) - strings.Count(body, `\n`)
	if len(s) > maxString || int64(len(s))+omitted != int64(decoded) || !strings.HasPrefix(s, "build output line") {
		t.Fatalf("kept %d bytes, %d omitted, of %d", len(s), omitted, decoded)
	}
	if c := cap(r.scratch); c > maxString+2*minBuf {
		t.Fatalf("decoding buffer grew to %d bytes (MaxString %d, window up to %d)", c, maxString, maxLine)
	}
}
