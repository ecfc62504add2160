package pipeline

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// docs/sandbox.md names Run's steps in the order they run.
func TestStepsAreTheOnesTheDocsName(t *testing.T) {
	doc, err := os.ReadFile("../../docs/sandbox.md")
	assert.NilError(t, err)
	para := regexp.MustCompile("(?s)`pipeline.Run` performs a run as named steps, in this order:(.*?)\\. A step").FindSubmatch(doc)
	assert.Assert(t, para != nil, "docs/sandbox.md no longer lists pipeline.Run's steps")
	// The step names are the backquoted words outside parentheses.
	text := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(string(para[1]), "")
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(text, -1) {
		documented = append(documented, m[1])
	}
	var names []string
	for _, s := range steps {
		names = append(names, s.name)
	}
	assert.DeepEqual(t, documented, names)
}

// runSteps runs the steps in order, stops at the first error and names
// its step, with the step's own message.
func TestRunStepsInOrderAndNameTheFailingStep(t *testing.T) {
	var ran []string
	record := func(name string, err error) step {
		return step{name: name, run: func(*run, context.Context) error { ran = append(ran, name); return err }}
	}
	boom := errors.New("image foo: not found; build it first")
	err := runSteps(context.Background(), &run{}, []step{
		record("one", nil), record("two", nil), record("three", boom), record("four", nil),
	})
	assert.DeepEqual(t, ran, []string{"one", "two", "three"})
	var se *StepError
	assert.Assert(t, errors.As(err, &se), "%T %v", err, err)
	assert.Check(t, is.Equal(se.Step, "three"))
	assert.Check(t, errors.Is(err, boom))
	assert.Check(t, is.Equal(err.Error(), boom.Error()), "the message users read is the step's own")

	ran = nil
	assert.NilError(t, runSteps(context.Background(), &run{}, []step{record("a", nil), record("b", nil)}))
	assert.DeepEqual(t, ran, []string{"a", "b"})
}

// Run's configuration checks fail in their own steps, before any container.
func TestRunNamesTheStepOfAConfigurationError(t *testing.T) {
	repo := t.TempDir()
	assert.NilError(t, os.WriteFile(repo+"/README.md", []byte("# x\n\n```sh\necho hi\n```\n"), 0o644))
	tests := []struct {
		name, step string
		cfg        Config
	}{
		{"unknown engine", "engine", Config{Engine: "nope", RepoDir: repo}},
		{"missing README", "readme", Config{Engine: "markdown", RepoDir: repo, Readme: "MISSING.md"}},
		{"bad order", "input", Config{Engine: "markdown", RepoDir: repo, Order: "sideways"}},
		{"no image", "settings", Config{Engine: "markdown", RepoDir: repo}},
		{"bad sandbox profile", "settings", Config{Engine: "markdown", RepoDir: repo, Image: "img", Sandbox: "loose"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.OutDir = t.TempDir()
			res, err := Run(context.Background(), tc.cfg)
			assert.Check(t, res == nil)
			var se *StepError
			assert.Assert(t, errors.As(err, &se), "%T %v", err, err)
			assert.Check(t, is.Equal(se.Step, tc.step), "error %q", err)
			assert.Check(t, !strings.HasPrefix(err.Error(), tc.step+":"), "the message is the step's own: %q", err)
		})
	}
}

// Config.ReadmeText is the README a run follows, in place of the file (a
// verification run of a fixed README).
func TestReadmeTextReplacesTheFile(t *testing.T) {
	repo := t.TempDir()
	assert.NilError(t, os.WriteFile(repo+"/README.md", []byte("# x\n\n```sh\necho old-step\n```\n"), 0o644))
	r := &run{cfg: Config{Engine: "markdown", RepoDir: repo, Readme: "README.md", Getenv: func(string) string { return "" },
		ReadmeText: []byte("# x\n\n```sh\necho fixed-step\n```\n")}}
	assert.NilError(t, runSteps(context.Background(), r, steps[:3])) // engine, readme, input
	assert.Check(t, is.Equal(string(r.readmeText), "# x\n\n```sh\necho fixed-step\n```\n"))
	assert.Check(t, is.Contains(r.promptText, "echo fixed-step"))
	assert.Check(t, !strings.Contains(r.promptText, "echo old-step"))
}

// The per-step tests below run each step alone on the state the steps
// before it leave (goreleaser's per-pipe tests on a fake context): the
// markdown engine on testdata/sample-repo, on sandboxtest.FakeDocker whose
// transcript is one the runner wrote for that README, with a fixed clock.

