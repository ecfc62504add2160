package drift_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/drift"
)

func readFixture(t *testing.T, engine, version, scenario string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", engine, "real-"+version+"-"+scenario+".jsonl"))
	assert.NilError(t, err)
	return b
}

// readSession reads the session file committed beside a capture, or nil.
func readSession(t *testing.T, engine, version, scenario string) []byte {
	t.Helper()
	for _, suffix := range []string{".session.jsonl", ".session.json", ".rollout.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", engine, "real-"+version+"-"+scenario+suffix))
		if err == nil {
			return b
		}
	}
	return nil
}

// The committed real host captures (drift.Capture runs) drift is checked
// against: the Claude Code pin of their time and the versions around it.
const (
	claudeCaptured = "2.1.332"
	codexCaptured  = "0.171.0"
	geminiCaptured = "0.61.0"
)

// fixtureReport checks the committed real captures of one Claude Code
// version exactly as drift checks a fresh host run.
func fixtureReport(t *testing.T, version string, edit func(scenario string, tr []byte) []byte) (*drift.Report, drift.Capabilities) {
	t.Helper()
	return engineFixtureReport(t, "claude-code", version, edit)
}

// engineFixtureReport checks the committed real captures of one version of
// an engine's CLI (and the session files beside them) exactly as drift
// checks a fresh host run.
func engineFixtureReport(t *testing.T, engine, version string, edit func(scenario string, tr []byte) []byte) (*drift.Report, drift.Capabilities) {
	t.Helper()
	return sessionFixtureReport(t, engine, version, edit, nil)
}

// sessionFixtureReport is engineFixtureReport that can also edit the
// session files.
func sessionFixtureReport(t *testing.T, engine, version string, edit, editSession func(scenario string, b []byte) []byte) (*drift.Report, drift.Capabilities) {
	t.Helper()
	eng, err := engines.Lookup(engine)
	assert.NilError(t, err)
	scs, err := drift.Scenarios(engine, path.Join(drift.CaptureRoot, "project"), version)
	assert.NilError(t, err)
	rep := &drift.Report{Engine: engine, Version: version, Mode: "fixtures"}
	for _, sc := range scs {
		tr := readFixture(t, engine, version, sc.Name)
		if edit != nil {
			tr = edit(sc.Name, tr)
		}
		session := readSession(t, engine, version, sc.Name)
		if editSession != nil {
			session = editSession(sc.Name, session)
		}
		rep.Results = append(rep.Results, drift.Evaluate(eng, sc, drift.Output{Transcript: tr, Session: session}))
	}
	return rep, rep.Classify()
}

func TestScenariosCoverTheCapturesOfEveryVersion(t *testing.T) {
	for _, v := range []string{claudeCaptured, "2.0.77"} {
		t.Run(v, func(t *testing.T) {
			rep, caps := fixtureReport(t, v, nil)
			var out bytes.Buffer
			rep.WriteTables(&out)
			rep.WriteSummary(&out, caps)
			assert.Assert(t, !rep.Drifted(), out.String())
			assert.Check(t, is.Len(rep.Results, 4))
			assert.Check(t, is.DeepEqual(caps, drift.Capabilities{ExitCodes: true, AgentVersion: true}))
			assert.Check(t, is.Equal(rep.FirstLine(), "no drift"))
			assert.Check(t, is.Contains(out.String(), "no drift: claude-code "+v+" matches every expectation in 4 scenarios"))
			assert.Check(t, !strings.Contains(out.String(), "DIFF"))
		})
	}
}

