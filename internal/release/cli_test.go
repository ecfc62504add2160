package release

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
)

const cliCommit = "0123456789abcdef0123456789abcdef01234567"

func TestCLIMatrix(t *testing.T) {
	var out, errb bytes.Buffer
	code := RunCLI([]string{"matrix", "--namespace", "ghcr.io/ReadMe2Demo", "--version", "v1.2.3", "--repository", "ReadMe2Demo/readme2demo", "--commit", cliCommit}, &out, &errb)
	assert.Equal(t, code, 0, errb.String())
	var jobs []BuildJob
	assert.NilError(t, json.Unmarshal(out.Bytes(), &jobs))
	assert.Check(t, is.Len(jobs, len(Flavours)))
	assert.Check(t, is.Equal(jobs[1].Flavour, "codex"))
	assert.Check(t, is.Equal(jobs[1].Tags, "ghcr.io/readme2demo/readme2demo-sandbox-codex:v1.2.3"))
	assert.Check(t, is.Contains(jobs[1].BuildArgs, "CODEX_VERSION="+agentcli.CodexVersion+"\n"))
	assert.Check(t, is.Contains(jobs[1].Labels, "io.readme2demo.codex-version="+agentcli.CodexVersion))
}

func TestCLIManifest(t *testing.T) {
	dir := t.TempDir()
	digest := "@sha256:" + strings.Repeat("a", 64)
	for _, f := range Flavours {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, f.Name), []byte(f.ImageName("ghcr.io/readme2demo")+digest+"\n"), 0o644))
	}
	args := []string{"manifest", "--version", "v1.2.3", "--repository", "readme2demo/readme2demo", "--commit", cliCommit, "--digests", dir}
	var out, errb bytes.Buffer
	assert.Equal(t, RunCLI(args, &out, &errb), 0, errb.String())
	m, err := ParseManifest(&out)
	assert.NilError(t, err)
	ref, err := m.ImageFor("markdown")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(ref, "ghcr.io/readme2demo/readme2demo-sandbox-keyless"+digest))

	// A flavour whose build did not record its digest stops the
	assert.NilError(t, os.Remove(filepath.Join(dir, "gemini")))
	out.Reset()
	errb.Reset()
	assert.Check(t, is.Equal(RunCLI(args, &out, &errb), 1))
	assert.Check(t, is.Contains(errb.String(), "read the gemini image's digest"))
	// A tag instead of a digest too.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "gemini"), []byte("ghcr.io/readme2demo/readme2demo-sandbox-gemini:v1.2.3\n"), 0o644))
	errb.Reset()
	assert.Check(t, is.Equal(RunCLI(args, &out, &errb), 1))
	assert.Check(t, is.Contains(errb.String(), "of the gemini flavour is not NAME@sha256:DIGEST"))
}

func TestCLIUsage(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Check(t, is.Equal(RunCLI(nil, &out, &errb), 2))
	assert.Check(t, is.Equal(RunCLI([]string{"manifest", "--version", "1.2.3"}, &out, &errb), 2))
	assert.Check(t, is.Contains(errb.String(), `--version "1.2.3" is not vMAJOR.MINOR.PATCH`))
}
