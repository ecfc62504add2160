package drift

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Result is one scenario's run and check.
type Result struct {
	Scenario   string
	Rows       []Row
	Log        *commandlog.Log
	Transcript []byte
	Stderr     []byte
	Session    []byte // the CLI's session file, nil when none
	// Err is set when the scenario could not be run or parsed; Rows is then
	// empty and the scenario counts as drifted.
	Err error
}

// Drifted reports whether the scenario differs from its ground truth.
func (r Result) Drifted() bool {
	if r.Err != nil {
		return true
	}
	for _, row := range r.Rows {
		if !row.OK {
			return true
		}
	}
	return false
}

// Report is a whole drift check of one CLI version.
type Report struct {
	Engine  string
	Version string
	Mode    string // "docker (image)" or "host"
	Results []Result
}

// Capabilities are what a CLI version states at all. A missing one is a
// difference of the CLI, not a parser bug, and is reported once as such.
type Capabilities struct {
	// ExitCodes: the CLI states the exit code of a failed command. False
	// when no failed command has one (Claude Code 1.0.x says only "Error").
	ExitCodes bool
	// AgentVersion: the transcript names the CLI version.
	AgentVersion bool
}

// Classify works out the capabilities from every scenario's rows and notes
// the rows a missing capability explains. Call it once all results are in.
func (rep *Report) Classify() Capabilities {
	caps := Capabilities{ExitCodes: true, AgentVersion: true}
	failedWant, stated := 0, 0
	for _, res := range rep.Results {
		for _, row := range res.Rows {
			if isExitCodeRow(row) && row.Want != "null" && row.Want != "0" {
				failedWant++
				if row.Got != "null" {
					stated++
				}
			}
			if row.Field == "agent_version" && row.Got == "null" {
				caps.AgentVersion = false
			}
		}
	}
	if failedWant > 0 && stated == 0 {
		caps.ExitCodes = false
		for i := range rep.Results {
			rows := rep.Results[i].Rows
			for j, row := range rows {
				if isExitCodeRow(row) && !row.OK && row.Got == "null" && row.Want != "0" && statusOK(rows, row) {
					rows[j].Note = NoteExitCodesNotStated
				}
			}
		}
	}
	return caps
}

func isExitCodeRow(r Row) bool { return strings.HasSuffix(r.Field, ".exit_code") }

// statusOK reports whether the status row of the same command matched: a
// command without a stated exit code must still be "failed".
func statusOK(rows []Row, exitRow Row) bool {
	want := strings.TrimSuffix(exitRow.Field, "exit_code") + "status"
	for _, r := range rows {
		if r.Field == want {
			return r.OK
		}
	}
	return false
}

// Drifted reports whether any scenario drifted.
func (rep *Report) Drifted() bool {
	for _, r := range rep.Results {
		if r.Drifted() {
			return true
		}
	}
	return false
}

// First returns the first differing field: the scenario and the row (nil
// row when the scenario failed to run), or ok false when nothing drifted.
func (rep *Report) First() (scenario string, row *Row, err error, ok bool) {
	for _, r := range rep.Results {
		if r.Err != nil {
			return r.Scenario, nil, r.Err, true
		}
		for i := range r.Rows {
			if !r.Rows[i].OK {
				return r.Scenario, &r.Rows[i], nil, true
			}
		}
	}
	return "", nil, nil, false
}

// FirstLine names the first field that changed, e.g.
// `first changed field: agent_version in scenario success: want "1.0.128", got null`.
func (rep *Report) FirstLine() string {
	sc, row, err, ok := rep.First()
	switch {
	case !ok:
		return "no drift"
	case row == nil:
		return fmt.Sprintf("scenario %s could not be checked: %v", sc, err)
	}
	s := fmt.Sprintf("first changed field: %s in scenario %s", row.Field, sc)
	if row.Subject != "" {
		s += fmt.Sprintf(" (%s)", Clip(row.Subject, 60))
	}
	s += fmt.Sprintf(": want %s, got %s", row.Want, row.Got)
	if row.Note != "" {
		s += " [" + row.Note + "]"
	}
	return s
}

