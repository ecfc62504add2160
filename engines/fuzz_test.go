package engines_test

import (
	"bytes"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// maxSeedSize keeps big fixtures out of the fuzzing seeds: mutating a
// 1 MiB transcript is slow and finds nothing a small one would not.
const maxSeedSize = 256 << 10

// FuzzParseTranscript feeds arbitrary bytes to every registered engine's
// parser. The first argument names the engine; a name that is not
// registered (the fuzzer mutates it) picks one by its hash, so engines added
// later are covered without touching this file and regression seeds keep
// their engine. R2D_FUZZ_ENGINE=<name> fuzzes one engine only. Properties: it never panics, never
// fails on an input that reads fine, always returns a log that passes
// commandlog.Validate, is deterministic, and the log survives an
// Encode/Decode round trip unchanged.
//
// Seeds are every fixture transcript plus hand-made hostile shapes; the
// regression corpus lives in testdata/fuzz/FuzzParseTranscript.
//
//	go test ./engines -run '^$' -fuzz '^FuzzParseTranscript$' -fuzztime 20s
func FuzzParseTranscript(f *testing.F) {
	names := engines.Names()
	root, err := filepath.Abs("..")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		dir := filepath.Join(root, "testdata", "fixtures", name)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			info, err := e.Info()
			if err != nil || e.IsDir() || info.Size() > maxSeedSize || strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(name, b)
		}
	}
	hostile := []string{
		"",
		"\n\n\n",
		"{",
		"[",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}` + "\n" + `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
		"\xef\xbb\xbf{\"type\":\"result\",\"total_cost_usd\":1e400,\"num_turns\":3}\r\n",
		"{\"type\":\"x\",\"a\":\"\x00\xff\xfe\"}\n{\"type\":\"y\"}",
		`{"id":1,"source":"agent","action":"run","args":{"command":"false"}}` + "\n" + `{"id":2,"cause":1,"observation":"run","extras":{"metadata":{"exit_code":-1}}}`,
		`{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"failed"}}`,
		"SUCCESS\nBLOCKED: no\nFIX: x",
	}
	for _, h := range hostile {
		for _, name := range names {
			f.Add(name, []byte(h))
		}
	}
	only := os.Getenv("R2D_FUZZ_ENGINE")
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if only != "" {
			name = only
		}
		eng, err := engines.Lookup(name)
		if err != nil {
			h := fnv.New32a()
			h.Write([]byte(name))
			eng, err = engines.Lookup(names[int(h.Sum32()%uint32(len(names)))])
			if err != nil {
				t.Fatal(err)
			}
		}
		l1 := parse(t, eng, data)
		l2 := parse(t, eng, data)
		e1, e2 := encodeLog(t, l1), encodeLog(t, l2)
		if !bytes.Equal(e1, e2) {
			t.Fatalf("%s: same input, different logs:\n%s\n---\n%s", name, e1, e2)
		}
		back, err := commandlog.Decode(bytes.NewReader(e1))
		if err != nil {
			t.Fatalf("%s: decode own output: %v", name, err)
		}
		if e3 := encodeLog(t, back); !bytes.Equal(e1, e3) {
			t.Fatalf("%s: encode/decode round trip changed the log:\n%s\n---\n%s", name, e1, e3)
		}
	})
}

func parse(t *testing.T, eng engines.AgentEngine, data []byte) *commandlog.Log {
	t.Helper()
	l, err := eng.ParseTranscript(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: parse failed on a reader that cannot fail: %v", eng.Name(), err)
	}
	if l == nil {
		t.Fatalf("%s: nil log without error", eng.Name())
	}
	if err := commandlog.Validate(l); err != nil {
		t.Fatalf("%s: invalid log: %v", eng.Name(), err)
	}
	return l
}

func encodeLog(t *testing.T, l *commandlog.Log) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := commandlog.Encode(&buf, l); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return buf.Bytes()
}
