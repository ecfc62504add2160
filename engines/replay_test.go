package engines

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/runner"
)

// aiLog parses the Claude Code transcript of an AI run with the real
// claude-code engine: the log a human accepted and replay re-checks.
func aiLog(t *testing.T) *commandlog.Log {
	t.Helper()
	return claudeLog(t, filepath.Join("..", "testdata", "fixtures", "replay", "input", "claude-code-adjusted.jsonl"))
}

// claudeLog parses a Claude Code transcript with the claude-code engine.
func claudeLog(t *testing.T, path string) *commandlog.Log {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	cc, err := Lookup(ClaudeCodeName)
	assert.NilError(t, err)
	l, err := cc.ParseTranscript(f)
	assert.NilError(t, err)
	return l
}

// demoRepo is the repository the AI run worked on: build.sh is not
// executable in the checkout, which the agent fixed with chmod.
func demoRepo(ws string) {
	_ = os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo\n\n```sh\n./build.sh\ncd out && ./hello\n```\n"), 0o644)
	_ = os.WriteFile(filepath.Join(ws, "build.sh"), []byte("#!/bin/sh\nmkdir -p out\nprintf '#!/bin/sh\\nif [ \"$1\" = --check ]; then echo check ok; else echo hello from the demo; fi\\n' > out/hello\nchmod +x out/hello\necho built out/hello\n"), 0o644)
}

func TestReplayPlanIsTheSuccessfulPath(t *testing.T) {
	l := aiLog(t)
	l.Commands[2].Source = &commandlog.Source{File: "README.md", Line: 4}
	plan := replayPlan(l)
	var cmds []string
	for _, s := range plan.Steps {
		cmds = append(cmds, s.Command)
		assert.Equal(t, s.Timeout, DefaultCommandTimeout)
		assert.Assert(t, !s.AllowFailure)
	}
	assert.DeepEqual(t, cmds, []string{"ls", "chmod +x build.sh && ./build.sh", "cd out && ./hello", "./hello --check"})
	assert.Equal(t, plan.Steps[1].File, "README.md")
	assert.Equal(t, plan.Steps[1].Line, 4, "a command keeps its README source")
	assert.Equal(t, plan.Steps[0].Line, 0)
	var notes []string
	for _, n := range plan.Notes {
		notes = append(notes, n.Text)
	}
	assert.DeepEqual(t, notes, []string{
		"replay: 1 failed or unfinished command(s) of the original run left out",
		"replay: file edits of the original run are not replayed: /workspace/README.md",
	})
}

func TestReplayRunsAnAIProducedLog(t *testing.T) {
	t.Parallel()
	l, ws := runLocal(t, ReplayName, replayPlan(aiLog(t)), demoRepo)
	assert.DeepEqual(t, cmdSummary(l), []string{
		"0 ls => 0 ok",
		"0 chmod +x build.sh && ./build.sh => 0 ok",
		"0 cd out && ./hello => 0 ok",
		"0 ./hello --check => 0 ok",
	})
	assert.Equal(t, l.Commands[3].Output, "check ok\n", "cd carries over to the next command, as in the original session")
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
	assert.Equal(t, l.Engine, ReplayName)
	_, err := os.Stat(filepath.Join(ws, "out", "hello"))
	assert.NilError(t, err)
}

func TestReplayDetectsDrift(t *testing.T) {
	t.Parallel()
	// The repository changed since the AI run: build.sh is gone.
	l, _ := runLocal(t, ReplayName, replayPlan(aiLog(t)), func(ws string) {
		demoRepo(ws)
		_ = os.Remove(filepath.Join(ws, "build.sh"))
	})
	assert.DeepEqual(t, cmdSummary(l), []string{
		"0 ls => 0 ok",
		"0 chmod +x build.sh && ./build.sh => 1 failed",
	})
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.HasPrefix(l.OutcomeReason, "command 2: `chmod +x build.sh && ./build.sh` exited with 1; 2 of 4 planned commands were not reached; the replay engine"), l.OutcomeReason)
}