// Differences lists what differs, grouped: one line per missing
// capability and per distinct field change, with the scenarios it shows in.
func (rep *Report) Differences() []string {
	type group struct {
		text      string
		count     int
		scenarios []string
	}
	var order []string
	groups := map[string]*group{}
	note := func(key, text, scenario string) {
		g := groups[key]
		if g == nil {
			g = &group{text: text}
			groups[key] = g
			order = append(order, key)
		}
		g.count++
		if len(g.scenarios) == 0 || g.scenarios[len(g.scenarios)-1] != scenario {
			g.scenarios = append(g.scenarios, scenario)
		}
	}
	for _, res := range rep.Results {
		if res.Err != nil {
			note("err:"+res.Scenario, fmt.Sprintf("scenario could not be checked: %v", res.Err), res.Scenario)
			continue
		}
		for _, row := range res.Rows {
			if row.OK {
				continue
			}
			switch row.Note {
			case NoteExitCodesNotStated:
				note(row.Note, "exit codes not stated: failed commands have status failed and exit_code null", res.Scenario)
			case NoteAgentVersionMissing:
				note(row.Note, fmt.Sprintf("agent_version missing: want %s, got null", row.Want), res.Scenario)
			default:
				field := row.Field
				if row.Subject != "" {
					field += " (" + Clip(row.Subject, 60) + ")"
				}
				text := fmt.Sprintf("%s: want %s, got %s", field, row.Want, row.Got)
				note(text, text, res.Scenario)
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		g := groups[k]
		s := g.text
		if g.count > 1 {
			s += fmt.Sprintf(" (%d fields)", g.count)
		}
		out = append(out, s+" — in "+strings.Join(g.scenarios, ", "))
	}
	return out
}

// WriteTables prints one table per scenario: every checked field, want,
// got and a verdict.
func (rep *Report) WriteTables(w io.Writer) {
	for _, res := range rep.Results {
		bad := 0
		for _, r := range res.Rows {
			if !r.OK {
				bad++
			}
		}
		fmt.Fprintf(w, "\n== %s %s, scenario %s (%s): ", rep.Engine, rep.Version, res.Scenario, rep.Mode)
		if res.Err != nil {
			fmt.Fprintf(w, "NOT CHECKED: %v\n", res.Err)
			continue
		}
		fmt.Fprintf(w, "%d fields, %d differ\n", len(res.Rows), bad)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  FIELD\tWANT\tGOT\t")
		for _, r := range res.Rows {
			field := r.Field
			if r.Subject != "" && !strings.HasPrefix(r.Field, "file_edits") {
				field += " " + Clip(r.Subject, 24)
			}
			verdict := "ok"
			if r.Why != "" {
				verdict += " (" + r.Why + ")"
			}
			if !r.OK {
				verdict = "DIFF"
				if r.Note != "" {
					verdict += " (" + r.Note + ")"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", field, Clip(r.Want, 48), Clip(r.Got, 48), verdict)
		}
		tw.Flush()
	}
}

// WriteSummary prints the verdict: no drift, or the first changed field and
// every difference.
func (rep *Report) WriteSummary(w io.Writer, caps Capabilities) {
	if !rep.Drifted() {
		fmt.Fprintf(w, "\nno drift: %s %s matches every expectation in %d scenarios\n", rep.Engine, rep.Version, len(rep.Results))
		return
	}
	fmt.Fprintf(w, "\nDRIFT: %s %s differs from what the parser expects\n", rep.Engine, rep.Version)
	fmt.Fprintf(w, "%s\n", rep.FirstLine())
	fmt.Fprintf(w, "capabilities: exit codes stated: %s; agent version stated: %s\n", yesNo(caps.ExitCodes), yesNo(caps.AgentVersion))
	for _, d := range rep.Differences() {
		fmt.Fprintf(w, "  - %s\n", d)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// DriftedScenarios lists the names of the scenarios that drifted, sorted.
func (rep *Report) DriftedScenarios() []string {
	var out []string
	for _, r := range rep.Results {
		if r.Drifted() {
			out = append(out, r.Scenario)
		}
	}
	sort.Strings(out)
	return out
}
