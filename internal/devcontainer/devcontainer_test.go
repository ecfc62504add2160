package devcontainer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, json, image, err string
	}{
		{"image", `{"image": "mcr.microsoft.com/devcontainers/go:1-1.22-bookworm"}`, "mcr.microsoft.com/devcontainers/go:1-1.22-bookworm", ""},
		{"comments and trailing commas (JSONC)", "// the dev image\n{\n  /* base */ \"name\": \"x\",\n  \"image\": \"python:3.12\", // pinned\n  \"features\": {},\n}\n", "python:3.12", ""},
		{"digest", `{"image": "debian@sha256:` + strings.Repeat("a", 64) + `"}`, "debian@sha256:" + strings.Repeat("a", 64), ""},
		{"dockerfile", `{"build": {"dockerfile": "Dockerfile"}}`, "", "builds its image from a Dockerfile"},
		{"legacy dockerFile", `{"dockerFile": "Dockerfile"}`, "", "builds its image from a Dockerfile"},
		{"compose", `{"dockerComposeFile": "compose.yml", "service": "app"}`, "", "Docker Compose"},
		{"no image", `{"name": "x"}`, "", `names no "image"`},
		{"empty image", `{"image": "  "}`, "", `names no "image"`},
		{"not a reference", `{"image": "UPPER CASE\nRUN curl evil"}`, "", "is not an image reference"},
		{"not json", `{"image": `, "", "not valid JSON with comments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Parse([]byte(tc.json))
			if tc.err != "" {
				var de *Error
				assert.Assert(t, errors.As(err, &de), "err %v", err)
				assert.Check(t, is.ErrorContains(err, tc.err))
				return
			}
			assert.NilError(t, err)
			assert.Check(t, is.Equal(img, tc.image))
		})
	}
}

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	assert.NilError(t, os.WriteFile(p, []byte(body), 0o644))
}

func TestFind(t *testing.T) {
	t.Run("the usual place", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".devcontainer/devcontainer.json", `{"image":"a:1"}`)
		write(t, dir, ".devcontainer.json", `{"image":"b:1"}`)
		c, err := Find(dir)
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(c, Config{Path: ".devcontainer/devcontainer.json", Image: "a:1"}))
	})
	t.Run("the root file", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".devcontainer.json", `{"image":"b:1"}`)
		c, err := Find(dir)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(c.Image, "b:1"))
	})
	t.Run("a single named configuration", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".devcontainer/python/devcontainer.json", `{"image":"c:1"}`)
		c, err := Find(dir)
		assert.NilError(t, err)
		assert.Check(t, is.DeepEqual(c, Config{Path: ".devcontainer/python/devcontainer.json", Image: "c:1"}))
	})
	t.Run("none", func(t *testing.T) {
		_, err := Find(t.TempDir())
		assert.Check(t, is.ErrorContains(err, "the repository has no devcontainer.json"))
	})
	t.Run("a symlinked file is not followed", func(t *testing.T) {
		dir := t.TempDir()
		secret := filepath.Join(t.TempDir(), "host-file.json")
		assert.NilError(t, os.WriteFile(secret, []byte(`{"image":"leaked:1"}`), 0o644))
		assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".devcontainer"), 0o755))
		assert.NilError(t, os.Symlink(secret, filepath.Join(dir, ".devcontainer", "devcontainer.json")))
		_, err := Find(dir)
		assert.Check(t, is.ErrorContains(err, "symlink"))
	})
	t.Run("a symlinked directory is not followed", func(t *testing.T) {
		dir := t.TempDir()
		other := t.TempDir()
		write(t, other, "devcontainer.json", `{"image":"leaked:1"}`)
		assert.NilError(t, os.Symlink(other, filepath.Join(dir, ".devcontainer")))
		_, err := Find(dir)
		assert.Check(t, is.ErrorContains(err, "symlink"))
	})
	t.Run("a bad file names itself", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".devcontainer/devcontainer.json", `{"build":{"dockerfile":"Dockerfile"}}`)
		_, err := Find(dir)
		assert.Check(t, is.ErrorContains(err, ".devcontainer/devcontainer.json: builds its image from a Dockerfile"))
	})
	t.Run("too big", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, ".devcontainer.json", `{"image":"a:1"}`+strings.Repeat(" ", maxConfigSize))
		_, err := Find(dir)
		assert.Check(t, is.ErrorContains(err, "larger than"))
	})
}

func TestDockerfile(t *testing.T) {
	df, err := Dockerfile("mcr.microsoft.com/devcontainers/base:bookworm", "readme2demo-base:test", "claude-code")
	assert.NilError(t, err)
	for _, want := range []string{
		"FROM mcr.microsoft.com/devcontainers/base:bookworm\nUSER root\n",
		"COPY --from=readme2demo-base:test /usr/local/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe /usr/local/bin/claude\n",
		"usermod -l agent -d /home/agent -m", "NOPASSWD:ALL", "chgrp 50", "claude --version",
		`io.readme2demo.devcontainer-image="mcr.microsoft.com/devcontainers/base:bookworm"`,
		"ENV HOME=/home/agent", "USER 1000\n",
	} {
		assert.Check(t, is.Contains(df, want))
	}
	df, err = Dockerfile("debian:bookworm", "base", "markdown")
	assert.NilError(t, err)
	assert.Check(t, !strings.Contains(df, "COPY"), "the keyless engines need no CLI")
	_, err = Dockerfile("debian:bookworm", "base", "openhands")
	assert.Check(t, is.ErrorContains(err, "engine openhands is not supported with --image devcontainer"))
	// The tag changes with each input.
	a := Tag("img", "sha256:1", "markdown", df)
	assert.Check(t, a != Tag("img", "sha256:2", "markdown", df) && a != Tag("img2", "sha256:1", "markdown", df))
	assert.Check(t, strings.HasPrefix(a, ImageRepo+":"))
}
