package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// CHANGELOG.md is what the release notes come from: an Unreleased section
// first, then releases "## [X.Y.Z] - YYYY-MM-DD", newest first.
func TestChangelogFormat(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	assert.NilError(t, err)
	heading := regexp.MustCompile(`^## \[(Unreleased|\d+\.\d+\.\d+)\]( - \d{4}-\d{2}-\d{2})?$`)
	var versions []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		m := heading.FindStringSubmatch(line)
		assert.Assert(t, m != nil, "CHANGELOG.md: %q is neither ## [Unreleased] nor ## [X.Y.Z] - YYYY-MM-DD", line)
		if m[1] == "Unreleased" {
			assert.Check(t, is.Len(versions, 0), "## [Unreleased] comes first")
			assert.Check(t, m[2] == "", "## [Unreleased] has no date")
			continue
		}
		assert.Check(t, m[2] != "", "%q has no date", line)
		versions = append(versions, "v"+m[1])
	}
	for i := 1; i < len(versions); i++ {
		assert.Check(t, semver.Compare(versions[i-1], versions[i]) > 0, "CHANGELOG.md: %s is listed above %s", versions[i-1], versions[i])
	}
}

func TestReleaseNotesScript(t *testing.T) {
	dir := t.TempDir()
	changelog := filepath.Join(dir, "CHANGELOG.md")
	assert.NilError(t, os.WriteFile(changelog, []byte(`# Changelog

## [Unreleased]

## [1.10.0] - 2026-09-01

### Added

- Ten.

## [1.2.3] - 2026-08-24

- Three.
`), 0o644))
	notes := func(tag string) (string, error) {
		out, err := exec.Command("bash", "../../scripts/release-notes.sh", tag, changelog).CombinedOutput()
		return string(out), err
	}
	got, err := notes("v1.10.0")
	assert.NilError(t, err, got)
	assert.Check(t, is.Equal(got, "### Added\n\n- Ten.\n"))
	got, err = notes("v1.2.3")
	assert.NilError(t, err, got)
	assert.Check(t, is.Equal(got, "- Three.\n"))
	got, err = notes("v1.2.30")
	assert.Check(t, err != nil, "a missing section fails")
	assert.Check(t, is.Contains(got, "has no section '## [1.2.30]'"))
	// "## [1.1.0]" must not match inside "## [1.10.0]".
	_, err = notes("v1.1.0")
	assert.Check(t, err != nil)
}
