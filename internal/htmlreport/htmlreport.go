// Package htmlreport renders a command log as report.html: one
// self-contained page (no network access needed to view it) with the run's
// verdict, the timeline of commands with their outputs, the FIX list, the
// BLOCKED reason, the agent's README diff, and a small dependency-free
// player for the run's asciicast v2 demo (internal/demo) embedded in the
// page.
//
// Rendering is pure: Render writes the page to a writer and touches nothing
// else. Every string from the log is first made visible by internal/termtext
// (control and hidden characters drawn as ^[ and ‹U+202E›; outputs as a
// terminal shows them). The page is built with html/template, so every string from the log,
// the agent or the diff lands as text in its context; the outputs and the
// cast events travel as JSON inside <script type="application/json">, where
// html/template escapes "<" so "</script>" cannot end the element, and the
// page's script turns them into DOM text nodes, never markup. A
// Content-Security-Policy allows only the page's own script and style (by
// hash) and no network at all. Secrets are redacted before anything is
// rendered: known token shapes, the caller's secret values and, when given,
// the caller's redactor.
//
// The page stays responsive with thousands of commands: outputs are rendered
// only when a command is expanded and on screen, and rows use
// content-visibility so the browser lays out only what is visible.
package htmlreport

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/report"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// FileName is the name the report is written under.
const FileName = "report.html"

// Caps that keep one enormous item from swamping the page. Engines already
// keep outputs to a few KiB; these only bite on hand-made or replayed logs.
const (
	maxOutputBytes  = 64 << 10 // per command output in the page
	maxSummaryChars = 160      // command text in a timeline row's summary
	maxDiffBytes    = 256 << 10
)

// Options adjust the page. The zero value is usable.
type Options struct {
	// Title is the page title; "" gives "readme2demo: <engine> (<outcome>)".
	Title string
	// Readme is the README the run followed, shown in the header.
	Readme string
	// Source names the command log in the footer, e.g. "command_log.json".
	Source string
	// ReadmeDiff is the unified diff of the agent's README edits (the
	// pipeline writes it beside command_log.json as readme.diff), if any.
	ReadmeDiff string
	// Secrets are values to redact besides the known token shapes (the
	// credentials of the run).
	Secrets []string
	// Redact, when set, is applied to every string from the log or the diff
	// before the built-in redaction (pass the run's redactor).
	Redact func(string) string
	// RedactValues, when set, is all the redaction the text of a command
	// mapped to a README line gets (with the secret values): the pipeline
	// redacted it already, and shape rules never rewrite a README command.
	RedactValues func(string) string
	// Width and Height size the player's terminal; 0 gives the demo
	// defaults.
	Width, Height int
}

var (
	//go:embed assets/report.html.tmpl
	pageTemplate string
	//go:embed assets/report.css
	pageCSS string
	//go:embed assets/player.js
	pageJS string

	tmpl = template.Must(template.New("report").Parse(pageTemplate))
	csp  = "default-src 'none'; script-src " + hashSource(pageJS) + "; style-src " + hashSource(pageCSS) +
		"; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
)

// hashSource returns the CSP source that allows exactly this inline text.
func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// WriteFile renders the report of l into dir/report.html, creating dir,
// and returns the file's path.
func WriteFile(dir string, l *commandlog.Log, o Options) (string, error) {
	var buf bytes.Buffer
	if err := Render(&buf, l, o); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create report directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", FileName, err)
	}
	return path, nil
}

