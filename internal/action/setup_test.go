package action

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/release"
	"github.com/readme2demo/readme2demo/internal/release/pull"
)

// runMode runs one setup mode of the Action in the harness's runner.
func (h *harness) runMode(mode string, docker func(context.Context) (pull.Docker, func(), error)) result {
	h.t.Helper()
	os.Remove(h.env["GITHUB_OUTPUT"])
	os.Remove(h.env["GITHUB_STEP_SUMMARY"])
	a := &app{pipeline: h.pipeline, httpClient: http.DefaultClient, docker: docker,
		sleep: func(context.Context, time.Duration) error { return nil }}
	var stdout, stderr bytes.Buffer
	code := a.run(context.Background(), []string{mode}, func(k string) string { return h.env[k] }, &stdout, &stderr)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String(), outputs: readOutputs(h.t, h.env["GITHUB_OUTPUT"])}
	b, _ := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	r.summary = string(b)
	return r
}

func noDocker(context.Context) (pull.Docker, func(), error) {
	return nil, nil, errors.New("no Docker in this test")
}

// The validate step decides the same as the run, before any image exists,
// and never runs the agent.
func TestValidateMode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		event   string
		edit    func(env map[string]string)
		code    int
		outputs map[string]string
		stdout  []string
	}{
		{name: "in order", event: "event_pull_request.json", code: exitcode.OK,
			outputs: map[string]string{"proceed": "true"},
			stdout:  []string{"readme2demo: inputs and the claude-code engine's credentials are in order"}},
		{name: "the keyless engine needs no key", event: "event_pull_request.json", code: exitcode.OK,
			edit:    func(env map[string]string) { env["INPUT_ENGINE"] = "markdown"; delete(env, "ANTHROPIC_API_KEY") },
			outputs: map[string]string{"proceed": "true"}},
		{name: "missing key", event: "event_pull_request.json", code: exitcode.Usage,
			edit:    func(env map[string]string) { delete(env, "ANTHROPIC_API_KEY") },
			outputs: map[string]string{"outcome": "error"},
			stdout:  []string{"::error::engine claude-code", "anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}"}},
		{name: "bad inputs, all of them", event: "event_pull_request.json", code: exitcode.Usage,
			edit: func(env map[string]string) {
				env["INPUT_MAX_TURNS"] = "lots"
				env["INPUT_NETWORK"] = "wide"
			},
			outputs: map[string]string{"outcome": "error"},
			stdout:  []string{"::error::input max-turns:", "::error::input network:"}},
		{name: "unknown engine", event: "event_pull_request.json", code: exitcode.Usage,
			edit:    func(env map[string]string) { env["INPUT_ENGINE"] = "nonesuch" },
			outputs: map[string]string{"outcome": "error"},
			stdout:  []string{`unknown engine "nonesuch"`}},
		{name: "fork PR without key: no image, the run reports the skip", event: "event_pull_request_fork.json", code: exitcode.OK,
			edit:    func(env map[string]string) { delete(env, "ANTHROPIC_API_KEY") },
			outputs: map[string]string{"proceed": "false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.event)
			if tc.edit != nil {
				tc.edit(h.env)
			}
			r := h.runMode("validate", noDocker)
			assert.Check(t, is.Equal(r.code, tc.code), r.stdout)
			assert.Check(t, is.DeepEqual(r.outputs, tc.outputs))
			for _, s := range tc.stdout {
				assert.Check(t, is.Contains(r.stdout, s))
			}
			assert.Check(t, is.Equal(h.calls.Load(), int32(0)), "validate ran the agent")
			assert.Check(t, is.Equal(r.summary, ""), "validate writes no summary (the run does)")
			assert.Check(t, !strings.Contains(r.stdout, "::notice::"), "no notice from validate: %s", r.stdout)
			for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
				if !strings.HasPrefix(line, "::add-mask::") {
					assert.Check(t, !strings.Contains(line, canaryAnthropic), "the key leaked: %q", line)
				}
			}
			if _, ok := h.env["ANTHROPIC_API_KEY"]; ok {
				assert.Check(t, is.Contains(r.stdout, "::add-mask::"+canaryAnthropic), "masked before anything else")
			}
		})
	}
}

