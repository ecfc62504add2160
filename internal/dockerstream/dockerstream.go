// Package dockerstream reads the JSON message streams the Docker daemon
// sends while it builds or pulls an image: the build's output lines, a
// pull's progress, and the error either ends with, if any.
package dockerstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// FollowBuild passes each non-blank output line of the build to line and
// returns the error the daemon reports, if any (its errorDetail, else its
// error string), or nil when the stream ends without one.
func FollowBuild(r io.Reader, line func(string)) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Stream      string `json:"stream"`
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read build output: %w", err)
		}
		for _, l := range strings.Split(strings.TrimRight(m.Stream, "\n"), "\n") {
			if strings.TrimSpace(l) != "" {
				line(l)
			}
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return errors.New(strings.TrimSpace(m.ErrorDetail.Message))
		}
		if m.Error != "" {
			return errors.New(strings.TrimSpace(m.Error))
		}
	}
}

// FollowPull reads the daemon's JSON progress stream of a pull of ref to its end, fails on
// an error message in it, and prints a summary line at most every interval:
// layers done of layers seen and the bytes downloaded so far.
func FollowPull(r io.Reader, progress io.Writer, ref string, interval time.Duration, now func() time.Time) error {
	dec := json.NewDecoder(r)
	type layer struct {
		current, total int64
		done           bool
	}
	layers := map[string]*layer{}
	var order []string
	last := now()
	report := func() {
		var done int
		var cur, total int64
		for _, id := range order {
			l := layers[id]
			if l.done {
				done++
			}
			cur += l.current
			total += l.total
		}
		fmt.Fprintf(progress, "image %s: %d/%d layers, %d/%d MB downloaded\n", ref, done, len(order), cur>>20, total>>20)
	}
	for {
		var m struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Progress *struct {
				Current int64 `json:"current"`
				Total   int64 `json:"total"`
			} `json:"progressDetail"`
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("read pull progress: %w", err)
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" { // the daemon sends errorDetail with every error
			return errors.New(strings.TrimSpace(m.ErrorDetail.Message))
		}
		if m.Error != "" { // and the deprecated error string
			return errors.New(strings.TrimSpace(m.Error))
		}
		if m.ID == "" || len(m.ID) != 12 {
			continue // status lines about the whole image, not a layer
		}
		l, ok := layers[m.ID]
		if !ok {
			l = &layer{}
			layers[m.ID] = l
			order = append(order, m.ID)
		}
		switch m.Status {
		case "Downloading":
			if m.Progress != nil {
				l.current, l.total = m.Progress.Current, m.Progress.Total
			}
		case "Download complete", "Verifying Checksum":
			l.current = l.total
		case "Pull complete", "Already exists":
			l.done = true
			l.current = l.total
		}
		if t := now(); t.Sub(last) >= interval {
			last = t
			report()
		}
	}
	if len(order) > 0 {
		report()
	}
	return nil
}