const (
	stepsRunID = "r2dsteps0001"
	// stepsToken is a host credential (GITHUB_TOKEN): its value never
	// reaches a file or a progress line.
	stepsToken = "r2d-steps-secret-0123456789"
)

// stepsClock is the runs' clock: it does not move, so every progress line
// says [00:00].
var stepsClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// stepsFake is a daemon whose sandbox left the runner's transcript of
// testdata/sample-repo and the README as it was.
func stepsFake(t *testing.T) *sandboxtest.FakeDocker {
	t.Helper()
	readme, err := os.ReadFile("../../testdata/sample-repo/README.md")
	assert.NilError(t, err)
	return &sandboxtest.FakeDocker{Files: map[string][]byte{
		engines.TranscriptContainerPath: golden.Get(t, "steps/sample-repo.transcript.jsonl"),
		engines.StderrContainerPath:     []byte(""),
		"/workspace/README.md":          readme,
	}}
}

// stepsConfig is the configuration of those runs.
func stepsConfig(t *testing.T, d sandbox.Docker, progress io.Writer) Config {
	return Config{
		Engine: "markdown", RepoDir: "../../testdata/sample-repo", Readme: "README.md", Image: "readme2demo-base:test",
		OutDir: t.TempDir(), RunID: stepsRunID, Network: NetworkNone,
		Resources: sandbox.Resources{NanoCPUs: 1e9}, // not the host's count
		Getenv:    func(k string) string { return map[string]string{"GITHUB_TOKEN": stepsToken}[k] },
		Progress:  progress, Now: func() time.Time { return stepsClock }, Docker: d,
	}
}

// runUpTo returns a run that went through the steps before name, with the
// fake it ran on and its progress so far.
func runUpTo(t *testing.T, name string) (*run, *sandboxtest.FakeDocker, *bytes.Buffer) {
	t.Helper()
	d, progress := stepsFake(t), &bytes.Buffer{}
	r := &run{cfg: stepsConfig(t, d, progress)}
	t.Cleanup(r.cleanup)
	i := slices.IndexFunc(steps, func(s step) bool { return s.name == name })
	assert.Assert(t, i >= 0, "no step %q", name)
	assert.NilError(t, runSteps(context.Background(), r, steps[:i]))
	return r, d, progress
}

// runStep runs the step called name alone, as Run would.
func runStep(t *testing.T, r *run, name string) error {
	t.Helper()
	i := slices.IndexFunc(steps, func(s step) bool { return s.name == name })
	assert.Assert(t, i >= 0, "no step %q", name)
	return runSteps(context.Background(), r, steps[i:i+1])
}

// encodedLog is l as command_log.json holds it.
func encodedLog(t *testing.T, l *commandlog.Log) string {
	t.Helper()
	var b bytes.Buffer
	assert.NilError(t, commandlog.Encode(&b, l))
	return b.String()
}

// setup gives the run its id, clock, timeout and redactor, and prints the
// run's first two lines.
func TestSetupStep(t *testing.T) {
	r, _, progress := runUpTo(t, "setup")
	assert.Check(t, is.Equal(progress.String(), ""), "nothing is printed before setup")
	assert.NilError(t, runStep(t, r, "setup"))
	assert.Check(t, is.Equal(r.runID, stepsRunID))
	assert.Check(t, is.Equal(r.start, stepsClock))
	assert.Check(t, is.Equal(r.timeout, sandbox.DefaultTimeout))
	assert.Check(t, is.Equal(r.readmeInContainer, "/workspace/README.md"))
	assert.Check(t, is.Equal(r.red.String("token="+stepsToken), "token=[REDACTED:secret]"))
	assert.Check(t, is.Equal(progress.String(), heredoc.Doc(`
		run r2dsteps0001: markdown in readme2demo-base:test, following README.md
		sandbox dev: the agent user has passwordless sudo; the root file system, /tmp and $HOME are the container's own layer; disk cap 10GiB, memory 4GiB, CPUs: 1
	`)))

	// Without a run id it makes one, and the timeout is the one given.
	r, _, _ = runUpTo(t, "setup")
	r.cfg.RunID, r.cfg.Limits.Timeout = "", time.Minute
	assert.NilError(t, runStep(t, r, "setup"))
	assert.Check(t, is.Regexp(`^[0-9a-f]{12}$`, r.runID))
	assert.Check(t, is.Equal(r.timeout, time.Minute))
}

