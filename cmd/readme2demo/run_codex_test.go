package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// `readme2demo run --engine codex` end to end: the verb's flags and
// environment (OPENAI_API_KEY, OPENAI_BASE_URL, R2D_IMAGE), the REAL codex
// CLI in the REAL container against the mock, progress on stderr, the
// command log in --out and exit status 0 for a SUCCESS run.
func TestRunCodexSucceedsExitsZero(t *testing.T) {
	srv, img := startMock(t, scriptedllm.Scenario{Name: "codex-success", Turns: []scriptedllm.Turn{
		scriptedllm.Run("Following the README.", scriptedllm.Bash("python3 greet.py World")),
		scriptedllm.Run("", scriptedllm.Bash("./test.sh")),
	}, FinalText: "Both steps work.\nSUCCESS"})
	out := t.TempDir()
	vars := map[string]string{"OPENAI_API_KEY": scriptedllm.DummyAPIKey, "OPENAI_BASE_URL": srv.URL() + "/v1", "R2D_IMAGE": img}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--engine", "codex", "--model", scriptedllm.CodexModel, "--timeout", "3m", "--out", out, sampleRepo},
		env{getenv: func(k string) string { return vars[k] }, stdout: &stdout, stderr: &stderr})
	assert.Equal(t, code, exitcode.OK, "stderr:\n%s", stderr.String())
	assert.Check(t, is.Contains(stderr.String(), "codex in "+img))
	assert.Check(t, is.Contains(stderr.String(), "$ python3 greet.py World"))
	assert.Check(t, is.Contains(stderr.String(), "$ ./test.sh"))
	assert.Check(t, !bytes.Contains(stderr.Bytes(), []byte(scriptedllm.DummyAPIKey)))

	log := readLog(t, filepath.Join(out, "command_log.json"))
	assert.Check(t, is.Equal(log.Engine, "codex"))
	assert.Check(t, is.Equal(log.Outcome, commandlog.OutcomeSuccess))
	assert.Assert(t, is.Len(log.Commands, 2))
	for i, want := range []struct {
		cmd, out string
		line     int
	}{{"python3 greet.py World", "Hello, World!", 10}, {"./test.sh", "all tests passed", 32}} {
		c := log.Commands[i]
		assert.Check(t, is.Equal(c.Command, want.cmd))
		assert.Check(t, is.Contains(c.Output, want.out))
		assert.Check(t, c.ExitCode != nil && *c.ExitCode == 0, "exit code of %q", c.Command)
		assert.Check(t, is.Equal(c.Status, commandlog.StatusOK))
		assert.Check(t, c.Source != nil && c.Source.Line == want.line, "source of %q: %+v", c.Command, c.Source)
	}
	assert.Check(t, is.Equal(srv.TurnsServed(), 2))
}