// Claude Code 1.0.x states no exit codes and no version: drift names exactly
// that, as capabilities, plus the "Error" placeholder it gives as output.
func TestOlderMajorReportsExactlyWhatDiffers(t *testing.T) {
	rep, caps := fixtureReport(t, "1.0.128", nil)
	assert.Assert(t, rep.Drifted())
	assert.Check(t, is.DeepEqual(caps, drift.Capabilities{ExitCodes: false, AgentVersion: false}))
	assert.Check(t, is.Equal(rep.FirstLine(),
		`first changed field: agent_version in scenario success: want "1.0.128", got null [agent_version missing]`))
	assert.Check(t, is.DeepEqual(rep.Differences(), []string{
		`agent_version missing: want "1.0.128", got null (4 fields) — in success, failures, bigoutput, killed`,
		`exit codes not stated: failed commands have status failed and exit_code null (5 fields) — in failures`,
		`commands[0].output (false): want "", got "Error" — in failures`,
		`commands[1].output (exit 3): want "", got "Error" — in failures`,
		`commands[4].output (false): want "", got "Error" — in failures`,
	}))
	assert.Check(t, is.DeepEqual(rep.DriftedScenarios(), []string{"bigoutput", "failures", "killed", "success"}))
	var out bytes.Buffer
	rep.WriteTables(&out)
	rep.WriteSummary(&out, caps)
	for _, want := range []string{
		"== claude-code 1.0.128, scenario failures (fixtures): 41 fields, 9 differ",
		"DIFF (exit codes not stated)",
		"DRIFT: claude-code 1.0.128 differs from what the parser expects",
		"capabilities: exit codes stated: no; agent version stated: no",
	} {
		assert.Check(t, is.Contains(out.String(), want))
	}
}

// Drift a real pinned capture the way a new CLI version might, and check the
// report names the right field first.
func TestChangedTranscriptsNameTheFirstChangedField(t *testing.T) {
	replaceIn := func(scenario, old, new string) func(string, []byte) []byte {
		return func(name string, tr []byte) []byte {
			if name != scenario {
				return tr
			}
			out := bytes.ReplaceAll(tr, []byte(old), []byte(new))
			assert.Assert(t, !bytes.Equal(out, tr), "%q not in the %s capture", old, scenario)
			return out
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(string, []byte) []byte
		first string
		caps  drift.Capabilities
	}{
		{
			name: "a new event type",
			edit: func(_ string, tr []byte) []byte {
				return append(tr, []byte(`{"type":"brand_new_event","x":1}`+"\n")...)
			},
			first: "first changed field: parse_stats.unknown_events in scenario success: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			name:  "a malformed record",
			edit:  func(_ string, tr []byte) []byte { return append([]byte("{\"type\":\"system\",\n"), tr...) },
			first: "first changed field: parse_stats.malformed in scenario success: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			// One failure's exit code reworded: the others still state
			// theirs, so this is a parser miss, not a missing capability.
			name:  "exit code text reworded once",
			edit:  replaceIn("failures", "Exit code 3", "Process exited with status 3"),
			first: `first changed field: commands[1].exit_code in scenario failures (exit 3): want 3, got null`,
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
		{
			// A format this parser does not know at all: what `parse`
			// refuses with exit status 4 is drift, named first.
			name: "every record renamed",
			edit: func(_ string, tr []byte) []byte {
				return bytes.ReplaceAll(tr, []byte(`{"type":"`), []byte(`{"event":"`))
			},
			first: "first changed field: transcript in scenario success (claude-code): want understood by the claude-code parser, got 1 of 15 records understood",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: false},
		},
		{
			name:  "the result line renamed",
			edit:  replaceIn("bigoutput", `"type":"result","duration`, `"type":"final_result","duration`),
			first: "first changed field: parse_stats.unknown_events in scenario bigoutput: want 0, got 1",
			caps:  drift.Capabilities{ExitCodes: true, AgentVersion: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, caps := fixtureReport(t, claudeCaptured, tc.edit)
			assert.Check(t, rep.Drifted())
			assert.Check(t, is.Equal(rep.FirstLine(), tc.first))
			assert.Check(t, is.DeepEqual(caps, tc.caps))
		})
	}
}

func TestUnrunnableScenarioIsDriftNotACrash(t *testing.T) {
	eng, err := engines.Lookup("claude-code")
	assert.NilError(t, err)
	scs, err := drift.Scenarios("claude-code", "/workspace", "9.9.9")
	assert.NilError(t, err)
	res := drift.Evaluate(eng, scs[0], drift.Output{})
	assert.NilError(t, res.Err)
	assert.Check(t, res.Drifted(), "an empty transcript matches nothing")
	rep := &drift.Report{Engine: "claude-code", Version: "9.9.9", Results: []drift.Result{res}}
	rep.Classify()
	assert.Check(t, is.Equal(rep.FirstLine(), `first changed field: agent_version in scenario success: want "9.9.9", got null [agent_version missing]`))
	assert.Check(t, is.Contains(strings.Join(rep.Differences(), "\n"), `commands[0].command (ls): want "ls", got missing`))
}

func TestDiffShowsWhatChangedBetweenVersions(t *testing.T) {
	pinned, _ := fixtureReport(t, claudeCaptured, nil)
	old, _ := fixtureReport(t, "1.0.128", nil)
	rows := drift.Diff(pinned.Results[1].Log, old.Results[1].Log) // failures
	got := map[string][2]string{}
	for _, r := range rows {
		got[r.Field] = [2]string{r.A, r.B}
	}
	assert.Check(t, is.DeepEqual(got["agent_version"], [2]string{`"2.1.332"`, "null"}))
	assert.Check(t, is.DeepEqual(got["commands[exit 3].exit_code"], [2]string{"3", "null"}))
	assert.Check(t, is.DeepEqual(got["commands[false].output"], [2]string{`""`, `"Error"`}))
	assert.Check(t, is.DeepEqual(got["commands[false#2].output"], [2]string{`""`, `"Error"`}), "a repeated command is keyed by its run")
	assert.Check(t, is.DeepEqual(got["turns"], [2]string{"7", "15"}))
	_, same := got["commands[echo after-parallel].status"]
	assert.Check(t, !same, "an unchanged field is not listed")
	assert.Check(t, is.Len(drift.Diff(pinned.Results[1].Log, pinned.Results[1].Log), 0))

	var out bytes.Buffer
	drift.WriteDiff(&out, pinned, old)
	assert.Check(t, is.Contains(out.String(), "== command logs side by side: claude-code 2.1.332 | 1.0.128"))
	assert.Check(t, is.Contains(out.String(), "-- scenario failures: "))
}

// Every engine's committed real captures of its CLI pass drift as they
// are: the expectations match what each CLI states, and no more.
func TestScenariosCoverTheCapturesOfEveryEngine(t *testing.T) {
	for _, tc := range []struct {
		engine, version string
		whys            []string // notes on rows the profile explains
	}{
		{"claude-code", claudeCaptured, nil},
		{"codex", codexCaptured, []string{"codex does not name its version in the transcript", "codex states no cost", "codex states no duration"}},
		{"gemini", geminiCaptured, []string{"gemini does not name its version in the transcript", "gemini states no cost"}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			rep, _ := engineFixtureReport(t, tc.engine, tc.version, nil)
			var out bytes.Buffer
			rep.WriteTables(&out)
			assert.Assert(t, !rep.Drifted(), out.String())
			assert.Check(t, is.Len(rep.Results, 4))
			for _, why := range tc.whys {
				assert.Check(t, is.Contains(out.String(), "ok ("+why+")"))
			}
		})
	}
}