// fakeDocker answers ImagePull with a canned progress stream and
// ImageInspect with the digests it holds.
type fakeDocker struct {
	stream  string
	digests []string
	pulled  []string
}

func (f *fakeDocker) ImagePull(_ context.Context, ref string, _ image.PullOptions) (io.ReadCloser, error) {
	f.pulled = append(f.pulled, ref)
	return io.NopCloser(strings.NewReader(f.stream)), nil
}

func (f *fakeDocker) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	if len(f.pulled) == 0 {
		return image.InspectResponse{}, errors.New("No such image: " + ref)
	}
	return image.InspectResponse{RepoDigests: f.digests}, nil
}

func TestPullImageMode(t *testing.T) {
	ref := "ghcr.io/readme2demo/readme2demo-sandbox-codex@" + testDigest
	other := "ghcr.io/readme2demo/readme2demo-sandbox-keyless@sha256:" + strings.Repeat("1", 64)
	m := testManifest(t, other)
	m = bytes.Replace(m, []byte(`"codex": {
      "image": "`+other), []byte(`"codex": {
      "image": "`+ref), 1)
	assert.Assert(t, bytes.Contains(m, []byte(ref)))
	path := filepath.Join(t.TempDir(), release.ManifestFile)
	assert.NilError(t, os.WriteFile(path, m, 0o644))

	for _, tc := range []struct {
		name   string
		env    map[string]string
		docker *fakeDocker
		code   int
		image  string
		stdout []string
	}{
		{name: "pulls the engine's image by digest", env: map[string]string{"INPUT_ENGINE": "codex", ManifestEnv: path},
			docker: &fakeDocker{stream: `{"status":"Pulling from readme2demo/readme2demo-sandbox-codex","id":"sha256:0123"}` + "\n" +
				`{"status":"Pull complete","id":"0123456789ab"}` + "\n", digests: []string{ref}},
			code: exitcode.OK, image: ref, stdout: []string{"image " + ref + ": 1/1 layers", "image " + ref + ": pulled in "}},
		{name: "a pull that ends in an error", env: map[string]string{"INPUT_ENGINE": "codex", ManifestEnv: path},
			docker: &fakeDocker{stream: `{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}` + "\n"},
			code:   exitcode.Failed, stdout: []string{"::error::pull image " + ref + ": manifest unknown"}},
		{name: "a daemon that holds another digest", env: map[string]string{"INPUT_ENGINE": "codex", ManifestEnv: path},
			docker: &fakeDocker{digests: []string{"ghcr.io/readme2demo/readme2demo-sandbox-codex@sha256:" + strings.Repeat("9", 64)}},
			code:   exitcode.Failed, stdout: []string{"the daemon does not list the pulled image under that digest"}},
		{name: "no manifest", env: map[string]string{"INPUT_ENGINE": "codex"}, docker: &fakeDocker{},
			code: exitcode.Usage, stdout: []string{"R2D_RELEASE_MANIFEST is not set"}},
		{name: "an engine with no image", env: map[string]string{"INPUT_ENGINE": "cursor", ManifestEnv: path}, docker: &fakeDocker{},
			code: exitcode.Usage, stdout: []string{`find sandbox image for engine "cursor"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "")
			for k, v := range tc.env {
				h.env[k] = v
			}
			r := h.runMode("pull-image", func(context.Context) (pull.Docker, func(), error) { return tc.docker, func() {}, nil })
			assert.Check(t, is.Equal(r.code, tc.code), r.stdout)
			assert.Check(t, is.Equal(r.outputs["image"], tc.image))
			for _, s := range tc.stdout {
				assert.Check(t, is.Contains(r.stdout, s))
			}
		})
	}
}

func TestModesTakeNoExtraArguments(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	a := &app{pipeline: h.pipeline, docker: noDocker}
	var stdout, stderr bytes.Buffer
	code := a.run(context.Background(), []string{"validate", "now"}, func(k string) string { return h.env[k] }, &stdout, &stderr)
	assert.Check(t, is.Equal(code, exitcode.Usage))
	assert.Check(t, is.Contains(stdout.String(), `unexpected arguments ["validate" "now"]`))
}
