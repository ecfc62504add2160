package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/repofs"
)

// Repo is what the plan knows about the repository under test: the names
// the project goes by and the URLs it is cloned from, so that `git clone`
// of it, the `cd` into the clone and `npm install <itself>` can be told
// apart from commands about other projects.
type Repo struct {
	// Names are lower-case names: the directory's, the remote repository's
	// and the package names its manifests declare.
	Names []string
	// Slugs are lower-case "owner/name" pairs (GITHUB_REPOSITORY, remotes).
	Slugs []string
	// Modules are Go module paths and other import paths of the project.
	Modules []string
	// Packages are package names as a reader would install them
	// ("@scope/name" for npm).
	Packages []string
	// Files are the repository's files and directories (slash-separated,
	// relative); nil when unknown. A plan that knows them skips examples
	// that name files the repository does not have.
	Files map[string]bool
	// Manifests are the contents of the top-level manifests (IsManifest),
	// by path.
	Manifests map[string][]byte
	// stems are the base names of the files, without extension.
	stems map[string]bool
}

// hasStem reports a file or directory whose base name, without its
// extension, is name (bin/rg, cmd/rg/, rg.sh for rg).
func (r Repo) hasStem(name string) bool { return r.stems[strings.ToLower(name)] }

// FilesKnown reports whether the repository's files are known: a listing
// with at least a few entries (a directory holding only the README says
// nothing about the project's files).
func (r Repo) FilesKnown() bool { return len(r.Files) >= 3 }

func (r Repo) hasFile(p string) bool { return r.Files[strings.TrimSuffix(path.Clean(p), "/")] }

// hasExt reports a file of the repository with the extension (zip,
// ipynb), in any case.
func (r Repo) hasExt(ext string) bool {
	suffix := "." + strings.ToLower(strings.TrimPrefix(ext, "."))
	for f := range r.Files {
		if strings.HasSuffix(strings.ToLower(f), suffix) {
			return true
		}
	}
	return false
}

// AddFiles records repository paths and their parent directories.
func (r *Repo) AddFiles(paths ...string) {
	if r.Files == nil {
		r.Files, r.stems = map[string]bool{}, map[string]bool{}
	}
	for _, p := range paths {
		p = strings.Trim(path.Clean(filepath.ToSlash(p)), "/")
		for p != "" && p != "." {
			if r.Files[p] {
				break
			}
			r.Files[p] = true
			base := path.Base(p)
			r.stems[strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))] = true
			p = path.Dir(p)
		}
	}
}

func (r Repo) is(name string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, ".git"))
	return name != "" && slices.Contains(r.Names, name)
}

func (r Repo) isPackage(p string) bool {
	p = strings.ToLower(p)
	if i := strings.LastIndexByte(p, '@'); i > 0 {
		p = p[:i]
	}
	return slices.Contains(r.Packages, p)
}

