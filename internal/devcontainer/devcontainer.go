// Package devcontainer builds the sandbox image for `--image devcontainer`:
// the image a repository declares in .devcontainer/devcontainer.json, with
// what readme2demo needs layered on (the agent user, the agent CLI copied
// from the readme2demo base image, the run's directories). The container
// then runs under the same profile and hardening as any other image.
//
// Only the "image" property is used. A devcontainer.json that builds its
// image (build.dockerfile) or uses Docker Compose is refused with a clear
// error: readme2demo does not build repository Dockerfiles. Features,
// lifecycle commands (postCreateCommand…) and containerEnv are not applied;
// the README is what the run follows.
//
// Parsing is pure (Parse, Dockerfile); Find reads the repository without
// following symlinks; Build talks to the daemon.
package devcontainer

import (
	"archive/tar"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/distribution/reference"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/tailscale/hujson"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/dockerstream"
)

// ImageFlag is the --image value (and Action input) that selects the
// repository's devcontainer image.
const ImageFlag = "devcontainer"

// ImageRepo is the repository of the derived images, tagged by a hash of
// what went into them: built once per devcontainer image, base image and
// engine, reused afterwards.
const ImageRepo = "readme2demo-devcontainer"

// maxConfigSize caps devcontainer.json.
const maxConfigSize = 1 << 20

// Error is a devcontainer problem found before anything was built; its
// message says what to fix.
type Error struct{ Reason string }

func (e *Error) Error() string { return "--image devcontainer: " + e.Reason }

// Candidates are the places the Dev Container specification looks for a
// configuration, in order (a folder under .devcontainer/ is taken when it
// is the only one).
var Candidates = []string{".devcontainer/devcontainer.json", ".devcontainer.json"}

// Config is what readme2demo uses of a devcontainer.json.
type Config struct {
	Path  string // relative to the repository, slash-separated
	Image string
}

// Parse reads a devcontainer.json (JSON with comments and trailing commas)
// and returns its image reference, validated.
func Parse(data []byte) (string, error) {
	std, err := hujson.Standardize(data)
	if err != nil {
		return "", &Error{fmt.Sprintf("devcontainer.json is not valid JSON with comments: %v", err)}
	}
	var c struct {
		Image             *string         `json:"image"`
		Build             json.RawMessage `json:"build"`
		DockerFile        string          `json:"dockerFile"`
		DockerComposeFile json.RawMessage `json:"dockerComposeFile"`
	}
	if err := json.Unmarshal(std, &c); err != nil {
		return "", &Error{fmt.Sprintf("read devcontainer.json: %v", err)}
	}
	if c.Image == nil || strings.TrimSpace(*c.Image) == "" {
		switch {
		case len(c.DockerComposeFile) > 0:
			return "", &Error{"devcontainer.json uses Docker Compose (dockerComposeFile); readme2demo needs an \"image\": pass --image with an image you built"}
		case len(c.Build) > 0 || c.DockerFile != "":
			return "", &Error{"devcontainer.json builds its image from a Dockerfile (build.dockerfile); readme2demo does not build repository Dockerfiles: build it yourself (docker build -t NAME …) and pass --image NAME"}
		}
		return "", &Error{"devcontainer.json names no \"image\""}
	}
	ref := strings.TrimSpace(*c.Image)
	if _, err := reference.ParseNormalizedNamed(ref); err != nil {
		return "", &Error{fmt.Sprintf("devcontainer.json image %q is not an image reference: %v", clip(ref, 100), err)}
	}
	return ref, nil
}

// Find locates and parses the repository's devcontainer.json. It never
// follows a symlink (in the path or the file), reads only a regular file,
// and at most maxConfigSize bytes.
func Find(repoDir string) (Config, error) {
	tried := append([]string(nil), Candidates...)
	if subs, err := os.ReadDir(filepath.Join(repoDir, ".devcontainer")); err == nil {
		var found []string
		for _, e := range subs {
			if e.IsDir() {
				p := ".devcontainer/" + e.Name() + "/devcontainer.json"
				if st, err := os.Lstat(filepath.Join(repoDir, filepath.FromSlash(p))); err == nil && st.Mode().IsRegular() {
					found = append(found, p)
				}
			}
		}
		sort.Strings(found)
		if len(found) == 1 {
			tried = append(tried, found[0])
		} else if len(found) > 1 {
			tried = append(tried, found...)
		}
	}
	for _, rel := range tried {
		data, err := readRepoFile(repoDir, rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, &Error{fmt.Sprintf("read %s: %v", rel, err)}
		}
		img, err := Parse(data)
		if err != nil {
			var de *Error
			if errors.As(err, &de) {
				return Config{}, &Error{rel + ": " + strings.TrimPrefix(de.Reason, "devcontainer.json ")}
			}
			return Config{}, err
		}
		return Config{Path: rel, Image: img}, nil
	}
	return Config{}, &Error{fmt.Sprintf("the repository has no devcontainer.json (looked for %s): pass an image with --image, or omit it for readme2demo's own", strings.Join(Candidates, ", "))}
}

