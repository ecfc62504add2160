// Package releasetest serves a release the way GitHub would, for tests of
// the Action's released path: an in-process OCI registry on 127.0.0.1
// (dockerd pulls from 127.0.0.0/8 registries over plain HTTP without any
// daemon setting) holding a sandbox image pushed from the local daemon, and
// a file server with the release's assets.
package releasetest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/client"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"gotest.tools/v3/assert"
)

// DefaultImage is the sandbox image the release tests push unless
// R2D_RELEASE_TEST_IMAGE names another: the keyless flavour (images/base
// with no agent CLI), which .ci/run builds beside the test image.
const DefaultImage = "readme2demo-sandbox-keyless:test"

// Image is the name of the sandbox image the release tests push.
func Image() string {
	if img := os.Getenv("R2D_RELEASE_TEST_IMAGE"); img != "" {
		return img
	}
	return DefaultImage
}

// Registry starts an in-process registry on 127.0.0.1 (blobs on disk under
// the test's temporary directory) and returns its host:port.
func Registry(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(
		registry.WithBlobHandler(registry.NewDiskBlobHandler(t.TempDir())),
		registry.Logger(log.New(io.Discard, "", 0)),
	))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// PushFromDaemon copies image from the Docker daemon to repo (host:port/name)
// in the registry as a one-platform OCI image index, the shape a release's
// multi-platform images have, and returns repo@sha256:DIGEST of the index.
// A small layer with a random file (/etc/readme2demo-release-test) is
// appended, so the pushed image is new to the daemon and a pull of it has
// to download at least that layer. Layers are pushed uncompressed: copying
// gigabytes through gzip would make the test slow, and the pull treats an
// uncompressed OCI layer like any other.
func PushFromDaemon(ctx context.Context, t testing.TB, cli *client.Client, image, repo string) (ref, nonce string) {
	t.Helper()
	tarPath := filepath.Join(t.TempDir(), "image.tar")
	rc, err := cli.ImageSave(ctx, []string{image})
	assert.NilError(t, err, "docker save %s", image)
	f, err := os.Create(tarPath)
	assert.NilError(t, err)
	_, err = io.Copy(f, rc)
	rc.Close()
	assert.NilError(t, err)
	assert.NilError(t, f.Close())

	tag, err := name.NewTag(image)
	assert.NilError(t, err)
	img, err := tarball.ImageFromPath(tarPath, &tag)
	assert.NilError(t, err)
	layers, err := img.Layers()
	assert.NilError(t, err)
	cfg, err := img.ConfigFile()
	assert.NilError(t, err)

	b := make([]byte, 8)
	_, _ = rand.Read(b)
	nonce = hex.EncodeToString(b)
	extra, err := tarLayer("etc/readme2demo-release-test", nonce+"\n")
	assert.NilError(t, err)

	out := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	out = mutate.ConfigMediaType(out, types.OCIConfigJSON)
	out, err = mutate.ConfigFile(out, &v1.ConfigFile{Architecture: cfg.Architecture, OS: cfg.OS, Config: cfg.Config})
	assert.NilError(t, err)
	for _, l := range append(layers, extra) {
		u, err := uncompressed(l)
		assert.NilError(t, err)
		out, err = mutate.Append(out, mutate.Addendum{Layer: u, MediaType: types.OCIUncompressedLayer})
		assert.NilError(t, err)
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add:        out,
		Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture}},
	})
	dst, err := name.NewTag(repo+":test", name.Insecure)
	assert.NilError(t, err)
	assert.NilError(t, remote.WriteIndex(dst, idx, remote.WithContext(ctx)), "push %s", dst)
	d, err := idx.Digest()
	assert.NilError(t, err)
	return repo + "@" + d.String(), nonce
}

// uncompressed re-describes a layer as an uncompressed blob: its digest is
// its diff ID and its bytes are the tar stream.
func uncompressed(l v1.Layer) (v1.Layer, error) {
	diff, err := l.DiffID()
	if err != nil {
		return nil, fmt.Errorf("read layer diff id: %w", err)
	}
	size, err := sizeOf(l)
	if err != nil {
		return nil, err
	}
	return &rawLayer{Layer: l, diff: diff, size: size}, nil
}

func sizeOf(l v1.Layer) (int64, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return 0, fmt.Errorf("read layer: %w", err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if err != nil {
		return 0, fmt.Errorf("read layer: %w", err)
	}
	return n, nil
}

type rawLayer struct {
	v1.Layer
	diff v1.Hash
	size int64
}

func (r *rawLayer) Digest() (v1.Hash, error)             { return r.diff, nil }
func (r *rawLayer) DiffID() (v1.Hash, error)             { return r.diff, nil }
func (r *rawLayer) Size() (int64, error)                 { return r.size, nil }
func (r *rawLayer) Compressed() (io.ReadCloser, error)   { return r.Layer.Uncompressed() }
func (r *rawLayer) MediaType() (types.MediaType, error)  { return types.OCIUncompressedLayer, nil }
func (r *rawLayer) Uncompressed() (io.ReadCloser, error) { return r.Layer.Uncompressed() }

// Assets serves files as a release's assets under /<version>/<name>, the
// layout of https://github.com/OWNER/REPO/releases/download/<tag>/<name>,
// and returns the base URL (the Action's R2D_RELEASE_URL) and a log of the
// paths requested.
func Assets(t testing.TB, version string, files map[string][]byte) (baseURL string, requested func() []string) {
	t.Helper()
	var log []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log = append(log, r.URL.Path)
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/"+version+"/")]
		if !ok || !strings.HasPrefix(r.URL.Path, "/"+version+"/") {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { return append([]string(nil), log...) }
}

// tarLayer is a layer holding one file.
func tarLayer(path, content string) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: path, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		return nil, fmt.Errorf("write layer: %w", err)
	}
	if _, err := io.WriteString(tw, content); err != nil {
		return nil, fmt.Errorf("write layer: %w", err)
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write layer: %w", err)
	}
	return static.NewLayer(buf.Bytes(), types.OCIUncompressedLayer), nil
}
