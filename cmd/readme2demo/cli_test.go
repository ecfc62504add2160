package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
)

// Flags may come after the arguments, as the README writes them.
func TestFlagsAfterArguments(t *testing.T) {
	const transcript = "../../testdata/fixtures/claude-code/edge-mixed-2.1.jsonl"
	dst := filepath.Join(t.TempDir(), "command_log.json")
	code, out, errOut := runCLI(t, "parse", "--engine", "claude-code", transcript, "-o", dst)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Check(t, is.Equal(out, ""))
	b, err := os.ReadFile(dst)
	assert.NilError(t, err)
	assert.Check(t, json.Valid(b))

	dir := filepath.Join(t.TempDir(), "demo")
	code, out, errOut = runCLI(t, "demo", dst, "-o", dir, "--html")
	assert.Equal(t, code, exitcode.OK, errOut)
	for _, f := range []string{"demo.cast", "demo.sh", "report.html"} {
		assert.Check(t, is.Contains(out, "wrote "+filepath.Join(dir, f)))
		_, err := os.Stat(filepath.Join(dir, f))
		assert.Check(t, err)
	}

	// run checks its flags before anything starts: --engine after REPO is
	// read (markdown's default network is open, so --allow-host is refused;
	// an unknown engine is named).
	code, _, errOut = runCLI(t, "run", sampleRepo, "--engine", "markdown", "--allow-host", "pypi.org")
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(errOut, "--allow-host needs --network allowlist (the network is open)"))
	code, _, errOut = runCLI(t, "run", sampleRepo, "--engine", "nope", "--out", filepath.Join(t.TempDir(), "out"))
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(errOut, `unknown engine "nope"`))
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	assert.Equal(t, code, exitcode.OK)
	assert.Check(t, strings.HasPrefix(out, "readme2demo version "), out)
	assert.Check(t, len(strings.TrimSpace(strings.TrimPrefix(out, "readme2demo version "))) > 0, out)

	old := buildVersion
	buildVersion = "v9.8.7"
	t.Cleanup(func() { buildVersion = old })
	code, out, _ = runCLI(t, "--version")
	assert.Equal(t, code, exitcode.OK)
	assert.Check(t, is.Equal(out, "readme2demo version v9.8.7\n"))
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "__start_readme2demo",
		"zsh":  "#compdef readme2demo",
		"fish": "complete -c readme2demo",
	} {
		code, out, errOut := runCLI(t, "completion", shell)
		assert.Check(t, is.Equal(code, exitcode.OK), errOut)
		assert.Check(t, is.Contains(out, want), shell)
	}
	// What a shell asks for when completing --engine and --network values.
	code, out, _ := runCLI(t, "__complete", "run", "--engine", "")
	assert.Equal(t, code, exitcode.OK)
	for _, e := range []string{"claude-code", "markdown", "replay"} {
		assert.Check(t, is.Contains(out, e+"\n"))
	}
	code, out, _ = runCLI(t, "__complete", "run", "--network", "")
	assert.Equal(t, code, exitcode.OK)
	assert.Check(t, is.Contains(out, "allowlist\n"))
}
