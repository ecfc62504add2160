package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// The real-README corpus: testdata/readmes/real holds READMEs of public
// repositories (SOURCES.md names each repository, commit and licence) with
// what the plan knows of each repository (<name>.repo: its GitHub slug,
// module and package names, and its files). Each plan is golden
// (testdata/real/<name>.txt here), checked by hand line by line against
// what a careful person would run on Linux (NOTES.md).
//
//	go test ./internal/plan -run TestRealREADMEs -update

func corpus(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "readmes", dir, "*.md"))
	assert.NilError(t, err)
	var out []string
	for _, p := range paths {
		if b := filepath.Base(p); b != "SOURCES.md" && b != "NOTES.md" {
			out = append(out, p)
		}
	}
	return out
}

// loadRepo reads a <name>.repo file (a repository archive: see
// RepoFromArchive); a README without one plans with nothing known.
func loadRepo(t *testing.T, path string) Repo {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Repo{}
	}
	assert.NilError(t, err)
	return RepoFromArchive(b)
}

func planFile(t *testing.T, md string) *Plan {
	t.Helper()
	src, err := os.ReadFile(md)
	assert.NilError(t, err)
	ext := filepath.Ext(md)
	return Make(src, Options{File: "README" + ext, Repo: loadRepo(t, strings.TrimSuffix(md, ext)+".repo")})
}

func TestRealREADMEsGolden(t *testing.T) {
	t.Parallel()
	paths := corpus(t, "real")
	assert.Assert(t, len(paths) >= 25, "want at least 25 real READMEs, got %d", len(paths))
	for _, md := range paths {
		name := strings.TrimSuffix(filepath.Base(md), ".md")
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			assert.NilError(t, WriteText(&b, planFile(t, md), WriteOptions{}))
			golden.Assert(t, b.String(), filepath.Join("real", name+".txt"))
		})
	}
}

// TestHeldOutAgreement measures the plan against hand labels of README
// commands (testdata/readmes/heldout/<name>.labels: "LINE run|skip note",
// the decision of a careful person on Linux, made before the plan was run
// on that README) and fails when agreement drops below what it was when the
// set was last measured (SOURCES.md gives each batch's first-look number).
func TestHeldOutAgreement(t *testing.T) {
	t.Parallel()
	agree, total := 0, 0
	for _, md := range corpus(t, "heldout") {
		name := strings.TrimSuffix(filepath.Base(md), ".md")
		p := planFile(t, md)
		b, err := os.ReadFile(strings.TrimSuffix(md, ".md") + ".labels")
		assert.NilError(t, err)
		a, n := 0, 0
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			line, err := strconv.Atoi(f[0])
			assert.NilError(t, err)
			want := f[1] == "run"
			got := false // a line no run entry covers is not run
			for _, e := range p.Entries {
				if e.Command != "" && e.Line <= line && line <= e.EndLine {
					got = e.Run
					break
				}
			}
			n++
			if got == want {
				a++
			} else {
				t.Logf("%s line %d: labelled %s, planned %v", name, line, f[1], got)
			}
		}
		t.Logf("%-20s %3d/%3d", name, a, n)
		agree += a
		total += n
	}
	pct := 100 * float64(agree) / float64(total)
	t.Logf("held-out agreement: %d of %d decisions (%.1f%%)", agree, total, pct)
	assert.Assert(t, total >= 1878, "labels went missing: %d", total)
	assert.Assert(t, pct >= 93.0, "agreement fell to %.1f%%", pct)
}

func assertGolden(t *testing.T, got, name string) {
	t.Helper()
	golden.Assert(t, got, name)
}
