package release

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
)

const digestA = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func validManifest() *Manifest {
	m := &Manifest{
		SchemaVersion: SchemaVersion,
		Version:       "v1.2.3",
		Repository:    "readme2demo/readme2demo",
		Commit:        strings.Repeat("ab", 20),
		Images:        map[string]Image{},
	}
	for _, f := range Flavours {
		m.Images[f.Name] = Image{Ref: f.ImageName("ghcr.io/readme2demo") + "@" + digestA, CLIs: f.CLIs}
	}
	return m
}

func encode(t *testing.T, m *Manifest) string {
	t.Helper()
	var b bytes.Buffer
	assert.NilError(t, m.Encode(&b))
	return b.String()
}

func TestParseManifestRoundTrip(t *testing.T) {
	m := validManifest()
	text := encode(t, m)
	got, err := ParseManifest(strings.NewReader(text))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(got, m))
	// scripts/action/release.sh reads these three fields line by line.
	for _, line := range []string{`  "version": "v1.2.3",`, `  "repository": "readme2demo/readme2demo",`, `  "commit": "` + m.Commit + `",`} {
		assert.Check(t, is.Contains(text, "\n"+line+"\n"))
	}
}

func TestParseManifestRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(m *Manifest)
		text   string
		errors []string
	}{
		{name: "a tag instead of a digest", edit: func(m *Manifest) {
			m.Images["codex"] = Image{Ref: "ghcr.io/readme2demo/readme2demo-sandbox-codex:v1.2.3"}
		}, errors: []string{`image "ghcr.io/readme2demo/readme2demo-sandbox-codex:v1.2.3" of the codex flavour is not NAME@sha256:DIGEST`}},
		{name: "a short digest", edit: func(m *Manifest) {
			m.Images["keyless"] = Image{Ref: "ghcr.io/x/y@sha256:abc"}
		}, errors: []string{"of the keyless flavour is not NAME@sha256:DIGEST"}},
		{name: "a flavour missing", edit: func(m *Manifest) { delete(m.Images, "gemini") },
			errors: []string{"no image for the gemini flavour"}},
		{name: "an unknown flavour", edit: func(m *Manifest) { m.Images["cursor"] = m.Images["codex"] },
			errors: []string{`unknown image flavour "cursor"`}},
		{name: "everything wrong at once", edit: func(m *Manifest) {
			m.SchemaVersion = 2
			m.Version = "1.2.3"
			m.Repository = "readme2demo"
			m.Commit = "main"
		}, errors: []string{"schema_version 2 is not 1", `version "1.2.3" is not vMAJOR.MINOR.PATCH`,
			`repository "readme2demo" is not owner/name`, `commit "main" is not 40 lowercase hex digits`}},
		{name: "an unknown field", text: `{"schema_version": 1, "signed_by": "me"}`, errors: []string{`unknown field "signed_by"`}},
		{name: "not JSON", text: "v1.2.3", errors: []string{"parse manifest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			if tc.edit != nil {
				m := validManifest()
				tc.edit(m)
				var b bytes.Buffer
				assert.Check(t, m.Encode(&b) != nil, "Encode writes only valid manifests")
				b.Reset()
				assert.NilError(t, jsonEncode(&b, m))
				text = b.String()
			}
			_, err := ParseManifest(strings.NewReader(text))
			assert.Assert(t, err != nil)
			for _, e := range tc.errors {
				assert.Check(t, is.ErrorContains(err, e))
			}
		})
	}
}

