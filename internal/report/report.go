// Package report renders a command log (command_log.json) as GitHub
// markdown: the job summary, the PR comment and `readme2demo report`.
//
// Rendering is pure: Render takes a log and options and returns a string; it
// writes nothing and calls no API (the Action does that). Every piece of text
// that came from the agent or from the commands it ran is escaped for the
// context it lands in, so a README that prints ``` or </details> or an
// image link cannot break or weaponise the page. Unknown numbers (cost,
// turns, duration) read "unknown", never $0.00. The result never exceeds
// Options.MaxBytes: when the log is too big, whole rows and outputs are left
// out and a note says how many, pointing at the artifact.
package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// Size caps. GitHub rejects a job summary over 1 MiB and a comment over
// 65,536 characters; both caps stay well below, leaving room for the marker
// and anything else the caller appends.
const (
	SummaryMaxBytes = 512 << 10
	CommentMaxBytes = 60_000
)

// Per-item caps, so that one enormous command cannot crowd out the rest.
const (
	maxCommandCell  = 300
	maxOutputBytes  = 6 << 10
	maxFixes        = 50
	maxFixBytes     = 600
	maxReasonBytes  = 1000
	maxDiffBytes    = 16 << 10
	footerReserve   = 1200 // bytes kept free for the size note and the footer
	minTableReserve = 200
)

// Options adjust what Render shows. The zero value is usable.
type Options struct {
	// MaxBytes caps the size of the result; 0 means SummaryMaxBytes.
	MaxBytes int
	// Title is the heading's prefix; "" means "readme2demo".
	Title string
	// Readme is the README the run followed, shown in the heading.
	Readme string
	// RunURL links to the workflow run (where the artifact is listed).
	RunURL string
	// ArtifactName is the name of the uploaded artifact, if any.
	ArtifactName string
	// BlobURL, when set, turns README line numbers into links: a command at
	// README.md:12 links to BlobURL + "README.md#L12". It should end in "/"
	// (for example https://github.com/o/r/blob/<sha>/).
	BlobURL string
	// ReadmeDiff is a unified diff of the README edits the agent made (the
	// pipeline writes it beside command_log.json as readme.diff). The command
	// log itself only lists which files were edited.
	ReadmeDiff string
	// Redact, when set, is applied to every string taken from the log or
	// the diff (pass the run's redactor, which knows the forwarded secret
	// values). Known token shapes are always redacted.
	Redact func(string) string
	// RedactValues, when set, replaces Redact and the shape rules for the
	// text of commands mapped to a README line: they were redacted by the
	// pipeline already and shape rules never rewrite a README command
	// (pass the run's (*redact.Redactor).Values).
	RedactValues func(string) string
	// Fix, when set, is what became of the README edit (suggestions, a fix
	// pull request, or why not): shown instead of the whole diff.
	Fix *Fix
}

// Render returns the markdown report of l.
func Render(l *commandlog.Log, o Options) string {
	r := renderer{log: l, o: o, shapes: newShapes()}
	if r.o.MaxBytes <= 0 {
		r.o.MaxBytes = SummaryMaxBytes
	}
	r.o.Title = cmp.Or(r.o.Title, "readme2demo")
	return r.render()
}

type renderer struct {
	log    *commandlog.Log
	o      Options
	shapes *redact.Redactor
}

// cmd is a command's text made safe to publish: see Options.RedactValues.
func (r *renderer) cmd(c commandlog.Command) string {
	if c.Source != nil && r.o.RedactValues != nil {
		return r.o.RedactValues(c.Command)
	}
	return r.s(c.Command)
}

// s makes a string from the log safe to publish: the caller's redactor,
// then the known token shapes.
func (r *renderer) s(v string) string {
	if r.o.Redact != nil {
		v = r.o.Redact(v)
	}
	return r.shapes.String(v)
}