// Render writes the HTML report of l to w.
func Render(w io.Writer, l *commandlog.Log, o Options) error {
	if l == nil {
		return fmt.Errorf("render html report: no command log")
	}
	red := redactor(o)
	l = redact.CopyFunc(l, red, valuesRedactor(o))
	visible(l)
	o.ReadmeDiff, o.Readme, o.Source, o.Title = red(o.ReadmeDiff), red(o.Readme), red(o.Source), red(o.Title)
	o.ReadmeDiff, o.Readme, o.Source, o.Title = termtext.Visible(o.ReadmeDiff), termtext.Visible(o.Readme), termtext.Visible(o.Source), termtext.Visible(o.Title)
	p, err := build(l, o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, p); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// page is what the template sees.
type page struct {
	Title, Outcome, Verdict, Readme, Source string
	Engine, Agent, Cost, Turns, Duration    string
	Total, OK, Failed, Unknown              int
	Warning, Reason                         string
	Sandbox                                 string // report.SandboxLine, "" when the log does not say
	Blocked, Fixes, Edited                  []string
	Skipped                                 []skippedRow
	Probes                                  string     // report.ProbesCell: the probes counted, "" when none ran
	FailedProbes                            []probeRow // the probes that failed, each with the hint that makes it a step
	ProbesIntro                             string
	ProbeFailed                             template.HTML // report.ProbeFailed with the run hint as code
	Diff                                    []diffLine
	DiffCut                                 bool
	Commands                                []row
	CastDuration                            string
	Meta                                    meta
	Events                                  [][]castEvent // in chunks of eventChunk
	Outputs                                 [][]string    // in chunks of outputChunk
	CSP                                     string
	CSS                                     template.CSS
	JS                                      template.JS
}

type diffLine struct{ Class, Text string }

// skippedRow is one README command the run did not test.
type skippedRow struct{ Where, Command, Reason string }

// probeRow is one command the run ran on a guess that failed.
type probeRow struct{ Where, Command, Exit string }

// row is one command in the timeline.
type row struct {
	I, N                int // index and number (I+1)
	Status              string
	Summary, Command    string
	Long                bool // the summary does not show the whole command
	Exit, Duration, Src string
	Env                 string // the sandbox limit that made the command fail, with what to change
	// How says how the run ran the command where its text does not (the
	// log's ran, cwd, setup, background), one sentence each; Ran is what
	// ran instead of the command, "" when it ran as written.
	How                  []string
	Ran, RanIntro        string
	Sub, Open, Truncated bool
	Empty                bool // no output
}

// outputChunk is how many outputs share one JSON element: the page parses
// a chunk only when one of its outputs is shown, so a big log costs little
// at load.
const outputChunk = 100

// eventChunk is how many cast events share one JSON element, for the same
// reason: no single huge element for the browser to take in at once.
const eventChunk = 2000

// meta is the small JSON the page's script reads at load; the cast events
// and the outputs sit in their own JSON elements, parsed when needed.
type meta struct {
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	Duration float64   `json:"duration"`
	Marks    []float64 `json:"marks"`
	Chunk    int       `json:"chunk"`
	Count    int       `json:"count"`
	// EventChunk and EventCount locate the cast events (r2d-events-N).
	EventChunk int `json:"event_chunk"`
	EventCount int `json:"event_count"`
}

// sandboxText is the sandbox line, with the warning about keys that were
// in the agent's environment.
func sandboxText(sb *commandlog.Sandbox) string {
	parts := []string{report.SandboxLine(sb)}
	if w := report.KeyWarning(sb); w != "" {
		parts = append(parts, "warning: "+w)
	}
	return strings.TrimPrefix(strings.Join(parts, " · "), " · ")
}

func build(l *commandlog.Log, o Options) (*page, error) {
	p := &page{
		Title: o.Title, Outcome: outcome(l), Verdict: verdict(l), Readme: o.Readme, Source: o.Source,
		Engine: cmp.Or(l.Engine, "unknown"), Agent: "unknown", Reason: l.OutcomeReason, Warning: report.DriftWarning(l.ParseStats),
		CSP: csp, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Sandbox: sandboxText(l.Sandbox),
	}
	p.Cost, p.Turns, p.Duration = report.Figures(l)
	p.OK, p.Failed, p.Unknown = report.Counts(l.Commands)
	if p.Title == "" {
		p.Title = fmt.Sprintf("readme2demo: %s (%s)", l.Engine, p.Outcome)
	}
	p.Source = cmp.Or(p.Source, "command_log.json")
	if l.AgentVersion != nil && *l.AgentVersion != "" {
		p.Agent = *l.AgentVersion
	}
	for _, m := range l.Markers {
		switch m.Kind {
		case commandlog.MarkerBlocked:
			p.Blocked = append(p.Blocked, m.Text)
		case commandlog.MarkerFix:
			p.Fixes = append(p.Fixes, m.Text)
		}
	}
	p.Diff, p.DiffCut = diffLines(o.ReadmeDiff)
	if len(p.Diff) == 0 {
		seen := map[string]bool{}
		for _, e := range l.FileEdits {
			if e.OK && !seen[e.Path] {
				seen[e.Path] = true
				p.Edited = append(p.Edited, e.Path)
			}
		}
	}
	for _, sk := range l.Skipped {
		p.Skipped = append(p.Skipped, skippedRow{Where: fmt.Sprintf("%s:%d", sk.File, sk.Line), Command: sk.Command, Reason: sk.Reason})
	}
	p.Probes, p.ProbesIntro = report.ProbesCell(l.Commands), report.ProbesIntro
	p.ProbeFailed = template.HTML(fmt.Sprintf(html.EscapeString(report.ProbeFailed), "<code>"+html.EscapeString(report.RunHint)+"</code>"))
	for _, c := range l.Commands {
		if c.Planned == commandlog.PlannedProbe && c.Status != commandlog.StatusOK {
			r := commandRow(0, c)
			p.FailedProbes = append(p.FailedProbes, probeRow{Where: r.Src, Command: r.Summary, Exit: r.Exit})
		}
	}
	p.Commands = make([]row, len(l.Commands))
	for i, c := range l.Commands {
		p.Commands[i] = commandRow(i, c)
		if i%outputChunk == 0 {
			p.Outputs = append(p.Outputs, make([]string, 0, min(outputChunk, len(l.Commands)-i)))
		}
		p.Outputs[len(p.Outputs)-1] = append(p.Outputs[len(p.Outputs)-1], clipOutput(c.Output))
	}
	p.Total = len(l.Commands)

	var cast bytes.Buffer
	if err := demo.Cast(&cast, l, demo.Options{Title: p.Title, Width: o.Width, Height: o.Height, Secrets: o.Secrets}); err != nil {
		return nil, fmt.Errorf("render html report: %w", err)
	}
	cd, err := parseCast(cast.Bytes(), len(l.Commands))
	if err != nil {
		return nil, fmt.Errorf("render html report: %w", err)
	}
	p.Meta = meta{Width: cd.Width, Height: cd.Height, Duration: cd.Duration, Marks: cd.Marks,
		Chunk: outputChunk, Count: len(l.Commands), EventChunk: eventChunk, EventCount: len(cd.Events)}
	for i := 0; i < len(cd.Events); i += eventChunk {
		p.Events = append(p.Events, cd.Events[i:min(i+eventChunk, len(cd.Events))])
	}
	p.CastDuration = fmt.Sprintf("%.2f", cd.Duration)
	return p, nil
}

func commandRow(i int, c commandlog.Command) row {
	r := row{I: i, N: i + 1, Status: string(c.Status), Command: c.Command, Exit: "exit code unknown", Duration: "",
		Sub: c.ParentID != "", Truncated: c.Truncated, Empty: c.Output == ""}
	switch c.Status {
	case commandlog.StatusOK, commandlog.StatusFailed:
	default:
		r.Status = string(commandlog.StatusUnknown)
	}
	r.Open = r.Status != string(commandlog.StatusOK)
	first, rest, multi := strings.Cut(strings.TrimSpace(c.Command), "\n")
	r.Summary = first
	if utf8.RuneCountInString(first) > maxSummaryChars {
		r.Summary = string([]rune(first)[:maxSummaryChars]) + "…"
		r.Long = true
	} else if multi && strings.TrimSpace(rest) != "" {
		r.Summary += " …"
		r.Long = true
	}
	if c.ExitCode != nil {
		r.Exit = report.ExitText(c)
	}
	if c.DurationMS != nil {
		r.Duration = report.FormatDuration(*c.DurationMS)
	}
	if c.Source != nil {
		r.Src = fmt.Sprintf("%s:%d", c.Source.File, c.Source.Line)
	}
	if c.Environment != nil {
		r.Env = "sandbox limit (" + c.Environment.Kind + "): " + c.Environment.Detail
	}
	if r.Ran = c.Ran; r.Ran != "" {
		r.RanIntro = "It ran as:"
		if commandlog.UsesCheckout(r.Ran) {
			r.RanIntro = "It ran as (" + commandlog.CheckoutVar + " is the checkout under test):"
		}
	}
	r.How = howRan(c)
	return r
}

// howRan says, one sentence each, how the run ran c where its text does
// not: the cwd and setup hints, and a command left running in the
// background.
func howRan(c commandlog.Command) []string {
	var how []string
	if c.Cwd != "" {
		how = append(how, "Ran in "+c.Cwd+" (its block's cwd hint).")
	}
	if c.Setup != "" {
		how = append(how, "After its block's setup hint: "+c.Setup)
	}
	if c.LeaveCwd {
		how = append(how, "After it, the run went back to where it was before its block's cwd hint.")
	}
	if g := c.Background; g != nil {
		switch {
		case g.Ready != "":
			how = append(how, fmt.Sprintf("Left running in the background; the run waited up to %d s for %s to succeed.", g.TimeoutS, g.Ready))
		default:
			how = append(how, "Left running in the background.")
		}
	}
	return how
}

// clipOutput keeps the head and tail of an output too big for the page and
// says so on a line of its own, as the engines' truncation does.
func clipOutput(s string) string {
	if len(s) <= maxOutputBytes {
		return s
	}
	head, tail := s[:maxOutputBytes*3/4], s[len(s)-maxOutputBytes/4:]
	for len(head) > 0 && !utf8.RuneStart(head[len(head)-1]) {
		head = head[:len(head)-1]
	}
	if len(head) > 0 && !utf8.ValidString(head[len(head)-1:]) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[... readme2demo: %d bytes of output omitted from this page; command_log.json has them ...]\n%s",
		head, len(s)-len(head)-len(tail), tail)
}

