package redact

import (
	"fmt"
	"io"
)

// Writer redacts a stream: a transcript or log copied out of the sandbox.
// It holds back the last few KiB it was given (as many bytes as the
// longest match can span) so that a secret split across two Write calls is
// still caught, and writes them on Close. Close does not close the
// underlying writer.
type Writer struct {
	w io.Writer
	r *Redactor
	// buf holds ctx bytes already written (kept so that a match reaching
	// back into them is still recognised), then the pending bytes.
	buf    []byte
	ctx    int
	window int
	closed bool
	err    error
	// trimmed is set once the buffer no longer starts at the stream's
	// start.
	trimmed bool
	// flushAt is how much pending text, beyond the window, triggers a
	// write.
	flushAt int
}

const defaultFlushAt = 64 << 10

// NewWriter returns a Writer that redacts with r (nil: token shapes only)
// and writes the result to w.
func NewWriter(w io.Writer, r *Redactor) *Writer {
	return &Writer{w: w, r: r, window: r.maxWindow(), flushAt: max(defaultFlushAt, r.maxWindow())}
}

// Write redacts p as part of the stream. It reports len(p) unless the
// underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, fmt.Errorf("write redacted stream: %w", io.ErrClosedPipe)
	}
	w.buf = append(w.buf, p...)
	if len(w.buf)-w.ctx >= w.window+w.flushAt {
		if err := w.flush(false); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Close writes the held-back text.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	return w.flush(true)
}

// flush writes the pending text up to a cut point. Every match starting
// before the cut lies wholly inside the buffer, because window bytes follow
// the cut; a match straddling the cut moves the cut back to its start. Only
// a chain of overlapping matches longer than the window is split (redacted
// on both sides, as two markers): its parts are found again from the
// context kept.
func (w *Writer) flush(final bool) error {
	s := string(w.buf)
	sc := w.r.top(len(s))
	sc.trimmed, sc.partial = w.trimmed, !final
	spans := w.r.find(s, w.ctx, sc)
	cut := len(s)
	if !final {
		cut = len(s) - w.window
		for _, sp := range spans {
			if sp.start < cut && cut < sp.end && sp.start > w.ctx {
				cut = sp.start
			}
		}
	}
	if cut <= w.ctx {
		return nil
	}
	var inside []span
	for _, sp := range spans {
		if sp.start >= cut {
			break
		}
		sp.end = min(sp.end, cut)
		inside = append(inside, span{sp.start - w.ctx, sp.end - w.ctx, sp.rule, sp.order})
	}
	out := render(s[w.ctx:], inside, cut-w.ctx)
	if _, err := io.WriteString(w.w, out); err != nil {
		w.err = fmt.Errorf("write redacted stream: %w", err)
		return w.err
	}
	keep := max(0, cut-w.window)
	if keep > 0 {
		w.trimmed = true
	}
	w.buf = append(w.buf[:0], w.buf[keep:]...)
	w.ctx = cut - keep
	return nil
}