// readRepoFile reads rel inside dir without following symlinks: every
// component must be a real directory and the file a regular one.
func readRepoFile(dir, rel string) ([]byte, error) {
	clean := path.Clean(rel)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, fmt.Errorf("%s is outside the repository", rel)
	}
	cur := dir
	parts := strings.Split(clean, "/")
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil, err
		}
		last := i == len(parts)-1
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return nil, errors.New("it is a symlink (or inside one): readme2demo reads only real files of the repository")
		case !last && !st.IsDir():
			return nil, fs.ErrNotExist
		case last && !st.Mode().IsRegular():
			return nil, errors.New("not a regular file")
		case last && st.Size() > maxConfigSize:
			return nil, fmt.Errorf("larger than %d bytes", maxConfigSize)
		}
	}
	f, err := openNoFollow(cur)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxConfigSize))
}

// Dockerfile is the layer over the devcontainer image: the CLI files from
// base, then one RUN that makes uid 1000 the agent user (renaming an
// existing one, as images/base does), gives it passwordless sudo when the
// image has sudo, opens /usr/local to the staff gid, creates the run's
// directories, keeps the image's PATH for login shells, and checks the CLI
// starts. The RUN executes in the devcontainer image with the builder's
// defaults: no secret and no host path is involved.
func Dockerfile(devImage, base, engine string) (string, error) {
	spec, err := engines.SpecOf(engine)
	if err != nil || spec.Devcontainer == nil {
		return "", &Error{fmt.Sprintf("engine %s is not supported with --image devcontainer (supported: %s)", engine, strings.Join(Supported(), ", "))}
	}
	dc := spec.Devcontainer
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\nUSER root\n", devImage)
	for _, c := range dc.Copies {
		fmt.Fprintf(&b, "COPY --from=%s %s %s\n", base, c.From, c.To)
	}
	if dc.Run != "" {
		b.WriteString("RUN " + dc.Run + "\n")
	}
	b.WriteString(setupScript)
	for _, c := range dc.Checks {
		fmt.Fprintf(&b, " && echo \"$(%s)\"", c)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "LABEL io.readme2demo.image=\"devcontainer\" io.readme2demo.devcontainer-image=%q io.readme2demo.devcontainer-base=%q io.readme2demo.devcontainer-engine=%q\n",
		devImage, base, engine)
	b.WriteString("ENV HOME=/home/agent DISABLE_AUTOUPDATER=1\nWORKDIR /workspace\nUSER 1000\n")
	return b.String(), nil
}

// Supported returns the engines that run with --image devcontainer (their
// engines.Spec.Devcontainer says what they need from the base image),
// sorted.
func Supported() []string {
	var out []string
	for _, name := range engines.Names() {
		if spec, err := engines.SpecOf(name); err == nil && spec.Devcontainer != nil {
			out = append(out, name)
		}
	}
	return out
}