// network under --network none: no network, no proxy, no daemon call.
func TestNetworkStepNone(t *testing.T) {
	r, d, progress := runUpTo(t, "network")
	calls, printed := d.Calls(), progress.Len()
	assert.NilError(t, runStep(t, r, "network"))
	assert.Check(t, is.Equal(r.netw.mode, "none"))
	assert.Check(t, is.DeepEqual(d.Calls(), calls), "network none asks the daemon nothing")
	assert.Check(t, is.Equal(progress.String()[printed:], "[00:00] network none: the agent has no network\n"))
	assert.Check(t, is.Equal(r.netw.command("runner"), egress.SelfTest{}.Script()+"runner"),
		"the self-test that nothing is reachable runs before the command")
}

// sandbox runs the engine's command in the container and keeps what it
// left.
func TestSandboxStepOnTheFake(t *testing.T) {
	r, d, progress := runUpTo(t, "sandbox")
	printed := progress.Len()
	assert.NilError(t, runStep(t, r, "sandbox"))
	assert.Check(t, is.Equal(string(r.res.Transcript), string(golden.Get(t, "steps/sample-repo.transcript.jsonl"))))
	assert.Check(t, r.res.ExitCode != nil && *r.res.ExitCode == 0)
	assert.Check(t, is.DeepEqual(slices.DeleteFunc(d.Calls(), func(c string) bool { return strings.HasPrefix(c, "exec-create ") }), []string{
		"ping", "image readme2demo-base:test", // the docker step
		"list", "create readme2demo-r2dsteps0001", "inspect", "copy-from /usr/share/readme2demo/programs.txt",
		"attach readme2demo-r2dsteps0001", "wait readme2demo-r2dsteps0001", "start readme2demo-r2dsteps0001", "copy-to /", // the command is the container's main process, waiting for the copy-in and its environment
		"copy-from /readme2demo", "inspect", "copy-from /workspace/README.md", // the fake's command wrote no signals: the README is copied out
		"remove readme2demo-r2dsteps0001",
	}))
	golden.Assert(t, progress.String()[printed:], "steps/sandbox.progress.golden")
}

// parse turns the transcript into the log: the commands as the runner ran
// them, nothing mapped, limited or redacted yet.
func TestParseStep(t *testing.T) {
	r, _, progress := runUpTo(t, "parse")
	printed := progress.Len()
	assert.NilError(t, runStep(t, r, "parse"))
	golden.Assert(t, encodedLog(t, r.log), "steps/parse.golden")
	assert.Check(t, r.notUnderstood == nil)
	assert.Check(t, r.session == nil)
	assert.Check(t, is.Equal(progress.String()[printed:], ""))
}

// A transcript the engine does not understand fails the run, and parse
// says so.
func TestParseStepNotUnderstood(t *testing.T) {
	r, _, progress := runUpTo(t, "parse")
	printed := progress.Len()
	r.res.Transcript = []byte("not the runner's\n")
	assert.NilError(t, runStep(t, r, "parse"))
	assert.Assert(t, r.notUnderstood != nil)
	assert.Check(t, is.Equal(string(r.log.Outcome), "failed"))
	assert.Check(t, is.Equal(progress.String()[printed:], "error: transcript.jsonl does not look like a markdown transcript: 0 of 1 records understood; "+
		"it looks like output of a markdown CLI this readme2demo does not know (parser drift: run `readme2demo drift` for the pinned version, "+
		"or re-parse transcript.jsonl with a newer readme2demo)\n"))
}

// enrich adds the README lines, why the run failed, and the sandbox.
func TestEnrichStep(t *testing.T) {
	r, _, progress := runUpTo(t, "enrich")
	printed := progress.Len()
	assert.NilError(t, runStep(t, r, "enrich"))
	golden.Assert(t, encodedLog(t, r.log), "steps/enrich.golden")
	assert.Check(t, is.Equal(progress.String()[printed:], ""))

	// An agent's commands come without README lines: enrich finds them.
	r, _, _ = runUpTo(t, "enrich")
	for i := range r.log.Commands {
		r.log.Commands[i].Source = nil
	}
	assert.NilError(t, runStep(t, r, "enrich"))
	golden.Assert(t, encodedLog(t, r.log), "steps/enrich.golden")
}

// enrich says the time limit ended a run that timed out.
func TestEnrichStepTimeout(t *testing.T) {
	r, _, _ := runUpTo(t, "enrich")
	r.res.TimedOut, r.res.ExitCode = true, nil
	assert.NilError(t, runStep(t, r, "enrich"))
	assert.Check(t, is.Equal(r.log.OutcomeReason, "the run's time limit (30m0s, wall clock, for the whole README) ended the run after README.md line 24 (\"python3 greet.py --shout World\")"+
		"; raise it with --timeout (Action input `timeout-minutes`) if the README needs longer"))
	assert.Check(t, is.Equal(r.log.Sandbox.Stopped, "timeout"))
}

