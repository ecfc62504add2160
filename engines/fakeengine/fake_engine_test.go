package fakeengine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/action"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/transcript"
)

const (
	name   = "fake-agent"
	keyVar = "FAKE_AGENT_API_KEY"
)

// fake runs a made-up CLI whose transcript is one "exit<TAB>command" line a
// command.
type fake struct{}

var _ engines.AgentEngine = fake{}

func (fake) Name() string          { return name }
func (fake) RequiredEnv() []string { return []string{keyVar} }

func (fake) ResolveEnv(getenv func(string) string) (map[string]string, error) {
	if getenv(keyVar) == "" {
		return nil, &engines.EngineError{Engine: name, Var: keyVar, Reason: "not set"}
	}
	return map[string]string{keyVar: getenv(keyVar)}, nil
}

func (fake) BuildCommand(engines.Limits) string {
	return "fake-agent < " + engines.PromptContainerPath + " > " + engines.TranscriptContainerPath + " 2> " + engines.StderrContainerPath
}

func (fake) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	l := &commandlog.Log{SchemaVersion: commandlog.SchemaVersion, Engine: name, Outcome: commandlog.OutcomeSuccess}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		code, cmd, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.Atoi(code)
		if !ok || err != nil {
			continue
		}
		status := commandlog.StatusOK
		if n != 0 {
			status = commandlog.StatusFailed
		}
		l.Commands = append(l.Commands, commandlog.Command{ID: strconv.Itoa(len(l.Commands) + 1), Command: cmd, ExitCode: &n, Status: status})
	}
	return l, sc.Err()
}

var spec = engines.Spec{
	CLI: &engines.CLISpec{
		Name: "fake-cli", Registry: engines.NPM, Package: "@example/fake-cli", Bin: "fake-agent",
		APIEnv: func(baseURL, key string) map[string]string {
			return map[string]string{keyVar: key, "FAKE_AGENT_BASE_URL": baseURL}
		},
		Headless: func(r engines.HeadlessRun) engines.Headless {
			return engines.Headless{Args: append([]string{"--print"}, r.Args...), Env: []string{keyVar + "=" + r.APIKey},
				PromptOnStdin: true}
		},
	},
	Image: engines.ImageSpec{Flavour: "fake"},
	Drift: &engines.DriftProfile{Cost: engines.PresenceNever, Turns: engines.PresenceAlways, Duration: engines.PresenceFinal,
		WriteTool: "fake_write", EditTool: "fake_edit"},
	Devcontainer: &engines.DevcontainerSpec{
		Copies: []engines.DevcontainerCopy{{From: "/opt/fake/bin/fake-agent", To: "/usr/local/bin/fake-agent"}},
		Checks: []string{"fake-agent --version"},
	},
}

func init() { engines.Register(fake{}, spec) }

func TestFakeEngineCLI(t *testing.T) {
	c, err := agentcli.Lookup(name)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(c.Bin, "fake-agent"))
	assert.Check(t, is.Equal(c.BuildArg(), "FAKE_CLI_VERSION"))
	assert.Check(t, is.DeepEqual(c.APIEnv("http://mock", "k"), map[string]string{keyVar: "k", "FAKE_AGENT_BASE_URL": "http://mock"}))
	assert.Check(t, is.Contains(agentcli.Engines(), name))

	dir := t.TempDir()
	cmd, err := c.Command(agentcli.Run{Binary: "/bin/sh", Workdir: dir, Home: dir, BaseURL: "http://mock", APIKey: "k", Args: []string{"-x"}})
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(cmd.Args, []string{"/bin/sh", "--print", "-x"}))
	assert.Check(t, is.Contains(cmd.Env, keyVar+"=k"))
	assert.Check(t, cmd.Stdin != nil, "the prompt goes on stdin")
}

func TestFakeEngineDriftScenarios(t *testing.T) {
	scs, err := drift.Scenarios(name, "/work", "1.2.3")
	assert.NilError(t, err)
	assert.Assert(t, len(scs) > 0)
	var tools []string
	for _, sc := range scs {
		assert.Check(t, !sc.Expect.Cost, "scenario %s: the profile says the CLI never states a cost", sc.Name)
		assert.Check(t, sc.Expect.Turns, "scenario %s: the profile says turns are always counted", sc.Name)
		for _, e := range sc.Expect.FileEdits {
			tools = append(tools, e.Tool)
		}
	}
	assert.Check(t, is.Contains(tools, "fake_write"))
	assert.Check(t, is.Contains(tools, "fake_edit"))
}

