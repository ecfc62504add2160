// Command releaseserve serves a readme2demo release from this machine, for
// measuring the Action's released path and running it under a workflow
// runner without GitHub (docs/benchmarks.md, "Time to the agent's first
// command"):
//
//   - an in-process OCI registry (go-containerregistry's pkg/registry) on
//     127.0.0.1, which dockerd pulls from over plain HTTP with no daemon
//     setting; each -image FLAVOUR=LOCALIMAGE is copied from the Docker
//     daemon into it as readme2demo-sandbox-FLAVOUR, gzip-compressed like a
//     buildx push (or zstd-compressed with -compression zstd, like a buildx
//     push with compression=zstd), inside a one-platform OCI index, on top of a tiny layer of
//     its own so that every pull of it downloads and extracts every layer;
//
//   - sandbox-images.json for those images (flavours without an image get a
//     placeholder digest that no registry has), written to -manifest so that
//     `goreleaser release --snapshot` checksums it;
//
//   - a file server with the release's files (goreleaser's -dist, found
//     through its artifacts.json) and the manifest under
//     /<version>/<name>: the layout of GitHub's releases/download URLs, so
//     the Action takes it as R2D_RELEASE_URL.
//
//     go run ./scripts/releaseserve -image keyless=readme2demo-sandbox-keyless:test \
//     -manifest build/release/sandbox-images.json -dist dist
//
// It runs until interrupted (SIGINT or SIGTERM), then removes its registry's blobs.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/client"
	"github.com/google/go-containerregistry/pkg/compression"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/readme2demo/readme2demo/internal/release"
)

type images map[string]string

func (i images) String() string { return fmt.Sprint(map[string]string(i)) }
func (i images) Set(s string) error {
	f, img, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("%q is not FLAVOUR=IMAGE", s)
	}
	if _, known := release.FlavourByName(f); !known {
		return fmt.Errorf("unknown flavour %q", f)
	}
	i[f] = img
	return nil
}

func main() {
	imgs := images{}
	flag.Var(imgs, "image", "FLAVOUR=LOCALIMAGE to push (repeatable)")
	regAddr := flag.String("registry", "127.0.0.1:5055", "registry listen address (keep it on 127.0.0.0/8)")
	assetsAddr := flag.String("assets", "127.0.0.1:8099", "release file server listen address")
	version := flag.String("version", "v0.0.0", "the release version")
	repository := flag.String("repository", "readme2demo/readme2demo", "the repository released")
	commit := flag.String("commit", strings.Repeat("0", 40), "the release commit")
	manifestPath := flag.String("manifest", "build/release/sandbox-images.json", "where to write sandbox-images.json")
	dist := flag.String("dist", "dist", "directory of release assets to serve (goreleaser's dist)")
	comp := flag.String("compression", "gzip", "the layers' compression: gzip or zstd")
	flag.Parse()
	if *comp != "gzip" && *comp != "zstd" {
		log.Fatalf("releaseserve: -compression %q: want gzip or zstd", *comp)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, imgs, compression.Compression(*comp), *regAddr, *assetsAddr, *version, *repository, *commit, *manifestPath, *dist); err != nil {
		log.Fatalf("releaseserve: %v", err)
	}
}

