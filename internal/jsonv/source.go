package jsonv

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// source is a buffered reader like bufio.Reader, with one addition the fast
// path needs: peekLine looks at a whole line (up to a bound) without
// consuming it, so a record can be parsed straight from the buffer and, when
// it turns out to span lines, parsed again by the streaming decoder from the
// same position.
type source struct {
	rd      io.Reader
	buf     []byte
	r, w    int
	err     error
	maxLine int // the buffer grows to hold a line of up to this many bytes
	filled  bool
}

// minBuf is what the buffer grows to for ordinary reads. It starts at
// firstBuf, so that a short input (a small transcript, a string of embedded
// JSON) costs a small buffer, and doubles at each read after the first up
// to minBuf, so that a long one is read in large pieces.
const (
	minBuf   = 256 << 10
	firstBuf = 4 << 10
)

func newSource(rd io.Reader, maxLine int) *source {
	return &source{rd: rd, buf: make([]byte, firstBuf), maxLine: maxLine}
}

// fill reads more data, compacting first and growing the buffer when it is
// full (or below minBuf, after the first read) and below limit bytes.
func (s *source) fill(limit int) {
	if s.r > 0 {
		copy(s.buf, s.buf[s.r:s.w])
		s.w -= s.r
		s.r = 0
	}
	grow := s.w == len(s.buf) || (s.filled && len(s.buf) < minBuf)
	s.filled = true
	if grow && len(s.buf) < limit {
		n := 2 * len(s.buf)
		if n > limit {
			n = limit
		}
		nb := make([]byte, n)
		copy(nb, s.buf[:s.w])
		s.buf = nb
	}
	for tries := 0; tries < 100 && s.w < len(s.buf); tries++ {
		n, err := s.rd.Read(s.buf[s.w:])
		s.w += n
		if err != nil {
			s.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	if s.w < len(s.buf) && s.err == nil {
		s.err = io.ErrNoProgress
	}
}

// Peek returns the next n bytes without consuming them; fewer with an error
// at the end of input.
func (s *source) Peek(n int) ([]byte, error) {
	for s.w-s.r < n && s.err == nil {
		s.fill(max(minBuf, n))
	}
	if s.w-s.r < n {
		return s.buf[s.r:s.w], s.readErr()
	}
	return s.buf[s.r : s.r+n], nil
}

// Window returns every buffered byte (at least one unless at the end).
func (s *source) Window() ([]byte, error) {
	if s.r == s.w {
		if _, err := s.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.buf[s.r:s.w], nil
}

func (s *source) readErr() error {
	err := s.err
	if err == nil {
		return bufio.ErrBufferFull
	}
	return err
}

// Discard skips n buffered bytes.
func (s *source) Discard(n int) {
	if n > s.w-s.r {
		n = s.w - s.r
	}
	s.r += n
}

// ReadByte reads one byte.
func (s *source) ReadByte() (byte, error) {
	if s.r == s.w {
		if _, err := s.Peek(1); err != nil {
			return 0, err
		}
	}
	c := s.buf[s.r]
	s.r++
	return c, nil
}

// peekLine returns the bytes up to and including the next newline (or to
// the end of input) without consuming them. ok is false when the line is
// longer than maxLine.
func (s *source) peekLine() (line []byte, ok bool) {
	scanned := 0
	for {
		if i := bytes.IndexByte(s.buf[s.r+scanned:s.w], '\n'); i >= 0 {
			return s.buf[s.r : s.r+scanned+i+1], true
		}
		scanned = s.w - s.r
		if s.err != nil {
			return s.buf[s.r:s.w], true
		}
		if scanned >= s.maxLine {
			return nil, false
		}
		s.fill(s.maxLine + 1)
	}
}

// skipLine discards input up to and including the next newline; it reports
// whether a newline was found.
func (s *source) skipLine() bool {
	for {
		if i := bytes.IndexByte(s.buf[s.r:s.w], '\n'); i >= 0 {
			s.r += i + 1
			return true
		}
		s.r = s.w
		if s.err != nil {
			return false
		}
		s.fill(minBuf)
	}
}

var errIncomplete = errors.New("record continues past the line")
