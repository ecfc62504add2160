package sandbox

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// archiveOf is a tar of files (names relative to "/"), as the shell's
// `tar -c -b 1` writes it.
func archiveOf(t *testing.T, files ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		assert.NilError(t, tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(f[1]))
		assert.NilError(t, err)
	}
	assert.NilError(t, tw.Close())
	return b.Bytes()
}

// The command's output reaches the tail as it was, but for the archive
// behind the run's mark, which gives the files when it is whole and
// wanted: wherever the writes are cut.
func TestOutputSplitterTakesTheArchiveBehindTheMark(t *testing.T) {
	const word = "0123456789abcdef0123456789abcdef"
	limits := map[string]int64{"/readme2demo/t.jsonl": 100, "/readme2demo/.signals": 10}
	mark, end := string(outputCopyMark(word)), string(outputCopyEnd(word))
	archive := archiveOf(t, [2]string{"readme2demo/t.jsonl", "{\"a\":1}\n"}, [2]string{"readme2demo/.signals", "max 0\n"})
	whole := string(archive) + end
	tests := []struct {
		name     string
		stream   string
		wantOut  string
		wantGot  map[string][]byte
		wantNone bool
	}{
		{name: "output, then the archive", stream: "hello\nworld" + mark + whole, wantOut: "hello\nworld",
			wantGot: map[string][]byte{"/readme2demo/t.jsonl": []byte("{\"a\":1}\n"), "/readme2demo/.signals": []byte("max 0\n")}},
		{name: "no output", stream: mark + whole, wantOut: "",
			wantGot: map[string][]byte{"/readme2demo/t.jsonl": []byte("{\"a\":1}\n"), "/readme2demo/.signals": []byte("max 0\n")}},
		{name: "no mark", stream: "hello\nreadme2demo-copy-out\n", wantOut: "hello\nreadme2demo-copy-out\n", wantNone: true},
		{name: "another word's mark is output", stream: "a" + string(outputCopyMark(strings.Repeat("f", 32))) + "b", wantOut: "a" + string(outputCopyMark(strings.Repeat("f", 32))) + "b", wantNone: true},
		{name: "the archive cut short at an entry's end", stream: "x" + mark + string(archive[:1024]), wantOut: "x", wantNone: true},
		{name: "the archive cut short", stream: "x" + mark + string(archive[:700]), wantOut: "x", wantNone: true},
		{name: "the archive without its end line (tar failed)", stream: "x" + mark + string(archive), wantOut: "x", wantNone: true},
		{name: "another word's end line", stream: "x" + mark + string(archive) + string(outputCopyEnd(strings.Repeat("f", 32))), wantOut: "x", wantNone: true},
		{name: "nothing behind the mark", stream: "x" + mark, wantOut: "x", wantNone: true},
		{name: "an empty archive", stream: "x" + mark + string(archiveOf(t)) + end, wantOut: "x", wantGot: map[string][]byte{}},
		{name: "a file not wanted", stream: mark + string(archiveOf(t, [2]string{"etc/passwd", "root"})) + end, wantNone: true},
		{name: "a file over its limit", stream: mark + string(archiveOf(t, [2]string{"readme2demo/.signals", "0123456789a"})) + end, wantNone: true},
		{name: "bytes after the archive are dropped", stream: "x" + mark + whole + "late noise", wantOut: "x",
			wantGot: map[string][]byte{"/readme2demo/t.jsonl": []byte("{\"a\":1}\n"), "/readme2demo/.signals": []byte("max 0\n")}},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 7, 4096} {
			var out bytes.Buffer
			sp := newOutputSplitter(&out, word, limits)
			for s := tt.stream; s != ""; {
				n := min(size, len(s))
				k, err := sp.Write([]byte(s[:n]))
				assert.NilError(t, err)
				assert.Equal(t, k, n)
				s = s[n:]
			}
			got := sp.Close()
			assert.Check(t, is.Equal(out.String(), tt.wantOut), "%s, writes of %d", tt.name, size)
			if tt.wantNone {
				assert.Check(t, is.Nil(got), "%s, writes of %d", tt.name, size)
			} else {
				assert.Check(t, is.DeepEqual(got, tt.wantGot), "%s, writes of %d", tt.name, size)
			}
		}
	}
}

// The shell's part takes each file only as a regular file within its
// limit, and writes nothing without the run's word.
func TestOutputCopyScriptGuardsEachFile(t *testing.T) {
	script := outputCopyScript([]wanted{{"/readme2demo/t.jsonl", 256}, {"/workspace/my README.md", 10}})
	assert.Check(t, strings.HasPrefix(script, `[ -n "$__r2d_n" ] && {`))
	assert.Check(t, is.Contains(script, `[ -f /readme2demo/t.jsonl ] && [ ! -L /readme2demo/t.jsonl ] && { __r2d_a+=(/readme2demo/t.jsonl); __r2d_m+=(256); }; `))
	assert.Check(t, is.Contains(script, `[ -f '/workspace/my README.md' ] && [ ! -L '/workspace/my README.md' ] && { __r2d_a+=('/workspace/my README.md'); __r2d_m+=(10); }; `))
	assert.Check(t, is.Contains(script, `[ "${__r2d_z[__r2d_i]}" -le "${__r2d_m[__r2d_i]}" ] && __r2d_f+=("${__r2d_a[__r2d_i]#/}")`))
	assert.Check(t, is.Contains(script, `printf '\nreadme2demo-copy-out %s\n' "$__r2d_n"; tar -c -b 1 -f - -C / -- "${__r2d_f[@]}" && printf 'readme2demo-copy-end %s\n' "$__r2d_n"`))
}
