package plan

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

func TestRepoFromDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkout")
	writeFiles(t, dir, map[string]string{
		".git/config":        "[remote \"origin\"]\n\turl = https://github.com/Acme/Widget.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
		"go.mod":             "module example.com/acme/widget\n\ngo 1.22\n",
		"package.json":       `{"name": "@acme/widget-js", "bin": {"wjs": "bin/wjs.js"}}`,
		"Cargo.toml":         "[dependencies]\nname = \"not-this\"\n[package]\nname = \"widget-rs\"\n",
		"cmd/widget/main.go": "package main\n",
		"node_modules/x/y":   "not listed\n",
	})
	r := RepoFromDir(dir, "acme/widget-action")

	for _, n := range []string{"checkout", "widget", "widget-action", "widget-js", "wjs", "widget-rs"} {
		assert.Check(t, r.is(n), "name %s in %v", n, r.Names)
	}
	assert.Check(t, !r.is("not-this"))
	assert.Check(t, is.Contains(r.Slugs, "acme/widget"))
	assert.Check(t, is.Contains(r.Slugs, "acme/widget-action"))
	assert.Check(t, r.isModule("example.com/acme/widget/cmd/widget"))
	assert.Check(t, r.isModule("github.com/acme/widget/..."))
	assert.Check(t, r.isPackage("@acme/widget-js@2"))
	assert.Check(t, r.isClone("git@github.com:acme/widget.git"))
	assert.Check(t, r.hasFile("cmd/widget/main.go") && r.hasFile("cmd/widget") && r.hasFile("cmd"))
	assert.Check(t, !r.hasFile("node_modules/x/y"), "dependency directories are not listed")
	assert.Check(t, !r.Files[".git/config"], ".git is not listed")
}

// A manifest that is a symlink out of the repository is not read: its
// content (here a host file naming a package) never reaches the plan.
func TestRepoFromDirReadsNothingOutside(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"package.json": `{"name": "host-secret-name"}`})
	dir := t.TempDir()
	assert.NilError(t, os.Symlink(filepath.Join(outside, "package.json"), filepath.Join(dir, "package.json")))
	assert.NilError(t, os.Symlink("../"+filepath.Base(outside)+"/package.json", filepath.Join(dir, "go.mod")))
	r := RepoFromDir(dir, "")
	assert.Check(t, !r.is("host-secret-name"), "%v", r.Names)
	assert.Check(t, is.Len(r.Packages, 0))
	assert.Check(t, is.Len(r.Modules, 0))
}

// A crate's [[bin]] targets are the names its programs go by.
func TestCargoBinNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dua-cli")
	writeFiles(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"dua-cli\"\n\n[[bin]]\nname = \"dua\"\npath = \"src/main.rs\"\n\n[dependencies]\nname = \"not-this\"\n",
	})
	r := RepoFromDir(dir, "")
	assert.Check(t, r.is("dua"), "%v", r.Names)
	assert.Check(t, r.is("dua-cli"), "%v", r.Names)
	assert.Check(t, !r.is("not-this"), "%v", r.Names)
}

// A pyproject's scripts are the names its programs go by.
func TestPyprojectScriptNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rich-cli")
	writeFiles(t, dir, map[string]string{
		"pyproject.toml": "[project]\nname = \"rich-cli\"\n\n[project.scripts]\nrich = \"rich_cli.__main__:run\"\n\n[tool.poetry.scripts]\n\"rich-x\" = \"x:main\"\n\n[project.urls]\nhome = \"https://example.org\"\n",
	})
	r := RepoFromDir(dir, "")
	assert.Check(t, r.is("rich"), "%v", r.Names)
	assert.Check(t, r.is("rich-x"), "%v", r.Names)
	assert.Check(t, !r.is("home"), "%v", r.Names)
}

// The programs other manifests say the project installs, and the cmd/
// and bin/ layouts, read from a repository archive.
func TestManifestPrograms(t *testing.T) {
	r := archiveRepo(`
		slug acme/widget
		dir widget
		file cmd/widgetd/main.go
		file bin/widget-admin
		file bin/lib/helper.sh
		-- widget.gemspec --
		spec.executables = ["rougify", "rouge-x"]
		-- setup.py --
		setup(entry_points={"console_scripts": ["widget-py = widget.cli:main"]})
		-- composer.json --
		{"bin": ["bin/widget-php"]}
		-- widget.cabal --
		executable widget-hs
		-- widget.nimble --
		bin = @["widget_nim"]
	`)
	for _, n := range []string{"widget", "widgetd", "widget-admin", "rougify", "rouge-x", "widget-py", "widget-php", "widget-hs", "widget_nim"} {
		assert.Check(t, r.is(n), "name %s in %v", n, r.Names)
	}
	assert.Check(t, !r.is("lib") && !r.is("helper"), "%v", r.Names)
}
