// Package drift checks an agent CLI version against readme2demo's parser at
// no LLM cost: it drives the REAL CLI with scripted scenarios through
// internal/scriptedllm, parses each transcript with the engine, and compares the
// command log with what the scenario makes true (the commands run, their exit
// codes and statuses, the file edits, the markers, the outcome, cost, turns
// and duration present or null, no unknown or malformed records), as far as
// the engine's CLI states it (Profile).
//
// Files:
//   - drift.go: the types (Scenario, Expect, Row) and Check.
//   - scenarios.go: the scenarios, their ground truth and the engine profiles.
//   - report.go: capabilities, the per-scenario tables and the summary.
//   - diff.go: the side-by-side diff of two versions' command logs.
//   - capture.go: Capture, one real CLI run on the host against a fresh
//     scripted server, its temporary root rewritten (see CAPTURES.md).
//   - runner.go: running the scenarios (on the host or in the Docker sandbox).
//   - session.go: a whole check of one engine (RunCheck) or several
//     (RunChecks), and the artifacts of each version.
//   - summary.go: drift.json (what was checked, read by pin) and the
//     markdown report.
//   - issue.go: the one drift issue per engine.
//   - image.go: the image holding a given CLI version, and `latest`.
//
// The real-CLI tests (*_capture_test.go, helpers in capture_test.go) run the
// pinned CLIs through Capture and, with -capture (or R2D_CAPTURE=1), rewrite
// the committed testdata/fixtures/<engine>/real-* captures.
package drift

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// Scenario is one scripted conversation and what must follow from it.
type Scenario struct {
	Name string
	Mock scriptedllm.Scenario
	// Kill: the CLI is killed mid-command, CaptureKillAfter after the mock
	// served the last scripted turn.
	Kill   bool
	Expect Expect
}

// Expect is the ground truth of a scenario, as command_log.json must show it.
type Expect struct {
	// AgentVersion is the CLI version under test; "" when the CLI does not
	// name it (agent_version must be null, AgentVersionWhy says why).
	AgentVersion    string
	AgentVersionWhy string
	Commands        []ExpectCommand
	FileEdits       []commandlog.FileEdit
	Markers         []commandlog.Marker
	Outcome         commandlog.Outcome
	Adjusted        bool
	// Cost, Turns and Duration say whether cost_usd, turns and duration_ms
	// are present (a CLI states them in its final record, which a killed run
	// lacks) or null; the Why fields say why one is null for this CLI.
	Cost, Turns, Duration          bool
	CostWhy, TurnsWhy, DurationWhy string
}

// Match says how a command's output is compared.
type Match int

// Output comparisons.
const (
	MatchExact    Match = iota // output == Output, trailing newlines aside
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
	// Why says why Want is not the plain ground truth: what the engine's CLI
	// does not state (its Profile), e.g. "codex states no cost".
	Why string
}

// Notes that classify a difference as a missing capability of the CLI
// rather than a parser bug.
const (
	NoteExitCodesNotStated  = "exit codes not stated"
	NoteAgentVersionMissing = "agent_version missing"
)

// Check compares a parsed command log with the scenario's ground truth and
// returns one row per checked field, in a fixed order (the first differing
// row is "the first field that changed"). Commands are paired by their text
// (in order, so a CLI that finishes parallel calls in another order still
// matches), then the unpaired ones by position.
func Check(e Expect, l *commandlog.Log) []Row {
	var rows []Row
	add := func(field, subject, want, got, why string) {
		rows = append(rows, Row{Field: field, Subject: subject, Want: want, Got: got, OK: want == got, Why: why})
	}
	add("parse_stats.malformed", "", "0", strconv.Itoa(l.ParseStats.Malformed), "")
	add("parse_stats.unknown_events", "", "0", strconv.Itoa(l.ParseStats.UnknownEvents), "")
	wantVersion := "null"
	if e.AgentVersion != "" {
		wantVersion = strconv.Quote(e.AgentVersion)
	}
	add("agent_version", "", wantVersion, quotePtr(l.AgentVersion), e.AgentVersionWhy)
	if r := &rows[len(rows)-1]; r.Got == "null" && !r.OK {
		r.Note = NoteAgentVersionMissing
	}
	add("commands", "", strconv.Itoa(len(e.Commands)), strconv.Itoa(len(l.Commands)), "")
	pair := pairCommands(e.Commands, l.Commands)
	for i, want := range e.Commands {
		f := func(name string) string { return fmt.Sprintf("commands[%d].%s", i, name) }
		subject := want.Command
		if pair[i] < 0 {
			add(f("command"), subject, strconv.Quote(want.Command), "missing", "")
			continue
		}
		got := l.Commands[pair[i]]
		add(f("command"), subject, strconv.Quote(want.Command), strconv.Quote(got.Command), "")
		add(f("status"), subject, string(want.Status()), string(got.Status), "")
		add(f("exit_code"), subject, intPtrString(want.Exit), intPtrString(got.ExitCode), "")
		add(f("output"), subject, matchWant(want), matchGot(want, got.Output), "")
		add(f("truncated"), subject, strconv.FormatBool(want.Truncated), strconv.FormatBool(got.Truncated), "")
	}
	add("file_edits", "", strconv.Itoa(len(e.FileEdits)), strconv.Itoa(len(l.FileEdits)), "")
	for i, want := range e.FileEdits {
		field := fmt.Sprintf("file_edits[%d]", i)
		got := "missing"
		if i < len(l.FileEdits) {
			got = editString(l.FileEdits[i])
		}
		add(field, want.Path, editString(want), got, "")
	}
	add("markers", "", markersString(e.Markers), markersString(l.Markers), "")
	add("outcome", "", string(e.Outcome), string(l.Outcome), "")
	add("adjusted", "", strconv.FormatBool(e.Adjusted), strconv.FormatBool(l.Adjusted), "")
	presence := func(present bool) string {
		if present {
			return "present"
		}
		return "null"
	}
	add("cost_usd", "", presence(e.Cost), presence(l.CostUSD != nil), e.CostWhy)
	add("turns", "", presence(e.Turns), presence(l.Turns != nil), e.TurnsWhy)
	add("duration_ms", "", presence(e.Duration), presence(l.DurationMS != nil), e.DurationWhy)
	return rows
}