// What each CLI states is checked, not assumed: the same transcript edits
// that a new CLI version might bring name the first changed field.
func TestChangedCodexAndGeminiTranscriptsNameTheFirstChangedField(t *testing.T) {
	replaceIn := func(scenario, old, new string) func(string, []byte) []byte {
		return func(name string, tr []byte) []byte {
			if name != scenario {
				return tr
			}
			out := bytes.Replace(tr, []byte(old), []byte(new), 1)
			assert.Assert(t, !bytes.Equal(out, tr), "%q not in the %s capture", old, scenario)
			return out
		}
	}
	for _, tc := range []struct {
		name, engine, version string
		edit, editSession     func(string, []byte) []byte
		first                 string
	}{
		{
			name: "codex renames exit_code", engine: "codex", version: codexCaptured,
			edit:  replaceIn("failures", `"exit_code":3`, `"exitCode":3`),
			first: "first changed field: commands[1].exit_code in scenario failures (exit 3): want 3, got null",
		},
		{
			name: "codex renames the completed item event", engine: "codex", version: codexCaptured,
			edit:  replaceIn("success", `"type":"turn.completed"`, `"type":"turn.done"`),
			first: "first changed field: parse_stats.unknown_events in scenario success: want 0, got 1",
		},
		{
			// The exit codes come from gemini's chat session file: a
			// reworded report there loses them.
			name: "gemini rewords the exit code in its session file", engine: "gemini", version: geminiCaptured,
			editSession: func(name string, b []byte) []byte {
				if name != "failures" {
					return b
				}
				out := bytes.ReplaceAll(b, []byte("Exit Code: "), []byte("Exit status: "))
				assert.Assert(t, !bytes.Equal(out, b))
				return out
			},
			first: "first changed field: commands[0].status in scenario failures (false): want failed, got ok",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := sessionFixtureReport(t, tc.engine, tc.version, tc.edit, tc.editSession)
			assert.Check(t, rep.Drifted())
			assert.Check(t, is.Equal(rep.FirstLine(), tc.first))
		})
	}
}

