// Package release owns what a published readme2demo release is made of and
// how the Action uses it: the sandbox image flavours (one per engine, each
// with only that engine's CLI), the manifest a release publishes beside its
// binaries (sandbox-images.json: each flavour's image pinned by digest), and
// pulling an engine's image by that digest through the Docker Engine API.
//
// Reading the manifest is pure (ParseManifest); only Pull talks to Docker.
// The release workflow (.github/workflows/release.yml) writes the manifest
// with cmd/r2d-release; the Action's setup (scripts/action/release.sh, then
// `readme2demo-action pull-image`) reads it.
package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ManifestFile is the name of the manifest among a release's assets.
const ManifestFile = "sandbox-images.json"

// SchemaVersion is the manifest format this package reads and writes.
const SchemaVersion = 1

// Manifest is sandbox-images.json: which release it belongs to and, per
// image flavour, the image pinned by digest.
//
//	{
//	  "schema_version": 1,
//	  "version": "v1.2.3",
//	  "repository": "readme2demo/readme2demo",
//	  "commit": "0123…(40 hex)",
//	  "images": {
//	    "claude-code": {"image": "ghcr.io/readme2demo/readme2demo-sandbox-claude-code@sha256:…",
//	                    "clis": {"claude-code": "2.1.332"}},
//	    "keyless":     {"image": "ghcr.io/readme2demo/readme2demo-sandbox-keyless@sha256:…", "clis": {}}
//	  }
//	}
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	Version       string `json:"version"`    // the release tag, vMAJOR.MINOR.PATCH
	Repository    string `json:"repository"` // owner/name the release belongs to
	Commit        string `json:"commit"`     // the tagged commit, 40 hex digits
	// Images maps a flavour name (Flavours) to its image.
	Images map[string]Image `json:"images"`
}

// Image is one flavour's published image.
type Image struct {
	// Ref is NAME@sha256:DIGEST: the multi-platform image index, pinned.
	Ref string `json:"image"`
	// CLIs are the agent CLI versions inside (also the image's labels).
	CLIs map[string]string `json:"clis"`
}

var (
	versionRe = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	commitRe  = regexp.MustCompile(`^[0-9a-f]{40}$`)
	repoRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$`)
	// refRe is a repository name (optionally with a registry host:port)
	// followed by a sha256 digest and nothing else: no tag, which could move.
	refRe = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+@sha256:[0-9a-f]{64}$`)
)

// IsVersion says whether s is a release tag (vMAJOR.MINOR.PATCH).
func IsVersion(s string) bool { return versionRe.MatchString(s) }

// ParseManifest reads and validates a manifest. Unknown fields are an
// error: a manifest from a newer schema must not be half-read.
func ParseManifest(r io.Reader) (*Manifest, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parse manifest: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Validate reports every problem of the manifest at once.
func (m *Manifest) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("manifest: "+format, a...)) }
	if m.SchemaVersion != SchemaVersion {
		bad("schema_version %d is not %d (a newer readme2demo wrote it?)", m.SchemaVersion, SchemaVersion)
	}
	if !IsVersion(m.Version) {
		bad("version %q is not vMAJOR.MINOR.PATCH", m.Version)
	}
	if !repoRe.MatchString(m.Repository) {
		bad("repository %q is not owner/name", m.Repository)
	}
	if !commitRe.MatchString(m.Commit) {
		bad("commit %q is not 40 lowercase hex digits", m.Commit)
	}
	for _, f := range Flavours {
		img, ok := m.Images[f.Name]
		if !ok {
			bad("no image for the %s flavour", f.Name)
			continue
		}
		if !refRe.MatchString(img.Ref) {
			bad("image %q of the %s flavour is not NAME@sha256:DIGEST", img.Ref, f.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Images)) {
		if _, ok := FlavourByName(name); !ok {
			bad("unknown image flavour %q", name)
		}
	}
	return errors.Join(errs...)
}

// ImageFor returns the pinned image the engine runs in.
func (m *Manifest) ImageFor(engine string) (string, error) {
	f, err := FlavourFor(engine)
	if err != nil {
		return "", err
	}
	img, ok := m.Images[f.Name]
	if !ok {
		return "", fmt.Errorf("find image for engine %s: release %s has no %s image", engine, m.Version, f.Name)
	}
	return img.Ref, nil
}

// Encode writes the manifest as indented JSON with a final newline.
func (m *Manifest) Encode(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// SplitRef splits NAME@sha256:DIGEST into the repository name and digest.
func SplitRef(ref string) (name, digest string, err error) {
	if !refRe.MatchString(ref) {
		return "", "", fmt.Errorf("parse image reference %q: not NAME@sha256:DIGEST", ref)
	}
	name, digest, _ = strings.Cut(ref, "@")
	return name, digest, nil
}