func (r *renderer) render() string {
	l := r.log
	var head strings.Builder
	head.WriteString(r.heading())
	head.WriteString(r.reasons())
	head.WriteString(r.metrics())
	head.WriteString(r.sandbox())
	head.WriteString(r.fixes())
	head.WriteString(r.readmeFix())
	head.WriteString(r.repoFiles())
	footer := r.footer()

	budget := r.o.MaxBytes - footerReserve - len(footer)
	out := head.String()
	if len(out) > budget {
		// Only pathological marker text gets here: the per-item caps keep the
		// head small. Cut it rather than exceed the cap.
		out = clip(out, max(0, budget)) + "\n\n"
	}
	rest := budget - len(out)

	// Commands table first (up to 60% of what is left), then the outputs of
	// failed commands, then any table rows that still fit.
	failed := l.Failed()
	tableBudget := rest
	if len(failed) > 0 {
		tableBudget = max(minTableReserve, rest*6/10)
	}
	table, shownRows := r.commandTable(tableBudget, false)
	if shownRows < len(l.Commands) {
		// Not every row fits: the failed and unknown ones matter most.
		table, shownRows = r.commandTable(tableBudget, true)
	}
	rest -= len(table)
	outputs, shownOutputs := r.failedOutputs(failed, rest)
	rest -= len(outputs)
	if shownRows < len(l.Commands) && rest > minTableReserve {
		table, shownRows = r.commandTable(len(table)+rest, true)
	}
	out += table + outputs
	if _, failed := ProbeCounts(l.Commands); failed > 0 {
		probes, _ := r.probeList(max(0, budget-len(out)-300))
		out += probes
	}
	if len(l.Skipped) > 0 {
		skipped, _ := r.skippedList(max(0, budget-len(out)-300))
		out += skipped
	}
	if shownRows < len(l.Commands) || shownOutputs < len(failed) {
		out += fmt.Sprintf("> [!NOTE]\n> This report was shortened to fit GitHub's size limit: %d of %d commands and %d of %d failed outputs are shown. The full log is `command_log.json` in the run's artifact.\n\n",
			shownRows, len(l.Commands), shownOutputs, len(failed))
	}
	out += footer
	if len(out) > r.o.MaxBytes { // a last guard; never expected
		out = clip(out, r.o.MaxBytes-len("…"))
	}
	return out
}

// NothingToRun reports a keyless run that found no README command to run:
// a no-commands case, not a failed README, though schema v1 makes its
// outcome "failed" (or "blocked", where the README's commands need what
// the sandbox lacks). The log says so as a fact, its outcome_cause.
func NothingToRun(l *commandlog.Log) bool {
	return l.OutcomeCause == commandlog.CauseNothingToRun
}

// Verdict is the one-line verdict for a log, such as "✅ The README works".
func Verdict(l *commandlog.Log) string {
	switch {
	case NothingToRun(l) && l.Outcome != commandlog.OutcomeBlocked:
		return "⚪ Nothing to run: no README command to test"
	case l.Outcome == commandlog.OutcomeSuccess && l.Adjusted:
		return "⚠️ The README works, with adjustments"
	case l.Outcome == commandlog.OutcomeSuccess && onlyGuesses(l):
		// No step failed because none ran: the success rests on guesses,
		// and some failed. Not the README's failure (a guess never fails
		// the run), not a claim that it works.
		passed, failed := ProbeCounts(l.Commands)
		return fmt.Sprintf("⚠️ No step found: only guesses ran, %d passed and %d failed", passed, failed)
	case l.Outcome == commandlog.OutcomeSuccess:
		return "✅ The README works"
	case l.Outcome == commandlog.OutcomeBlocked && slices.ContainsFunc(l.Markers, func(m commandlog.Marker) bool { return m.Kind == commandlog.MarkerBlocked }):
		return "⛔ Blocked: the agent could not proceed"
	case l.Outcome == commandlog.OutcomeBlocked:
		// Blocked without an agent's BLOCKED line: the keyless runner met
		// a limit of the sandbox, or could check no step.
		return "⛔ Blocked: the README could not be checked here"
	default:
		return "❌ The README did not work"
	}
}

