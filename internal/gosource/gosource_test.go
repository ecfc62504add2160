package gosource_test

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/gosource"
)

func TestFilesSkipsTestsAndTheDirectoriesNoSourceLivesIn(t *testing.T) {
	root := t.TempDir()
	for p, text := range map[string]string{
		"a.go":                     "package a",
		"a_test.go":                "package a",
		"README.md":                "# a",
		"sub/b.go":                 "package b",
		"sub/testdata/c.go":        "package c",
		"node_modules/x/d.go":      "package d",
		"vendor/e/e.go":            "package e",
		".cache/go/mod/f.go":       "package f",
		".git/hooks/g.go":          "package g",
		"sub/deeper/h.go":          "package h",
		"sub/deeper/h_test.go":     "package h",
		"sub/deeper/notgo.go.orig": "x",
	} {
		full := filepath.Join(root, p)
		assert.NilError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		assert.NilError(t, os.WriteFile(full, []byte(text), 0o644))
	}
	fs, err := gosource.Files(root)
	assert.NilError(t, err)
	assert.DeepEqual(t, fs, []gosource.File{
		{Path: "a.go", Text: "package a"},
		{Path: "sub/b.go", Text: "package b"},
		{Path: "sub/deeper/h.go", Text: "package h"},
	})
}

func TestFilesNamesAMissingRoot(t *testing.T) {
	_, err := gosource.Files(filepath.Join(t.TempDir(), "nope"))
	assert.ErrorContains(t, err, "nope")
}
