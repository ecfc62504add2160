package termtext

import (
	"io"
	"sync"
)

// maxPending bounds a line held back waiting for its end.
const maxPending = 64 << 10

// Writer passes what is written to it on to another writer line by line,
// each line through Visible: for progress output, whose lines quote
// commands, paths and messages from the repository under test. It is safe
// for concurrent use; a line longer than 64 KiB is passed on in pieces.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write sanitises the complete lines of p and writes them; the rest waits
// for its line feed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	end := 0
	for i, c := range w.buf {
		if c == '\n' {
			end = i + 1
		}
	}
	if end == 0 && len(w.buf) > maxPending {
		end = len(w.buf)
	}
	if end == 0 {
		return len(p), nil
	}
	out := Visible(string(w.buf[:end]))
	if end == len(w.buf) && w.buf[end-1] != '\n' {
		out += "\n"
	}
	w.buf = append(w.buf[:0], w.buf[end:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
