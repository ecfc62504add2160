// Package logstream writes command_log.json for a transcript of any size in
// bounded memory.
//
// A Writer is the engines.Sink of a streaming parse (engines.Stream): it
// receives every marker, command and file edit once it is final, gathers
// them in small batches, and has worker goroutines normalise, redact and
// encode each batch beside the parse (redaction costs about as much as
// parsing); the batches are then written in order to a temporary spill file
// per list. Once the transcript is read, Finish takes the rest of the log
// (outcome, cost, turns, parse stats: the log engines.Stream returns), and
// WriteTo or WriteFile write the document — the fields before the lists,
// the lists copied from the spill files, the fields after them — with
// exactly the bytes commandlog.Encode gives for the same log held in
// memory. What the Writer keeps in memory is the few batches in flight
// (at most batchDepth+2 of at most batchBytes each, plus one item larger
// than that) and its counters, whatever the number of commands.
package logstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

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
	// Redact, when set, is applied to every string of every item and of the
	// rest of the log (through commandlog.MapStringValues, the traversal
	// redact.Log uses), between two normalisations: what redact.Log with a
	// Redactor's String and Encode do to a whole log. It is called from the
	// Writer's worker goroutines, several at a time: it must be safe for
	// concurrent use ((*redact.Redactor).String is).
	Redact func(string) string
	// Workers is the number of goroutines that redact and encode items;
	// 0 means one per CPU the process may use (GOMAXPROCS).
	Workers int
}

// Batches: a batch goes to the workers once it holds batchItems items or
// batchBytes bytes of strings; at most batchDepth batches wait for a
// worker or for the previous ones to be written.
const (
	batchItems = 256
	batchBytes = 256 << 10
	batchDepth = 4
)

// batch is a run of consecutive items, each list in its own order, and
// their encodings once a worker is done with them (done closed).
type batch struct {
	markers  []commandlog.Marker
	commands []commandlog.Command
	edits    []commandlog.FileEdit
	size     int
	enc      [3][]byte // the items of each list encoded, one after another
	ends     [3][]int  // where each item's encoding ends in enc
	done     chan struct{}
}

func (b *batch) items() int { return len(b.markers) + len(b.commands) + len(b.edits) }

// list is the spill file of one of the log's lists.
type list struct {
	f       *os.File
	removed bool // the file has no name any more
	w       *bufio.Writer
	n       int
	err     error
}

// Writer collects a command log's lists in spill files. Its methods are not
// safe for concurrent use; Close must be called (it stops the Writer's
// goroutines).
type Writer struct {
	opt                     Options
	markers, commands, edit list
	check                   commandlog.Validator
	head                    *commandlog.Log

	cur       *batch      // the batch being filled
	work      chan *batch // batches for the workers
	order     chan *batch // the same batches, in order, for the collector
	free      chan *batch // written batches, for reuse
	workers   sync.WaitGroup
	collected chan struct{} // closed when the collector has written every batch
	drained   bool
	counts    [3]int // items taken, per list

	mu  sync.Mutex
	err error // the first spill error
}

// New returns a Writer with empty spill files.
func New(opt Options) (*Writer, error) {
	w := &Writer{opt: opt}
	w.start()
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
	invalid = w.Finish(head)
	if err := w.failed(); err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, invalid, nil
}

// start starts the workers and the collector.
func (w *Writer) start() {
	n := w.opt.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	w.work = make(chan *batch, batchDepth)
	w.order = make(chan *batch, batchDepth)
	w.free = make(chan *batch, batchDepth+n+2)
	w.collected = make(chan struct{})
	w.workers.Add(n)
	for range n {
		go func() {
			defer w.workers.Done()
			for b := range w.work {
				w.prepare(b)
				close(b.done)
			}
		}()
	}
	go w.collect()
}

// clean is what the Writer does to every string: normalise, redact,
// normalise again (only what redaction changed) — in one pass, as each
// step works on one string alone.
func (w *Writer) clean(s string) string {
	s = commandlog.NormalizeString(s)
	if w.opt.Redact != nil {
		if r := w.opt.Redact(s); r != s {
			s = commandlog.NormalizeString(r)
		}
	}
	return s
}

// prepare cleans and encodes a batch, its items wrapped in a log of their
// own.
func (w *Writer) prepare(b *batch) {
	l := commandlog.Log{Markers: b.markers, Commands: b.commands, FileEdits: b.edits}
	commandlog.MapStringValues(&l, w.clean)
	for i := range b.markers {
		b.enc[0] = commandlog.AppendMarker(b.enc[0], &b.markers[i])
		b.ends[0] = append(b.ends[0], len(b.enc[0]))
	}
	for i := range b.commands {
		b.enc[1] = commandlog.AppendCommand(b.enc[1], &b.commands[i])
		b.ends[1] = append(b.ends[1], len(b.enc[1]))
	}
	for i := range b.edits {
		b.enc[2] = commandlog.AppendFileEdit(b.enc[2], &b.edits[i])
		b.ends[2] = append(b.ends[2], len(b.enc[2]))
	}
}

