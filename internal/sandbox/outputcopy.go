package sandbox

import (
	"archive/tar"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/shell"
)

// The copy-out on the command's output. Where the image promises GNU tar
// (LabelInputCopy), the command's shell, as it exits (its EXIT trap, after
// the signals), writes the files the run copies out (the transcript,
// stderr, the signals, the collected files) to its standard output as a
// tar archive behind a mark only the run knows (outputCopyMark: a random
// word handed over on the command's standard input with its environment,
// never exported). The run reads it off the attach stream it reads the
// output from anyway (outputSplitter), which spares the daemon's archive
// of a stopped container (about 50 ms of a keyless run).
//
// Only what is sure goes that way: the shell first kills every other
// process in the container it may (they die with the container a moment
// later anyway) and writes nothing when one it may not kill is left (a
// root process started with sudo), so nothing else writes into the
// archive; it takes only regular files (never a symlink) within their
// limits; and the run takes the archive only whole (its end read). Every
// file not taken that way, and every run whose shell wrote none (killed,
// timed out, replaced by exec, an image without tar), is copied by the
// daemon as before, with its errors.

// newOutputWord is the run's random word for outputCopyMark.
func newOutputWord() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// outputCopyMark is the line before the archive, with the new line the
// script writes first (so that the mark starts a line), and
// outputCopyEnd the line after it, once tar has written it all (Go's tar
// reader takes an archive cut short at an entry's end for a whole one).
func outputCopyMark(word string) []byte {
	return []byte("\nreadme2demo-copy-out " + word + "\n")
}

func outputCopyEnd(word string) []byte {
	return []byte("readme2demo-copy-end " + word + "\n")
}

// outputKillTries bounds the shell's rounds of killing the other
// processes (5 ms apart) before it gives the copy up for the daemon's.
const outputKillTries = 20

// outputCopyScript is the EXIT trap's part that writes the copy-out to
// the output: only when the run handed over a word (__r2d_n, read by
// inputScript), and only when no other process is left. wants are the
// files, each taken when it is a regular file within its limit. Processes
// whose parent is 0 other than the container's first were put into its
// process namespace from outside (the disk meter's, the run's own execs):
// they are left alone; nothing inside can make one (an orphan's parent
// becomes the first process, and the first process cannot give its
// children its own parent).
func outputCopyScript(wants []wanted) string {
	var b strings.Builder
	b.WriteString(`[ -n "$__r2d_n" ] && { __r2d_c=0; while :; do __r2d_k=0; for __r2d_p in /proc/[0-9]*; do __r2d_p=${__r2d_p#/proc/}; ` +
		`case $__r2d_p in 1|$$|$PPID) continue;; esac; IFS= read -r __r2d_st < "/proc/$__r2d_p/stat" || continue; __r2d_st=${__r2d_st##*) }; ` +
		`case $__r2d_st in Z*|X*|?" 0 "*) continue;; esac; __r2d_k=1; kill -KILL "$__r2d_p" || { [ -e "/proc/$__r2d_p" ] && { __r2d_k=2; break; }; }; done; `)
	fmt.Fprintf(&b, `[ $__r2d_k = 1 ] && [ $((__r2d_c += 1)) -lt %d ] || break; sleep 0.005; done; `, outputKillTries)
	// The sizes in one stat (a fork each costs about 2 ms): the
	// candidates are regular files, and nothing else is left to remove
	// one; a count that does not match gives the copy up.
	b.WriteString(`[ $__r2d_k = 0 ] && { __r2d_a=(); __r2d_m=(); `)
	for _, w := range wants {
		q := shell.Quote(w.path)
		fmt.Fprintf(&b, `[ -f %s ] && [ ! -L %s ] && { __r2d_a+=(%s); __r2d_m+=(%d); }; `, q, q, q, w.limit)
	}
	b.WriteString(`__r2d_f=(); [ ${#__r2d_a[@]} -gt 0 ] && mapfile -t __r2d_z < <(stat -c %s -- "${__r2d_a[@]}") && [ ${#__r2d_z[@]} = ${#__r2d_a[@]} ] && { ` +
		`for __r2d_i in "${!__r2d_a[@]}"; do [ "${__r2d_z[__r2d_i]}" -le "${__r2d_m[__r2d_i]}" ] && __r2d_f+=("${__r2d_a[__r2d_i]#/}"); done; ` +
		`printf '\nreadme2demo-copy-out %s\n' "$__r2d_n"; tar -c -b 1 -f - -C / -- "${__r2d_f[@]}" && printf 'readme2demo-copy-end %s\n' "$__r2d_n"; }; }; }`)
	return b.String()
}

// outputSplitter passes the command's standard output on to out, but for
// what follows the first outputCopyMark: that goes to the archive's
// reader (readOutputCopy). Close ends it and returns the files of the
// archive when it was read whole (nil otherwise).
type outputSplitter struct {
	out       io.Writer
	mark, end []byte
	limits    map[string]int64
	// held is the output's end that may be the mark's start, not yet
	// passed on.
	held []byte
	pw   *io.PipeWriter
	read chan map[string][]byte
	once sync.Once
	got  map[string][]byte
}

// newOutputSplitter splits out's stream at word's mark; limits are the
// files the archive may hold, by absolute path, and the most of each.
func newOutputSplitter(out io.Writer, word string, limits map[string]int64) *outputSplitter {
	return &outputSplitter{out: out, mark: outputCopyMark(word), end: outputCopyEnd(word), limits: limits, read: make(chan map[string][]byte, 1)}
}

func (o *outputSplitter) Write(p []byte) (int, error) {
	if o.pw != nil {
		_, _ = o.pw.Write(p) // the reader drains what follows the archive
		return len(p), nil
	}
	buf := append(o.held, p...)
	if i := bytes.Index(buf, o.mark); i >= 0 {
		if _, err := o.out.Write(buf[:i]); err != nil {
			return 0, err
		}
		o.held = nil
		pr, pw := io.Pipe()
		o.pw = pw
		go func() { o.read <- readOutputCopy(pr, o.limits, o.end) }()
		_, _ = pw.Write(buf[i+len(o.mark):])
		return len(p), nil
	}
	keep := min(len(buf), len(o.mark)-1)
	if _, err := o.out.Write(buf[:len(buf)-keep]); err != nil {
		return 0, err
	}
	o.held = append([]byte(nil), buf[len(buf)-keep:]...)
	return len(p), nil
}

// Close passes on what was held, ends the archive's stream and returns its
// files (nil when there was none, or it was not read whole).
func (o *outputSplitter) Close() map[string][]byte {
	o.once.Do(func() {
		if o.pw == nil {
			_, _ = o.out.Write(o.held)
			return
		}
		o.pw.Close()
		o.got = <-o.read
	})
	return o.got
}

// readOutputCopy reads the shell's archive of the copy-out: each regular
// file by its absolute path. Anything but an archive read to its end and
// followed by end (cut short, a header that does not check, tar's
// failure) of regular files the run wants (limits), each within its
// limit, gives nil. What follows end is read and dropped.
func readOutputCopy(r *io.PipeReader, limits map[string]int64, end []byte) map[string][]byte {
	defer func() { _, _ = io.Copy(io.Discard, r) }()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || hdr.Typeflag != tar.TypeReg {
			return nil
		}
		name := path.Join("/", hdr.Name)
		limit, wanted := limits[name]
		if !wanted || hdr.Size > limit {
			return nil
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil
		}
		files[name] = data
	}
	after := make([]byte, len(end))
	if _, err := io.ReadFull(r, after); err != nil || !bytes.Equal(after, end) {
		return nil
	}
	return files
}
