package report

import (
	"fmt"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Fix is what became of the agent's README edit (the Action's `fix`
// input): the review holding it as suggestions, the fix pull request, or
// why neither was made. With Fix set, the report shows it instead of the
// whole diff; the diff is still shown when there is no review, no pull
// request and no patch (the edit must not get lost).
type Fix struct {
	ReviewURL   string // the review with the suggestions
	Suggestions int
	PRURL       string // the fix pull request
	PRCreated   bool
	// Note says, in plain words, why there is no review or pull request
	// (or what is missing); it is shown as text.
	Note string
	// Patches are the changes that are not suggestions, with why.
	Patches      []Patch
	Verification *Verification
}

// Patch is a change of the README edit as a patch to `git apply`.
type Patch struct {
	Path               string
	StartLine, EndLine int
	Patch, Reason      string
}

// The verification methods (Verification.Method), named after the keyless
// engine that runs them. This package renders what the command log says and
// never imports an engine, so it names them itself.
const (
	MethodMarkdown = "markdown" // the keyless runner over the fixed README
	MethodReplay   = "replay"   // the agent's successful commands, with the fixed README
)

// Verification is the run of the fixed README's changed steps in a fresh
// sandbox.
type Verification struct {
	// Method is how: MethodMarkdown or MethodReplay.
	Method string
	Passed bool
	Steps  []VerifiedStep
	// Ran counts the commands the verification ran (replay shows no steps).
	Ran int
}

// StepResult is what became of one changed step.
type StepResult string

// The step results.
const (
	StepPassed     StepResult = "passed"
	StepFailed     StepResult = "failed"
	StepSkipped    StepResult = "skipped"     // the plan does not run it (Detail says why)
	StepNotReached StepResult = "not-reached" // an earlier step failed
)

// VerifiedStep is one changed README step and its result.
type VerifiedStep struct {
	File    string
	Line    int
	Command string
	Result  StepResult
	Detail  string // the exit code, or why it was skipped
}

func (v StepResult) cell(detail string) string {
	switch v {
	case StepPassed:
		return "✅ passed"
	case StepFailed:
		if detail != "" {
			return "❌ failed (" + Text(detail) + ")"
		}
		return "❌ failed"
	case StepSkipped:
		return "⏭️ not run: " + Text(clip(detail, maxCommandCell))
	default:
		return "⏸️ not reached (an earlier step failed)"
	}
}

// fixSection renders a Fix for the report.
func (r *renderer) fixSection() string {
	f := r.o.Fix
	var b strings.Builder
	b.WriteString("### Suggested README fix\n\n")
	switch {
	case f.ReviewURL != "":
		what := fmt.Sprintf("%d suggested changes", f.Suggestions)
		if f.Suggestions == 1 {
			what = "1 suggested change"
		}
		fmt.Fprintf(&b, "💡 The agent's README edit is %s in [this review](%s): \"Commit suggestion\" applies each.\n\n", what, f.ReviewURL)
	case f.PRURL != "":
		verb := "updated"
		if f.PRCreated {
			verb = "opened"
		}
		fmt.Fprintf(&b, "🔧 The agent's README edit, verified in a fresh sandbox, is in [this pull request](%s) (%s).\n\n", f.PRURL, verb)
	}
	if f.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", Text(clip(r.s(f.Note), maxReasonBytes)))
	}
	if f.Verification != nil {
		b.WriteString(r.verification(f.Verification))
	}
	for _, p := range f.Patches {
		lines := fmt.Sprintf("line %d", p.StartLine)
		if p.EndLine > p.StartLine {
			lines = fmt.Sprintf("lines %d–%d", p.StartLine, p.EndLine)
		}
		patch := r.s(p.Patch)
		if len(patch) > maxDiffBytes {
			patch = clip(patch, maxDiffBytes)
		}
		if strings.TrimSpace(patch) == "" {
			fmt.Fprintf(&b, "- Not a suggestion: %s %s: %s.\n\n", codeSpan(clip(p.Path, 200)), lines, Text(clip(r.s(p.Reason), maxReasonBytes)))
			continue
		}
		fmt.Fprintf(&b, "<details><summary>Not a suggestion: %s %s</summary>\n\n%s. Apply it with <code>git apply</code>:\n\n%s\n</details>\n\n",
			htmlText(clip(p.Path, 200)), lines, Text(clip(sentence(r.s(p.Reason)), maxReasonBytes)), codeBlock("diff", patch))
	}
	if f.ReviewURL == "" && f.PRURL == "" && len(f.Patches) == 0 && strings.TrimSpace(r.o.ReadmeDiff) != "" {
		b.WriteString(r.readmeDiff())
	}
	return b.String()
}