// collect validates and writes the batches in order as the workers finish
// them.
func (w *Writer) collect() {
	defer close(w.collected)
	for b := range w.order {
		<-b.done
		for i := range b.markers {
			w.check.Marker(&b.markers[i])
		}
		for i := range b.commands {
			w.check.Command(&b.commands[i])
		}
		for i := range b.edits {
			w.check.FileEdit(&b.edits[i])
		}
		for k, l := range []*list{&w.markers, &w.commands, &w.edit} {
			start := 0
			for _, end := range b.ends[k] {
				w.write(l, b.enc[k][start:end])
				start = end
			}
		}
		b.markers, b.commands, b.edits = b.markers[:0], b.commands[:0], b.edits[:0]
		clear(b.commands[:cap(b.commands)]) // let the strings go
		clear(b.markers[:cap(b.markers)])
		clear(b.edits[:cap(b.edits)])
		for k := range b.enc {
			b.enc[k], b.ends[k] = b.enc[k][:0], b.ends[k][:0]
		}
		b.size = 0
		select {
		case w.free <- b:
		default:
		}
	}
}

// write adds one encoded item to l: the separator, the indentation and the
// item.
func (w *Writer) write(l *list, item []byte) {
	if l.err != nil {
		return
	}
	sep := "    "
	if l.n > 0 {
		sep = ",\n    "
	}
	_, err := l.w.WriteString(sep)
	if err == nil {
		_, err = l.w.Write(item)
	}
	if err != nil {
		l.err = &SpillError{fmt.Errorf("write spill file: %w", err)}
		w.mu.Lock()
		if w.err == nil {
			w.err = l.err
		}
		w.mu.Unlock()
		return
	}
	l.n++
}

// failed returns the first spill error so far.
func (w *Writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// batch returns the batch being filled.
func (w *Writer) batch() *batch {
	if w.cur == nil {
		select {
		case w.cur = <-w.free:
		default:
			w.cur = &batch{}
		}
		w.cur.done = make(chan struct{})
	}
	return w.cur
}

// took counts an item of size bytes into the current batch and hands the
// batch on once full.
func (w *Writer) took(list, size int) error {
	w.counts[list]++
	w.cur.size += size
	if w.cur.size >= batchBytes || w.cur.items() >= batchItems {
		w.submit()
	}
	return w.failed()
}

// submit hands the current batch to the workers and the collector.
func (w *Writer) submit() {
	if w.cur == nil {
		return
	}
	b := w.cur
	w.cur = nil
	w.order <- b
	w.work <- b
}

// drain writes what is left and stops the goroutines.
func (w *Writer) drain() {
	if w.drained {
		return
	}
	w.drained = true
	w.submit()
	close(w.work)
	close(w.order)
	<-w.collected
	w.workers.Wait()
}

// Marker takes the next marker (engines.Sink).
func (w *Writer) Marker(m *commandlog.Marker) error {
	b := w.batch()
	b.markers = append(b.markers, *m)
	return w.took(0, len(m.Kind)+len(m.Text))
}

// Command takes the next command (engines.Sink). Redaction writes through
// its Source, so the batch holds a copy of it.
func (w *Writer) Command(c *commandlog.Command) error {
	b := w.batch()
	b.commands = append(b.commands, *c)
	if c.Source != nil {
		src := *c.Source
		b.commands[len(b.commands)-1].Source = &src
	}
	return w.took(1, len(c.ID)+len(c.Command)+len(c.Output)+len(c.ParentID)+len(c.Status)+64)
}

// FileEdit takes the next file edit (engines.Sink).
func (w *Writer) FileEdit(e *commandlog.FileEdit) error {
	b := w.batch()
	b.edits = append(b.edits, *e)
	return w.took(2, len(e.Path)+len(e.Tool)+16)
}

// Counts says how many items each list has so far.
func (w *Writer) Counts() (markers, commands, fileEdits int) {
	return w.counts[0], w.counts[1], w.counts[2]
}

// Finish takes the rest of the log — head's lists are ignored — and
// normalises and redacts it. It returns the log's schema problems as a
// *commandlog.ValidationError (a parser bug: the log can still be
// written), or nil.
func (w *Writer) Finish(head *commandlog.Log) error {
	w.drain()
	h := *head
	h.Markers, h.Commands, h.FileEdits = nil, nil, nil
	h.Normalize()
	commandlog.MapStringValues(&h, w.clean)
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
// once the whole log is written (see ReplaceFile).
func (w *Writer) WriteFile(path string) error {
	err := ReplaceFile(path, func(f io.Writer) error {
		_, err := w.WriteTo(f)
		return err
	})
	if err != nil {
		return fmt.Errorf("write command log %s: %w", path, err)
	}
	return nil
}

// ReplaceFile writes path through write: a regular file (or a new one) only
// once write has written it whole, through a temporary file beside it
// renamed over it; a path that is not a regular file (a device such as
// /dev/stdout, a named pipe) directly.
func ReplaceFile(path string, write func(io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = write(tmp)
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
	}
	return err
}

// Close stops the Writer's goroutines and removes the spill files. It is
// safe to call more than once.
func (w *Writer) Close() error {
	w.drain()
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
