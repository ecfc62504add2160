package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// Runs are the runs of a transcript of several (evaluation output): each
// run's command log, redacted and encoded as it was read, kept in a
// temporary spill file rather than in memory, so that memory does not grow
// with the number of runs. Each hands them out in ParseInstances' order.
// Close removes the spill.
type Runs struct {
	f       *os.File
	removed bool // the spill was unlinked when created
	runs    []spilledRun
	longest int64
}

// spilledRun is one run's encoded log in the spill file.
type spilledRun struct {
	id     string
	off, n int64
}

// Len is the number of runs.
func (r *Runs) Len() int { return len(r.runs) }

// IDs are the names of the runs, in order.
func (r *Runs) IDs() []string {
	ids := make([]string, len(r.runs))
	for i, s := range r.runs {
		ids[i] = displayID(s.id)
	}
	return ids
}

// Each hands each run's ID ("" for the events outside any run) and its
// command log, encoded (schema v1 JSON ending in a newline), to fn in file
// order, the events outside any run first. The bytes are valid until fn
// returns. An error from fn stops Each and is returned.
func (r *Runs) Each(fn func(id string, log []byte) error) error {
	buf := make([]byte, r.longest)
	for _, s := range r.runs {
		b := buf[:s.n]
		if _, err := r.f.ReadAt(b, s.off); err != nil {
			return &logstream.SpillError{Err: fmt.Errorf("read spill file: %w", err)}
		}
		if err := fn(s.id, b); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the spill file.
func (r *Runs) Close() error {
	if r == nil || r.f == nil {
		return nil
	}
	err := r.f.Close()
	if !r.removed {
		if rerr := os.Remove(r.f.Name()); err == nil {
			err = rerr
		}
	}
	r.f = nil
	return err
}

// runQueue is how many parsed runs wait for the spill writer: the parse
// goes on reading while the previous runs are redacted, encoded and
// written on another goroutine.
const runQueue = 4

// streamRuns reads the transcript at path, of several runs, run by run
// (ip.EachInstance) into a spill file in spillDir: each run's log is redacted,
// checked against the schema (a problem is a warning in res) and spilled,
// on a goroutine of its own while the parse reads on. res.NotUnderstood
// is decided over all the runs.
func streamRuns(res *Result, ip engines.InstanceParser, path, spillDir string) (*Runs, error) {
	f, err := os.CreateTemp(spillDir, "readme2demo-runs-*.spill")
	if err != nil {
		return nil, &logstream.SpillError{Err: fmt.Errorf("create spill file (set TMPDIR to a writable directory): %w", err)}
	}
	runs := &Runs{f: f, removed: os.Remove(f.Name()) == nil}
	rc, err := Open(path)
	if err != nil {
		runs.Close()
		return nil, err
	}
	defer rc.Close()

	queue := make(chan engines.Instance, runQueue)
	done := make(chan error, 1)
	stop := make(chan struct{}) // closed when the writer fails
	var understood, total int
	go func() {
		red := redact.New(nil)
		w := bufio.NewWriterSize(f, 256<<10)
		var enc bytes.Buffer
		var off int64
		var werr error
		fail := func(err error) {
			if werr == nil {
				werr = err
				close(stop)
			}
		}
		for in := range queue {
			if werr != nil {
				continue // drain: the parse has been told to stop
			}
			u, t := engines.Understood(in.Log)
			understood, total = understood+u, total+t
			redact.Log(in.Log, red)
			if err := commandlog.Validate(in.Log); err != nil {
				res.Warnings = append(res.Warnings, err.Error())
			}
			enc.Reset()
			if err := commandlog.Encode(&enc, in.Log); err != nil {
				fail(err)
				continue
			}
			if _, err := w.Write(enc.Bytes()); err != nil {
				fail(&logstream.SpillError{Err: fmt.Errorf("write spill file: %w", err)})
				continue
			}
			n := int64(enc.Len())
			runs.runs = append(runs.runs, spilledRun{id: in.ID, off: off, n: n})
			off += n
			runs.longest = max(runs.longest, n)
		}
		if werr == nil {
			if err := w.Flush(); err != nil {
				fail(&logstream.SpillError{Err: fmt.Errorf("write spill file: %w", err)})
			}
		}
		done <- werr
	}()
	writerFailed := errors.New("the spill writer stopped")
	perr := ip.EachInstance(rc, func(in engines.Instance) error {
		select {
		case queue <- in:
			return nil
		case <-stop:
			return writerFailed
		}
	})
	close(queue)
	werr := <-done
	switch {
	case werr != nil:
		runs.Close()
		return nil, werr
	case perr != nil:
		runs.Close()
		return nil, fmt.Errorf("parse %s: %w", path, perr)
	}
	// ParseInstances' order: the events outside any run, which EachInstance
	// gives last, first.
	if k := len(runs.runs); k > 1 && runs.runs[k-1].id == "" {
		rest := runs.runs[k-1]
		copy(runs.runs[1:], runs.runs[:k-1])
		runs.runs[0] = rest
	}
	res.NotUnderstood = misunderstood(path, res.Engine, understood, total)
	return runs, nil
}

// WriteArray writes the runs as one JSON array, in order:
// [{"instance": ID, "command_log": {…}}, …], each command_log a whole
// schema-v1 log.
func (r *Runs) WriteArray(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.WriteString("[\n")
	i := 0
	err := r.Each(func(id string, log []byte) error {
		q, err := json.Marshal(id)
		if err != nil {
			return fmt.Errorf("encode run id: %w", err)
		}
		fmt.Fprintf(bw, "{\"instance\": %s, \"command_log\": ", q)
		bw.Write(bytes.TrimRight(log, "\n"))
		bw.WriteString("}")
		if i++; i < len(r.runs) {
			bw.WriteString(",")
		}
		_, err = bw.WriteString("\n")
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString("]\n")
	return bw.Flush()
}