// verification renders the verification of a fix: its method, verdict
// and each changed step.
func (r *renderer) verification(v *Verification) string {
	var b strings.Builder
	how := "the keyless markdown runner ran the fixed README in a fresh sandbox"
	if v.Method == MethodReplay {
		how = fmt.Sprintf("the agent's successful commands (%d) ran again in a fresh sandbox, with the fixed README", v.Ran)
	}
	verdict := "✅ passed"
	if !v.Passed {
		verdict = "❌ failed"
	}
	fmt.Fprintf(&b, "**Verification %s:** %s.\n\n", verdict, how)
	if len(v.Steps) > 0 {
		b.WriteString("| README | Changed step | Result |\n| --- | --- | --- |\n")
		for _, st := range v.Steps {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", codeSpan(fmt.Sprintf("%s:%d", clip(r.s(st.File), 200), st.Line)),
				codeSpan(clip(r.s(st.Command), maxCommandCell)), st.Result.cell(r.s(st.Detail)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FixPROptions are what FixPR shows besides the log.
type FixPROptions struct {
	Readme       string // the README's path in the repository
	Diff         string // the edit
	Verification *Verification
	RunURL       string
	Redact       func(string) string
}

// FixPR is the body of the fix pull request: that a machine made it, the
// agent's FIX reasons, the steps that failed with their output, the
// verification and the change. Everything from the log is escaped and
// redacted as in Render.
func FixPR(l *commandlog.Log, o FixPROptions) string {
	r := renderer{log: l, o: Options{Redact: o.Redact, Readme: o.Readme}, shapes: newShapes()}
	var b strings.Builder
	fmt.Fprintf(&b, "> [!NOTE]\n> **Made by a machine.** readme2demo's AI agent (%s) followed %s in a fresh sandbox and had to change it to make it work; "+
		"the changed steps were then run again in another fresh sandbox. The text below comes from an agent that followed an untrusted README: review it like any contribution.\n\n",
		codeSpan(clip(r.s(l.Engine), 80)), codeSpan(o.Readme))
	b.WriteString(r.fixes())
	failed := l.Failed()
	if len(failed) > 0 {
		b.WriteString("### What failed before the change\n\n")
		for i, c := range failed {
			if i == 5 {
				fmt.Fprintf(&b, "… and %d more failed commands (see the workflow run).\n\n", len(failed)-5)
				break
			}
			exit := ExitText(c)
			where := ""
			if c.Source != nil {
				where = fmt.Sprintf(" (%s line %d)", htmlText(c.Source.File), c.Source.Line)
			}
			out := r.s(c.Output)
			if len(out) > maxOutputBytes/2 {
				out = clip(out, maxOutputBytes/2) + "\n[... cut ...]"
			}
			if strings.TrimSpace(out) == "" {
				out = "(no output)"
			}
			fmt.Fprintf(&b, "<details><summary><code>%s</code> — %s%s</summary>\n\n%s\n</details>\n\n",
				htmlText(clip(r.s(c.Command), maxCommandCell)), exit, where, codeBlock("text", out))
		}
	}
	if o.Verification != nil {
		b.WriteString("### Verification\n\n")
		b.WriteString(r.verification(o.Verification))
	}
	diff := r.s(o.Diff)
	if len(diff) > maxDiffBytes {
		diff = clip(diff, maxDiffBytes)
	}
	b.WriteString("### The change\n\n" + codeBlock("diff", diff) + "\n")
	if o.RunURL != "" {
		fmt.Fprintf(&b, "<sub>Generated by readme2demo · [workflow run](%s)</sub>\n", o.RunURL)
	} else {
		b.WriteString("<sub>Generated by readme2demo.</sub>\n")
	}
	return b.String()
}

func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