func TestReplayPrepareInput(t *testing.T) {
	e, _ := Lookup(ReplayName)
	p := e.(InputPreparer)
	var good bytes.Buffer
	assert.NilError(t, commandlog.Encode(&good, aiLog(t)))
	in, err := p.PrepareInput(RunInput{CommandLog: good.Bytes()})
	assert.NilError(t, err)
	assert.Equal(t, strings.SplitN(string(in), "\n", 3)[1], runner.Magic)
	assert.Assert(t, strings.Contains(string(in), "chmod +x build.sh"))
	assert.Assert(t, !strings.Contains(string(in), `"command":"./build.sh"`), "the failed attempt is not replayed")

	failedOnly := `{"schema_version":1,"engine":"codex","outcome":"failed","markers":[],"commands":[{"id":"a","command":"make","output":"","exit_code":2,"status":"failed","truncated":false}],"file_edits":[],"parse_stats":{"lines":1,"malformed":0,"unknown_events":0}}`
	tests := []struct {
		name, log, want string
	}{
		{"no log", "", "needs an earlier command_log.json"},
		{"not a log", "{not json", "not a valid command_log.json"},
		{"invalid log", `{"schema_version":7,"engine":"x","outcome":"maybe"}`, "not a valid command_log.json"},
		{"nothing succeeded", failedOnly, "has no successful command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.PrepareInput(RunInput{CommandLog: []byte(tt.log)})
			var ee *EngineError
			assert.Assert(t, errors.As(err, &ee), "want an *EngineError, got %v", err)
			assert.Equal(t, ee.Engine, ReplayName)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A command that redaction altered is never replayed: the replay refuses
// before anything runs and names the command and its README line.
func TestReplayRefusesRedactedCommands(t *testing.T) {
	zero := 0
	l := &commandlog.Log{SchemaVersion: 1, Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "echo ok", ExitCode: &zero, Status: commandlog.StatusOK},
		{ID: "2", Command: "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://x", ExitCode: &zero, Status: commandlog.StatusOK,
			Source: &commandlog.Source{File: "README.md", Line: 12}},
	}}
	var b bytes.Buffer
	assert.NilError(t, commandlog.Encode(&b, l))
	e, err := Lookup(ReplayName)
	assert.NilError(t, err)
	_, err = e.(InputPreparer).PrepareInput(RunInput{ReadmeName: "README.md", CommandLog: b.Bytes()})
	var ee *EngineError
	assert.Assert(t, errors.As(err, &ee), "%v", err)
	assert.ErrorContains(t, err, "refusing to replay")
	assert.ErrorContains(t, err, "command 2 (README.md line 12)")
	assert.ErrorContains(t, err, "[REDACTED:bearer-token]")

	// Nor is one whose setup hint's command (or what ran for it) was.
	l.Commands[1].Command, l.Commands[1].Setup = "curl https://x", "export TOKEN=[REDACTED:bearer-token]"
	b.Reset()
	assert.NilError(t, commandlog.Encode(&b, l))
	_, err = e.(InputPreparer).PrepareInput(RunInput{ReadmeName: "README.md", CommandLog: b.Bytes()})
	assert.ErrorContains(t, err, "command 2 (README.md line 12)")

	// A failed command with a marker is not replayed anyway: no refusal.
	l.Commands[1].Status, l.Commands[1].ExitCode = commandlog.StatusFailed, nil
	b.Reset()
	assert.NilError(t, commandlog.Encode(&b, l))
	_, err = e.(InputPreparer).PrepareInput(RunInput{ReadmeName: "README.md", CommandLog: b.Bytes()})
	assert.NilError(t, err)
}

// A markdown run's log says how each command ran where its text does not
// (the checkout linked for the README's clone of it, a cwd and a setup
// hint, a server left running), and a replay of that log runs the same:
// without it the replay would clone, miss the hints, and wait on the
// server until its timeout.
func TestReplayRunsWhatTheMarkdownRunRan(t *testing.T) {
	t.Parallel()
	var repo plan.Repo
	repo.AddSlug("demo-org/tool")
	repo.AddFiles("README.md", "marker", "sub/here", "conf/app.toml")
	md := "```sh\ngit clone https://github.com/demo-org/tool.git\ncd tool/sub\nls here\n" +
		"git clone --depth 1 https://github.com/demo-org/tool.git \"$HOME/.tool\" && ls \"$HOME/.tool/marker\"\n```\n\n" +
		"<!-- readme2demo: cwd=conf setup=\"echo hidden > made-by-setup\" -->\n```sh\ncat app.toml\ncat made-by-setup\n```\n\n" +
		"<!-- readme2demo: background ready=\"test -e up\" timeout=20s -->\n```sh\nsleep 1; touch up; exec sleep 300\n```\n\n" +
		"```sh\nls up\n```\n"
	files := func(ws string) {
		assert.NilError(t, os.WriteFile(filepath.Join(ws, "marker"), nil, 0o644))
		assert.NilError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(ws, "sub", "here"), nil, 0o644))
		assert.NilError(t, os.Mkdir(filepath.Join(ws, "conf"), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(ws, "conf", "app.toml"), []byte("name = 1\n"), 0o644))
	}
	l, _ := runLocal(t, MarkdownName, markdownPlan(RunInput{ReadmeName: "README.md", Readme: []byte(md), Repo: repo}), files)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, "%s %v", l.OutcomeReason, cmdSummary(l))
	type how struct {
		Command, Ran, Cwd, Setup string
		LeaveCwd                 bool
		Background               *commandlog.Background
	}
	var got []how
	for _, c := range l.Commands {
		got = append(got, how{c.Command, c.Ran, c.Cwd, c.Setup, c.LeaveCwd, c.Background})
	}
	assert.DeepEqual(t, got, []how{
		{Command: "cd tool/sub", Ran: `cd -- "$README2DEMO_CHECKOUT"/sub`},
		{Command: "ls here"},
		{Command: `git clone --depth 1 https://github.com/demo-org/tool.git "$HOME/.tool" && ls "$HOME/.tool/marker"`,
			Ran: `mkdir -p -- "$(dirname -- "$HOME/.tool")" && ln -sfn -- "$README2DEMO_CHECKOUT" "$HOME/.tool" && ls "$HOME/.tool/marker"`},
		{Command: "cat app.toml", Cwd: "conf", Setup: "echo hidden > made-by-setup"},
		{Command: "cat made-by-setup", LeaveCwd: true},
		{Command: "sleep 1; touch up; exec sleep 300", Background: &commandlog.Background{Ready: "test -e up", TimeoutS: 20}},
		{Command: "ls up"},
	})

	start := time.Now()
	r, _ := runLocal(t, ReplayName, replayPlan(l), files)
	assert.Equal(t, r.Outcome, commandlog.OutcomeSuccess, "%s %v", r.OutcomeReason, cmdSummary(r))
	assert.DeepEqual(t, cmdSummary(r), cmdSummary(l))
	assert.Assert(t, time.Since(start) < 20*time.Second, "the replay waited on the server: %s", time.Since(start))
}

// An agent's server left running in the background (Claude Code's
// run_in_background, a real transcript) is replayed in the background: its
// status is unknown because its end never came, and leaving it out would
// fail the commands after it that talk to it.
func TestReplayStartsTheAgentsBackgroundServer(t *testing.T) {
	l := claudeLog(t, filepath.Join("..", "testdata", "corpus", "claude-code", "session-jsonl-spotter-tool_heavy-2.1.38.jsonl"))
	var bg []runner.Step
	for _, s := range replayPlan(l).Steps {
		if s.Background {
			bg = append(bg, s)
		}
	}
	assert.DeepEqual(t, bg, []runner.Step{{Command: "mix phx.server", Timeout: DefaultReadyTimeout, Background: true}})
}