// diffLines classifies the lines of a unified diff for colouring.
func diffLines(diff string) ([]diffLine, bool) {
	if strings.TrimSpace(diff) == "" {
		return nil, false
	}
	cut := false
	if len(diff) > maxDiffBytes {
		diff = diff[:maxDiffBytes]
		for len(diff) > 0 && !utf8.RuneStart(diff[len(diff)-1]) {
			diff = diff[:len(diff)-1]
		}
		cut = true
	}
	var out []diffLine
	for _, line := range strings.SplitAfter(strings.TrimRight(diff, "\n")+"\n", "\n") {
		if line == "" {
			continue
		}
		class := "ctx"
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "):
			class = "file"
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
		case strings.HasPrefix(line, "+"):
			class = "add"
		case strings.HasPrefix(line, "-"):
			class = "del"
		}
		out = append(out, diffLine{Class: class, Text: line})
	}
	return out, cut
}

// outcome is the page's one-word verdict: success, adjusted, failed or
// blocked.
func outcome(l *commandlog.Log) string {
	switch {
	case l.Outcome == commandlog.OutcomeSuccess && l.Adjusted:
		return "adjusted"
	case l.Outcome == commandlog.OutcomeSuccess:
		return "success"
	case l.Outcome == commandlog.OutcomeBlocked:
		return "blocked"
	default:
		return "failed"
	}
}

