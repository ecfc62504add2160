package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// TestMain lets this test binary act as the egress proxy: the run tests
// under network allowlist copy it into the proxy container, started as
// egress.ProgramName.
func TestMain(m *testing.M) {
	if egress.IsProxy(os.Args[0]) {
		os.Exit(egress.Main(os.Getenv, os.Stdout, os.Stderr))
	}
	if sandbox.IsMeter(os.Args[0]) { // the strict profile's disk meter
		os.Exit(sandbox.MeterMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// Exit statuses and where the text goes: help asked for is on stdout and
// exits 0; a usage error says what is wrong on stderr and exits 2.
func TestHelpAndUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
		notStdout      string
	}{
		{args: []string{"--help"}, code: exitcode.OK, stdout: "Available Commands:"},
		{args: []string{"-h"}, code: exitcode.OK, stdout: "completion"},
		{args: []string{"help", "parse"}, code: exitcode.OK, stdout: "readme2demo parse [flags] TRANSCRIPT"},
		{args: nil, code: exitcode.Usage, stdout: "Available Commands:"},
		{args: []string{"frobnicate"}, code: exitcode.Usage, stderr: `unknown command "frobnicate"`},
		{args: []string{"parse", "--help"}, code: exitcode.OK, stdout: "Usage:\n  readme2demo parse [flags] TRANSCRIPT"},
		{args: []string{"parse", "--help"}, code: exitcode.OK, stdout: "  -o, --out string ", notStdout: " -engine"},
		{args: []string{"run", "--help"}, code: exitcode.OK, stdout: "      --max-turns int ", notStdout: " -max-turns"},
		{args: []string{"run", "--help"}, code: exitcode.OK, stdout: "Exit status: 0 success, 1 failed (or interrupted), 3 blocked"},
		{args: []string{"run", "--max-turns", "many"}, code: exitcode.Usage, stderr: `invalid argument "many" for "--max-turns"`},
		{args: []string{"run", "-max-turns", "3"}, code: exitcode.Usage, stderr: "readme2demo run: unknown shorthand flag: 'm' in -max-turns\nRun 'readme2demo run --help' for usage."},
		{args: []string{"demo", "--bogus", "x"}, code: exitcode.Usage, stderr: "readme2demo demo: unknown flag: --bogus"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			assert.Check(t, is.Equal(code, tc.code), "stderr: %s", errOut)
			assert.Check(t, is.Contains(out, tc.stdout))
			assert.Check(t, is.Contains(errOut, tc.stderr))
			if tc.notStdout != "" {
				assert.Check(t, !strings.Contains(out, tc.notStdout), out)
			}
			if tc.code == exitcode.Usage && tc.stderr != "" {
				assert.Check(t, is.Equal(out, ""))
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown engine", []string{"parse", "--engine", "nope", "x"}, `unknown engine "nope"`},
		{"missing file", []string{"parse", filepath.Join(t.TempDir(), "missing.jsonl")}, "open transcript"},
		{"no file", []string{"parse"}, "exactly one transcript"},
		{"bad flag", []string{"parse", "--bogus"}, "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			assert.Equal(t, code, exitcode.Usage)
			assert.Equal(t, out, "")
			assert.Assert(t, strings.Contains(errOut, tt.want), errOut)
		})
	}
}

func TestParseFixture(t *testing.T) {
	code, out, errOut := runCLI(t, "parse", "--engine", "claude-code", "../../testdata/fixtures/claude-code/edge-mixed-2.1.jsonl")
	assert.Equal(t, code, exitcode.OK, errOut)
	l, err := commandlog.Decode(strings.NewReader(out))
	assert.NilError(t, err)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess)
	assert.Assert(t, l.Adjusted)
	assert.Equal(t, len(l.Commands), 5)
	assert.Equal(t, l.ParseStats.Malformed, 1)

	dst := filepath.Join(t.TempDir(), "command_log.json")
	code, out, _ = runCLI(t, "parse", "-o", dst, "../../testdata/fixtures/claude-code/edge-mixed-2.1.jsonl")
	assert.Equal(t, code, exitcode.OK)
	assert.Equal(t, out, "")
	b, err := os.ReadFile(dst)
	assert.NilError(t, err)
	assert.Assert(t, json.Valid(b))
}

// An empty transcript holds no record any engine understands: refused with
// exit status 4, and written (still status 4) only with --force.
func TestParseEmptyTranscript(t *testing.T) {
	code, out, errOut := runCLI(t, "parse", "--engine", "claude-code", os.DevNull)
	assert.Equal(t, code, exitcode.NotUnderstood)
	assert.Equal(t, out, "")
	assert.Assert(t, strings.Contains(errOut, os.DevNull+" does not look like a claude-code transcript: 0 of 0 records understood"), errOut)
	code, out, _ = runCLI(t, "parse", "--engine", "claude-code", "--force", os.DevNull)
	assert.Equal(t, code, exitcode.NotUnderstood)
	l, err := commandlog.Decode(strings.NewReader(out))
	assert.NilError(t, err)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, l.CostUSD == nil, "unknown cost is null, not 0")
}

// Secrets of the known shapes never reach the command log, wherever the
// agent or a command printed them.
func TestParseRedactsKnownTokenShapes(t *testing.T) {
	secrets := []string{
		"sk-ant-api03-" + strings.Repeat("Ab3", 30),
		"sk-ant-oat01-" + strings.Repeat("Zq9", 30),
		"sk-proj-" + strings.Repeat("x7Y", 20),
		"ghp_" + strings.Repeat("a1B2", 9),
		"github_pat_" + strings.Repeat("11AB_cd", 10),
		"AKIA" + "IOSFODNN7EXAMPLE",
		"AIza" + strings.Repeat("S", 35),
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	all := strings.Join(secrets, " ")
	transcript := `{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"FIX: use ` + secrets[0] + `"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo ` + all + `"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"` + all + `"}]}}
`
	path := filepath.Join(t.TempDir(), "t.jsonl")
	assert.NilError(t, os.WriteFile(path, []byte(transcript), 0o600))
	code, out, errOut := runCLI(t, "parse", path)
	assert.Equal(t, code, exitcode.OK, errOut)
	for _, s := range secrets {
		assert.Assert(t, !strings.Contains(out, s), "secret %.12s… leaked", s)
		assert.Assert(t, !strings.Contains(errOut, s))
	}
	assert.Assert(t, strings.Contains(out, "[REDACTED:"))
}

// A log that cannot be written — no room for the temporary files, or for
// the output — is exit status 1, with what to do; the transcript is fine.
func TestParseCannotWrite(t *testing.T) {
	fixture := "../../testdata/fixtures/claude-code/edge-mixed-2.1.jsonl"
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	code, out, errOut := runCLI(t, "parse", fixture)
	assert.Equal(t, code, exitcode.Failed)
	assert.Equal(t, out, "")
	assert.Assert(t, strings.Contains(errOut, "set TMPDIR"), errOut)

	t.Setenv("TMPDIR", t.TempDir())
	code, _, errOut = runCLI(t, "parse", "-o", filepath.Join(t.TempDir(), "no", "such", "dir", "log.json"), fixture)
	assert.Equal(t, code, exitcode.Failed)
	assert.Assert(t, strings.Contains(errOut, "write command log"), errOut)
}
