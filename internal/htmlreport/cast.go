package htmlreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// castData is the asciicast v2 recording as the page's player reads it.
type castData struct {
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	Duration float64 `json:"duration"`
	// Events are [time in seconds, output text]; input and other event
	// kinds are dropped.
	Events []castEvent `json:"events"`
	// Marks are the times at which each command starts (its prompt is
	// printed), one per command, or empty when the cast's commands could not
	// be told apart (jumping to a command is then not offered).
	Marks []float64 `json:"marks"`
}

type castEvent struct {
	T    float64
	Data string
}

func (e castEvent) MarshalJSON() ([]byte, error) { return json.Marshal([]any{e.T, e.Data}) }

// promptEvent is the event internal/demo prints before each command (and
// once after the last): a green "$ ".
const promptEvent = "\x1b[1;32m$\x1b[0m "

// parseCast reads an asciicast v2 recording made by internal/demo for a log
// of n commands.
func parseCast(b []byte, n int) (castData, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var cd castData
	if !sc.Scan() {
		return cd, fmt.Errorf("read cast: empty")
	}
	var h struct {
		Version       int `json:"version"`
		Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return cd, fmt.Errorf("read cast header: %w", err)
	}
	if h.Version != 2 {
		return cd, fmt.Errorf("read cast header: version %d, want 2", h.Version)
	}
	cd.Width, cd.Height = h.Width, h.Height
	cd.Events = []castEvent{}
	cd.Marks = []float64{}
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ev []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			return cd, fmt.Errorf("read cast event %d: not [time, kind, data]", len(cd.Events)+1)
		}
		var e castEvent
		var kind string
		if json.Unmarshal(ev[0], &e.T) != nil || json.Unmarshal(ev[1], &kind) != nil || json.Unmarshal(ev[2], &e.Data) != nil {
			return cd, fmt.Errorf("read cast event %d: bad field", len(cd.Events)+1)
		}
		if e.T > cd.Duration {
			cd.Duration = e.T
		}
		if kind != "o" {
			continue
		}
		if e.Data == promptEvent {
			cd.Marks = append(cd.Marks, e.T)
		}
		cd.Events = append(cd.Events, e)
	}
	if err := sc.Err(); err != nil {
		return cd, fmt.Errorf("read cast: %w", err)
	}
	// One prompt per command plus the closing one; anything else means the
	// prompts cannot be trusted to mark commands.
	if len(cd.Marks) != n+1 {
		cd.Marks = []float64{}
	} else {
		cd.Marks = cd.Marks[:n]
	}
	return cd, nil
}
