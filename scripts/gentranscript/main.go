// Command gentranscript writes a large transcript made of copies of real
// transcripts with fresh ids, for scripts/bench.sh and by hand:
//
//	go run ./scripts/gentranscript -shape claude-session -mb 512 -o OUT
//	go run ./scripts/gentranscript -fixture F -mb 64 -o OUT
//	go run ./scripts/gentranscript -list
//	go run ./scripts/gentranscript -synthetic claude-line -mb 32 -o OUT
//	go run ./scripts/gentranscript -list-synthetic
//	go run ./scripts/gentranscript -shape claude-sessionfile -stretch thinking=100000 -mb 64 -o OUT
//
// The shapes (internal/transcriptgen.Shapes) name the engine and the
// transcripts repeated; -list prints them as "name engine runs description"
// lines (runs: "several" for a transcript of one run per line). Run it from the repository root. It reports the bytes, lines and
// median line length written on standard error. -synthetic writes one of
// the made-up extremes of the memory tests instead (transcriptgen.Synthetic:
// one huge line, huge outputs, millions of tiny commands). -stretch makes
// the string values of the keys named at least as long as asked, by
// repeating their own text (transcriptgen.Stretch): a real session's
// thinking, answers or Write and Edit inputs at sizes it did not reach.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

func main() {
	shape := flag.String("shape", "claude-bigoutput", "the kind of transcript to write (see -list)")
	fixture := flag.String("fixture", "", "a JSONL transcript to copy instead of a shape")
	stretch := flag.String("stretch", "", "KEY=BYTES[,KEY=BYTES…]: make the string values of these keys at least that long, repeating their own text (e.g. thinking=100000,text=100000)")
	synthetic := flag.String("synthetic", "", "a made-up extreme to write instead of a shape: "+strings.Join(transcriptgen.Synthetic, ", "))
	mb := flag.Int64("mb", 64, "size to write, in MiB")
	out := flag.String("o", "", "output file (required)")
	list := flag.Bool("list", false, "list the shapes: name, engine, runs (one or several), description")
	listSynthetic := flag.Bool("list-synthetic", false, "list the synthetic shapes as -list does")
	flag.Parse()
	if *listSynthetic {
		for _, s := range transcriptgen.Synthetic {
			fmt.Printf("%s\t%s\tone\tsynthetic\n", s, transcriptgen.SyntheticEngine(s))
		}
		return
	}
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
	size := *mb << 20
	var what string
	var write func(w io.Writer) error
	if *synthetic != "" {
		what = "synthetic shape " + *synthetic + " (engine " + transcriptgen.SyntheticEngine(*synthetic) + ")"
		write = func(w io.Writer) error { _, err := transcriptgen.WriteSynthetic(w, *synthetic, size); return err }
	} else {
		data, desc, err := source(*fixture, *shape, *stretch)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
			os.Exit(2)
		}
		g := transcriptgen.New(data)
		what, write = desc, func(w io.Writer) error { _, err := g.WriteSize(w, size); return err }
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	var lw transcriptgen.LineCounter
	w := bufio.NewWriterSize(io.MultiWriter(f, &lw), 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	lines, median := lw.Lines()
	fmt.Fprintf(os.Stderr, "gentranscript: wrote %d bytes, %d lines (median %d bytes) of %s to %s\n", lw.Bytes(), lines, median, what, *out)
}

// source reads the transcript to copy (a fixture file, else a shape's),
// stretched as asked, and describes it.
func source(fixture, shape, stretch string) (data []byte, what string, err error) {
	what = fixture
	if fixture != "" {
		data, err = os.ReadFile(fixture)
	} else {
		var s transcriptgen.Shape
		if s, err = transcriptgen.ShapeNamed(shape); err == nil {
			data, err = s.Fixture(".")
			what = "shape " + s.Name + " (engine " + s.Engine + ")"
		}
	}
	var grow map[string]int
	if err == nil {
		grow, err = transcriptgen.ParseStretch(stretch)
	}
	if err != nil {
		return nil, "", err
	}
	if grow != nil {
		data = transcriptgen.Stretch(data, grow)
		what += " stretched (" + stretch + ")"
	}
	return data, what, nil
}
