package engines_test

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/longtest"
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
// A parse that does not end within parseDeadline fails (a hang).
//
// Seeds are every fixture and corpus transcript, hand-made hostile shapes,
// and damaged copies of the fixtures (see mutatedSeeds); the regression
// corpus lives in testdata/fuzz/FuzzParseTranscript.
//
//	go test ./engines -run '^$' -fuzz '^FuzzParseTranscript$' -fuzztime 20s
func FuzzParseTranscript(f *testing.F) {
	names := engines.Names()
	root, err := filepath.Abs("..")
	if err != nil {
		f.Fatal(err)
	}
	fixtures := map[string][][]byte{}
	for _, name := range names {
		for _, dir := range []string{filepath.Join(root, "testdata", "fixtures", name), filepath.Join(root, "testdata", "corpus", name)} {
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
				fixtures[name] = append(fixtures[name], b)
			}
		}
	}
	for _, name := range names {
		if len(fixtures[name]) == 0 {
			f.Fatalf("%s: no fixtures", name)
		}
		for _, b := range mutatedSeeds(name, fixtures[name], mutationsPerEngine()) {
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
		watchdog := time.AfterFunc(parseDeadline, func() {
			panic(fmt.Sprintf("%s: parse did not end in %s; input: %q", eng.Name(), parseDeadline, data))
		})
		defer watchdog.Stop()
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

// parseDeadline bounds FuzzParseTranscript's two parses of one input.
const parseDeadline = 10 * time.Second

// mutationsPerEngine is how many damaged fixtures per engine the seeds hold:
// a few in a plain `go test`, thousands in long mode (longtest; CI), none
// while fuzzing (the fuzzer damages its seeds itself, and thousands of seeds
// would eat the fuzzing time).
func mutationsPerEngine() int {
	switch fz := flag.Lookup("test.fuzz"); {
	case fz != nil && fz.Value.String() != "":
		return 0
	case longtest.Enabled():
		return 2000
	default:
		return 10
	}
}

// mutatedSeeds returns n damaged copies of an engine's fixtures: bytes
// changed, dropped or repeated in the first 20,000 bytes of a fixture. The
// random source is fixed per engine, so every run checks the same inputs
// (and long mode checks a superset of the default). Such inputs found nil
// dereferences on missing fields that the fixtures alone did not reach.
func mutatedSeeds(engine string, fixtures [][]byte, n int) [][]byte {
	rnd := rand.New(rand.NewSource(int64(len(engine))))
	out := make([][]byte, 0, n)
	for range n {
		b := fixtures[rnd.Intn(len(fixtures))]
		out = append(out, mutate(rnd, b[:min(len(b), 20000)]))
	}
	return out
}

// mutate changes, drops or repeats a few bytes of a copy of data.
func mutate(rnd *rand.Rand, data []byte) []byte {
	b := append([]byte(nil), data...)
	for k := 0; k < 1+rnd.Intn(4) && len(b) > 1; k++ {
		switch rnd.Intn(3) {
		case 0:
			b[rnd.Intn(len(b))] = byte(rnd.Intn(256))
		case 1:
			p := rnd.Intn(len(b))
			b = append(b[:p], b[p+1:]...)
		default:
			p, q := rnd.Intn(len(b)), rnd.Intn(len(b))
			if p > q {
				p, q = q, p
			}
			if q-p < 200 {
				b = append(b[:q], append(append([]byte(nil), b[p:q]...), b[q:]...)...)
			}
		}
	}
	return b
}
