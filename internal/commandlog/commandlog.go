// Package commandlog owns command_log.json, schema v1: the one file every
// engine produces and every consumer (report, Action, demo, drift) reads.
//
// Field names are exactly those of DESIGN.md. Unknown numbers are null, never
// 0: a nil CostUSD means "the transcript did not say", and budget logic must
// treat it as unknown. An unpaired command has a nil ExitCode and status
// "unknown"; a failure whose exit code was not stated has status "failed" and
// a nil ExitCode. Encode writes fields in a stable order (struct order) so
// that golden files and diffs between runs are meaningful.
package commandlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SchemaVersion is the version this package writes and validates.
const SchemaVersion = 1

// Outcome is the verdict of a run.
type Outcome string

// The outcomes. Precedence when deciding: blocked > success marker > failed.
const (
	OutcomeSuccess Outcome = "success"
	OutcomeFailed  Outcome = "failed"
	OutcomeBlocked Outcome = "blocked"
)

// NothingToRun starts the outcome reason of a keyless run whose README
// has no command to run: the English the planner writes. Readers recognise
// such a run by its cause, CauseNothingToRun, never by this text.
const NothingToRun = "nothing to run"

// Cause is what decided a run's outcome, where the log states it as a
// fact rather than only in the outcome reason's English (an optional
// addition to schema v1: absent when the log does not say).
type Cause string

// The causes.
const (
	// CauseNothingToRun is a keyless run whose README has no command to
	// run: it has no commands, and its outcome is failed, because schema v1
	// has no outcome of its own for it, or blocked where what the README
	// runs needs what the sandbox lacks (Docker); the Action's `fail-on`
	// counts it as no-commands.
	CauseNothingToRun Cause = "nothing-to-run"
)

// Status is the result of one command.
type Status string

// The command statuses.
const (
	StatusOK      Status = "ok"      // exit code 0
	StatusFailed  Status = "failed"  // non-zero exit, or an error the agent reported
	StatusUnknown Status = "unknown" // no result was paired (killed, timed out, missing)
)

// MarkerKind is one of the marker-contract line kinds.
type MarkerKind string

// The marker kinds the prompt asks the agent to print.
const (
	MarkerFix             MarkerKind = "FIX"
	MarkerBlocked         MarkerKind = "BLOCKED"
	MarkerSuccess         MarkerKind = "SUCCESS"
	MarkerAdjustedSuccess MarkerKind = "ADJUSTED_SUCCESS"
)