func (r *renderer) heading() string {
	h := fmt.Sprintf("## %s: %s\n\n", r.o.Title, Verdict(r.log))
	if r.o.Readme != "" {
		h += fmt.Sprintf("Followed %s from a fresh checkout", codeSpan(r.o.Readme))
		if r.log.Adjusted {
			h += "; it worked only after the deviations listed below (`ADJUSTED_SUCCESS`)"
		}
		h += ".\n\n"
	} else if r.log.Adjusted {
		h += "It worked only after the deviations listed below (`ADJUSTED_SUCCESS`).\n\n"
	}
	return h
}

func (r *renderer) reasons() string {
	var b strings.Builder
	for _, m := range r.log.Markers {
		if m.Kind == commandlog.MarkerBlocked {
			fmt.Fprintf(&b, "**Blocked:** %s\n\n", Text(clip(r.s(m.Text), maxReasonBytes)))
		}
	}
	if r.log.OutcomeReason != "" {
		fmt.Fprintf(&b, "**Why:** %s\n\n", Text(clip(r.s(r.log.OutcomeReason), maxReasonBytes)))
	}
	return b.String()
}

func (r *renderer) metrics() string {
	l := r.log
	agent := "unknown"
	if l.AgentVersion != nil && *l.AgentVersion != "" {
		agent = codeSpan(clip(r.s(*l.AgentVersion), 80))
	}
	cost, turns, dur := Figures(l)
	ok, failed, unknown := Counts(l.Commands)
	cmds := fmt.Sprintf("%d run · %d ok · %d failed", len(l.Commands), ok, failed)
	if unknown > 0 {
		cmds += fmt.Sprintf(" · %d unknown", unknown)
	}
	cmds += ProbesCell(l.Commands)
	if len(l.Skipped) > 0 {
		cmds += fmt.Sprintf(" · %d not tested", len(l.Skipped))
	}
	var b strings.Builder
	b.WriteString("| Engine | Agent version | Cost | Turns | Duration | Commands |\n")
	b.WriteString("| --- | --- | --: | --: | --: | --- |\n")
	fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n\n", codeSpan(clip(r.s(l.Engine), 80)), agent, cost, turns, dur, cmds)
	if w := DriftWarning(l.ParseStats); w != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s\n\n", w)
	}
	return b.String()
}

// Figures are a log's cost, turns and duration as the reports show them:
// "unknown" where the log does not say.
func Figures(l *commandlog.Log) (cost, turns, duration string) {
	cost, turns, duration = "unknown", "unknown", "unknown"
	if l.CostUSD != nil {
		cost = fmt.Sprintf("$%.4f", *l.CostUSD)
	}
	if l.Turns != nil {
		turns = fmt.Sprint(*l.Turns)
	}
	if l.DurationMS != nil {
		duration = FormatDuration(*l.DurationMS)
	}
	return cost, turns, duration
}

// Counts returns how many of cmds are ok, failed and unknown.
func Counts(cmds []commandlog.Command) (ok, failed, unknown int) {
	for _, c := range cmds {
		switch c.Status {
		case commandlog.StatusOK:
			ok++
		case commandlog.StatusFailed:
			failed++
		default:
			unknown++
		}
	}
	return ok, failed, unknown
}

// RunHint is the README hint that makes the keyless plan run a block as
// steps.
const RunHint = "<!-- readme2demo: run -->"

// onlyGuesses reports a keyless run in which every command was a probe
// and one of them failed.
func onlyGuesses(l *commandlog.Log) bool {
	if len(l.Commands) == 0 || slices.ContainsFunc(l.Commands, func(c commandlog.Command) bool { return c.Planned != commandlog.PlannedProbe }) {
		return false
	}
	_, failed := ProbeCounts(l.Commands)
	return failed > 0
}

// ProbeCounts returns how many of cmds ran on a guess (probes) and passed,
// and how many failed (or did not finish).
func ProbeCounts(cmds []commandlog.Command) (passed, failed int) {
	for _, c := range cmds {
		switch {
		case c.Planned != commandlog.PlannedProbe:
		case c.Status == commandlog.StatusOK:
			passed++
		default:
			failed++
		}
	}
	return passed, failed
}

// ProbesCell is what the reports add to the command counts for the probes:
// " · 3 probes: 1 passed, 2 failed", "" when none ran.
func ProbesCell(cmds []commandlog.Command) string {
	passed, failed := ProbeCounts(cmds)
	switch n := passed + failed; n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" · 1 probe: %d passed, %d failed", passed, failed)
	default:
		return fmt.Sprintf(" · %d probes: %d passed, %d failed", n, passed, failed)
	}
}

