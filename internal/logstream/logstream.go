// Package logstream writes command_log.json for a transcript of any size in
// bounded memory.
//
// A Writer is the engines.Sink of a streaming parse (engines.Stream): it
// receives every marker, command and file edit once it is final, and at
// once normalises it, redacts it and encodes it into a temporary spill file
// of its list. Once the transcript is read, Finish takes the rest of the log
// (outcome, cost, turns, parse stats: the log engines.Stream returns), and
// WriteTo or WriteFile write the document — the fields before the lists,
// the lists copied from the spill files, the fields after them — with
// exactly the bytes commandlog.Encode gives for the same log held in
// memory. What the Writer keeps in memory is one item at a time and its
// counters, whatever the number of commands.
package logstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// SpillError is a failure to create or write a spill file (a full or
// read-only temporary directory), as opposed to a failure to read the
// transcript.
type SpillError struct{ Err error }

func (e *SpillError) Error() string { return e.Err.Error() }
func (e *SpillError) Unwrap() error { return e.Err }

// Options configure a Writer.
type Options struct {
	// Dir holds the spill files; "" means os.TempDir(). They take about the
	// size of the command log and are removed by Close (on Linux they have
	// no name from the start, so nothing is left behind even on a crash).
	Dir string
	// Redact, when set, is applied to every item — wrapped in a log of its
	// own, so a function written for whole logs (redact.Log) redacts each
	// item exactly as it would inside the whole log — and to the rest of
	// the log in Finish.
	Redact func(*commandlog.Log)
}

// list is the spill file of one of the log's lists.
type list struct {
	f       *os.File
	removed bool // the file has no name any more
	w       *bufio.Writer
	n       int
	err     error
}

// Writer collects a command log's lists in spill files. It is not safe for
// concurrent use.
type Writer struct {
	opt                     Options
	markers, commands, edit list
	one                     commandlog.Log // the one-item log items are redacted in
	buf                     []byte
	check                   commandlog.Validator
	head                    *commandlog.Log
}

// New returns a Writer with empty spill files.
func New(opt Options) (*Writer, error) {
	w := &Writer{opt: opt}
	for _, l := range []*list{&w.markers, &w.commands, &w.edit} {
		f, err := os.CreateTemp(opt.Dir, "readme2demo-log-*.spill")
		if err != nil {
			w.Close()
			return nil, &SpillError{fmt.Errorf("create spill file (set TMPDIR to a writable directory): %w", err)}
		}
		// Unlinked at once where the system allows it (the file lives on
		// until closed); Close removes it otherwise.
		l.f, l.removed, l.w = f, os.Remove(f.Name()) == nil, bufio.NewWriterSize(f, 256<<10)
	}
	return w, nil
}

// Parse parses the transcript r with eng into a new Writer, ready to be
// written (Finish done): what `readme2demo parse` does. invalid holds the
// log's schema problems (a parser bug; the log can still be written). The
// caller closes w.
func Parse(eng engines.AgentEngine, r io.Reader, opt Options) (w *Writer, invalid, err error) {
	w, err = New(opt)
	if err != nil {
		return nil, nil, err
	}
	head, err := engines.Stream(eng, r, w)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, w.Finish(head), nil
}

// add encodes one item of l: the separator, the indentation and the item.
func (w *Writer) add(l *list, appendItem func([]byte) []byte) error {
	if l.err != nil {
		return l.err
	}
	b := w.buf[:0]
	if l.n > 0 {
		b = append(b, ",\n"...)
	}
	b = append(b, "    "...)
	b = appendItem(b)
	w.buf = b
	if _, err := l.w.Write(b); err != nil {
		l.err = &SpillError{fmt.Errorf("write spill file: %w", err)}
		return l.err
	}
	l.n++
	return nil
}

// prepare normalises and redacts the one-item log w.one the way Encode's
// caller treats a whole log: normalise, redact, normalise again.
func (w *Writer) prepare() {
	w.one.Normalize()
	if w.opt.Redact != nil {
		w.opt.Redact(&w.one)
		w.one.Normalize()
	}
}

