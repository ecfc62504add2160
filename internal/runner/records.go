package runner

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// The records of the transcript. Go writes the records of what was
// planned (Plan, Note, Skip, Install, Start, SetupStart, Error) into the
// script, and the runner prints them as they are, at the moment they
// become true; the runner writes the records of what happened (End,
// BackgroundOutput, Stop, Summary) itself, with the fields of these
// structs and nothing else (TestRecordsRoundTrip runs the real script and
// holds both sides to these types).

// Type is a record's "type".
type Type string

// The record types.
const (
	TypePlan             Type = "plan"
	TypeNote             Type = "note"
	TypeSkip             Type = "skip"
	TypeInstall          Type = "install"
	TypeStart            Type = "start"
	TypeSetupStart       Type = "setup_start"
	TypeEnd              Type = "end"
	TypeBackgroundOutput Type = "background_output"
	TypeStop             Type = "stop"
	TypeSummary          Type = "summary"
	TypeError            Type = "error"
	// TypeSetupV1 is runner 1's record of a setup hint's command, written
	// after it ran (runner 2 writes SetupStart and End).
	TypeSetupV1 Type = "setup"
)

// PlanRecord opens the transcript: which runner, engine and origin, and
// how many steps the plan has.
type PlanRecord struct {
	Type   Type   `json:"type"`
	Runner string `json:"runner"` // Version
	Engine string `json:"engine"`
	Origin string `json:"origin"` // where the steps came from: "README.md", "command_log.json of …"
	Steps  int    `json:"steps"`
	// NothingToRun is why the plan has no step ("" when it has some);
	// runner 1 wrote it in the summary's text.
	NothingToRun string `json:"nothing_to_run,omitempty"`
	// SandboxLacks names the line that needs what the sandbox does not
	// have, when that is why the plan has no step.
	SandboxLacks string `json:"sandbox_lacks,omitempty"`
	// Uninstalled is the project's program that nothing the plan runs
	// installs, UninstalledAt where it is first run (Plan.Uninstalled).
	Uninstalled   string `json:"uninstalled,omitempty"`
	UninstalledAt string `json:"uninstalled_at,omitempty"`
	// Prerequisites are the names the README's text gives for what a
	// build needs (Plan.Prerequisites).
	Prerequisites []string `json:"prerequisites,omitempty"`
	// CompilersTooOld are the compilers the README's text asks for at a
	// version the image lacks (Plan.CompilersTooOld).
	CompilersTooOld []string `json:"compilers_too_old,omitempty"`
	// Script is the runner's own path as bash names it in its error
	// messages (stripped from the output); the runner fills it in, so it
	// is the last field.
	Script string `json:"script"`
}