// verdict is report.Verdict without its emoji.
func verdict(l *commandlog.Log) string {
	_, v, _ := strings.Cut(report.Verdict(l), " ")
	return v
}

// visible makes every string of l (a copy) safe to show on the page, in
// place: command outputs as a terminal shows them, colours kept for the
// player (termtext.Output), everything else with its control and hidden
// characters drawn visibly (termtext.Visible). No raw C0 or C1 control,
// and no hidden character, reaches the page, as text or as a JSON escape.
func visible(l *commandlog.Log) {
	commandlog.MapStrings(l, func(f commandlog.Field, s string) string {
		if f.Name == "output" {
			return termtext.Output(s)
		}
		return termtext.Visible(s)
	})
}

// redactor returns the redaction applied to every string on the page: the
// caller's redactor first, then the secret values and known token shapes.
func redactor(o Options) func(string) string {
	r := redact.New(o.Secrets)
	return func(v string) string {
		if o.Redact != nil {
			v = o.Redact(v)
		}
		return r.String(v)
	}
}

// valuesRedactor is the redaction of README-mapped commands, or nil.
func valuesRedactor(o Options) func(string) string {
	if o.RedactValues == nil {
		return nil
	}
	r := redact.New(o.Secrets)
	return func(v string) string { return r.Values(o.RedactValues(v)) }
}
