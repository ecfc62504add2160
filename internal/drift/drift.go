// Package drift checks an agent CLI version against readme2demo's parser at
// no LLM cost: it drives the REAL CLI with scripted scenarios through
// internal/mockllm, parses each transcript with the engine, and compares the
// command log with what the scenario makes true (the commands run, their exit
// codes and statuses, the markers, the outcome, cost and turns present or
// null, no unknown or malformed records).
//
// Files:
//   - drift.go: the types (Scenario, Expect, Row, Result, Report) and Check.
//   - scenarios.go: the scenarios and their ground truth, per engine.
//   - report.go: capabilities, the per-scenario tables and the summary.
//   - diff.go: the side-by-side diff of two versions' command logs.
//   - runner.go: running the scenarios (on the host or in the Docker sandbox).
//   - image.go: the image holding a given CLI version, and `latest`.
package drift

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/mockllm"
)

// Scenario is one scripted conversation and what must follow from it.
type Scenario struct {
	Name string
	Mock mockllm.Scenario
	// Kill: the CLI is killed mid-command, CaptureKillAfter after the mock
	// served the last scripted turn.
	Kill   bool
	Expect Expect
}

// Expect is the ground truth of a scenario, as command_log.json must show it.
type Expect struct {
	AgentVersion string // the CLI version under test
	Commands     []ExpectCommand
	FileEdits    []commandlog.FileEdit
	Markers      []commandlog.Marker
	Outcome      commandlog.Outcome
	Adjusted     bool
	// Final: the run ends with the CLI's own result record, so cost, turns
	// and duration are present; without one (killed) they must be null.
	Final bool
}

// Match says how a command's output is compared.
type Match int

// Output comparisons.
const (
	MatchExact    Match = iota // output == Output
	MatchContains              // output contains Output
	MatchPrefix                // output starts with Output
)

// ExpectCommand is one command the scenario runs.
type ExpectCommand struct {
	Command string
	// Exit is the exit code the shell gives the command; nil means the
	// command never finished (killed), so status unknown and exit_code null.
	Exit      *int
	Output    string
	Match     Match
	Truncated bool
}

// Status is the status the command must have.
func (c ExpectCommand) Status() commandlog.Status {
	switch {
	case c.Exit == nil:
		return commandlog.StatusUnknown
	case *c.Exit == 0:
		return commandlog.StatusOK
	}
	return commandlog.StatusFailed
}

// Row is one checked field of one scenario's command log.
type Row struct {
	Field   string // e.g. "agent_version", "commands[2].exit_code"
	Subject string // what the field belongs to, e.g. the command text
	Want    string
	Got     string
	OK      bool
	// Note classifies a difference, e.g. NoteExitCodesNotStated.
	Note string
}

// Notes that classify a difference as a missing capability of the CLI
// rather than a parser bug.
const (
	NoteExitCodesNotStated  = "exit codes not stated"
	NoteAgentVersionMissing = "agent_version missing"
)

