package engines_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

// Benchmarks of the whole `readme2demo parse` path (engine parse,
// redaction, the streaming log writer, encoding) for every engine:
//
//	go test ./engines -run '^$' -bench . -benchmem
//	R2D_BENCH_MB=512 go test ./engines -run '^$' -bench 'Shapes' -benchtime 1x
//
// BenchmarkParseShapes generates R2D_BENCH_MB MiB (default 16) of each
// transcriptgen shape (a session of small records, big outputs, each
// engine's real transcripts) and reports MB/s, commands/s and the peak live
// heap; BenchmarkParseHugeLine feeds one line of R2D_BENCH_LINE_MB MiB
// (default 64) through a pipe. docs/benchmarks.md has the numbers and the
// comparison with jq (scripts/bench.sh).

func envMiB(name string, def int) int64 {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return int64(v) << 20
	}
	return int64(def) << 20
}

// parseAll is what `readme2demo parse` does with a transcript; it returns
// the number of commands logged.
func parseAll(b *testing.B, eng engines.AgentEngine, r io.Reader) int {
	red := redact.New(nil)
	w, _, err := logstream.Parse(eng, r, logstream.Options{Dir: b.TempDir(), Redact: red.String})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteTo(io.Discard); err != nil {
		b.Fatal(err)
	}
	_, n, _ := w.Counts()
	return n
}

// peakHeap samples the live heap every few milliseconds until stopped.
type peakHeap struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startPeakHeap() *peakHeap {
	p := &peakHeap{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > p.peak {
				p.peak = v
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakHeap) report(b *testing.B) {
	close(p.stop)
	p.done.Wait()
	b.ReportMetric(float64(p.peak)/(1<<20), "peak-heap-MiB")
}

func BenchmarkParseSmall(b *testing.B) {
	for _, name := range engines.Names() {
		eng, _ := engines.Lookup(name)
		dir := filepath.Join("..", "testdata", "fixtures", name)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			b.Run(name+"/"+e.Name(), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					parseAll(b, eng, bytes.NewReader(data))
				}
			})
		}
	}
}

// BenchmarkParseShapes parses long transcripts of every shape.
func BenchmarkParseShapes(b *testing.B) {
	size := envMiB("R2D_BENCH_MB", 16)
	for _, shape := range transcriptgen.Shapes {
		eng, err := engines.Lookup(shape.Engine)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(shape.Name, func(b *testing.B) {
			fixture, err := shape.Fixture("..")
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "transcript.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			n, err := transcriptgen.New(fixture).WriteSize(f, size)
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			peak := startPeakHeap()
			commands := 0
			for i := 0; i < b.N; i++ {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				commands += parseAll(b, eng, f)
				f.Close()
			}
			b.ReportMetric(float64(commands)/b.Elapsed().Seconds(), "commands/s")
			peak.report(b)
		})
	}
}

// hugeLine streams one record whose single string is size bytes long.
func hugeLine(size int64) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"`))
		chunk := bytes.Repeat([]byte("output line of a very chatty build step\\n"), 1024)
		for n := int64(0); n < size; n += int64(len(chunk)) {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Write([]byte("\"}]}}\n"))
		pw.Close()
	}()
	return pr
}

func BenchmarkParseHugeLine(b *testing.B) {
	size := envMiB("R2D_BENCH_LINE_MB", 64)
	for _, name := range engines.Names() {
		eng, _ := engines.Lookup(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			peak := startPeakHeap()
			for i := 0; i < b.N; i++ {
				parseAll(b, eng, hugeLine(size))
			}
			peak.report(b)
		})
	}
}
