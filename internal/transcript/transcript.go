// Package transcript reads a transcript a user has on disk the way
// `readme2demo parse` does: a file, or a directory of files read as one
// (OpenHands event pages saved page by page); the engine given, or detected
// from the content; one command log, or one per run for files that hold
// several (evaluation output); an optional session file merged in; and a
// refusal, rather than an empty log, when the engine did not understand the
// records.
//
// The engines parse; this package only opens files and applies their rules.
package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// Auto is the engine name that asks for detection.
const Auto = "auto"

// Options says how to read a transcript.
type Options struct {
	Engine   string // an engine name, or Auto ("" means Auto)
	Instance string // the run to keep, for files holding several
	Session  string // a session file to merge (engines.SessionMerger), "" for none
}

// Result is a parsed transcript.
type Result struct {
	Engine string
	// Detected is what auto-detection found (nil when the engine was given).
	Detected *engines.Format
	// Logs are the command logs: one, or one per run when the file holds
	// several and no Instance was asked for. Redacted of known secret shapes.
	// Stream leaves them nil when it gives a logstream.Writer or Runs.
	Logs []engines.Instance
	// Runs are the runs of a file of several (evaluation output) that
	// Stream read: spilled, not in memory. The caller closes them.
	Runs *Runs
	// NotUnderstood is set when the engine did not understand most of the
	// records: the logs are there, but should not be trusted.
	NotUnderstood *engines.NotUnderstoodError
	// Warnings are problems worth telling (a log failing validation: a
	// parser bug).
	Warnings []string
}

// InstanceError is an --instance that names none of the runs of a file.
type InstanceError struct {
	File string
	Want string   // the --instance asked for
	IDs  []string // the runs the file holds
}

func (e *InstanceError) Error() string {
	return fmt.Sprintf("%s holds no run %q; runs: %s", e.File, e.Want, ListIDs(e.IDs))
}

// maxListed is how many run ids a message names before it counts the rest.
const maxListed = 10

// ListIDs names run ids for a message: all of them up to ten, else the first
// ten and how many more there are (an evaluation file can hold thousands).
func ListIDs(ids []string) string {
	if len(ids) <= maxListed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxListed], ", "), len(ids)-maxListed)
}

// Parse reads the transcript at path (a file, or a directory whose regular
// files are read as one, in natural order of their names).
//
// Errors: an unknown engine (engines.ErrUnknownEngine), an unreadable file,
// *engines.AmbiguousError when detection finds several engines,
// *InstanceError for an --instance the file does not hold. A transcript the
// engine did not understand is not an error: Result.NotUnderstood says so.
func Parse(path string, o Options) (*Result, error) {
	res, eng, err := resolve(path, o)
	if err != nil || eng == nil {
		return res, err
	}
	logs, err := parseRuns(eng, path, o.Instance)
	if err != nil {
		return nil, err
	}
	if o.Session != "" {
		if err := mergeSession(eng, logs, o.Session); err != nil {
			return nil, err
		}
	}
	understood, total := 0, 0
	for _, in := range logs {
		u, t := engines.Understood(in.Log)
		understood, total = understood+u, total+t
	}
	res.NotUnderstood = misunderstood(path, res.Engine, understood, total)
	red := redact.New(nil)
	for _, in := range logs {
		redact.Log(in.Log, red)
		if err := commandlog.Validate(in.Log); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
	}
	res.Logs = logs
	return res, nil
}

// resolve names the engine of a transcript: the one given, or the one
// detected. When detection recognises no engine, it returns a Result that
// says so and a nil engine.
func resolve(path string, o Options) (*Result, engines.AgentEngine, error) {
	res := &Result{Engine: o.Engine}
	if o.Engine == "" || o.Engine == Auto {
		d, err := detect(path)
		if err != nil {
			var amb *engines.AmbiguousError
			if errors.As(err, &amb) {
				return nil, nil, fmt.Errorf("detect engine of %s: %w", path, err)
			}
			return nil, nil, err
		}
		if d.Format.Engine == "" {
			res.Engine = ""
			res.NotUnderstood = &engines.NotUnderstoodError{File: path, Total: d.Records, LooksLike: engines.LooksLike(d, nil)}
			return res, nil, nil
		}
		res.Engine, res.Detected = d.Format.Engine, &d.Format
	}
	eng, err := engines.Lookup(res.Engine)
	if err != nil {
		return nil, nil, err
	}
	return res, eng, nil
}