// Log is command_log.json.
type Log struct {
	SchemaVersion int     `json:"schema_version"`
	Engine        string  `json:"engine"`
	AgentVersion  *string `json:"agent_version"`
	Outcome       Outcome `json:"outcome"`
	// OutcomeReason says why a run failed when the reason is not a marker:
	// the agent hit its turn limit, the cost cap was crossed, it was killed.
	OutcomeReason string `json:"outcome_reason,omitempty"`
	// OutcomeCause is what decided the outcome, as a fact; empty when the
	// log does not say (optional addition to schema v1).
	OutcomeCause Cause      `json:"outcome_cause,omitempty"`
	Adjusted     bool       `json:"adjusted"`
	Markers      []Marker   `json:"markers"`
	Commands     []Command  `json:"commands"`
	FileEdits    []FileEdit `json:"file_edits"`
	CostUSD      *float64   `json:"cost_usd"`
	Turns        *int       `json:"turns"`
	DurationMS   *int64     `json:"duration_ms"`
	// Sandbox is the sandbox profile and the limits the run had (optional
	// addition to schema v1; nil when the log does not say, e.g. `parse`).
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// RepoFindings lists the repository paths the sandbox's copy did not
	// take as they were: agent configuration removed, git configuration
	// scrubbed, instruction files flagged (CLAUDE.md, AGENTS.md, …: the
	// report lists them), special files and outside hard links skipped.
	RepoFindings []RepoFinding `json:"repo_findings,omitempty"`
	ParseStats   ParseStats    `json:"parse_stats"`
	// Skipped lists the README commands a keyless engine did not run, with
	// why (an optional addition to schema v1: absent when empty, ignored by
	// readers that do not know it). They are the entries `readme2demo plan`
	// prints with "run": false.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is one README command that was not run.
type Skipped struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// Sandbox describes the container a run had: its profile and limits, and
// which limit stopped the run, if one did. Sizes are bytes; a zero limit
// means the log does not say.
type Sandbox struct {
	Profile string  `json:"profile"`           // "dev" or "strict"
	Image   string  `json:"image,omitempty"`   // the sandbox image
	Network string  `json:"network,omitempty"` // "open", "none" or "allowlist"
	Disk    int64   `json:"disk"`              // the disk cap on the run's writable space
	Memory  int64   `json:"memory"`            // memory (no swap)
	CPU     float64 `json:"cpu"`               // CPUs
	Pids    int64   `json:"pids"`              // process (task) limit
	// DiskPeak is the largest writable-space usage measured; nil when it
	// was never measured.
	DiskPeak *int64 `json:"disk_peak,omitempty"`
	// Inodes is the cap on the files, directories and links of the
	// writable space, and InodesPeak the most measured (nil: not
	// measured). Optional additions to v1: absent in older logs.
	Inodes     int64  `json:"inodes,omitempty"`
	InodesPeak *int64 `json:"inodes_peak,omitempty"`
	// Stopped names the limit that ended the run early: "disk", "inodes",
	// "pids" or "timeout"; empty when none did.
	Stopped string `json:"stopped,omitempty"`
	// Reached lists the limits the run reached, whether or not they
	// stopped it: "disk", "inodes", "memory" (the OOM killer ended a
	// process), "pids", "timeout".
	Reached []string `json:"reached,omitempty"`
	// KeysInContainer names the engine's credential variables that were in
	// the agent's environment, where a README can read them; KeysWhy says
	// why the egress proxy did not hold them. Empty when it held every
	// credential, or the engine has none.
	KeysInContainer []string `json:"keys_in_container,omitempty"`
	KeysWhy         string   `json:"keys_why,omitempty"`
}

// Environment says that a command ran into a sandbox limit rather than
// failing because of the README: which limit (Kind) and what to change
// (Detail).
type Environment struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// RepoFinding is one repository path the copy into the sandbox did not
// simply keep.
type RepoFinding struct {
	Path   string `json:"path"`
	Action string `json:"action"` // "flag", "scrub", "remove" or "skip"
	Reason string `json:"reason"`
}

// Marker is one marker line the agent wrote.
type Marker struct {
	Kind MarkerKind `json:"kind"`
	Text string     `json:"text"`
}

// Command is one shell command the agent ran.
type Command struct {
	ID        string `json:"id"`
	Command   string `json:"command"`
	Output    string `json:"output"`
	ExitCode  *int   `json:"exit_code"`
	Status    Status `json:"status"`
	Truncated bool   `json:"truncated"`
	// ParentID is the id of the sub-agent call that ran this command, when
	// a sub-agent ran it.
	ParentID string `json:"parent_id,omitempty"`
	// DurationMS is how long the command took, when the transcript says.
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Source is where the command stands in the README, when it matches a
	// README code line.
	Source *Source `json:"source,omitempty"`
	// Environment is set when the command ran into a sandbox limit
	// (optional addition to schema v1).
	Environment *Environment `json:"environment,omitempty"`
	// Planned says how the keyless markdown engine's plan ran the command
	// (optional addition to schema v1): a step, which the README clearly
	// means to be run and whose failure fails the run, or a probe, run on
	// a guess, whose failure is reported and never decides the outcome.
	// Empty when the engine does not say.
	Planned Planned `json:"planned,omitempty"`
	// How the keyless runner ran the command where the command text alone
	// does not say (optional additions to schema v1), so that demo.sh and
	// the replay engine run again what ran: Ran is the shell text the
	// runner evaluated instead of Command (the checkout linked where the
	// README clones this repository, a `-y` its prompt needs, …), with the
	// checkout's path written as "$README2DEMO_CHECKOUT" (CheckoutVar);
	// Cwd the directory (of the checkout, when relative) entered before it
	// for its block (a cwd hint), LeaveCwd that the run went back after it
	// to where it was before that block's Cwd; Setup a setup hint's command that ran,
	// unseen, before it; Background is set when it was started in the
	// background and left running (a server). Each is empty when it does
	// not apply.
	Ran        string      `json:"ran,omitempty"`
	Cwd        string      `json:"cwd,omitempty"`
	LeaveCwd   bool        `json:"leave_cwd,omitempty"`
	Setup      string      `json:"setup,omitempty"`
	Background *Background `json:"background,omitempty"`
	// PipeStatus are the exit statuses of the programs of the command's
	// last pipeline, when it had more than one and the keyless runner
	// saw them (optional addition to schema v1): `curl -s URL | gpg …`
	// exits with gpg's status, while curl's says the host was unreachable.
	PipeStatus []int `json:"pipe_status,omitempty"`
}

// OnSuccessfulPath reports whether c belongs to the run's successful path,
// which demo.sh and the replay engine run again: a command that exited 0,
// or one left running in the background whose end nobody saw (an agent's
// server: status unknown, as no exit code came). Failed commands and
// unfinished ones were dead ends.
func (c *Command) OnSuccessfulPath() bool {
	if strings.TrimSpace(c.Command) == "" {
		return false
	}
	return c.Status == StatusOK || c.Status == StatusUnknown && c.Background != nil
}

// CheckoutVar is the shell variable that holds the checkout's path
// (the repository under test) wherever a command's Ran text needs it:
// the runner sets it to the sandbox's workspace, demo.sh to the directory
// it is run from.
const CheckoutVar = "README2DEMO_CHECKOUT"

// CheckoutWord is the shell word for the checkout's path that Ran texts
// use: the variable, quoted.
const CheckoutWord = `"$` + CheckoutVar + `"`

// UsesCheckout reports shell text that names the checkout by its variable.
func UsesCheckout(text string) bool { return strings.Contains(text, "$"+CheckoutVar) }

// TimeoutNote is the line the keyless runner ends a command's output with
// when the command's own timeout stopped it (its exit code is then 124).
func TimeoutNote(seconds int64) string {
	return fmt.Sprintf("[readme2demo: stopped when its timeout (%ds) passed]\n", seconds)
}

// timeoutNoteRe finds TimeoutNote at the end of an output.
var timeoutNoteRe = regexp.MustCompile(`\[readme2demo: stopped when its timeout \((\d+)s\) passed\]\n?$`)

// TimedOutAfter reports a command whose output ends with TimeoutNote, and
// the timeout in seconds.
func TimedOutAfter(c Command) (int64, bool) {
	m := timeoutNoteRe.FindStringSubmatch(c.Output)
	if m == nil || c.ExitCode == nil || *c.ExitCode != 124 {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

// Background is how a command left running in the background was waited
// for: Ready is the command whose success said it was ready ("" when the
// run only gave it a moment), TimeoutS how long the run waited for that at
// most, in seconds.
type Background struct {
	Ready    string `json:"ready,omitempty"`
	TimeoutS int64  `json:"timeout_s,omitempty"`
}

// Planned is how sure a plan was that a command is meant to be run.
type Planned string

// The two ways a planned command runs.
const (
	PlannedStep  Planned = "step"
	PlannedProbe Planned = "probe"
)

// Source locates a command in a file of the repository.
type Source struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// FileEdit is one file the agent created or changed.
type FileEdit struct {
	Path string `json:"path"`
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
}

// ParseStats says how much of the transcript the parser understood.
// Lines counts records (JSON values) read, malformed ones included.
type ParseStats struct {
	Lines         int `json:"lines"`
	Malformed     int `json:"malformed"`
	UnknownEvents int `json:"unknown_events"`
}

// Failed returns the commands whose status is failed.
func (l *Log) Failed() []Command {
	var out []Command
	for _, c := range l.Commands {
		if c.Status == StatusFailed {
			out = append(out, c)
		}
	}
	return out
}

// Normalize replaces nil slices with empty ones so they encode as [] and not
// null, sets the schema version, and makes every string valid UTF-8 (agent
// output often is not; each invalid run becomes U+FFFD), so that a log reads
// back exactly as it was written.
func (l *Log) Normalize() {
	l.SchemaVersion = SchemaVersion
	MapStringValues(l, NormalizeString)
	if l.Markers == nil {
		l.Markers = []Marker{}
	}
	if l.Commands == nil {
		l.Commands = []Command{}
	}
	if l.FileEdits == nil {
		l.FileEdits = []FileEdit{}
	}
}

// NormalizeString is what Normalize does to every string of a log: invalid
// UTF-8 becomes U+FFFD.
func NormalizeString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Encode writes l as indented JSON with a trailing newline, exactly as
// json.MarshalIndent(l, "", "  ") would but without HTML escaping ("<" reads
// better than "\u003c" in a data file) and without holding the whole
// document in memory: a log of many thousands of commands is written one
// command at a time.
func Encode(w io.Writer, l *Log) error {
	l.Normalize()
	return EncodeLists(w, l, Lists{
		Markers:   listOf(l.Markers, AppendMarker),
		Commands:  listOf(l.Commands, AppendCommand),
		FileEdits: listOf(l.FileEdits, AppendFileEdit),
	})
}

// Lists are the three lists of a log, already encoded, for EncodeLists.
type Lists struct {
	Markers, Commands, FileEdits EncodedList
}

// EncodedList is a list whose items are already encoded (AppendMarker,
// AppendCommand, AppendFileEdit). Body writes them as they stand inside the
// list's brackets: each item preceded by four spaces, items separated by
// ",\n", no newline after the last one.
type EncodedList struct {
	Len  int
	Body func(w io.Writer) error
}

func listOf[T any](items []T, appendItem func([]byte, *T) []byte) EncodedList {
	return EncodedList{Len: len(items), Body: func(w io.Writer) error {
		var b []byte
		for i := range items {
			b = b[:0]
			if i > 0 {
				b = append(b, ",\n"...)
			}
			b = append(b, "    "...)
			b = appendItem(b, &items[i])
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}}
}

// EncodeLists is Encode for a log whose lists are not in l but already
// encoded (a streaming writer keeps them in files): it writes l's other
// fields and the lists' bodies, giving the bytes Encode gives for the same
// log. l's own lists are ignored; l should be normalized.
func EncodeLists(w io.Writer, l *Log, lists Lists) error {
	e := &encoder{w: bufio.NewWriterSize(w, 64<<10)}
	e.raw("{\n")
	e.field("schema_version", l.SchemaVersion)
	e.field("engine", l.Engine)
	e.field("agent_version", l.AgentVersion)
	e.field("outcome", l.Outcome)
	if l.OutcomeReason != "" {
		e.field("outcome_reason", l.OutcomeReason)
	}
	if l.OutcomeCause != "" {
		e.field("outcome_cause", l.OutcomeCause)
	}
	e.field("adjusted", l.Adjusted)
	e.list("markers", lists.Markers)
	e.list("commands", lists.Commands)
	e.list("file_edits", lists.FileEdits)
	e.field("cost_usd", l.CostUSD)
	e.field("turns", l.Turns)
	e.field("duration_ms", l.DurationMS)
	if l.Sandbox != nil {
		e.field("sandbox", l.Sandbox)
	}
	if len(l.RepoFindings) > 0 {
		e.values("repo_findings", len(l.RepoFindings), func(i int) any { return l.RepoFindings[i] })
	}
	e.last = len(l.Skipped) == 0
	e.field("parse_stats", l.ParseStats)
	if len(l.Skipped) > 0 {
		e.last = true
		e.values("skipped", len(l.Skipped), func(i int) any { return l.Skipped[i] })
	}
	e.raw("}\n")
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("write command log: %w", e.err)
	}
	return nil
}

type encoder struct {
	w    *bufio.Writer
	buf  bytes.Buffer
	last bool
	err  error
}

func (e *encoder) raw(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

// value writes v indented as if nested at the given prefix.
func (e *encoder) value(v any, prefix string) {
	if e.err != nil {
		return
	}
	e.buf.Reset()
	enc := json.NewEncoder(&e.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		e.err = err
		return
	}
	_, e.err = e.w.Write(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
}

func (e *encoder) key(name string) { e.raw("  \"" + name + "\": ") }

func (e *encoder) end() {
	if e.last {
		e.raw("\n")
	} else {
		e.raw(",\n")
	}
}

func (e *encoder) field(name string, v any) {
	e.key(name)
	e.value(v, "  ")
	e.end()
}

// values writes a short list of items encoded with encoding/json.
func (e *encoder) values(name string, n int, at func(int) any) {
	e.key(name)
	if n == 0 {
		e.raw("[]")
		e.end()
		return
	}
	e.raw("[\n")
	for i := 0; i < n; i++ {
		e.raw("    ")
		e.value(at(i), "    ")
		if i < n-1 {
			e.raw(",")
		}
		e.raw("\n")
	}
	e.raw("  ]")
	e.end()
}

func (e *encoder) list(name string, l EncodedList) {
	e.key(name)
	if l.Len == 0 {
		e.raw("[]")
		e.end()
		return
	}
	e.raw("[\n")
	if e.err == nil {
		e.err = l.Body(e.w)
	}
	e.raw("\n  ]")
	e.end()
}

// Decode reads a command log and validates it.
func Decode(r io.Reader) (*Log, error) {
	var l Log
	dec := json.NewDecoder(r)
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("decode command log: %w", err)
	}
	if err := Validate(&l); err != nil {
		return nil, err
	}
	l.Normalize()
	return &l, nil
}

// ValidationError lists every problem Validate found.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid command log: %s", joinProblems(e.Problems))
}

func joinProblems(p []string) string {
	var b bytes.Buffer
	for i, s := range p {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// ErrInvalid is wrapped by every Validate error.
var ErrInvalid = errors.New("invalid command log")

// Unwrap lets errors.Is(err, ErrInvalid) classify validation failures.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Validate checks the invariants of schema v1 and reports all problems at
// once.
func Validate(l *Log) error {
	var v Validator
	for i := range l.Markers {
		v.Marker(&l.Markers[i])
	}
	for i := range l.Commands {
		v.Command(&l.Commands[i])
	}
	for i := range l.FileEdits {
		v.FileEdit(&l.FileEdits[i])
	}
	return v.Finish(l)
}

// maxProblems bounds the problems a Validator keeps; the rest are counted.
const maxProblems = 100

// Validator is Validate for a log whose lists arrive one item at a time:
// feed it every item in order, then Finish with the rest of the log.
type Validator struct {
	problems          []string
	more              int // problems past maxProblems
	markers, commands int
	edits             int
}

func (v *Validator) add(format string, a ...any) {
	if len(v.problems) == maxProblems {
		v.more++
		return
	}
	v.problems = append(v.problems, fmt.Sprintf(format, a...))
}

// Marker checks the next marker.
func (v *Validator) Marker(m *Marker) {
	i := v.markers
	v.markers++
	switch m.Kind {
	case MarkerFix, MarkerBlocked, MarkerSuccess, MarkerAdjustedSuccess:
	default:
		v.add("markers[%d]: unknown kind %q", i, m.Kind)
	}
}

// Command checks the next command.
func (v *Validator) Command(c *Command) {
	i := v.commands
	v.commands++
	switch c.Status {
	case StatusOK:
		if c.ExitCode == nil || *c.ExitCode != 0 {
			v.add("commands[%d] (%s): status ok needs exit_code 0", i, c.ID)
		}
	case StatusFailed:
		if c.ExitCode != nil && *c.ExitCode == 0 {
			v.add("commands[%d] (%s): status failed with exit_code 0", i, c.ID)
		}
	case StatusUnknown:
		if c.ExitCode != nil {
			v.add("commands[%d] (%s): status unknown needs exit_code null", i, c.ID)
		}
	default:
		v.add("commands[%d] (%s): unknown status %q", i, c.ID, c.Status)
	}
	if c.Source != nil && (c.Source.File == "" || c.Source.Line < 1) {
		v.add("commands[%d] (%s): source needs a file and a line >= 1", i, c.ID)
	}
	if c.DurationMS != nil && *c.DurationMS < 0 {
		v.add("commands[%d] (%s): negative duration_ms", i, c.ID)
	}
	if c.Environment != nil && c.Environment.Kind == "" {
		v.add("commands[%d] (%s): environment needs a kind", i, c.ID)
	}
	switch c.Planned {
	case "", PlannedStep, PlannedProbe:
	default:
		v.add("commands[%d] (%s): planned %q is not step or probe", i, c.ID, c.Planned)
	}
	if c.Background != nil && c.Background.TimeoutS < 0 {
		v.add("commands[%d] (%s): background timeout_s is negative", i, c.ID)
	}
}

// FileEdit checks the next file edit.
func (v *Validator) FileEdit(e *FileEdit) {
	i := v.edits
	v.edits++
	if e.Path == "" {
		v.add("file_edits[%d]: path is empty", i)
	}
}

// Finish checks l's fields outside the lists (l's lists are ignored) and
// returns every problem found, or nil.
func (v *Validator) Finish(l *Log) error {
	// The fields before the lists are reported first, as they stand in the
	// file.
	items, more := v.problems, v.more
	v.problems, v.more = nil, 0
	if l.SchemaVersion != SchemaVersion {
		v.add("schema_version is %d, want %d", l.SchemaVersion, SchemaVersion)
	}
	if l.Engine == "" {
		v.add("engine is empty")
	}
	switch l.Outcome {
	case OutcomeSuccess, OutcomeFailed, OutcomeBlocked:
	default:
		v.add("outcome %q is not success, failed or blocked", l.Outcome)
	}
	if l.Adjusted && l.Outcome != OutcomeSuccess {
		v.add("adjusted is true but outcome is %q", l.Outcome)
	}
	switch l.OutcomeCause {
	case "":
	case CauseNothingToRun:
		if l.Outcome != OutcomeFailed && l.Outcome != OutcomeBlocked || v.commands > 0 {
			v.add("outcome_cause %q needs outcome failed or blocked and no commands", l.OutcomeCause)
		}
	default:
		v.add("outcome_cause %q is not %s", l.OutcomeCause, CauseNothingToRun)
	}
	for i, sk := range l.Skipped {
		if sk.File == "" || sk.Line < 1 || sk.Reason == "" {
			v.add("skipped[%d]: needs a file, a line >= 1 and a reason", i)
		}
	}
	for i, r := range l.RepoFindings {
		switch r.Action {
		case "flag", "scrub", "remove", "skip":
		default:
			v.add("repo_findings[%d]: unknown action %q", i, r.Action)
		}
		if r.Path == "" {
			v.add("repo_findings[%d]: path is empty", i)
		}
	}
	p := append(v.problems, items...)
	if l.CostUSD != nil && *l.CostUSD < 0 {
		p = append(p, "cost_usd is negative")
	}
	if l.Turns != nil && *l.Turns < 0 {
		p = append(p, "turns is negative")
	}
	if l.DurationMS != nil && *l.DurationMS < 0 {
		p = append(p, "duration_ms is negative")
	}
	if sb := l.Sandbox; sb != nil && (sb.Profile == "" || sb.Disk < 0 || sb.Memory < 0 || sb.CPU < 0 || sb.Pids < 0 || (sb.DiskPeak != nil && *sb.DiskPeak < 0) ||
		sb.Inodes < 0 || (sb.InodesPeak != nil && *sb.InodesPeak < 0)) {
		p = append(p, "sandbox needs a profile and limits that are not negative")
	}
	s := l.ParseStats
	if s.Lines < 0 || s.Malformed < 0 || s.UnknownEvents < 0 || s.Malformed > s.Lines {
		p = append(p, "parse_stats are inconsistent")
	}
	if more > 0 {
		p = append(p, fmt.Sprintf("and %d more", more))
	}
	if len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
}