// redact takes a credential's value out of every command's output, and
// leaves the README's commands as they are.
func TestRedactStep(t *testing.T) {
	r, _, _ := runUpTo(t, "redact")
	want := encodedLog(t, r.log)
	r.log.Commands[0].Output = "token " + stepsToken + "\n"
	assert.NilError(t, runStep(t, r, "redact"))
	assert.Check(t, is.Equal(r.log.Commands[0].Output, "token [REDACTED:secret]\n"))
	r.log.Commands[0].Output = "Hello, World!\n"
	assert.Check(t, is.Equal(encodedLog(t, r.log), want), "nothing else changed")
}

// validate warns about a log that breaks the schema, and keeps it.
func TestValidateStep(t *testing.T) {
	r, _, progress := runUpTo(t, "validate")
	printed := progress.Len()
	assert.NilError(t, runStep(t, r, "validate"))
	assert.Check(t, is.Equal(progress.String()[printed:], ""), "the fixture's log is valid")

	r.log.Outcome = "sideways"
	assert.NilError(t, runStep(t, r, "validate"))
	assert.Check(t, is.Equal(progress.String()[printed:], "warning: invalid command log: outcome \"sideways\" is not success, failed or blocked\n"))
	assert.Check(t, is.Equal(string(r.log.Outcome), "sideways"))
}

// write puts the log, the transcript, the prompt, the reports and the demo
// in the output directory; the agent's README edit becomes readme.diff.
func TestWriteStep(t *testing.T) {
	r, _, progress := runUpTo(t, "write")
	printed := progress.Len()
	r.res.Collected[r.readmeInContainer] = []byte(strings.Replace(string(r.readmeText), "greet.py --shout World", "greet.py --loud World", 1))
	assert.NilError(t, runStep(t, r, "write"))
	assert.Check(t, is.Equal(progress.String()[printed:], ""))

	out := r.cfg.OutDir
	entries, err := os.ReadDir(out)
	assert.NilError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Check(t, is.DeepEqual(names, []string{"command_log.json", "demo.cast", "demo.sh", "prompt.md", "readme.diff", "report.html", "report.md", "transcript.jsonl", "transcript.stderr"}))
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		assert.NilError(t, err)
		return string(b)
	}
	golden.Assert(t, read(CommandLogFile), "steps/command_log.json")
	golden.Assert(t, read(ReportFile), "steps/report.md")
	golden.Assert(t, read(DemoScriptFile), "steps/demo.sh")
	golden.Assert(t, read(DemoCastFile), "steps/demo.cast")
	assert.Check(t, is.Equal(read(ReadmeDiffFile), heredoc.Doc(`
		--- a/README.md
		+++ b/README.md
		@@ -21,7 +21,7 @@
		 Add `+"`--shout`"+` to greet in capitals: <!-- readme2demo: run -->
		 
		 `+"```sh"+`
		-python3 greet.py --shout World
		+python3 greet.py --loud World
		 `+"```"+`
		 
		 prints `+"`HELLO, WORLD!`"+`.
	`)))
	assert.Check(t, is.Equal(read(TranscriptFile), string(r.res.Transcript)))
	assert.Check(t, is.Equal(read(PromptFile), r.promptText))
	assert.Check(t, is.DeepEqual(*r.out, Result{
		RunID: stepsRunID, Log: r.log, AgentExitCode: r.res.ExitCode,
		CommandLog: filepath.Join(out, CommandLogFile), Transcript: filepath.Join(out, TranscriptFile), Stderr: filepath.Join(out, StderrFile),
		Prompt: filepath.Join(out, PromptFile), ReadmeDiff: filepath.Join(out, ReadmeDiffFile), Report: filepath.Join(out, ReportFile),
		DemoCast: filepath.Join(out, DemoCastFile), DemoScript: filepath.Join(out, DemoScriptFile), HTMLReport: filepath.Join(out, "report.html"),
	}))
}

// summary prints the outcome, its reason and where the files are.
func TestSummaryStep(t *testing.T) {
	r, _, progress := runUpTo(t, "summary")
	printed := progress.Len()
	assert.NilError(t, runStep(t, r, "summary"))
	golden.Assert(t, progress.String()[printed:], "steps/summary.golden")
}
