package action

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/release"
	"github.com/readme2demo/readme2demo/internal/release/releasetest"
)

// The goreleaser snapshot that .ci/run builds from .goreleaser.yaml, served
// as a release: the Action's first step finds the action binary under the
// name it expects, verifies it against goreleaser's own checksums.txt, and
// the binary it installed is the Action (static, linux/amd64), which checks
// inputs and credentials. So the release config and the Action agree.
func TestSnapshotReleaseTakesTheReleasedPath(t *testing.T) {
	dist, manifest := os.Getenv("R2D_SNAPSHOT_DIST"), os.Getenv("R2D_SNAPSHOT_MANIFEST")
	if dist == "" || manifest == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and R2D_SNAPSHOT_DIST / R2D_SNAPSHOT_MANIFEST are not set: .ci/run's release snapshot phase sets them")
		}
		t.Skip("no goreleaser snapshot (R2D_SNAPSHOT_DIST, R2D_SNAPSHOT_MANIFEST; .ci/run builds one): skipped outside CI")
	}
	// What goreleaser would upload: the artifacts it lists (dist/artifacts.json,
	// paths relative to the checkout) that checksums.txt covers, the SBOMs, and
	// checksums.txt itself.
	b, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	assert.NilError(t, err)
	var artifacts []struct{ Name, Path, Type string }
	assert.NilError(t, json.Unmarshal(b, &artifacts))
	sumsText, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	assert.NilError(t, err)
	files := map[string][]byte{}
	for _, a := range artifacts {
		if a.Type == "Checksum" || a.Type == "SBOM" || strings.Contains(string(sumsText), "  "+a.Name+"\n") {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(dist), a.Path))
			assert.NilError(t, err)
			files[a.Name] = b
		}
	}
	m, err := os.ReadFile(manifest)
	assert.NilError(t, err)
	files[release.ManifestFile] = m

	// What a release holds (docs/action.md).
	sums := string(files["checksums.txt"])
	for _, name := range []string{
		"readme2demo_0.0.0_linux_amd64.tar.gz", "readme2demo_0.0.0_linux_arm64.tar.gz",
		"readme2demo_0.0.0_darwin_amd64.tar.gz", "readme2demo_0.0.0_darwin_arm64.tar.gz",
		"readme2demo-action_0.0.0_linux_amd64", "readme2demo-action_0.0.0_linux_arm64",
		release.ManifestFile,
	} {
		_, ok := files[name]
		assert.Check(t, ok, "the release has no %s", name)
		assert.Check(t, is.Contains(sums, sha256Hex(files[name])+"  "+name+"\n"), "checksums.txt and %s", name)
	}
	var sboms []string
	for name := range files {
		if strings.HasSuffix(name, ".sbom.json") {
			sboms = append(sboms, name)
		}
	}
	assert.Check(t, is.Len(sboms, 6), "an SBOM per archive and action binary: %v", sboms)

	base, _ := releasetest.Assets(t, "v0.0.0", files)
	r := runReleaseScript(t, "v0.0.0", "readme2demo/readme2demo", base)
	assert.Equal(t, r.code, 0, r.stdout)
	assert.Assert(t, is.Equal(r.outputs["path"], "released"), r.stdout)

	bin := r.outputs["bin"]
	out, err := exec.Command(bin, "--help").CombinedOutput()
	assert.NilError(t, err, string(out))
	assert.Check(t, is.Contains(string(out), "readme2demo Action entry point"))
	assert.Check(t, is.Contains(string(out), "pull-image"))

	validate := func(env map[string]string) (int, string) {
		cmd := exec.Command(bin, "validate")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + filepath.Join(t.TempDir(), "out")}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), buf.String()
		}
		assert.NilError(t, err)
		return 0, buf.String()
	}
	code, log := validate(map[string]string{"INPUT_ENGINE": "claude-code"})
	assert.Check(t, is.Equal(code, exitcode.Usage), log)
	assert.Check(t, is.Contains(log, "ANTHROPIC_API_KEY"))
	code, log = validate(map[string]string{"INPUT_ENGINE": "markdown"})
	assert.Check(t, is.Equal(code, exitcode.OK), log)
}
