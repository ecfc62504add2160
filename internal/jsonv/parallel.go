package jsonv

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// Parallel decoding (Options.Workers >= 1): a producer goroutine cuts the
// input into batches of whole lines, workers decode the one-line records of
// each batch on the fast path (with one worker, the producer decodes each
// batch itself), and Next hands the records out in input order. Records of every kind still come out exactly as the sequential
// reader gives them:
//
//   - A record that runs past its line (pretty-printed JSON) stops the
//     parallel mode at that point: the bytes not yet handed out are put back
//     in front of the rest of the input and the sequential reader goes on
//     from there.
//   - A line longer than MaxLine ends the batch; the sequential reader
//     streams that line, then the parallel mode starts again.
//   - A top-level array container is always read sequentially.
//
// A Reader in parallel mode owns goroutines until the input ends: callers
// that may stop early call Close.

// Batches are small: a batch's bytes and its records' Values stay in the
// processor's caches from the decoder to the consumer (2 MiB batches cost
// twice the CPU time of these).
const (
	batchBytes = 128 << 10
	batchLines = 1024
	queueDepth = 4
)

type batch struct {
	data      []byte
	lines     []int // end offset of each line in data
	firstLine int   // line number of the first line
	// results, in order, filled by a worker; done is closed when filled
	recs  []parRec
	arena *arena // holds recs' Values; reused once the consumer leaves the batch
	// stopAt >= 0: the record starting at data[stopAt] (on line stopLine)
	// spans lines and must be read sequentially, with everything after it.
	stopAt   int
	stopLine int
	done     chan struct{}
}

// Batches are reused once the consumer has moved on to the next one: their
// bytes, line offsets, records and arena are dead then (strings are copied
// out of the bytes). The free list belongs to the Reader, so a garbage
// collection does not empty it the way it empties a sync.Pool.

// newBatch returns a free batch or a new one.
func (p *parallel) newBatch(firstLine int) *batch {
	var b *batch
	select {
	case b = <-p.free:
	default:
		b = &batch{arena: new(arena)} // data grows by append, up to about batchBytes
	}
	b.firstLine, b.stopAt, b.done = firstLine, -1, make(chan struct{})
	return b
}

// release puts a batch whose records are dead on the free list.
func (p *parallel) release(b *batch) {
	if cap(b.data) > 4*batchBytes { // it held a long line: left to the GC
		return
	}
	b.data, b.lines = b.data[:0], b.lines[:0]
	clear(b.recs)
	b.recs = b.recs[:0]
	b.arena.reset()
	select {
	case p.free <- b:
	default:
	}
}

type parRec struct {
	v   *Value
	err error
}

type parallel struct {
	order   chan *batch
	work    chan *batch
	free    chan *batch // batches to reuse
	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup // producer and workers
	// set by the producer when it returns, read after order is closed
	handoff  bool   // the next line is longer than MaxLine
	nextLine int    // line number after the last batch
	unsent   *batch // read but not queued when stopped
	cur      *batch
	idx      int
}

// startParallel begins parallel decoding at the reader's position.
func (r *Reader) startParallel() {
	p := &parallel{
		order: make(chan *batch, queueDepth),
		work:  make(chan *batch, queueDepth),
		free:  make(chan *batch, queueDepth+2),
		stop:  make(chan struct{}),
	}
	workers := r.opt.Workers
	if workers == 1 {
		workers = 0 // the producer decodes
	}
	// r decodes nothing until the producer and workers have stopped
	// (fallBack and the end of the mode wait for them): the first of them
	// takes r's caches.
	for i := 0; i < workers; i++ {
		w := &Reader{opt: r.opt, keys: r.keys, short: r.short}
		if i > 0 {
			w.keys, w.short = new(keyCache), new(shortCache)
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for b := range p.work {
				w.decodeBatch(b)
			}
		}()
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.order)
		defer close(p.work)
		var inline *Reader
		if workers == 0 {
			inline = &Reader{opt: r.opt, keys: r.keys, short: r.short}
		}
		p.produce(r.br, r.line, inline)
	}()
	r.par = p
}

