package drift

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// DiffRow is one field whose value differs between two command logs.
type DiffRow struct {
	Field string
	A, B  string // "absent" when the field exists on one side only
}

// Diff compares two command logs of the same scenario field by field.
// Commands pair by their text (the n-th run of the same text with the n-th:
// ids are not stable across versions for every CLI), edits and markers by
// position. Durations are left out: they differ on every run.
func Diff(a, b *commandlog.Log) []DiffRow {
	fa, fb := flatten(a), flatten(b)
	var out []DiffRow
	seen := map[string]bool{}
	emit := func(k string) {
		if seen[k] {
			return
		}
		seen[k] = true
		va, oka := fa.values[k]
		vb, okb := fb.values[k]
		if !oka {
			va = "absent"
		}
		if !okb {
			vb = "absent"
		}
		if va != vb {
			out = append(out, DiffRow{Field: k, A: va, B: vb})
		}
	}
	for _, k := range fa.keys {
		emit(k)
	}
	for _, k := range fb.keys {
		emit(k)
	}
	return out
}

type flat struct {
	keys   []string
	values map[string]string
}

func (f *flat) set(k, v string) {
	if _, ok := f.values[k]; !ok {
		f.keys = append(f.keys, k)
	}
	f.values[k] = v
}

func flatten(l *commandlog.Log) *flat {
	f := &flat{values: map[string]string{}}
	if l == nil {
		return f
	}
	f.set("agent_version", quotePtr(l.AgentVersion))
	f.set("outcome", string(l.Outcome))
	f.set("outcome_reason", strconv.Quote(l.OutcomeReason))
	f.set("adjusted", strconv.FormatBool(l.Adjusted))
	f.set("markers", markersString(l.Markers))
	f.set("commands", strconv.Itoa(len(l.Commands)))
	seen := map[string]int{}
	for _, c := range l.Commands {
		seen[c.Command]++
		key := Clip(c.Command, 40)
		if n := seen[c.Command]; n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		p := fmt.Sprintf("commands[%s].", key)
		f.set(p+"command", strconv.Quote(c.Command))
		f.set(p+"status", string(c.Status))
		f.set(p+"exit_code", intPtrString(c.ExitCode))
		f.set(p+"output", strconv.Quote(Clip(c.Output, 40)))
		f.set(p+"output_bytes", strconv.Itoa(len(c.Output)))
		f.set(p+"truncated", strconv.FormatBool(c.Truncated))
		if c.ParentID != "" {
			f.set(p+"parent_id", c.ParentID)
		}
	}
	f.set("file_edits", strconv.Itoa(len(l.FileEdits)))
	for i, e := range l.FileEdits {
		f.set(fmt.Sprintf("file_edits[%d]", i), editString(e))
	}
	f.set("cost_usd", floatPtrString(l.CostUSD))
	f.set("turns", intPtrString(l.Turns))
	f.set("parse_stats.lines", strconv.Itoa(l.ParseStats.Lines))
	f.set("parse_stats.malformed", strconv.Itoa(l.ParseStats.Malformed))
	f.set("parse_stats.unknown_events", strconv.Itoa(l.ParseStats.UnknownEvents))
	return f
}

func floatPtrString(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', 6, 64)
}

// WriteDiff prints, per scenario, the fields whose values differ between
// the command logs of version a and version b, side by side.
func WriteDiff(w io.Writer, a, b *Report) {
	fmt.Fprintf(w, "\n== command logs side by side: %s %s | %s\n", a.Engine, a.Version, b.Version)
	byName := map[string]Result{}
	for _, r := range b.Results {
		byName[r.Scenario] = r
	}
	for _, ra := range a.Results {
		rb, ok := byName[ra.Scenario]
		fmt.Fprintf(w, "\n-- scenario %s: ", ra.Scenario)
		if !ok || ra.Log == nil || rb.Log == nil {
			fmt.Fprintln(w, "not compared (a run is missing)")
			continue
		}
		rows := Diff(ra.Log, rb.Log)
		if len(rows) == 0 {
			fmt.Fprintln(w, "identical")
			continue
		}
		fmt.Fprintf(w, "%d fields differ\n", len(rows))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  FIELD\t%s\t%s\t\n", a.Version, b.Version)
		for _, r := range rows {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t\n", r.Field, Clip(r.A, 48), Clip(r.B, 48))
		}
		tw.Flush()
	}
}
