package transcript

import (
	"fmt"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// Stream reads the transcript at path as Parse does, in memory bounded
// whatever its size when it holds one run: the engine hands the commands to
// a logstream.Writer as they complete (engines.Stream), redacted and
// spilled to temporary files in spillDir ("" means $TMPDIR). It returns
// the Result without Logs and the Writer, ready to write the log (the
// caller closes it).
//
// A transcript of several runs (an OpenHands evaluation file: one log per
// run, detected from its first records) is read run by run into
// Result.Runs, spilled in spillDir too, and the Writer is nil. With an
// Instance (one run of several) or a Session to merge, the transcript is
// read by Parse: then the Result holds the Logs and the Writer is nil. So
// it is for a transcript whose engine was not recognised.
func Stream(path string, o Options, spillDir string) (*Result, *logstream.Writer, error) {
	if o.Session != "" || o.Instance != "" {
		res, err := Parse(path, o)
		return res, nil, err
	}
	res, eng, err := resolve(path, o)
	if err != nil || eng == nil {
		return res, nil, err
	}
	if ip, ok := eng.(engines.InstanceParser); ok && severalRuns(res, path) {
		runs, err := streamRuns(res, ip, path, spillDir)
		if err != nil {
			return nil, nil, err
		}
		res.Runs = runs
		return res, nil, nil
	}
	rc, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	red := redact.New(nil)
	w, invalid, err := logstream.Parse(eng, rc, logstream.Options{Dir: spillDir, Redact: red.String})
	if err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if invalid != nil {
		res.Warnings = append(res.Warnings, invalid.Error())
	}
	understood, total := engines.Understood(w.Log())
	res.NotUnderstood = misunderstood(path, res.Engine, understood, total)
	return res, w, nil
}

// severalRuns reports whether a transcript holds several runs (evaluation
// output), from the format detection gives.
func severalRuns(res *Result, path string) bool {
	if res.Detected != nil {
		return *res.Detected == engines.FormatOpenHandsEval
	}
	d, err := detect(path)
	return err == nil && d.Format == engines.FormatOpenHandsEval
}