func TestFakeEngineDevcontainer(t *testing.T) {
	df, err := devcontainer.Dockerfile("debian:bookworm", "base", name)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(df, "COPY --from=base /opt/fake/bin/fake-agent /usr/local/bin/fake-agent\n"))
	assert.Check(t, is.Contains(df, `echo "$(fake-agent --version)"`))
	assert.Check(t, is.Contains(devcontainer.Supported(), name))
}

func TestFakeEngineParse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	assert.NilError(t, os.WriteFile(path, []byte("0\techo hi\n2\tfalse\n"), 0o600))
	res, err := transcript.Parse(path, transcript.Options{Engine: name})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Engine, name))
	assert.Assert(t, is.Len(res.Logs, 1))
	l := res.Logs[0].Log
	assert.Assert(t, is.Len(l.Commands, 2))
	assert.Check(t, is.Equal(l.Commands[1].Command, "false"))
	assert.Check(t, is.Equal(*l.Commands[1].ExitCode, 2))
}

func TestFakeEngineActionInputs(t *testing.T) {
	validate := func(env map[string]string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := action.Run(context.Background(), []string{"validate"}, func(k string) string { return env[k] }, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := validate(map[string]string{"INPUT_ENGINE": name, keyVar: "sk-fake"})
	assert.Check(t, is.Equal(code, exitcode.OK), stderr)
	assert.Check(t, is.Equal(stdout, "readme2demo: inputs and the fake-agent engine's credentials are in order\n"))

	code, _, stderr = validate(map[string]string{"INPUT_ENGINE": name})
	assert.Check(t, code != exitcode.OK)
	assert.Check(t, is.Contains(stderr, keyVar))
}

// The fake engine runs through `run` (pipeline.Run) on a Docker without a
// daemon: its command is the one it builds, its key reaches the command's
// environment (on its standard input) and no written file, and its transcript becomes the command
// log.
func TestFakeEngineRun(t *testing.T) {
	const key = "sk-fake-0123456789abcdef"
	readme, err := os.ReadFile("../../testdata/sample-repo/README.md")
	assert.NilError(t, err)
	var cfgs []*container.Config
	d := &sandboxtest.FakeDocker{
		Files: map[string][]byte{
			engines.TranscriptContainerPath: []byte("0\tpython3 greet.py World\n2\tpython3 greet.py --shout World\n"),
			"/workspace/README.md":          readme,
		},
		ContainerCreateFunc: func(c *container.Config, _ *container.HostConfig, name string) (container.CreateResponse, error) {
			cfgs = append(cfgs, c)
			return container.CreateResponse{ID: name}, nil
		},
	}
	var progress bytes.Buffer
	out := t.TempDir()
	res, err := pipeline.Run(context.Background(), pipeline.Config{
		Engine: name, RepoDir: "../../testdata/sample-repo", Image: "img", OutDir: out, RunID: "fakeengine01",
		Network: pipeline.NetworkNone, Resources: sandbox.Resources{NanoCPUs: 1e9},
		Getenv:   func(k string) string { return map[string]string{keyVar: key}[k] },
		Progress: &progress, Docker: d,
	})
	assert.NilError(t, err, progress.String())
	assert.Check(t, is.Equal(res.Log.Engine, name))
	assert.Assert(t, is.Len(res.Log.Commands, 2))
	assert.Check(t, is.Equal(res.Log.Commands[1].Command, "python3 greet.py --shout World"))
	assert.Check(t, is.Equal(res.Log.Commands[1].Status, commandlog.StatusFailed))
	assert.Assert(t, len(cfgs) > 0)
	assert.Check(t, is.Contains(strings.Join(cfgs[0].Cmd, " "), fake{}.BuildCommand(engines.Limits{})))
	assert.Check(t, !strings.Contains(fmt.Sprint(cfgs[0]), key), "the key is in the container's configuration")
	assert.Check(t, is.Contains(string(d.Stdin()), keyVar+"="+key+"\x00"), "the key was not handed to the command")
	entries, err := os.ReadDir(out)
	assert.NilError(t, err)
	assert.Check(t, len(entries) > 0)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		assert.NilError(t, err)
		assert.Check(t, !bytes.Contains(b, []byte(key)), "%s holds the key", e.Name())
	}
	assert.Check(t, !strings.Contains(progress.String(), key))
}
