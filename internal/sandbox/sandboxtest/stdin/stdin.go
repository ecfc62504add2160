// Package stdin keeps what a run writes to a fake container's standard
// input, for the Docker fakes of internal/sandbox (its own tests, which
// cannot import sandboxtest, and sandboxtest.FakeDocker).
package stdin

import (
	"bytes"
	"net"
	"sync"
	"time"
)

// Recorder keeps what is written to the connections it wraps, and
// whether one was closed for writing. Its methods may be called from
// several goroutines.
type Recorder struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	closed   bool
	closedAt time.Time
}

// Wrap returns c with its writes and its CloseWrite going to r; reads and
// the rest are c's. ended closes once the writer closed its side, or the
// whole connection: a fake command that reads its input to the end ends
// no sooner.
func (r *Recorder) Wrap(c net.Conn) (wrapped net.Conn, ended <-chan struct{}) {
	w := conn{Conn: c, r: r, ended: make(chan struct{}), once: &sync.Once{}}
	return w, w.ended
}

// Bytes is what was written so far.
func (r *Recorder) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// Closed reports whether the writer closed its side.
func (r *Recorder) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// ClosedAt is when the writer closed its side (zero: not yet).
func (r *Recorder) ClosedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closedAt
}

type conn struct {
	net.Conn
	r     *Recorder
	ended chan struct{}
	once  *sync.Once
}

func (c conn) end() { c.once.Do(func() { close(c.ended) }) }

func (c conn) Write(p []byte) (int, error) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.r.buf.Write(p)
}

func (c conn) CloseWrite() error {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if !c.r.closed {
		c.r.closed, c.r.closedAt = true, time.Now()
	}
	c.end()
	return nil
}

func (c conn) Close() error {
	c.end()
	return c.Conn.Close()
}