// Marker takes the next marker (engines.Sink).
func (w *Writer) Marker(m *commandlog.Marker) error {
	w.one = commandlog.Log{Markers: append(w.one.Markers[:0], *m)}
	w.prepare()
	x := &w.one.Markers[0]
	w.check.Marker(x)
	return w.add(&w.markers, func(b []byte) []byte { return commandlog.AppendMarker(b, x) })
}

// Command takes the next command (engines.Sink).
func (w *Writer) Command(c *commandlog.Command) error {
	w.one = commandlog.Log{Commands: append(w.one.Commands[:0], *c)}
	w.prepare()
	x := &w.one.Commands[0]
	w.check.Command(x)
	return w.add(&w.commands, func(b []byte) []byte { return commandlog.AppendCommand(b, x) })
}

// FileEdit takes the next file edit (engines.Sink).
func (w *Writer) FileEdit(e *commandlog.FileEdit) error {
	w.one = commandlog.Log{FileEdits: append(w.one.FileEdits[:0], *e)}
	w.prepare()
	x := &w.one.FileEdits[0]
	w.check.FileEdit(x)
	return w.add(&w.edit, func(b []byte) []byte { return commandlog.AppendFileEdit(b, x) })
}

// Counts says how many items each list has so far.
func (w *Writer) Counts() (markers, commands, fileEdits int) {
	return w.markers.n, w.commands.n, w.edit.n
}

// Finish takes the rest of the log — head's lists are ignored — and
// normalises and redacts it. It returns the log's schema problems as a
// *commandlog.ValidationError (a parser bug: the log can still be
// written), or nil.
func (w *Writer) Finish(head *commandlog.Log) error {
	h := *head
	h.Markers, h.Commands, h.FileEdits = nil, nil, nil
	h.Normalize()
	if w.opt.Redact != nil {
		w.opt.Redact(&h)
		h.Normalize()
	}
	w.head = &h
	return w.check.Finish(&h)
}

// Log returns the rest of the log as Finish left it (lists empty), or nil
// before Finish.
func (w *Writer) Log() *commandlog.Log { return w.head }

// WriteTo writes the command log to out (after Finish).
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	if w.head == nil {
		return 0, errors.New("write command log: Finish was not called")
	}
	var lists [3]commandlog.EncodedList
	for i, l := range []*list{&w.markers, &w.commands, &w.edit} {
		if l.err != nil {
			return 0, l.err
		}
		if err := l.w.Flush(); err != nil {
			return 0, &SpillError{fmt.Errorf("write spill file: %w", err)}
		}
		f := l.f
		lists[i] = commandlog.EncodedList{Len: l.n, Body: func(dst io.Writer) error {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("read spill file: %w", err)
			}
			_, err := io.Copy(dst, f)
			return err
		}}
	}
	cw := &countWriter{w: out}
	err := commandlog.EncodeLists(cw, w.head, commandlog.Lists{Markers: lists[0], Commands: lists[1], FileEdits: lists[2]})
	return cw.n, err
}

// WriteFile writes the command log to path, replacing a regular file only
// once the whole log is written. A path that is not a regular file (a
// device such as /dev/stdout, a named pipe) is written to directly.
func (w *Writer) WriteFile(path string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write command log %s: %w", path, err)
		}
		_, err = w.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write command log %s: %w", path, err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write command log: %w", err)
	}
	_, err = w.WriteTo(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write command log %s: %w", path, err)
	}
	return nil
}

// Close removes the spill files. It is safe to call more than once.
func (w *Writer) Close() error {
	var errs []error
	for _, l := range []*list{&w.markers, &w.commands, &w.edit} {
		if l.f == nil {
			continue
		}
		errs = append(errs, l.f.Close())
		if !l.removed {
			if err := os.Remove(l.f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		l.f = nil
	}
	return errors.Join(errs...)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