// alteredParser is the engine's real parser with one deliberate change: a
// test double standing in for a parser that no longer reads a CLI right.
type alteredParser struct {
	engines.AgentEngine
	alter func(*commandlog.Log)
}

func (a alteredParser) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	l, err := a.AgentEngine.ParseTranscript(r)
	if err == nil {
		a.alter(l)
	}
	return l, err
}

// alteredMerger is an alteredParser of an engine that merges session files:
// the merged log is altered too.
type alteredMerger struct{ alteredParser }

func (a alteredMerger) MergeSession(l *commandlog.Log, session io.Reader) (int, error) {
	n, err := a.AgentEngine.(engines.SessionMerger).MergeSession(l, session)
	if err == nil {
		a.alter(l)
	}
	return n, err
}

// alter wraps eng's parser with a deliberate change.
func alter(eng engines.AgentEngine, change func(*commandlog.Log)) engines.AgentEngine {
	a := alteredParser{eng, change}
	if _, ok := eng.(engines.SessionMerger); ok {
		return alteredMerger{a}
	}
	return a
}

func TestAlteredParserIsDrift(t *testing.T) {
	for _, engine := range []string{"codex", "gemini"} {
		t.Run(engine, func(t *testing.T) {
			real, err := engines.Lookup(engine)
			assert.NilError(t, err)
			version := map[string]string{"codex": codexCaptured, "gemini": geminiCaptured}[engine]
			// A parser that loses the exit code of every failed command.
			eng := alter(real, func(l *commandlog.Log) {
				for i := range l.Commands {
					if c := &l.Commands[i]; c.ExitCode != nil && *c.ExitCode != 0 {
						c.ExitCode = nil
					}
				}
			})
			scs, err := drift.Scenarios(engine, path.Join(drift.CaptureRoot, "project"), version)
			assert.NilError(t, err)
			rep := &drift.Report{Engine: engine, Version: version}
			for _, sc := range scs {
				rep.Results = append(rep.Results, drift.Evaluate(eng, sc, drift.Output{
					Transcript: readFixture(t, engine, version, sc.Name), Session: readSession(t, engine, version, sc.Name)}))
			}
			rep.Classify()
			assert.Check(t, is.Equal(rep.FirstLine(),
				"first changed field: commands[0].exit_code in scenario failures (false): want 1, got null [exit codes not stated]"))
		})
	}
}

func TestScenariosOfEveryCLI(t *testing.T) {
	for _, engine := range []string{"claude-code", "codex", "gemini", "openhands"} {
		t.Run(engine, func(t *testing.T) {
			scs, err := drift.Scenarios(engine, "/workspace", "1.2.3")
			assert.NilError(t, err)
			assert.Assert(t, is.Len(scs, 4))
			for _, sc := range scs {
				assert.Check(t, is.Equal(sc.Kill, sc.Name == "killed"))
				assert.Check(t, len(sc.Expect.Commands) > 0, sc.Name)
			}
			success := scs[0].Expect
			assert.Check(t, is.Len(success.FileEdits, 2))
			assert.Check(t, is.Equal(success.FileEdits[0].Path, "/workspace/NOTES.md"))
			assert.Check(t, is.Equal(success.FileEdits[0].Tool, profile(t, engine).WriteTool))
			killed := scs[3].Expect
			assert.Check(t, killed.Commands[0].Exit == nil)
			assert.Check(t, is.Equal(killed.Cost, profile(t, engine).Cost == drift.Always), "a killed run has no final record")
			assert.Check(t, is.Equal(killed.Turns, profile(t, engine).Turns == drift.Always))
		})
	}
	// The ground truth of the failures scenario is the shell's, for every engine.
	for _, engine := range []string{"claude-code", "codex", "gemini"} {
		scs, err := drift.Scenarios(engine, "/workspace", "1.2.3")
		assert.NilError(t, err)
		var exits []int
		for _, c := range scs[1].Expect.Commands {
			exits = append(exits, *c.Exit)
		}
		assert.Check(t, is.DeepEqual(exits, []int{1, 3, 127, 2, 1, 0}), engine)
	}
	_, err := drift.Scenarios("markdown", "/workspace", "1.2.3")
	assert.Check(t, errors.Is(err, drift.ErrNotDrivable))
}

