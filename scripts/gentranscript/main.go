// Command gentranscript writes a large transcript made of copies of real
// transcripts with fresh ids, for scripts/bench.sh and by hand:
//
//	go run ./scripts/gentranscript -shape claude-session -mb 512 -o OUT
//	go run ./scripts/gentranscript -fixture F -mb 64 -o OUT
//	go run ./scripts/gentranscript -list
//
// The shapes (internal/transcriptgen.Shapes) name the engine and the
// transcripts repeated; -list prints them as "name engine runs description"
// lines (runs: "several" for a transcript of one run per line). Run it from the repository root. It reports the bytes, lines and
// median line length written on standard error.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

func main() {
	shape := flag.String("shape", "claude-bigoutput", "the kind of transcript to write (see -list)")
	fixture := flag.String("fixture", "", "a JSONL transcript to copy instead of a shape")
	mb := flag.Int64("mb", 64, "size to write, in MiB")
	out := flag.String("o", "", "output file (required)")
	list := flag.Bool("list", false, "list the shapes: name, engine, runs (one or several), description")
	flag.Parse()
	if *list {
		for _, s := range transcriptgen.Shapes {
			runs := "one"
			if s.Runs {
				runs = "several"
			}
			fmt.Printf("%s\t%s\t%s\t%s\n", s.Name, s.Engine, runs, s.About)
		}
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gentranscript: -o OUT is required")
		os.Exit(2)
	}
	var data []byte
	var err error
	what := *fixture
	if *fixture != "" {
		data, err = os.ReadFile(*fixture)
	} else {
		var s transcriptgen.Shape
		if s, err = transcriptgen.ShapeNamed(*shape); err == nil {
			data, err = s.Fixture(".")
			what = "shape " + s.Name + " (engine " + s.Engine + ")"
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	g := transcriptgen.New(data)
	n, err := g.WriteSize(f, *mb<<20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	lines, median := g.Lines()
	fmt.Fprintf(os.Stderr, "gentranscript: wrote %d bytes, %d lines (median %d bytes) of %s to %s\n", n, lines, median, what, *out)
}