// Check compares a parsed command log with the scenario's ground truth and
// returns one row per checked field, in a fixed order (the first differing
// row is "the first field that changed").
func Check(e Expect, l *commandlog.Log) []Row {
	var rows []Row
	add := func(field, subject, want, got string) {
		rows = append(rows, Row{Field: field, Subject: subject, Want: want, Got: got, OK: want == got})
	}
	add("parse_stats.malformed", "", "0", strconv.Itoa(l.ParseStats.Malformed))
	add("parse_stats.unknown_events", "", "0", strconv.Itoa(l.ParseStats.UnknownEvents))
	add("agent_version", "", quote(e.AgentVersion), quotePtr(l.AgentVersion))
	if rows[len(rows)-1].Got == "null" {
		rows[len(rows)-1].Note = NoteAgentVersionMissing
	}
	add("commands", "", strconv.Itoa(len(e.Commands)), strconv.Itoa(len(l.Commands)))
	for i, want := range e.Commands {
		f := func(name string) string { return fmt.Sprintf("commands[%d].%s", i, name) }
		subject := want.Command
		if i >= len(l.Commands) {
			add(f("command"), subject, quote(want.Command), "missing")
			continue
		}
		got := l.Commands[i]
		add(f("command"), subject, quote(want.Command), quote(got.Command))
		add(f("status"), subject, string(want.Status()), string(got.Status))
		add(f("exit_code"), subject, intPtrString(want.Exit), intPtrString(got.ExitCode))
		add(f("output"), subject, matchWant(want), matchGot(want, got.Output))
		add(f("truncated"), subject, strconv.FormatBool(want.Truncated), strconv.FormatBool(got.Truncated))
	}
	add("file_edits", "", strconv.Itoa(len(e.FileEdits)), strconv.Itoa(len(l.FileEdits)))
	for i, want := range e.FileEdits {
		field := fmt.Sprintf("file_edits[%d]", i)
		got := "missing"
		if i < len(l.FileEdits) {
			got = editString(l.FileEdits[i])
		}
		add(field, want.Path, editString(want), got)
	}
	add("markers", "", markersString(e.Markers), markersString(l.Markers))
	add("outcome", "", string(e.Outcome), string(l.Outcome))
	add("adjusted", "", strconv.FormatBool(e.Adjusted), strconv.FormatBool(l.Adjusted))
	presence := func(final bool) string {
		if final {
			return "present"
		}
		return "null"
	}
	want := presence(e.Final)
	add("cost_usd", "", want, presence(l.CostUSD != nil))
	add("turns", "", want, presence(l.Turns != nil))
	add("duration_ms", "", want, presence(l.DurationMS != nil))
	return rows
}

func quote(s string) string { return strconv.Quote(s) }

func quotePtr(s *string) string {
	if s == nil {
		return "null"
	}
	return quote(*s)
}

func intPtrString(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

func editString(e commandlog.FileEdit) string {
	ok := "ok"
	if !e.OK {
		ok = "failed"
	}
	return fmt.Sprintf("%s %s %s", e.Tool, e.Path, ok)
}

func markersString(ms []commandlog.Marker) string {
	if len(ms) == 0 {
		return "none"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = string(m.Kind)
		if m.Text != "" {
			parts[i] += ": " + m.Text
		}
	}
	return strings.Join(parts, " | ")
}

// matchWant and matchGot render an output comparison so that equal strings
// mean a match: the want side names the rule, the got side repeats it when
// the output satisfies it and shows (a clip of) the output otherwise.
func matchWant(c ExpectCommand) string {
	switch c.Match {
	case MatchContains:
		return "contains " + quote(c.Output)
	case MatchPrefix:
		return "starts with " + quote(c.Output)
	}
	return quote(c.Output)
}

func matchGot(c ExpectCommand, out string) string {
	ok := false
	switch c.Match {
	case MatchContains:
		ok = strings.Contains(out, c.Output)
	case MatchPrefix:
		ok = strings.HasPrefix(out, c.Output)
	default:
		ok = out == c.Output
	}
	if ok {
		return matchWant(c)
	}
	return quote(Clip(out, 60))
}

// Clip shortens s to about n bytes, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Evaluate parses a scenario's transcript with the engine's parser and
// checks the command log against the scenario's ground truth.
func Evaluate(eng engines.AgentEngine, sc Scenario, transcript, stderr []byte) Result {
	res := Result{Scenario: sc.Name, Transcript: transcript, Stderr: stderr}
	l, err := eng.ParseTranscript(bytes.NewReader(transcript))
	if err != nil {
		res.Err = fmt.Errorf("parse transcript: %w", err)
		return res
	}
	res.Log = l
	res.Rows = Check(sc.Expect, l)
	if u, total := engines.Understood(l); len(bytes.TrimSpace(transcript)) > 0 && engines.Misunderstood(u, total) {
		// The parser did not understand this CLI's transcript at all (what
		// `readme2demo parse` refuses with exit status 4): the first drift.
		// (An empty transcript is no format at all; the rows say what is
		// missing.)
		res.Rows = append([]Row{{Field: "transcript", Subject: eng.Name(),
			Want: "understood by the " + eng.Name() + " parser", Got: fmt.Sprintf("%d of %d records understood", u, total)}}, res.Rows...)
	}
	return res
}