// Every engine runs in exactly one released image, and the keyless
// engines in the image without any agent CLI.
func TestEveryEngineHasAnImage(t *testing.T) {
	m := validManifest()
	seen := map[string]string{}
	for _, f := range Flavours {
		for _, e := range f.Engines {
			assert.Check(t, seen[e] == "", "engine %s in two flavours (%s, %s)", e, seen[e], f.Name)
			seen[e] = f.Name
		}
	}
	for _, name := range engines.Names() {
		ref, err := m.ImageFor(name)
		assert.Check(t, err, "engine %s", name)
		assert.Check(t, strings.Contains(ref, "/readme2demo-sandbox-"+seen[name]+"@sha256:"), "engine %s: %s", name, ref)
	}
	for _, keyless := range []string{engines.MarkdownName, engines.ReplayName} {
		assert.Check(t, is.Equal(seen[keyless], "keyless"))
	}
	_, err := m.ImageFor("cursor")
	assert.Check(t, is.ErrorContains(err, `no released image runs it (known: claude-code, codex, gemini, markdown, openhands, replay)`))
}

func TestFlavourBuildArgs(t *testing.T) {
	args := func(name string) string {
		f, ok := FlavourByName(name)
		assert.Assert(t, ok, name)
		var s []string
		for _, a := range f.BuildArgs {
			s = append(s, a.String())
		}
		return strings.Join(s, " ")
	}
	// Only the flavour's own CLI is set; the others are explicitly empty
	// (CLAUDE_CODE_VERSION has a non-empty default in the Dockerfile).
	assert.Check(t, is.Equal(args("claude-code"), "CLAUDE_CODE_VERSION="+agentcli.ClaudeCodeVersion+" CODEX_VERSION= GEMINI_CLI_VERSION= OPENHANDS_VERSION="))
	assert.Check(t, is.Equal(args("codex"), "CLAUDE_CODE_VERSION= CODEX_VERSION="+agentcli.CodexVersion+" GEMINI_CLI_VERSION= OPENHANDS_VERSION="))
	assert.Check(t, is.Equal(args("gemini"), "CLAUDE_CODE_VERSION= CODEX_VERSION= GEMINI_CLI_VERSION="+agentcli.GeminiCLIVersion+" OPENHANDS_VERSION="))
	assert.Check(t, is.Equal(args("openhands"), "CLAUDE_CODE_VERSION= CODEX_VERSION= GEMINI_CLI_VERSION= OPENHANDS_VERSION="+agentcli.OpenHandsVersion+" BASE_IMAGE=python:3.12-slim-bookworm PYTHON_VERSION=3.12 OPENHANDS_PACKAGE=openhands"))
	assert.Check(t, is.Equal(args("keyless"), "CLAUDE_CODE_VERSION= CODEX_VERSION= GEMINI_CLI_VERSION= OPENHANDS_VERSION="))

	f, _ := FlavourByName("codex")
	assert.Check(t, is.Equal(f.ImageName("ghcr.io/ReadMe2Demo/"), "ghcr.io/readme2demo/readme2demo-sandbox-codex"))
	l := f.Labels("v1.2.3", "readme2demo/readme2demo", strings.Repeat("ab", 20))
	assert.Check(t, is.Equal(l["io.readme2demo.codex-version"], agentcli.CodexVersion))
	assert.Check(t, is.Equal(l["org.opencontainers.image.version"], "v1.2.3"))
	assert.Check(t, is.Equal(l["org.opencontainers.image.source"], "https://github.com/readme2demo/readme2demo"))
}

func TestSplitRef(t *testing.T) {
	name, digest, err := SplitRef("127.0.0.1:5000/r2d/readme2demo-sandbox-keyless@" + digestA)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(name, "127.0.0.1:5000/r2d/readme2demo-sandbox-keyless"))
	assert.Check(t, is.Equal(digest, digestA))
	for _, bad := range []string{"ubuntu", "ubuntu:22.04", "ghcr.io/x/y:v1@" + digestA, "ghcr.io/X/y@" + digestA} {
		_, _, err := SplitRef(bad)
		assert.Check(t, is.ErrorContains(err, "not NAME@sha256:DIGEST"), bad)
	}
}

// jsonEncode writes m without validating it (to build bad manifests).
func jsonEncode(b *bytes.Buffer, m *Manifest) error {
	return json.NewEncoder(b).Encode(m)
}
