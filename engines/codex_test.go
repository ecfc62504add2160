package engines_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readme2demo/readme2demo/internal/agentcli/clitest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCodexResolveEnv(t *testing.T) {
	eng, err := engines.Lookup("codex")
	assert.NilError(t, err)
	const key = "sk-proj-abcdefghijklmnop"
	tests := []struct {
		name    string
		env     map[string]string
		want    map[string]string
		errVar  string
		errText string
	}{
		{name: "OPENAI_API_KEY", env: map[string]string{"OPENAI_API_KEY": key},
			want: map[string]string{"OPENAI_API_KEY": key}},
		{name: "CODEX_API_KEY alone", env: map[string]string{"CODEX_API_KEY": key},
			want: map[string]string{"CODEX_API_KEY": key}},
		{name: "both: OPENAI_API_KEY wins", env: map[string]string{"OPENAI_API_KEY": key, "CODEX_API_KEY": "other"},
			want: map[string]string{"OPENAI_API_KEY": key}},
		{name: "base URL passes through", env: map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": "http://172.17.0.1:8080/v1"},
			want: map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": "http://172.17.0.1:8080/v1"}},
		{name: "missing", env: map[string]string{}, errVar: "OPENAI_API_KEY", errText: "not set"},
		{name: "newline in key", env: map[string]string{"OPENAI_API_KEY": key + "\n"}, errVar: "OPENAI_API_KEY", errText: "white space"},
		{name: "space in CODEX_API_KEY", env: map[string]string{"CODEX_API_KEY": "sk a"}, errVar: "CODEX_API_KEY", errText: "white space"},
		{name: "base URL with quotes", env: map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": `http://x/"; rm -rf /`},
			errVar: "OPENAI_BASE_URL", errText: "quotes"},
		{name: "base URL without scheme", env: map[string]string{"OPENAI_API_KEY": key, "OPENAI_BASE_URL": "localhost:8080"},
			errVar: "OPENAI_BASE_URL", errText: "http"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eng.ResolveEnv(envOf(tc.env))
			if tc.errVar == "" {
				assert.NilError(t, err)
				assert.DeepEqual(t, got, tc.want)
				for k := range got {
					assert.Check(t, is.Contains(eng.RequiredEnv(), k))
				}
				return
			}
			var ee *engines.EngineError
			assert.Assert(t, errors.As(err, &ee), "want *EngineError, got %v", err)
			assert.Check(t, is.Equal(ee.Engine, "codex"))
			assert.Check(t, is.Equal(ee.Var, tc.errVar))
			assert.Check(t, is.Contains(err.Error(), tc.errText))
			for _, v := range tc.env {
				assert.Check(t, !strings.Contains(err.Error(), v), "error echoes a value")
			}
		})
	}
}

// runBuildCommand runs cmd with bash after pointing the canonical container
// paths into dir, with a fake binary on PATH that writes its argv (one per
// line) to dir/argv. It returns the argv the CLI would get.
func runBuildCommand(t *testing.T, cmd, binary string, env []string) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	assert.NilError(t, os.Mkdir(bin, 0o755))
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + filepath.Join(dir, "argv") + "\n" +
		"cat > " + filepath.Join(dir, "stdin") + "\n" +
		"[ -z \"$GEMINI_CLI_HOME\" ] || { cp \"$GEMINI_CLI_HOME/.gemini/settings.json\" " + filepath.Join(dir, "settings.json") +
		"; echo \"$GEMINI_CLI_TRUST_WORKSPACE\" > " + filepath.Join(dir, "trust") + "; }\necho '{\"type\":\"fake\"}'\necho fake-stderr >&2\n"
	assert.NilError(t, os.WriteFile(filepath.Join(bin, binary), []byte(fake), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Follow the README.\nIt's \"quoted\" $HOME `x`\n"), 0o644))
	cmd = strings.NewReplacer(
		engines.PromptContainerPath, filepath.Join(dir, "prompt.md"),
		engines.TranscriptContainerPath, filepath.Join(dir, "transcript.jsonl"),
		engines.StderrContainerPath, filepath.Join(dir, "transcript.stderr"),
	).Replace(cmd)
	c := exec.Command("bash", "-c", cmd) // not -l: /etc/profile would reset PATH
	c.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir}, env...)
	out, err := c.CombinedOutput()
	assert.NilError(t, err, "%s", out)
	transcript, err := os.ReadFile(filepath.Join(dir, "transcript.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(transcript), "{\"type\":\"fake\"}\n"), "stdout goes to the transcript")
	stderr, err := os.ReadFile(filepath.Join(dir, "transcript.stderr"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(stderr), "fake-stderr\n"), "stderr goes beside it")
	raw, err := os.ReadFile(filepath.Join(dir, "argv"))
	assert.NilError(t, err)
	if b, err := os.ReadFile(filepath.Join(dir, "stdin")); err == nil {
		t.Logf("stdin: %q", b)
		stdinSeen[t.Name()] = string(b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "settings.json")); err == nil {
		settingsSeen[t.Name()] = string(b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "trust")); err == nil {
		settingsSeen[t.Name()+"/trust"] = string(b)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
}

var stdinSeen, settingsSeen = map[string]string{}, map[string]string{}

func TestCodexBuildCommand(t *testing.T) {
	t.Parallel()
	eng, err := engines.Lookup("codex")
	assert.NilError(t, err)
	cmd := eng.BuildCommand(engines.Limits{Model: "gpt-5.5", MaxTurns: 7})
	for _, p := range []string{engines.PromptContainerPath, engines.TranscriptContainerPath, engines.StderrContainerPath} {
		assert.Check(t, is.Contains(cmd, p))
	}
	base := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"--cd", engines.WorkspaceContainerPath,
		"-c", "shell_environment_policy.inherit=all",
		"-c", `shell_environment_policy.exclude=["OPENAI_API_KEY","CODEX_API_KEY"]`,
		"--model", "gpt-5.5"}

	t.Run("no base URL: built-in provider", func(t *testing.T) {
		argv := runBuildCommand(t, cmd, "codex", []string{"OPENAI_API_KEY=sk-x"})
		assert.DeepEqual(t, argv, append(append([]string{}, base...), "-"))
		assert.Check(t, is.Equal(stdinSeen[t.Name()], "Follow the README.\nIt's \"quoted\" $HOME `x`\n"), "prompt on stdin")
	})
	t.Run("base URL: custom provider", func(t *testing.T) {
		argv := runBuildCommand(t, cmd, "codex", []string{"OPENAI_API_KEY=sk-x", "OPENAI_BASE_URL=http://172.17.0.1:4000/v1"})
		want := append(append([]string{}, base...),
			"-c", "model_provider=readme2demo",
			"-c", `model_providers.readme2demo={name="readme2demo",base_url="http://172.17.0.1:4000/v1",env_key="OPENAI_API_KEY",wire_api="responses"}`,
			"-")
		assert.DeepEqual(t, argv, want)
	})
	t.Run("base URL with CODEX_API_KEY", func(t *testing.T) {
		argv := runBuildCommand(t, cmd, "codex", []string{"CODEX_API_KEY=sk-x", "OPENAI_BASE_URL=http://h:1/v1"})
		assert.Check(t, is.Contains(argv[len(argv)-2], `env_key="CODEX_API_KEY"`))
	})
	t.Run("default model", func(t *testing.T) {
		argv := runBuildCommand(t, eng.BuildCommand(engines.Limits{}), "codex", nil)
		assert.Check(t, !strings.Contains(strings.Join(argv, " "), "--model"))
	})
}

// TestCodexBuildCommandRealCLI runs the exact BuildCommand string with the
// pinned REAL codex against the OpenAI mock (OPENAI_BASE_URL at exec time, as
// the sandbox forwards it) and checks the parsed command log, and that the
// API key does not reach the commands codex runs.
func TestCodexBuildCommandRealCLI(t *testing.T) {
	_, _, bin := clitest.Require(t, engines.CodexName, agentcli.CodexVersion, "..")
	dir := t.TempDir()
	work, home := filepath.Join(dir, "workspace"), filepath.Join(dir, "home")
	for _, d := range []string{work, home, filepath.Join(home, ".codex")} {
		assert.NilError(t, os.MkdirAll(d, 0o755))
	}
	assert.NilError(t, os.WriteFile(filepath.Join(work, "README.md"), []byte("# Demo\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Follow README.md.\n"), 0o644))
	srv, err := scriptedllm.Start("127.0.0.1:0", scriptedllm.Scenario{Turns: []scriptedllm.Turn{
		scriptedllm.Run("Checking.", scriptedllm.Bash(`echo "key=${OPENAI_API_KEY:-unset} ${CODEX_API_KEY:-unset}"`), scriptedllm.Bash("cat README.md; exit 4")),
	}, FinalText: "FIX: nothing to fix\nSUCCESS"})
	assert.NilError(t, err)
	defer srv.Close()

	cmd := strings.NewReplacer(
		engines.PromptContainerPath, filepath.Join(dir, "prompt.md"),
		engines.TranscriptContainerPath, filepath.Join(dir, "transcript.jsonl"),
		engines.StderrContainerPath, filepath.Join(dir, "transcript.stderr"),
		" "+engines.WorkspaceContainerPath+" ", " "+work+" ",
	).Replace(eng(t, "codex").BuildCommand(engines.Limits{}))
	c := exec.Command("bash", "-c", cmd)
	c.Dir = work
	c.Env = []string{"PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
		"CODEX_HOME=" + filepath.Join(home, ".codex"), "LANG=C.UTF-8",
		"OPENAI_API_KEY=" + scriptedllm.DummyAPIKey, "OPENAI_BASE_URL=" + srv.URL() + "/v1"}
	out, err := c.CombinedOutput()
	stderr, _ := os.ReadFile(filepath.Join(dir, "transcript.stderr"))
	assert.NilError(t, err, "%s\nstderr: %s", out, stderr)

	f, err := os.Open(filepath.Join(dir, "transcript.jsonl"))
	assert.NilError(t, err)
	defer f.Close()
	l, err := eng(t, "codex").ParseTranscript(f)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(l.Commands, 2), "%+v", l.Commands)
	byCmd := map[string]int{}
	for i, c := range l.Commands {
		byCmd[c.Command] = i
	}
	k := l.Commands[byCmd[`echo "key=${OPENAI_API_KEY:-unset} ${CODEX_API_KEY:-unset}"`]]
	assert.Check(t, is.Equal(k.Output, "key=unset unset\n"), "codex handed the API key to a command")
	e := l.Commands[byCmd["cat README.md; exit 4"]]
	assert.Check(t, is.Equal(e.Output, "# Demo\n"))
	assert.Check(t, is.DeepEqual(e.ExitCode, intp(4)))
	assert.Check(t, is.Equal(string(l.Outcome), "success"))
	assert.Check(t, l.CostUSD == nil)
	for _, r := range srv.Requests() {
		assert.Check(t, is.Equal(r.Path, "/v1/responses"))
	}
}

func intp(n int) *int { return &n }

func eng(t *testing.T, name string) engines.AgentEngine {
	t.Helper()
	e, err := engines.Lookup(name)
	assert.NilError(t, err)
	return e
}
