package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

func TestPlanVerb(t *testing.T) {
	dir := t.TempDir()
	readme := "# tool\n\n## Install\n\n```sh\nbrew install tool\ngit clone https://github.com/acme/tool.git\ncd tool\nmake\n```\n\n" +
		"Usage:\n\n```console\n$ tool --name <your-name>\n$ echo ok\nok\n```\n"
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644))
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:acme/tool.git\n"), 0o644))

	code, out, errOut := runCLI(t, "plan", "--format", "json", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	// The JSON form is stable: exactly these keys, in this order.
	assert.Assert(t, strings.HasPrefix(out, "[\n  {\n    \"file\": \"README.md\",\n    \"line\": 6,\n    \"command\": \"brew install tool\",\n    \"run\": false,\n    \"reason\": \"other platform: Homebrew\",\n    \"block_line\": 6,\n    \"language\": \"sh\"\n  },"), out)
	var entries []map[string]any
	assert.NilError(t, json.Unmarshal([]byte(out), &entries))
	type row struct {
		Line   float64
		Cmd    string
		Run    bool
		Reason string
	}
	var got []row
	for _, e := range entries {
		assert.Equal(t, len(e), 7, "keys of %v", e)
		got = append(got, row{e["line"].(float64), e["command"].(string), e["run"].(bool), e["reason"].(string)})
	}
	assert.DeepEqual(t, got, []row{
		{6, "brew install tool", false, "other platform: Homebrew"},
		{7, "git clone https://github.com/acme/tool.git", false, "clones this repository: the run starts in its checkout"},
		{8, "cd tool", false, "enters the clone of this repository: the run already starts in its checkout"},
		{9, "make", true, "```sh block"},
		{15, "tool --name <your-name>", false, "placeholder <your-name>: a value to fill in"},
		{16, "echo ok", true, "```console block: shell prompt"},
	})

	code, out, _ = runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.OK)
	assert.Assert(t, strings.HasPrefix(out, "README.md: 2 of 6 candidate commands run, 2 code blocks, order readme\n"), out)
	assert.Assert(t, strings.Contains(out, "  skip    6  brew install tool\n         other platform: Homebrew\n"), out)

	// --order install-first puts the install section first (here it already is).
	code, out, _ = runCLI(t, "plan", "--order", "install-first", dir)
	assert.Equal(t, code, exitcode.OK)
	assert.Assert(t, strings.Contains(out, "order install-first"), out)
}

// plan's text form quotes README lines to a terminal: every hidden, bidi,
// tag, separator and conceal character and every escape sequence of a
// README command is drawn visibly (golden), none passed on.
func TestPlanTextShowsHostileCommandsVisibly(t *testing.T) {
	dir := t.TempDir()
	readme := "# tool\n\n```sh\n" +
		"echo " + termtexttest.All(termtexttest.Hidden) + "\n" +
		"echo " + termtexttest.All(termtexttest.Controls) + "\n" +
		"make # \u202e\u2066\n```\n"
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644))
	code, out, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	for _, p := range termtexttest.Problems(out, termtexttest.Text) {
		t.Error(p)
	}
	golden.Assert(t, out, "hostile-plan.txt")
}

func TestPlanVerbErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no readme", []string{"plan", dir}, exitcode.Usage, "not found in"},
		{"bad format", []string{"plan", "--format", "yaml", dir}, exitcode.Usage, `--format "yaml": use text or json`},
		{"bad order", []string{"plan", "--order", "random", dir}, exitcode.Usage, `--order "random": use readme or install-first`},
		{"outside", []string{"plan", "--readme", "../x.md", dir}, exitcode.Usage, "leads out of the repository"},
		{"two dirs", []string{"plan", dir, dir}, exitcode.Usage, "at most one repository directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tt.args...)
			assert.Equal(t, code, tt.code)
			assert.Assert(t, strings.Contains(errOut, tt.want), errOut)
		})
	}
	// Nothing to run: exit 1 and the reason.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# lib\n\n```go\nx := 1\n```\n"), 0o644))
	code, out, _ := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.Failed)
	assert.Assert(t, strings.Contains(out, "nothing to run: none of the 1 code blocks of README.md has a command to run on Linux (line 4: go code, not shell)"), out)
	code, out, _ = runCLI(t, "plan", "--format", "json", dir)
	assert.Equal(t, code, exitcode.Failed)
	assert.Equal(t, out, "[\n  {\n    \"file\": \"README.md\",\n    \"line\": 4,\n    \"command\": \"\",\n    \"run\": false,\n    \"reason\": \"go code, not shell\",\n    \"block_line\": 4,\n    \"language\": \"go\"\n  }\n]\n")

	// A README that links outside the repository is refused.
	assert.NilError(t, os.Remove(filepath.Join(dir, "README.md")))
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "README.md")))
	code, _, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.Usage)
	assert.Assert(t, strings.Contains(errOut, "which leads out of the repository"), errOut)
}

// Without --readme, a repository whose README is readme.md (as many Node
// packages name it) is planned from that file.
func TestPlanFindsLowerCaseReadme(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "readme.md"), []byte("# x\n\n```sh\necho ok\n```\n"), 0o644))
	code, out, errOut := runCLI(t, "plan", dir)
	assert.Equal(t, code, exitcode.OK, errOut)
	assert.Assert(t, strings.HasPrefix(out, "readme.md: 1 of 1 candidate commands run"), out)
}