func run(ctx context.Context, imgs images, comp compression.Compression, regAddr, assetsAddr, version, repository, commit, manifestPath, dist string) error {
	blobs, err := os.MkdirTemp("", "releaseserve-blobs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(blobs)
	ln, err := net.Listen("tcp", regAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", regAddr, err)
	}
	go http.Serve(ln, registry.New(registry.WithBlobHandler(registry.NewDiskBlobHandler(blobs)), registry.Logger(log.New(io.Discard, "", 0))))
	log.Printf("registry on %s (blobs in %s)", regAddr, blobs)

	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return err
	}
	refs := map[string]string{}
	for _, f := range release.Flavours {
		repo := f.ImageName(regAddr + "/readme2demo")
		local, ok := imgs[f.Name]
		if !ok {
			refs[f.Name] = repo + "@sha256:" + strings.Repeat("0", 64)
			continue
		}
		start := time.Now()
		ref, size, err := push(ctx, cli, local, repo, version, comp)
		if err != nil {
			return fmt.Errorf("push %s: %w", local, err)
		}
		refs[f.Name] = ref
		log.Printf("pushed %s as %s: %.0f MB compressed, in %s", local, ref, float64(size)/1e6, time.Since(start).Round(time.Second))
	}
	m, err := release.NewManifest(version, repository, commit, refs)
	if err != nil {
		return err
	}
	var manifest bytes.Buffer
	if err := m.Encode(&manifest); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(manifestPath), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(manifestPath, manifest.Bytes(), 0o666); err != nil {
		return err
	}
	log.Printf("wrote %s", manifestPath)

	mux := http.NewServeMux()
	mux.HandleFunc("/"+version+"/", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(strings.TrimPrefix(r.URL.Path, "/"+version+"/"))
		path := assetPath(dist, name)
		if name == release.ManifestFile {
			path = manifestPath
		}
		log.Printf("GET %s", r.URL.Path)
		http.ServeFile(w, r, path)
	})
	srv := &http.Server{Addr: assetsAddr, Handler: mux}
	go func() { <-ctx.Done(); srv.Close() }()
	log.Printf("release assets on http://%s/%s/ (R2D_RELEASE_URL=http://%s)", assetsAddr, version, assetsAddr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// assetPath finds a release asset: by its name in goreleaser's
// dist/artifacts.json (the Action's binary lives in a build directory under
// another name), else the file of that name in dist.
func assetPath(dist, name string) string {
	if b, err := os.ReadFile(filepath.Join(dist, "artifacts.json")); err == nil {
		var artifacts []struct{ Name, Path string }
		if json.Unmarshal(b, &artifacts) == nil {
			for _, a := range artifacts {
				if a.Name == name && filepath.Base(a.Path) != "" {
					return filepath.Join(filepath.Dir(dist), a.Path)
				}
			}
		}
	}
	return filepath.Join(dist, name)
}

// push copies a local image to repo:version as a one-platform OCI index with
// layers compressed with comp and returns repo@DIGEST and the compressed
// size.
func push(ctx context.Context, cli *client.Client, local, repo, version string, comp compression.Compression) (string, int64, error) {
	tmp, err := os.CreateTemp("", "releaseserve-*.tar")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	rc, err := cli.ImageSave(ctx, []string{local})
	if err != nil {
		return "", 0, err
	}
	_, err = io.Copy(tmp, rc)
	rc.Close()
	tmp.Close()
	if err != nil {
		return "", 0, err
	}
	tag, err := name.NewTag(local)
	if err != nil {
		return "", 0, err
	}
	img, err := tarball.ImageFromPath(tmp.Name(), &tag)
	if err != nil {
		return "", 0, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return "", 0, err
	}
	// A small layer of its own at the bottom: every layer above it then has
	// a chain the daemon does not have, so a pull downloads and extracts them
	// all, as on a fresh runner (dockerd skips the layers, or the whole pull,
	// of what it already holds).
	var nonce bytes.Buffer
	tw := tar.NewWriter(&nonce)
	stamp := time.Now().UTC().Format(time.RFC3339Nano) + "\n"
	if err := tw.WriteHeader(&tar.Header{Name: "etc/readme2demo-releaseserve", Mode: 0o644, Size: int64(len(stamp)), Typeflag: tar.TypeReg}); err != nil {
		return "", 0, err
	}
	if _, err := tw.Write([]byte(stamp)); err != nil {
		return "", 0, err
	}
	if err := tw.Close(); err != nil {
		return "", 0, err
	}
	first, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nonce.Bytes())), nil }, layerOptions(comp)...)
	if err != nil {
		return "", 0, err
	}
	layers, err := img.Layers()
	if err != nil {
		return "", 0, err
	}
	if comp != compression.GZip {
		// The saved image's layers compress to gzip by default; each is
		// compressed again from its uncompressed tar.
		for i, l := range layers {
			if layers[i], err = tarball.LayerFromOpener(l.Uncompressed, layerOptions(comp)...); err != nil {
				return "", 0, err
			}
		}
	}
	if img, err = mutate.ConfigFile(empty.Image, &v1.ConfigFile{Architecture: cfg.Architecture, OS: cfg.OS, Config: cfg.Config}); err != nil {
		return "", 0, err
	}
	if img, err = mutate.AppendLayers(img, append([]v1.Layer{first}, layers...)...); err != nil {
		return "", 0, err
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add:        img,
		Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture}},
	})
	dst, err := name.NewTag(repo+":"+version, name.Insecure)
	if err != nil {
		return "", 0, err
	}
	if err := remote.WriteIndex(dst, idx, remote.WithContext(ctx)); err != nil {
		return "", 0, err
	}
	d, err := idx.Digest()
	if err != nil {
		return "", 0, err
	}
	var size int64
	for _, l := range layers {
		s, _ := l.Size()
		size += s
	}
	return repo + "@" + d.String(), size, nil
}

// layerOptions are the options of a layer compressed with comp, each
// compressed once (its digest, its size and the push read the same bytes).
func layerOptions(comp compression.Compression) []tarball.LayerOption {
	opts := []tarball.LayerOption{tarball.WithCompressedCaching}
	if comp == compression.ZStd {
		opts = append(opts, tarball.WithCompression(compression.ZStd), tarball.WithMediaType(types.OCILayerZStd))
	}
	return opts
}