// pairCommands returns, for each wanted command, the index of the logged
// command it is checked against, or -1: first the next unused logged
// command with the same text, then, in order, the logged commands left over.
func pairCommands(want []ExpectCommand, got []commandlog.Command) []int {
	pair := make([]int, len(want))
	used := make([]bool, len(got))
	for i, w := range want {
		pair[i] = -1
		for j, g := range got {
			if !used[j] && g.Command == w.Command {
				pair[i], used[j] = j, true
				break
			}
		}
	}
	next := 0
	for i := range want {
		if pair[i] >= 0 {
			continue
		}
		for next < len(got) && used[next] {
			next++
		}
		if next < len(got) {
			pair[i], used[next] = next, true
		}
	}
	return pair
}

func quotePtr(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
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
		return "contains " + strconv.Quote(c.Output)
	case MatchPrefix:
		return "starts with " + strconv.Quote(c.Output)
	}
	return strconv.Quote(c.Output)
}

func matchGot(c ExpectCommand, out string) string {
	ok := false
	switch c.Match {
	case MatchContains:
		ok = strings.Contains(out, c.Output)
	case MatchPrefix:
		ok = strings.HasPrefix(out, c.Output)
	default:
		// A trailing newline is the CLI's presentation, not the output's.
		ok = strings.TrimRight(out, "\n") == c.Output
	}
	if ok {
		return matchWant(c)
	}
	return strconv.Quote(Clip(out, 60))
}

// Clip shortens s to about n bytes, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Evaluate parses a scenario's transcript with the engine's parser (or a
// test double), merges the CLI's session file into the log when the engine
// reads one (engines.SessionMerger, as `readme2demo run` does), and checks
// the command log against the scenario's ground truth.
func Evaluate(eng engines.AgentEngine, sc Scenario, out Output) Result {
	transcript := out.Transcript
	res := Result{Scenario: sc.Name, Transcript: transcript, Stderr: out.Stderr, Session: out.Session}
	l, err := eng.ParseTranscript(bytes.NewReader(transcript))
	if err != nil {
		res.Err = fmt.Errorf("parse transcript: %w", err)
		return res
	}
	u, total := engines.Understood(l)
	if m, ok := eng.(engines.SessionMerger); ok && len(bytes.TrimSpace(out.Session)) > 0 {
		if _, err := m.MergeSession(l, bytes.NewReader(out.Session)); err != nil {
			res.Err = fmt.Errorf("merge session file: %w", err)
			return res
		}
	}
	res.Log = l
	res.Rows = Check(sc.Expect, l)
	if len(bytes.TrimSpace(transcript)) > 0 && engines.Misunderstood(u, total) {
		// The parser did not understand this CLI's transcript at all (what
		// `readme2demo parse` refuses with exit status 4): the first drift.
		// (An empty transcript is no format at all; the rows say what is
		// missing.)
		res.Rows = append([]Row{{Field: "transcript", Subject: eng.Name(),
			Want: "understood by the " + eng.Name() + " parser", Got: fmt.Sprintf("%d of %d records understood", u, total)}}, res.Rows...)
	}
	return res
}