// Note is a hint the plan did not understand, or a replay note.
type Note struct {
	Type Type   `json:"type"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Skip is a README command the plan does not run, and why.
type Skip struct {
	Type    Type   `json:"type"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// Install is a README line that installs a tool; Skipped is why the plan
// skips it ("" when it runs).
type Install struct {
	Type    Type   `json:"type"`
	Tool    string `json:"tool"`
	Line    int    `json:"line"`
	Command string `json:"command"`
	Skipped string `json:"skipped,omitempty"`
}

// Start is printed as a command begins: the command and what the plan
// says about it.
type Start struct {
	Type         Type   `json:"type"`
	ID           string `json:"id" runner:"required"`
	Command      string `json:"command" runner:"required"`
	File         string `json:"file"`
	Line         int    `json:"line"`
	TimeoutS     int64  `json:"timeout_s"`
	AllowFailure bool   `json:"allow_failure"`
	Background   bool   `json:"background"`
	Ready        string `json:"ready,omitempty"`
	// Expect is the output the README shows (check-output hint), nil for
	// no check; ExpectLine is its first README line.
	Expect     *string `json:"expect,omitempty"`
	ExpectLine int     `json:"expect_line,omitempty"`
	// ExpectExit is the exit code the README says the command returns
	// (exit hint), nil for 0; runner 1 wrote it in End (expected_exit).
	ExpectExit *int `json:"expect_exit,omitempty"`
	// Planned is step or probe (a command run on a guess, which may fail
	// without failing the run); runner 1 did not say.
	Planned commandlog.Planned `json:"planned,omitempty"`
	// Prepares says that the step only prepares the session (variables,
	// aliases, a directory, a file written): its passing checks nothing.
	Prepares bool `json:"prepares,omitempty"`
	// Exec is what bash evaluates instead of Command, when the plan stood
	// something in for the README's text ("" when Command runs as
	// written); Cwd the directory (of the workspace, when relative)
	// entered before it (cwd hint), LeaveCwd that the runner goes back
	// after it to where it was before. Runner 1 did not say.
	Exec     string `json:"exec,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	LeaveCwd bool   `json:"leave_cwd,omitempty"`
}

// SetupStart is printed as a setup hint's command begins, before the
// command (Step) its block starts with; its End follows.
type SetupStart struct {
	Type    Type   `json:"type"`
	ID      string `json:"id" runner:"required"`
	Step    string `json:"step"` // the id of the command the setup precedes
	Command string `json:"command"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// End is written by the runner when a command (or a setup hint's
// command) ended: what it observed, nothing it concluded.
type End struct {
	Type Type   `json:"type"`
	ID   string `json:"id"`
	// ExitCode is the command's exit status as set -o pipefail gives it:
	// the rightmost program of its last pipeline that failed, a program
	// before the last that SIGPIPE ended (141) excepted.
	ExitCode *int `json:"exit_code"`
	// PipeStatus are the exit statuses of the programs of the command's
	// last pipeline, when it had more than one; empty otherwise.
	PipeStatus []int `json:"pipe_status"`
	// DurationMS is how long the command ran, in milliseconds.
	DurationMS *int64 `json:"duration_ms"`
	// TimedOut: the command's timeout (or a background block's readiness
	// timeout) passed; its processes were killed and ExitCode is 124.
	TimedOut bool `json:"timed_out"`
	// ShellExited: the command ended the runner's shell (exit, set -e).
	ShellExited bool `json:"shell_exited"`
	// Runaway counts the processes the command left running when it
	// returned, if more than the runner allows (a fork bomb); they were
	// killed.
	Runaway int64 `json:"runaway"`
	// OutputMismatch: the output differs from Start.Expect (compared line
	// by line, trailing white space ignored, "..." matching any lines).
	OutputMismatch bool `json:"output_mismatch"`
	// StdinRead: the command read its standard input (an empty file, so
	// it got end of file); a command that asked a question does.
	StdinRead bool `json:"stdin_read"`
	// OutputLost says why the output could not be captured in full; "" when
	// it was.
	OutputLost string `json:"output_lost"`
	Output
}

// Output is a command's output as the runner keeps it: the first 64 KiB
// and the last 16 KiB, base64, and how many bytes it left out between.
type Output struct {
	Omitted int64  `json:"output_omitted"`
	Head    Base64 `json:"output_head_b64"`
	Tail    Base64 `json:"output_tail_b64"`
}

// BackgroundOutput is the output of a background command, written when it
// was stopped at the end of the run.
type BackgroundOutput struct {
	Type Type   `json:"type"`
	ID   string `json:"id"`
	Output
}

// Stop says that the run stopped after the command ID.
type Stop struct {
	Type Type   `json:"type"`
	ID   string `json:"id"`
}

// Summary closes the transcript: the runner finished.
type Summary struct {
	Type       Type     `json:"type"`
	DurationMS *int64   `json:"duration_ms"`
	CostUSD    *float64 `json:"cost_usd"`
}

// Error says that the input was not a runner, or that the runner could
// not start (the workspace could not be entered).
type Error struct {
	Type Type   `json:"type"`
	Text string `json:"text"`
}

// What runner 1 wrote that runner 2 does not: read from old transcripts.
type (
	endV1 struct {
		End
		ExpectedExit *int `json:"expected_exit"`
	}
	summaryV1 struct {
		Summary
		// Text was "SUCCESS" or "FAILED: <why>", nil from runner 2.
		Text *string `json:"text"`
	}
	setupV1 struct {
		Type       Type   `json:"type"`
		ID         string `json:"id"`
		Where      string `json:"where"` // "README.md:12"
		Command    string `json:"command"`
		ExitCode   *int   `json:"exit_code"`
		DurationMS *int64 `json:"duration_ms"`
		TimedOut   bool   `json:"timed_out"`
		OutputLost string `json:"output_lost"`
		Output
	}
)

// Base64 is a base64 field of a record. Clipped counts the bytes a reader
// dropped from its middle (a damaged, huge record); Text then decodes to
// what its head holds.
type Base64 struct {
	Text    string
	Clipped int64
}

// MarshalJSON writes the base64 text as a JSON string.
func (b Base64) MarshalJSON() ([]byte, error) { return json.Marshal(b.Text) }

// UnmarshalJSON reads a JSON string.
func (b *Base64) UnmarshalJSON(data []byte) error {
	b.Clipped = 0
	return json.Unmarshal(data, &b.Text)
}

// Decode decodes what it can: the whole text, or the decodable prefix of
// a damaged or clipped one.
func (b Base64) Decode() string {
	if b.Text == "" {
		return ""
	}
	if out, err := base64.StdEncoding.DecodeString(b.Text); err == nil && b.Clipped == 0 {
		return string(out)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b.Text)))
	n, _ := base64.StdEncoding.Decode(out, []byte(b.Text[:len(b.Text)/4*4]))
	return string(out[:n])
}

// Text is the output, decoded, with the runner's own script path replaced
// by "bash" at the start of bash's error messages ("/readme2demo/
// prompt.md: line 230: foo: command not found" reads as an interactive
// bash prints it, "bash: foo: command not found"), and how many bytes were
// left out (never negative).
func (o Output) Text(script string) (string, int64) {
	out := stripScript(o.Head.Decode(), script) + stripScript(o.Tail.Decode(), script)
	return out, max(o.Omitted, 0)
}

// stripScript rewrites "SCRIPT: line N: " and "SCRIPT: eval: line N: "
// at the start of a line to "bash: ".
func stripScript(s, script string) string {
	if script == "" || !strings.Contains(s, script) {
		return s
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(script) + `: (?:eval: )?(?:line \d+: )?`)
	return re.ReplaceAllString(s, "bash: ")
}