// setupScript is the derived image's one RUN (see Dockerfile).
const setupScript = `RUN set -e; \
    command -v bash >/dev/null || { echo "readme2demo: the devcontainer image has no bash, which every sandbox command runs in" >&2; exit 1; }; \
    if getent passwd 1000 >/dev/null; then \
      old="$(getent passwd 1000 | cut -d: -f1)"; \
      if [ "$old" != agent ]; then usermod -l agent -d /home/agent -m -s /bin/bash "$old"; fi; \
    elif command -v useradd >/dev/null; then \
      getent group 1000 >/dev/null || groupadd -g 1000 agent; \
      useradd -m -u 1000 -g 1000 -d /home/agent -s /bin/bash agent; \
    else \
      echo "agent:x:1000:1000:agent:/home/agent:/bin/bash" >> /etc/passwd; \
      getent group 1000 >/dev/null || echo "agent:x:1000:" >> /etc/group; \
    fi; \
    mkdir -p /home/agent /workspace /readme2demo; \
    chown -R 1000:1000 /home/agent /workspace /readme2demo; \
    if command -v sudo >/dev/null && [ -d /etc/sudoers.d ]; then \
      printf '%s\n' 'agent ALL=(ALL) NOPASSWD:ALL' \
        'Defaults:agent env_keep += "http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY CI"' \
        > /etc/sudoers.d/readme2demo-agent; \
      chmod 0440 /etc/sudoers.d/readme2demo-agent; \
    else echo "readme2demo: the devcontainer image has no sudo: the agent cannot become root"; fi; \
    find /usr/local -xdev -type d -exec chgrp 50 {} + -exec chmod g+ws {} + 2>/dev/null || true; \
    mkdir -p /etc/profile.d; \
    printf 'case ":$PATH:" in *":%s:"*) ;; *) PATH="%s:$PATH" ;; esac\nexport PATH\n' "$PATH" "$PATH" > /etc/profile.d/00-readme2demo-devcontainer-path.sh; \
    echo "agent: $(id agent 2>/dev/null || echo uid 1000)"`

// Builder is the part of the Docker API Build uses. It names no type of
// the Docker client package (the pipeline adapts the client), so that this
// package and its tests do not link the client.
type Builder interface {
	ImageInspect(ctx context.Context, imageID string) (image.InspectResponse, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

// Tag is the derived image's tag: a hash of the devcontainer image, the
// base image's id, the engine and the Dockerfile, so any change rebuilds.
func Tag(devImage, baseID, engine, dockerfile string) string {
	h := sha256.Sum256([]byte(devImage + "\x00" + baseID + "\x00" + engine + "\x00" + dockerfile))
	return ImageRepo + ":" + hex.EncodeToString(h[:8])
}

// Build returns the sandbox image for the repository's devcontainer: the
// derived image, built FROM the devcontainer image with the engine's CLI
// copied from base, or reused when it exists. The devcontainer image is
// pulled by the daemon when it is not local (no registry: build or load it
// first). Progress lines go to progress.
func Build(ctx context.Context, d Builder, repoDir, base, engine string, progress io.Writer) (string, Config, error) {
	progress = cmp.Or(progress, io.Discard)
	cfg, err := Find(repoDir)
	if err != nil {
		return "", cfg, err
	}
	df, err := Dockerfile(cfg.Image, base, engine)
	if err != nil {
		return "", cfg, err
	}
	info, err := d.ImageInspect(ctx, base)
	if err != nil {
		return "", cfg, fmt.Errorf("inspect base image %s (the agent CLI comes from it): %w", base, err)
	}
	tag := Tag(cfg.Image, info.ID, engine, df)
	if _, err := d.ImageInspect(ctx, tag); err == nil {
		fmt.Fprintf(progress, "devcontainer: %s names %s; reusing %s\n", cfg.Path, cfg.Image, tag)
		return tag, cfg, nil
	}
	fmt.Fprintf(progress, "devcontainer: %s names %s; building %s with the %s engine's CLI from %s\n", cfg.Path, cfg.Image, tag, engine, base)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(df))}); err != nil {
		return "", cfg, fmt.Errorf("write build context: %w", err)
	}
	if _, err := io.WriteString(tw, df); err != nil {
		return "", cfg, fmt.Errorf("write build context: %w", err)
	}
	if err := tw.Close(); err != nil {
		return "", cfg, fmt.Errorf("write build context: %w", err)
	}
	resp, err := d.ImageBuild(ctx, &buf, build.ImageBuildOptions{
		Tags: []string{tag}, Remove: true, ForceRemove: true, Version: build.BuilderV1,
		Labels: map[string]string{"io.readme2demo.managed": "devcontainer"},
	})
	if err != nil {
		return "", cfg, fmt.Errorf("build devcontainer image %s: %w", tag, err)
	}
	defer resp.Body.Close()
	if err := dockerstream.FollowBuild(resp.Body, func(l string) { fmt.Fprintf(progress, "devcontainer build: %s\n", l) }); err != nil {
		return "", cfg, &Error{fmt.Sprintf("build FROM %s failed: %v (is the image available to the daemon? here no registry is pulled from unless the daemon can)", cfg.Image, err)}
	}
	return tag, cfg, nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