// misunderstood is the refusal of a transcript whose records the engine
// mostly did not understand, or nil.
func misunderstood(path, engine string, understood, total int) *engines.NotUnderstoodError {
	if !engines.Misunderstood(understood, total) {
		return nil
	}
	nu := &engines.NotUnderstoodError{File: path, Engine: engine, Understood: understood, Total: total}
	d, derr := detect(path)
	switch {
	case derr == nil && d.Format.Engine == engine:
		nu.LooksLike = "a " + d.Format.String() + ", but most of its records are of kinds this readme2demo does not know (a newer CLI version? upgrade readme2demo, or report the drift)"
	default:
		nu.LooksLike = engines.LooksLike(d, derr)
	}
	return nu
}

// IDs are the names of the runs of a result.
func (r *Result) IDs() []string {
	if r.Runs != nil {
		return r.Runs.IDs()
	}
	ids := make([]string, len(r.Logs))
	for i, in := range r.Logs {
		ids[i] = displayID(in.ID)
	}
	return ids
}

// displayID names a run in a message.
func displayID(id string) string {
	if id == "" {
		return "(events outside any run)"
	}
	return id
}

func detect(path string) (engines.Detection, error) {
	rc, err := Open(path)
	if err != nil {
		return engines.Detection{}, err
	}
	defer rc.Close()
	return engines.Detect(rc)
}

// parseRuns parses every run of the transcript: per run for engines that
// tell runs apart, else one log; with want, only the run named want (the
// others are parsed and dropped, one at a time), or an *InstanceError.
func parseRuns(eng engines.AgentEngine, path, want string) ([]engines.Instance, error) {
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	ip, ok := eng.(engines.InstanceParser)
	switch {
	case ok && want != "":
		var found []engines.Instance
		var ids []string
		err := ip.EachInstance(rc, func(in engines.Instance) error {
			switch {
			case in.ID == want:
				found = []engines.Instance{in}
			case in.ID != "":
				ids = append(ids, in.ID)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		if found == nil {
			return nil, &InstanceError{File: path, Want: want, IDs: ids}
		}
		return found, nil
	case ok:
		runs, err := ip.ParseInstances(rc)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		return runs, nil
	}
	l, err := eng.ParseTranscript(rc)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	logs := []engines.Instance{{Log: l}}
	if want != "" {
		return nil, &InstanceError{File: path, Want: want}
	}
	return logs, nil
}

func mergeSession(eng engines.AgentEngine, logs []engines.Instance, session string) error {
	m, ok := eng.(engines.SessionMerger)
	if !ok {
		return fmt.Errorf("merge session %s: the %s engine reads no session file (only gemini does)", session, eng.Name())
	}
	if len(logs) != 1 {
		return fmt.Errorf("merge session %s: the transcript holds %d runs; a session file belongs to one", session, len(logs))
	}
	f, err := os.Open(session)
	if err != nil {
		return fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	if _, err := m.MergeSession(logs[0].Log, f); err != nil {
		return err
	}
	return nil
}

// Open opens a transcript: a file, or a directory read as the
// concatenation of its regular, non-hidden files in natural order of their
// names (page-2 before page-10), each ending with a newline.
func Open(path string) (io.ReadCloser, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if !st.IsDir() {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open transcript: %w", err)
		}
		return f, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("open transcript directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("open transcript directory %s: it holds no files", path)
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	return &dirReader{dir: path, names: names}, nil
}

// dirReader reads the files of a directory one after the other.
type dirReader struct {
	dir   string
	names []string
	cur   *os.File
	nl    bool // the newline after the current file is due
}

func (d *dirReader) Read(p []byte) (int, error) {
	for {
		if d.cur == nil {
			if d.nl {
				d.nl = false
				if len(p) == 0 {
					return 0, nil
				}
				p[0] = '\n'
				return 1, nil
			}
			if len(d.names) == 0 {
				return 0, io.EOF
			}
			f, err := os.Open(filepath.Join(d.dir, d.names[0]))
			if err != nil {
				return 0, fmt.Errorf("open transcript: %w", err)
			}
			d.cur, d.names = f, d.names[1:]
		}
		n, err := d.cur.Read(p)
		if errors.Is(err, io.EOF) {
			d.cur.Close()
			d.cur, d.nl = nil, true
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (d *dirReader) Close() error {
	if d.cur != nil {
		return d.cur.Close()
	}
	return nil
}

// naturalLess orders names with their digit runs compared as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
	if i < 0 {
		return s
	}
	return s[:i]
}
