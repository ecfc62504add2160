package engines_test

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// TestParseSurvivesMutatedFixtures is a deterministic companion of
// FuzzParseTranscript that runs in every `go test`: each engine parses
// thousands of randomly damaged copies of its fixtures (bytes changed,
// dropped, repeated) and must neither panic, nor hang, nor return a log
// that fails commandlog.Validate. It found nil dereferences on missing
// fields that the fuzzer's corpus had not reached.
func TestParseSurvivesMutatedFixtures(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 300
	}
	for _, name := range engines.Names() {
		eng, err := engines.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		matches, _ := filepath.Glob(filepath.Join("..", "testdata", "fixtures", name, "*"))
		for _, f := range matches {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			t.Fatalf("%s: no fixtures", name)
		}
		rnd := rand.New(rand.NewSource(int64(len(name))))
		for i := 0; i < n; i++ {
			b := mutate(rnd, readPrefix(t, files[rnd.Intn(len(files))], 20000))
			done := make(chan error, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						done <- &panicError{r}
					}
				}()
				l, err := eng.ParseTranscript(bytes.NewReader(b))
				if err == nil {
					err = commandlog.Validate(l)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s, mutation %d: %v\ninput: %q", name, i, err, b)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, mutation %d: parse did not end in 10s\ninput: %q", name, i, b)
			}
		}
	}
}

type panicError struct{ v any }

func (p *panicError) Error() string { return "panic: " + fmtAny(p.v) }

func fmtAny(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-error panic"
}

func readPrefix(t *testing.T, path string, max int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > max {
		data = data[:max]
	}
	return data
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