// The weekly workflow checks exactly the scheduled CLIs (OpenHands, whose
// CLI cannot be installed in CI, stays out), keeps one issue per engine on
// drift, and bumps with `readme2demo pin` after a check without drift, in a
// separate job: the job that runs the new CLI cannot write to the
// repository, the job that can runs no CLI.
func TestWorkflowMatrixIsTheSchedule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "drift.yml"))
	assert.NilError(t, err)
	wf := string(b)
	jobs := strings.SplitN(wf, "\n  bump:\n", 2)
	assert.Assert(t, is.Len(jobs, 2), "no bump job in drift.yml")
	driftJob, bumpJob := jobs[0], jobs[1]
	for _, job := range jobs {
		m := regexp.MustCompile(`(?m)^\s+engine: \[([^\]]*)\]`).FindStringSubmatch(job)
		assert.Assert(t, m != nil, "no engine matrix")
		var matrix []string
		for _, e := range strings.Split(m[1], ",") {
			matrix = append(matrix, strings.TrimSpace(e))
		}
		assert.Check(t, is.DeepEqual(matrix, drift.ExpandEngines(drift.All)))
		assert.Check(t, !slices.Contains(matrix, "openhands"))
	}
	assert.Check(t, is.Contains(wf, "permissions: {}"))
	for _, want := range []string{
		`drift --engine "$ENGINE" --cli-version "$CLI_VERSION" --against pinned`,
		`--issue "$GITHUB_REPOSITORY"`, "contents: read\n", "issues: write",
		// the fixtures of a new version come from a host capture (with the CLIs' session files)
		`drift --engine "$ENGINE" --cli-version "$version" --host`, "--out drift-host",
	} {
		assert.Check(t, is.Contains(driftJob, want))
	}
	assert.Check(t, !strings.Contains(driftJob, "contents: write") && !strings.Contains(driftJob, "pull-requests: write"),
		"the job that runs the new CLI must not be able to write to the repository")
	for _, want := range []string{
		"needs: drift", `pin --engine "$ENGINE" --version "$version" --fixtures drift-artifact/drift-host`,
		`--pull-request "$GITHUB_REPOSITORY"`, "pull-requests: write", "contents: write",
	} {
		assert.Check(t, is.Contains(bumpJob, want))
	}
	assert.Check(t, !strings.Contains(bumpJob, "readme2demo\" drift"), "the bump job runs no CLI")
}

// --against the version under test runs it once, not twice side by side.
func TestAgainstTheSameVersionRunsOnce(t *testing.T) {
	cliDir := t.TempDir()
	cli, err := drift.LookupCLI("claude-code")
	assert.NilError(t, err)
	bin := cli.Binary(cliDir, "7.7.7")
	assert.NilError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	log := filepath.Join(t.TempDir(), "runs")
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho run >> '"+log+"'\n"), 0o755))
	var progress bytes.Buffer
	res, err := drift.RunCheck(context.Background(), drift.Options{Engine: "claude-code", Version: "7.7.7", Against: "7.7.7",
		Host: true, CLIDir: cliDir, Progress: &progress})
	assert.NilError(t, err)
	assert.Check(t, res.Against == nil)
	assert.Check(t, is.Contains(progress.String(), "--against 7.7.7 is 7.7.7, the version under test: checked once"))
	runs, err := os.ReadFile(log)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.Count(string(runs), "run"), 4), "four scenarios, one version")
}

func profile(t *testing.T, engine string) drift.Profile {
	t.Helper()
	p, ok := drift.ProfileOf(engine)
	assert.Assert(t, ok, "engine %s declares no drift profile", engine)
	return p
}
