package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	if r, ok := loadedRepos.Load(path); ok {
		return r.(Repo) // read once for every test that plans the corpus
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Repo{}
	}
	assert.NilError(t, err)
	r := RepoFromArchive(b)
	loadedRepos.Store(path, r)
	return r
}

var loadedRepos sync.Map

// planFile plans a corpus README, once per test binary: every test that
// measures or compares the corpus shares the plans.
func planFile(t *testing.T, md string) *Plan {
	t.Helper()
	if p, ok := plannedFiles.Load(md); ok {
		return p.(*Plan)
	}
	p := planFresh(t, md)
	plannedFiles.Store(md, p)
	return p
}

var plannedFiles sync.Map

// planFresh plans a corpus README anew.
func planFresh(t *testing.T, md string) *Plan {
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

func assertGolden(t *testing.T, got, name string) {
	t.Helper()
	golden.Assert(t, got, name)
}