// produce reads batches of whole lines until the input ends, a line is too
// long for the fast path, or stop is closed. With inline set, it decodes
// each batch itself rather than handing it to the workers.
func (p *parallel) produce(src *source, line int, inline *Reader) {
	for {
		b := p.newBatch(line)
		for len(b.data) < batchBytes && len(b.lines) < batchLines {
			l, ok := src.peekLine()
			if !ok {
				p.handoff = true
				break
			}
			if len(l) == 0 {
				break
			}
			b.data = append(b.data, l...)
			b.lines = append(b.lines, len(b.data))
			src.Discard(len(l))
			if l[len(l)-1] == '\n' {
				line++
			}
		}
		p.nextLine = line
		// Once queued, b belongs to the consumer, which may release it.
		lines, nbytes := len(b.lines), len(b.data)
		if lines > 0 {
			select {
			case p.order <- b:
			case <-p.stop:
				p.unsent = b // its bytes left the source: fallBack needs them
				return
			}
			if inline != nil {
				inline.decodeBatch(b)
			} else {
				select {
				case p.work <- b:
				case <-p.stop:
					return
				}
			}
		}
		if p.handoff || lines == 0 || nbytes == 0 {
			return
		}
		if _, err := src.Peek(1); err != nil {
			return
		}
	}
}

// decodeBatch decodes the records of b's lines on the fast path.
func (w *Reader) decodeBatch(b *batch) {
	defer close(b.done)
	start := 0
	for i, end := range b.lines {
		line := b.data[start:end]
		p := fastParser{r: w, a: b.arena, b: line}
		if w.opt.TextLines {
			p.ws()
			if p.i < len(line) && !jsonStart(line[p.i:]) {
				start = end
				continue
			}
		}
		for {
			p.ws()
			if p.i >= len(line) {
				break
			}
			w.budget = w.opt.RecordBudget
			at := p.i
			v, err := p.record()
			if err == nil {
				b.recs = append(b.recs, parRec{v: v})
				continue
			}
			var se synErr
			if errors.As(err, &se) {
				b.recs = append(b.recs, parRec{err: &SyntaxError{Line: b.firstLine + i, Msg: string(se)}})
				break
			}
			// The record runs past its line: the sequential reader takes
			// over from here.
			b.stopAt, b.stopLine = start+at, b.firstLine+i
			return
		}
		start = end
	}
}

// next returns the next record of the parallel mode; ok is false when the
// mode has ended and the sequential reader goes on.
func (r *Reader) nextParallel() (v *Value, err error, ok bool) {
	p := r.par
	for {
		if p.cur != nil {
			<-p.cur.done
			if p.idx < len(p.cur.recs) {
				rec := p.cur.recs[p.idx]
				p.idx++
				return rec.v, rec.err, true
			}
			if p.cur.stopAt >= 0 {
				r.fallBack(p.cur)
				return nil, nil, false
			}
			p.release(p.cur)
			p.cur, p.idx = nil, 0
		}
		b, open := <-p.order
		if !open {
			p.wg.Wait()
			r.par = nil
			r.line = p.nextLine
			if p.handoff {
				r.seqNext = 1 // stream the long line first
			}
			if !p.handoff && r.br.err != nil && !errors.Is(r.br.err, io.EOF) {
				r.err = r.br.err
			}
			return nil, nil, false
		}
		p.cur, p.idx = b, 0
	}
}

// fallBack ends the parallel mode at b.stopAt: the producer stops, and the
// bytes from there on (that batch's rest, the batches read ahead, the
// source's buffer and the rest of the input) become the sequential reader's
// input.
func (r *Reader) fallBack(b *batch) {
	p := r.par
	p.halt()
	var rest bytes.Buffer
	rest.Write(b.data[b.stopAt:])
	for nb := range p.order {
		rest.Write(nb.data)
	}
	p.wg.Wait()
	if p.unsent != nil {
		rest.Write(p.unsent.data)
	}
	old := r.br
	rest.Write(old.buf[old.r:old.w])
	src := io.Reader(&rest)
	if old.err == nil {
		src = io.MultiReader(&rest, old.rd)
	}
	r.br = newSource(src, r.opt.MaxLine)
	r.line = b.stopLine
	r.par = nil
	// Records spread over lines come in runs (a pretty-printed file): read
	// sequentially for a while, and for good after a few such switches,
	// since each one puts the read-ahead back.
	r.fallbacks++
	r.seqNext = 1000
	if r.fallbacks >= 3 {
		r.opt.Workers = 0
	}
}

func (p *parallel) halt() {
	p.stopped.Do(func() { close(p.stop) })
}

// Close stops the goroutines of a Reader in parallel mode and passes its
// caches on to the next Reader. It is safe to call at any time and more
// than once; a closed Reader returns io.EOF.
func (r *Reader) Close() error {
	if r.par != nil {
		p := r.par
		p.halt()
		for range p.order {
		}
		p.wg.Wait()
		r.par = nil
	}
	if r.pooled != nil {
		cachePool.Put(r.pooled)
		r.pooled, r.keys, r.short = nil, nil, nil
	}
	if r.err == nil {
		r.err = io.EOF
	}
	return nil
}