func (r Repo) isModule(p string) bool {
	p = strings.ToLower(strings.TrimSuffix(p, "/..."))
	for _, m := range r.Modules {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	for _, s := range r.Slugs {
		if p == "github.com/"+s || strings.HasPrefix(p, "github.com/"+s+"/") {
			return true
		}
	}
	return false
}

// isClone reports whether a clone URL is this repository's: its owner/name
// matches a known slug, or, with no slug known, its last path element
// matches one of the names.
func (r Repo) isClone(url string) bool {
	name, slug := repoOfURL(url)
	return slices.Contains(r.Slugs, slug) || r.is(name)
}

// add adds names, skipping empty and duplicate ones.
func (r *Repo) add(list *[]string, vs ...string) {
	for _, v := range vs {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "" && v != "." && v != "/" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
}

// AddSlug records an "owner/name" the repository is known as (the
// Action's GITHUB_REPOSITORY, a git remote).
func (r *Repo) AddSlug(slug string) {
	slug = strings.Trim(strings.TrimSuffix(strings.TrimSpace(slug), ".git"), "/")
	owner, name, ok := strings.Cut(slug, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return
	}
	r.add(&r.Slugs, slug)
	r.add(&r.Names, name)
}

// maxManifest caps what RepoFromDir reads of a file: manifests are small,
// and a file larger than this is not one.
const maxManifest = 256 << 10

// RepoFromDir learns the repository's names from its checkout: the
// directory name, the remotes in .git/config, the module line of go.mod,
// the name in package.json, Cargo.toml and pyproject.toml. slug is the
// "owner/name" the caller knows (GITHUB_REPOSITORY), "" when none. Files
// are read through internal/repofs (inside the repository only, regular
// files with one link), each up to 256 KiB; a file that cannot be read is
// passed over. Nothing read here is run.
func RepoFromDir(dir, slug string) Repo {
	base, files, manifests := checkout(dir)
	return repoFrom(slug, base, readSmall(dir, ".git/config"), files, manifests)
}

// checkout reads what the plan learns of a checkout: its directory's name,
// its listing and its manifests.
func checkout(dir string) (base string, files []string, manifests map[string][]byte) {
	if abs, err := filepath.Abs(dir); err == nil {
		base = filepath.Base(abs)
	}
	files = listFiles(dir, maxFiles)
	manifests = map[string][]byte{}
	for _, f := range files {
		if IsManifest(f) {
			if b := readSmall(dir, f); b != nil {
				manifests[f] = b
			}
		}
	}
	return base, files, manifests
}

// manifestNames are the top-level files whose content the plan reads: what
// the project builds, installs and calls itself.
var manifestNames = toSet(`go.mod package.json Cargo.toml pyproject.toml setup.py setup.cfg
Makefile makefile GNUmakefile justfile Justfile Taskfile.yml Taskfile.yaml
docker-compose.yml docker-compose.yaml compose.yml compose.yaml Dockerfile
Gemfile composer.json mix.exs CMakeLists.txt meson.build configure.ac build.gradle build.gradle.kts
pom.xml deno.json deno.jsonc stack.yaml dune-project shard.yml pubspec.yaml build.zig build.zig.zon
Package.swift rebar.config project.clj deps.edn build.sbt`)

// manifestExts are top-level manifests known by their extension.
var manifestExts = []string{".gemspec", ".cabal", ".nimble", ".csproj", ".fsproj", ".opam", ".rockspec"}

// IsManifest reports whether a repository path (slash-separated, relative)
// is a manifest the plan reads.
func IsManifest(rel string) bool {
	if strings.Contains(rel, "/") {
		return false
	}
	if manifestNames[rel] {
		return true
	}
	for _, ext := range manifestExts {
		if strings.HasSuffix(rel, ext) {
			return true
		}
	}
	return false
}

// repoFrom builds a Repo from what a checkout shows: the slug the caller
// knows, the checkout directory's name, .git/config, the listing and the
// manifests' contents (top-level path -> bytes).
func repoFrom(slug, dirName string, gitConfig []byte, files []string, manifests map[string][]byte) Repo {
	var r Repo
	if slug != "" {
		r.AddSlug(slug)
	}
	r.add(&r.Names, dirName)
	for _, m := range remoteURLRe.FindAllSubmatch(gitConfig, -1) {
		name, s := repoOfURL(string(m[1]))
		if s != "" {
			r.AddSlug(s)
		}
		r.add(&r.Names, name)
	}
	if m := goModuleRe.FindSubmatch(manifests["go.mod"]); m != nil {
		r.add(&r.Modules, strings.Trim(string(m[1]), `"`))
	}
	if b := manifests["package.json"]; b != nil {
		var pj struct {
			Name string          `json:"name"`
			Bin  json.RawMessage `json:"bin"`
		}
		if json.Unmarshal(b, &pj) == nil && pj.Name != "" {
			r.add(&r.Packages, pj.Name)
			r.add(&r.Names, npmTool(pj.Name))
			var bins map[string]string
			if json.Unmarshal(pj.Bin, &bins) == nil {
				for k := range bins {
					r.add(&r.Names, k)
				}
			}
		}
	}
	r.AddFiles(files...)
	cargo, pyproject := manifests["Cargo.toml"], manifests["pyproject.toml"]
	r.add(&r.Names, tomlBinNames(cargo)...)
	r.add(&r.Names, tomlScriptNames(pyproject)...)
	for _, b := range [][]byte{cargo, pyproject} {
		if name := tomlName(b); name != "" {
			r.add(&r.Packages, name)
			r.add(&r.Names, name)
		}
	}
	for name, b := range manifests {
		r.add(&r.Names, manifestPrograms(name, b)...)
	}
	// Programs by the layout Go and script repositories use: cmd/NAME/,
	// bin/NAME.
	for _, f := range files {
		if dir, rest, ok := strings.Cut(f, "/"); ok && (dir == "cmd" || dir == "bin") && rest != "" {
			prog, _, _ := strings.Cut(rest, "/")
			if dir == "bin" && strings.Contains(rest, "/") {
				continue
			}
			r.add(&r.Names, strings.TrimSuffix(prog, path.Ext(prog)))
		}
	}
	r.Manifests = manifests
	return r
}

var (
	// gemspecExecRe finds a gemspec's executables: spec.executables =
	// ["rougify"], s.executables = %w(a b).
	gemspecExecRe = lazyre.New(`executables\s*=\s*(?:\[([^\]]*)\]|%w[\(\[{]([^\)\]}]*)[\)\]}])`)
	// consoleScriptRe is a setuptools console script: "name = pkg.mod:fn".
	consoleScriptRe = lazyre.New(`['"]?([A-Za-z][\w.-]*)\s*=\s*[\w.]+:\w+`)
	// cabalExecRe is a Cabal executable stanza.
	cabalExecRe = lazyre.New(`(?mi)^executable\s+([\w-]+)`)
	// nimbleBinRe is a Nimble package's programs: bin = @["x", "y"].
	nimbleBinRe  = lazyre.New(`bin\s*=\s*@\[([^\]]*)\]`)
	quotedWordRe = lazyre.New(`["']([\w.-]+)["']`)
)

// manifestPrograms are the programs a manifest says the project installs.
func manifestPrograms(name string, b []byte) []string {
	var out []string
	switch {
	case strings.HasSuffix(name, ".gemspec"):
		for _, m := range gemspecExecRe.FindAllSubmatch(b, -1) {
			if len(m[1]) > 0 {
				for _, q := range quotedWordRe.FindAllSubmatch(m[1], -1) {
					out = append(out, string(q[1]))
				}
			}
			out = append(out, strings.Fields(string(m[2]))...)
		}
	case name == "setup.py" || name == "setup.cfg":
		if i := bytes.Index(b, []byte("console_scripts")); i >= 0 {
			for _, m := range consoleScriptRe.FindAllSubmatch(b[i:min(len(b), i+4000)], -1) {
				out = append(out, string(m[1]))
			}
		}
	case name == "composer.json":
		var cj struct {
			Bin json.RawMessage `json:"bin"`
		}
		if json.Unmarshal(b, &cj) == nil {
			var bins []string
			if json.Unmarshal(cj.Bin, &bins) != nil {
				var one string
				if json.Unmarshal(cj.Bin, &one) == nil {
					bins = []string{one}
				}
			}
			for _, bin := range bins {
				out = append(out, path.Base(bin))
			}
		}
	case strings.HasSuffix(name, ".cabal"):
		for _, m := range cabalExecRe.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
	case strings.HasSuffix(name, ".nimble"):
		if m := nimbleBinRe.FindSubmatch(b); m != nil {
			for _, q := range quotedWordRe.FindAllSubmatch(m[1], -1) {
				out = append(out, string(q[1]))
			}
		}
	}
	return out
}

var (
	remoteURLRe = lazyre.New(`(?m)^\s*url\s*=\s*(\S+)\s*$`)
	goModuleRe  = lazyre.New(`(?m)^\s*module\s+(\S+)`)
	tomlNameRe  = lazyre.New(`^\s*name\s*=\s*["']([^"']+)["']`)
)

// tomlName returns the name of the [package] or [project] table.
func tomlName(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	in := false
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			in = l == "[package]" || l == "[project]" || l == "[tool.poetry]"
			continue
		}
		if in {
			if m := tomlNameRe.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// maxFiles caps the repository listing.
const maxFiles = 50000

// skipDirs are not listed: version control, dependencies, build output.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, "target": true, ".venv": true, "venv": true, "__pycache__": true}

// listFiles lists the files under dir (symlinks are listed, not followed).
func listFiles(dir string, limit int) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(out) >= limit {
			return filepath.SkipAll
		}
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil || rel == "." {
			return nil
		}
		if d.IsDir() && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// readSmall reads a manifest (rel is slash-separated, relative to dir)
// under repofs' rules, at most maxManifest bytes; nil when it is missing,
// refused or larger.
func readSmall(dir, rel string) []byte {
	b, err := repofs.ReadFile(dir, rel, maxManifest)
	if err != nil {
		return nil
	}
	return b
}

// tomlBinNames are the names of a Cargo.toml's [[bin]] targets: the
// programs a crate builds (dua-cli builds dua).
func tomlBinNames(b []byte) []string {
	var out []string
	for _, l := range tomlTables(b, "[[bin]]") {
		if m := tomlNameRe.FindStringSubmatch(l); m != nil {
			out = append(out, strings.ToLower(m[1]))
		}
	}
	return out
}

// tomlTables returns the lines (trimmed) of the tables of a TOML file
// with one of the headers.
func tomlTables(b []byte, headers ...string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "[") {
			in = slices.Contains(headers, l)
		} else if in {
			out = append(out, l)
		}
	}
	return out
}

// tomlScriptNames are the programs a pyproject.toml installs: the keys of
// [project.scripts] and [tool.poetry.scripts] (rich-cli installs rich).
func tomlScriptNames(b []byte) []string {
	var out []string
	for _, l := range tomlTables(b, "[project.scripts]", "[tool.poetry.scripts]") {
		if k, _, ok := strings.Cut(l, "="); ok {
			if k = strings.Trim(strings.TrimSpace(k), `"'`); k != "" && !strings.HasPrefix(k, "#") {
				out = append(out, strings.ToLower(k))
			}
		}
	}
	return out
}