// ProbesIntro and ProbeFailed are what the reports say of the probes that
// failed: ProbeFailed follows each one's README line, command and exit
// status, with the run hint (RunHint, formatted for the page) for %s.
const (
	ProbesIntro = "These commands are probes: the plan ran them without being sure that the README means them to be run, so their failure did not fail the run."
	ProbeFailed = "ran on a guess and failed: if this is a step, add %s above its block"
)

// DriftWarning is the reports' warning about a transcript the parser did
// not fully understand; "" when it did.
func DriftWarning(s commandlog.ParseStats) string {
	if s.Malformed == 0 && s.UnknownEvents == 0 {
		return ""
	}
	return fmt.Sprintf("The transcript had %d malformed and %d unknown records out of %d: the agent CLI's format may have drifted, so this report may miss commands.",
		s.Malformed, s.UnknownEvents, s.Lines)
}

// FormatDuration renders milliseconds for people: "606 ms", "12.3 s",
// "4m 05s", "1h 02m".
func FormatDuration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	case ms < 3_600_000:
		s := ms / 1000
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	default:
		m := ms / 60_000
		return fmt.Sprintf("%dh %02dm", m/60, m%60)
	}
}

func (r *renderer) fixes() string {
	var fixes []string
	for _, m := range r.log.Markers {
		if m.Kind == commandlog.MarkerFix {
			fixes = append(fixes, m.Text)
		}
	}
	if len(fixes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### What had to change (FIX)\n\n")
	for i, f := range fixes {
		if i == maxFixes {
			fmt.Fprintf(&b, "- … and %d more (see the artifact)\n", len(fixes)-maxFixes)
			break
		}
		fmt.Fprintf(&b, "- %s\n", Text(clip(r.s(f), maxFixBytes)))
	}
	b.WriteString("\n")
	return b.String()
}

// readmeFix shows the README edit the agent made as a suggested fix: the
// diff when the pipeline captured one, otherwise the list of edited files.
func (r *renderer) readmeFix() string {
	if r.o.Fix != nil {
		return r.fixSection()
	}
	if strings.TrimSpace(r.o.ReadmeDiff) != "" {
		return r.readmeDiff()
	}
	var paths []string
	seen := map[string]bool{}
	for _, e := range r.log.FileEdits {
		if e.OK && !seen[e.Path] {
			seen[e.Path] = true
			paths = append(paths, codeSpan(clip(r.s(e.Path), 200)))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	if len(paths) > 20 {
		paths = append(paths[:20], fmt.Sprintf("and %d more", len(paths)-20))
	}
	return "Files the agent edited while following the README: " + strings.Join(paths, ", ") + ".\n\n"
}

// readmeDiff is the agent's README edit as a collapsed diff.
func (r *renderer) readmeDiff() string {
	diff := r.s(r.o.ReadmeDiff)
	note := ""
	if len(diff) > maxDiffBytes {
		diff = clip(diff, maxDiffBytes)
		note = "\n_The diff was cut; the full one is in the artifact._\n"
	}
	return "<details><summary>Suggested README fix: the edit the agent made to follow it</summary>\n\n" +
		codeBlock("diff", termtext.Visible(diff)) + note + "\n</details>\n\n"
}

// newShapes is the redactor of known token shapes every report applies.
func newShapes() *redact.Redactor { return redact.New(nil) }

func statusCell(s commandlog.Status) string {
	switch s {
	case commandlog.StatusOK:
		return "✅ ok"
	case commandlog.StatusFailed:
		return "❌ failed"
	default:
		return "❔ unknown"
	}
}

func exitCell(c commandlog.Command) string {
	if c.ExitCode == nil {
		return "—"
	}
	return fmt.Sprint(*c.ExitCode)
}

func (r *renderer) sourceCell(c commandlog.Command) string {
	if c.Source == nil {
		return ""
	}
	label := fmt.Sprintf("%s:%d", c.Source.File, c.Source.Line)
	if r.o.BlobURL == "" {
		return codeSpan(label)
	}
	return fmt.Sprintf("[%s](%s%s#L%d)", Text(label), r.o.BlobURL, pathEscape(c.Source.File), c.Source.Line)
}

// commandTable renders as many rows as fit in budget bytes and reports how
// many it rendered. With problemsFirst, it lists the failed and unknown
// commands (keeping their numbers) before any ok one.
func (r *renderer) commandTable(budget int, problemsFirst bool) (string, int) {
	cmds := r.log.Commands
	if len(cmds) == 0 {
		return "_The agent ran no commands._\n\n", 0
	}
	hasSource := slices.ContainsFunc(cmds, func(c commandlog.Command) bool { return c.Source != nil })
	order := make([]int, 0, len(cmds))
	for i, c := range cmds {
		if !problemsFirst || c.Status != commandlog.StatusOK {
			order = append(order, i)
		}
	}
	if problemsFirst {
		for i, c := range cmds {
			if c.Status == commandlog.StatusOK {
				order = append(order, i)
			}
		}
	}
	var b strings.Builder
	if problemsFirst {
		b.WriteString("### Commands (failed and unknown first)\n\n")
	} else {
		b.WriteString("### Commands\n\n")
	}
	if hasSource {
		b.WriteString("| # | Command | Status | Exit | README |\n| --: | --- | --- | --: | --- |\n")
	} else {
		b.WriteString("| # | Command | Status | Exit |\n| --: | --- | --- | --: |\n")
	}
	if b.Len() > budget {
		return "", 0
	}
	n := 0
	for _, i := range order {
		c := cmds[i]
		cmd := codeSpan(clip(r.cmd(c), maxCommandCell))
		if c.ParentID != "" {
			cmd = "↳ " + cmd // run by a sub-agent
		}
		row := fmt.Sprintf("| %d | %s | %s | %s |", i+1, cmd, statusCell(c.Status), exitCell(c))
		if hasSource {
			row += " " + r.sourceCell(c) + " |"
		}
		row += "\n"
		if b.Len()+len(row)+1 > budget {
			break
		}
		b.WriteString(row)
		n++
	}
	b.WriteString("\n")
	return b.String(), n
}

// failedOutputs renders the collapsed output of each failed command that
// fits in budget bytes.
func (r *renderer) failedOutputs(failed []commandlog.Command, budget int) (string, int) {
	if len(failed) == 0 {
		return "", 0
	}
	var b strings.Builder
	title := "### Output of failed commands\n\n"
	if len(title) > budget {
		return "", 0
	}
	b.WriteString(title)
	n := 0
	for _, c := range failed {
		exit := ExitText(c)
		where := ""
		if c.Source != nil {
			where = fmt.Sprintf(" (%s line %d)", htmlText(c.Source.File), c.Source.Line)
		}
		out := r.s(c.Output)
		if len(out) > maxOutputBytes {
			out = clip(out, maxOutputBytes) + "\n[... cut by readme2demo's report size cap ...]"
		}
		if strings.TrimSpace(out) == "" {
			out = "(no output)"
		}
		item := fmt.Sprintf("<details><summary><code>%s</code> — %s%s</summary>\n\n%s\n</details>\n\n",
			htmlText(clip(r.cmd(c), maxCommandCell)), exit, where, codeBlock("text", termtext.Plain(out)))
		if b.Len()+len(item) > budget {
			break
		}
		b.WriteString(item)
		n++
	}
	if n == 0 {
		return "", 0
	}
	return b.String(), n
}

// probeList renders the probes that failed, each with the hint that makes
// it a step, in at most budget bytes, and reports how many it showed.
func (r *renderer) probeList(budget int) (string, int) {
	var b strings.Builder
	b.WriteString("### Ran on a guess and failed\n\n")
	b.WriteString(ProbesIntro + "\n\n")
	if b.Len()+1 > budget {
		return "", 0
	}
	n, total := 0, 0
	for _, c := range r.log.Commands {
		if c.Planned != commandlog.PlannedProbe || c.Status == commandlog.StatusOK {
			continue
		}
		total++
		if n == maxSkippedRows {
			continue
		}
		where := ""
		if c.Source != nil {
			where = r.sourceCell(c) + " "
		}
		cmd := c.Command
		if i := strings.IndexByte(cmd, '\n'); i >= 0 {
			cmd = cmd[:i] + " …"
		}
		item := fmt.Sprintf("- %s%s (%s): %s\n", where, codeSpan(clip(r.cmd(commandlog.Command{Command: cmd, Source: c.Source}), maxCommandCell)),
			strings.TrimPrefix(ExitText(c), "exit code "), fmt.Sprintf(ProbeFailed, codeSpan(RunHint)))
		if b.Len()+len(item)+80 > budget {
			continue
		}
		b.WriteString(item)
		n++
	}
	if n < total {
		fmt.Fprintf(&b, "\n_%d more in `command_log.json` (`planned: \"probe\"`)._\n", total-n)
	}
	b.WriteString("\n")
	return b.String(), n
}

// ExitText is a command's exit status for people: "exit 2", "exit code
// unknown", "timed out after 120s".
func ExitText(c commandlog.Command) string {
	if c.ExitCode == nil {
		return "exit code unknown"
	}
	if s, ok := commandlog.TimedOutAfter(c); ok {
		return fmt.Sprintf("timed out after %ds", s)
	}
	return fmt.Sprintf("exit %d", *c.ExitCode)
}

// maxSkippedRows caps the "not tested" list; the rest is in the log.
const maxSkippedRows = 60

// skippedList renders the README commands the run did not test, with why,
// in at most budget bytes, and reports how many rows it showed.
func (r *renderer) skippedList(budget int) (string, int) {
	sk := r.log.Skipped
	var b strings.Builder
	what := fmt.Sprintf("%d README commands were skipped", len(sk))
	if len(sk) == 1 {
		what = "1 README command was skipped"
	}
	fmt.Fprintf(&b, "<details><summary>Not tested: %s, and why</summary>\n\n", what)
	b.WriteString("| README | Command | Why it was skipped |\n| --- | --- | --- |\n")
	end := "\n</details>\n\n"
	if b.Len()+len(end) > budget {
		return "", 0
	}
	n := 0
	for _, s := range sk {
		if n == maxSkippedRows {
			break
		}
		c := s.Command
		if i := strings.IndexByte(c, '\n'); i >= 0 {
			c = c[:i] + " …"
		}
		label := codeSpan(fmt.Sprintf("%s:%d", clip(r.s(s.File), 200), s.Line))
		if r.o.BlobURL != "" {
			label = fmt.Sprintf("[%s](%s%s#L%d)", Text(fmt.Sprintf("%s:%d", clip(r.s(s.File), 200), s.Line)), r.o.BlobURL, pathEscape(s.File), s.Line)
		}
		row := fmt.Sprintf("| %s | %s | %s |\n", label, codeSpan(clip(r.s(c), maxCommandCell)), Text(clip(r.s(s.Reason), maxCommandCell)))
		if b.Len()+len(row)+len(end)+80 > budget {
			break
		}
		b.WriteString(row)
		n++
	}
	if n < len(sk) {
		fmt.Fprintf(&b, "\n_%d more in `command_log.json` (`skipped`)._\n", len(sk)-n)
	}
	b.WriteString(end)
	return b.String(), n
}

func (r *renderer) footer() string {
	var parts []string
	if r.o.RunURL != "" {
		parts = append(parts, fmt.Sprintf("[workflow run](%s)", r.o.RunURL))
	}
	if r.o.ArtifactName != "" {
		where := "the run's artifacts"
		if r.o.RunURL != "" {
			where = fmt.Sprintf("[the run's artifacts](%s#artifacts)", r.o.RunURL)
		}
		parts = append(parts, fmt.Sprintf("full `command_log.json` and transcript: artifact %s in %s", codeSpan(r.o.ArtifactName), where))
	}
	if len(parts) == 0 {
		return "<sub>Generated by readme2demo from `command_log.json`.</sub>\n"
	}
	return "<sub>Generated by readme2demo · " + strings.Join(parts, " · ") + "</sub>\n"
}
