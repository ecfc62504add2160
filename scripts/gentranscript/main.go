// Command gentranscript writes a large transcript made of copies of a real
// fixture with fresh ids, for scripts/bench.sh:
//
//	go run ./scripts/gentranscript -fixture F -mb 512 -o OUT
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

func main() {
	fixture := flag.String("fixture", "testdata/fixtures/claude-code/real-2.1.332-success.jsonl", "a JSONL transcript to copy")
	mb := flag.Int64("mb", 64, "size to write, in MiB")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gentranscript: -o OUT is required")
		os.Exit(2)
	}
	data, err := os.ReadFile(*fixture)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: read fixture: %v\n", err)
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	n, err := transcriptgen.New(data).WriteSize(f, *mb<<20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gentranscript: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gentranscript: wrote %d bytes to %s\n", n, *out)
}
