package drift_test

import (
	"archive/tar"
	"cmp"

	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/drift"
)

type fakeBuilder struct {
	images     map[string]map[string]string // tag → labels
	builds     []string                     // Dockerfiles built
	tags       []string
	labels     []map[string]string // the build's labels
	buildError string              // a daemon error in the build stream
}

func (f *fakeBuilder) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	labels, ok := f.images[ref]
	if !ok {
		return image.InspectResponse{}, errors.New("No such image: " + ref)
	}
	return image.InspectResponse{Config: &dockerspec.DockerOCIImageConfig{ImageConfig: ocispec.ImageConfig{Labels: labels}}}, nil
}

func (f *fakeBuilder) ImageBuild(_ context.Context, ctx io.Reader, o build.ImageBuildOptions) (build.ImageBuildResponse, error) {
	tr := tar.NewReader(ctx)
	h, err := tr.Next()
	if err != nil {
		return build.ImageBuildResponse{}, err
	}
	b, _ := io.ReadAll(tr)
	if h.Name != "Dockerfile" {
		return build.ImageBuildResponse{}, errors.New("no Dockerfile in the context")
	}
	f.builds = append(f.builds, string(b))
	f.tags = append(f.tags, o.Tags...)
	f.labels = append(f.labels, o.Labels)
	body := `{"stream":"Step 1/6 : FROM base\n"}` + "\n"
	if f.buildError != "" {
		body += `{"errorDetail":{"message":"` + f.buildError + `"},"error":"` + f.buildError + `"}` + "\n"
	}
	return build.ImageBuildResponse{Body: io.NopCloser(strings.NewReader(body))}, nil
}

func TestEnsureImage(t *testing.T) {
	cli, err := drift.LookupCLI("claude-code")
	assert.NilError(t, err)
	ctx := context.Background()
	base := "readme2demo-base:test"
	newFake := func() *fakeBuilder {
		return &fakeBuilder{images: map[string]map[string]string{base: {cli.ImageLabel(): "2.1.332"}}}
	}

	t.Run("the base image has the version", func(t *testing.T) {
		f := newFake()
		img, err := drift.EnsureImage(ctx, f, cli, base, "2.1.332", nil)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(img, base))
		assert.Check(t, is.Len(f.builds, 0))
	})
	t.Run("another version is built once FROM the base", func(t *testing.T) {
		f := newFake()
		var progress strings.Builder
		img, err := drift.EnsureImage(ctx, f, cli, base, "1.0.128", &progress)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(img, "readme2demo-drift:claude-code-1.0.128"))
		assert.Assert(t, is.Len(f.builds, 1))
		assert.Check(t, is.DeepEqual(f.tags, []string{img}))
		df := f.builds[0]
		assert.Check(t, strings.HasPrefix(df, "FROM readme2demo-base:test\nUSER root\n"))
		assert.Check(t, is.Contains(df, `npm install -g --no-fund --no-audit --loglevel=error "@anthropic-ai/claude-code@1.0.128"`))
		assert.Check(t, is.Contains(df, `LABEL io.readme2demo.claude-code-version="1.0.128"`))
		assert.Check(t, is.DeepEqual(f.labels[0], map[string]string{"io.readme2demo.managed": "drift", "io.readme2demo.drift-base": base}))
		assert.Check(t, strings.HasSuffix(df, "USER agent\n"))
		assert.Check(t, is.Contains(progress.String(), "Step 1/6"))

		// Built images are reused while they sit on the same base.
		f.images[img] = map[string]string{cli.ImageLabel(): "1.0.128", "io.readme2demo.drift-base": base}
		again, err := drift.EnsureImage(ctx, f, cli, base, "1.0.128", nil)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(again, img))
		assert.Check(t, is.Len(f.builds, 1))
		f.images[img]["io.readme2demo.drift-base"] = "elsewhere:1"
		_, err = drift.EnsureImage(ctx, f, cli, base, "1.0.128", nil)
		assert.NilError(t, err)
		assert.Check(t, is.Len(f.builds, 2), "an image on another base is rebuilt")
	})
	t.Run("build errors come back", func(t *testing.T) {
		f := newFake()
		f.buildError = "npm ERR! 404 No match found for version 0.0.1"
		_, err := drift.EnsureImage(ctx, f, cli, base, "0.0.1", nil)
		assert.ErrorContains(t, err, "build image readme2demo-drift:claude-code-0.0.1: npm ERR! 404")
	})
	t.Run("no base image", func(t *testing.T) {
		_, err := drift.EnsureImage(ctx, newFake(), cli, "missing:1", "1.0.128", nil)
		assert.ErrorContains(t, err, "inspect base image missing:1")
	})
	t.Run("a version that is no version", func(t *testing.T) {
		f := newFake()
		_, err := drift.EnsureImage(ctx, f, cli, base, `1.0.0"; rm -rf /`, nil)
		assert.ErrorContains(t, err, "is not a version")
		assert.Check(t, is.Len(f.builds, 0))
	})
}

func TestResolveVersion(t *testing.T) {
	cli, err := drift.LookupCLI("claude-code")
	assert.NilError(t, err)
	var requests []string
	answer, status := "", http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.EscapedPath())
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	reg := agentcli.Registries{NPM: srv.URL}
	ctx := context.Background()
	for _, tc := range []struct {
		in, answer string
		status     int
		want, err  string
	}{
		{in: "latest", answer: `{"dist-tags":{"latest":"2.2.0","next":"2.3.0-beta.1"}}`, want: "2.2.0"},
		{in: "pinned", want: cli.Pinned},
		{in: "", want: cli.Pinned},
		{in: "1.0.128", want: "1.0.128"},
		{in: "1.0", err: `"1.0" is not a version`},
		{in: "latest", answer: "<html>proxy error</html>", err: "resolve latest @anthropic-ai/claude-code: decode"},
		{in: "latest", answer: `{"dist-tags":{"latest":"1.0; rm -rf /"}}`, err: "not a version like 1.2.3"},
		{in: "latest", answer: `{"error":"Not found"}`, status: http.StatusNotFound, err: "answered 404 Not Found"},
	} {
		requests, answer, status = nil, tc.answer, cmp.Or(tc.status, http.StatusOK)
		got, err := drift.ResolveVersion(ctx, reg, cli, tc.in)
		if tc.err != "" {
			assert.Check(t, is.ErrorContains(err, tc.err), tc.in)
			continue
		}
		assert.Check(t, err, tc.in)
		assert.Check(t, is.Equal(got, tc.want))
		if tc.in == "latest" {
			assert.Check(t, is.DeepEqual(requests, []string{"/@anthropic-ai%2fclaude-code"}))
		} else {
			assert.Check(t, is.Len(requests, 0), "no registry request for %q", tc.in)
		}
	}
	_, err = drift.LookupCLI("markdown")
	assert.Check(t, errors.Is(err, drift.ErrNotDrivable))
}
