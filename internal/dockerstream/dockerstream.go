// Package dockerstream reads the JSON message stream the Docker daemon
// sends while it builds an image: the build's output lines, and the error
// it ends with, if any.
package dockerstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
