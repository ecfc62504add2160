// Command layercat decompresses a layer blob from standard input to standard
// output with the decompressor dockerd uses for its format: Go's
// compress/gzip for gzip (dockerd runs unpigz instead when it is on the
// daemon's PATH; scripts/bench-pull.sh times that too) and
// klauspost/compress/zstd for zstd. scripts/bench-pull.sh pipes it into tar
// to time a layer's extraction without the daemon (docs/benchmarks.md,
// "Pulling an image").
//
//	layercat gzip <layer.tar.gz | tar -x -C dir
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: layercat gzip|zstd <BLOB >TAR")
		os.Exit(2)
	}
	if err := run(os.Args[1], bufio.NewReaderSize(os.Stdin, 1<<20), os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "layercat: %v\n", err)
		os.Exit(1)
	}
}

func run(format string, in io.Reader, out io.Writer) error {
	var r io.Reader
	switch format {
	case "gzip":
		z, err := gzip.NewReader(in)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		defer z.Close()
		r = z
	case "zstd":
		z, err := zstd.NewReader(in)
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer z.Close()
		r = z
	default:
		return fmt.Errorf("format %q: want gzip or zstd", format)
	}
	w := bufio.NewWriterSize(out, 1<<20)
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("%s: %w", format, err)
	}
	return w.Flush()
}
