package drift_test

// The OpenHands driver, tested against a FAKE `openhands` CLI: PyPI, where
// the real one comes from, is not reachable from this project's machines.
// The fake is this test binary run again (TestMain): it takes the arguments
// and environment the driver gives the real CLI (agentcli.CLI.Command:
// --headless --json --override-with-envs --file PROMPT, LLM_BASE_URL,
// LLM_API_KEY, LLM_MODEL, OPENHANDS_WORK_DIR), talks to the mock through the
// Anthropic Messages API as LiteLLM does for an anthropic/ model, runs the
// terminal and file_editor calls for real, and prints software-agent-sdk V1
// events in the CLI's `--JSON Event--` block format, like the committed
// testdata/fixtures/openhands/v1-*.cli.log. What it shows: the install
// layout, the command line and environment, the scenarios' translation to
// OpenHands' tools, the kill, and the expectations against the parser. What
// it cannot show: what the real CLI prints.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/drift"
)

const fakeOpenHandsEnv = "R2D_FAKE_OPENHANDS"

func TestMain(m *testing.M) {
	if os.Getenv(fakeOpenHandsEnv) == "1" {
		if err := fakeOpenHands(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fake openhands:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// installFakeOpenHands puts the fake where the driver looks for version:
// <cliDir>/openhands-<version>/bin/openhands (a PyPI venv's layout).
func installFakeOpenHands(t *testing.T, cliDir, version string) {
	t.Helper()
	self, err := os.Executable()
	assert.NilError(t, err)
	cli, err := agentcli.Lookup("openhands")
	assert.NilError(t, err)
	bin := cli.Binary(cliDir, version)
	assert.NilError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", fakeOpenHandsEnv, self)
	assert.NilError(t, os.WriteFile(bin, []byte(script), 0o755))
}

func TestOpenHandsDriverAgainstAFakeCLI(t *testing.T) {
	longtest.Require(t) // a fake CLI through four scenarios, one killed after 3 s
	cliDir := t.TempDir()
	installFakeOpenHands(t, cliDir, agentcli.OpenHandsVersion)
	out := filepath.Join(t.TempDir(), "out")
	var progress bytes.Buffer
	res, err := drift.RunCheck(context.Background(), drift.Options{
		Engine: "openhands", OutDir: out, Host: true, CLIDir: cliDir, Progress: &progress,
	})
	assert.NilError(t, err, progress.String())
	var tables bytes.Buffer
	res.Write(&tables)
	assert.Assert(t, !res.Drifted(), "%s\n%s", tables.String(), progress.String())
	assert.Check(t, is.Contains(tables.String(), "no drift: openhands "+agentcli.OpenHandsVersion+" matches every expectation in 4 scenarios"))
	// The transcripts are the V1 block format the engine reads from the real CLI.
	tr, err := os.ReadFile(filepath.Join(out, "openhands-"+agentcli.OpenHandsVersion, "success.jsonl"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(tr), "--JSON Event--\n{"))
	assert.Check(t, is.Contains(string(tr), `"kind": "TerminalAction"`))
	assert.Check(t, is.Contains(string(tr), `"kind": "FileEditorAction"`))
	assert.Check(t, is.Contains(string(tr), `"kind": "FinishAction"`))
	// The killed run: the command started and never finished.
	killed := res.Report.Results[3]
	assert.Check(t, is.Equal(killed.Scenario, "killed"))
	assert.Check(t, killed.Log.Commands[0].ExitCode == nil)
}

// fakeOpenHands is the fake CLI's main.
func fakeOpenHands(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("openhands", flag.ContinueOnError)
	headless := fs.Bool("headless", false, "")
	asJSON := fs.Bool("json", false, "")
	override := fs.Bool("override-with-envs", false, "")
	file := fs.String("file", "", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*headless || !*asJSON || !*override || *file == "" {
		return fmt.Errorf("want --headless --json --override-with-envs --file PROMPT, got %q", args)
	}
	prompt, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	base, key, model, work := os.Getenv("LLM_BASE_URL"), os.Getenv("LLM_API_KEY"), os.Getenv("LLM_MODEL"), os.Getenv("OPENHANDS_WORK_DIR")
	model, ok := strings.CutPrefix(model, "anthropic/")
	if base == "" || key == "" || !ok || work == "" {
		return errors.New("want LLM_BASE_URL, LLM_API_KEY, LLM_MODEL=anthropic/… and OPENHANDS_WORK_DIR")
	}
	fmt.Fprintln(stdout, "OpenHands CLI (fake, for the driver's tests)")
	n := 0
	emit := func(ev map[string]any) string {
		n++
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		ev["id"], ev["timestamp"] = id, time.Now().UTC().Format("2006-01-02T15:04:05.000000")
		b, _ := json.MarshalIndent(ev, "", "  ")
		fmt.Fprintf(stdout, "--JSON Event--\n%s\n", b)
		if f, ok := stdout.(*os.File); ok {
			f.Sync()
		}
		return id
	}
	text := func(s string) []map[string]any { return []map[string]any{{"type": "text", "text": s}} }
	emit(map[string]any{"kind": "ConversationStateUpdateEvent", "source": "environment", "key": "execution_status", "value": "running"})
	emit(map[string]any{"kind": "MessageEvent", "source": "user", "llm_message": map[string]any{"role": "user", "content": text(string(prompt))}})
	tools := []map[string]any{}
	for _, name := range []string{"terminal", "file_editor", "finish", "task_tracker"} {
		tools = append(tools, map[string]any{"name": name, "description": name, "input_schema": map[string]any{"type": "object"}})
	}
	messages := []map[string]any{{"role": "user", "content": string(prompt)}}
	cost := 0.0
	for step := 1; step <= 30; step++ {
		body, _ := json.Marshal(map[string]any{"model": model, "max_tokens": 4096, "messages": messages, "tools": tools})
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(base, "/")+"/v1/messages", bytes.NewReader(body))
		req.Header.Set("x-api-key", key)
		req.Header.Set("content-type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		var msg struct {
			ID      string `json:"id"`
			Content []struct {
				Type  string         `json:"type"`
				Text  string         `json:"text"`
				ID    string         `json:"id"`
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"content"`
		}
		err = json.NewDecoder(resp.Body).Decode(&msg)
		resp.Body.Close()
		if err != nil {
			return err
		}
		cost += 0.003
		emit(map[string]any{"kind": "ConversationStateUpdateEvent", "source": "environment", "key": "stats",
			"value": map[string]any{"usage_to_metrics": map[string]any{"default": map[string]any{"accumulated_cost": cost}}}})
		var thought string
		var calls []int
		for i, c := range msg.Content {
			switch c.Type {
			case "text":
				thought += c.Text
			case "tool_use":
				calls = append(calls, i)
			}
		}
		messages = append(messages, map[string]any{"role": "assistant", "content": msg.Content})
		if len(calls) == 0 {
			emit(map[string]any{"kind": "MessageEvent", "source": "agent", "llm_response_id": msg.ID,
				"llm_message": map[string]any{"role": "assistant", "content": text(thought)}})
			break
		}
		var results []map[string]any
		finished := false
		for _, i := range calls {
			c := msg.Content[i]
			action := map[string]any{}
			for k, v := range c.Input {
				action[k] = v
			}
			action["kind"] = map[string]string{"terminal": "TerminalAction", "file_editor": "FileEditorAction", "finish": "FinishAction"}[c.Name]
			args, _ := json.Marshal(c.Input)
			actionID := emit(map[string]any{"kind": "ActionEvent", "source": "agent", "thought": text(thought), "action": action,
				"tool_name": c.Name, "tool_call_id": c.ID, "tool_call": map[string]any{"id": c.ID, "name": c.Name, "arguments": string(args)},
				"llm_response_id": msg.ID, "security_risk": "LOW"})
			thought = ""
			output, isError, obs := "", false, map[string]any{}
			switch c.Name {
			case "terminal":
				command, _ := c.Input["command"].(string)
				cmd := exec.Command("bash", "-c", command)
				cmd.Dir = work
				b, err := cmd.CombinedOutput()
				code := 0
				var exitErr *exec.ExitError
				if errors.As(err, &exitErr) {
					code = exitErr.ExitCode()
				}
				output = string(b)
				obs = map[string]any{"kind": "TerminalObservation", "command": command, "exit_code": code, "timeout": false,
					"metadata": map[string]any{"exit_code": code, "working_dir": work}}
			case "file_editor":
				output, isError = fakeEdit(c.Input)
				obs = map[string]any{"kind": "FileEditorObservation", "command": c.Input["command"], "path": c.Input["path"]}
			case "finish":
				finished = true
				obs = map[string]any{"kind": "FinishObservation"}
			}
			obs["content"], obs["is_error"] = text(output), isError
			emit(map[string]any{"kind": "ObservationEvent", "source": "environment", "tool_name": c.Name, "tool_call_id": c.ID,
				"observation": obs, "action_id": actionID})
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c.ID, "content": output, "is_error": isError})
		}
		if finished {
			break
		}
		messages = append(messages, map[string]any{"role": "user", "content": results})
	}
	emit(map[string]any{"kind": "ConversationStateUpdateEvent", "source": "environment", "key": "execution_status", "value": "finished"})
	fmt.Fprintln(stdout, "Goodbye!")
	return nil
}

// fakeEdit runs a file_editor create or str_replace.
func fakeEdit(in map[string]any) (string, bool) {
	path, _ := in["path"].(string)
	switch in["command"] {
	case "create":
		content, _ := in["file_text"].(string)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "ERROR: " + err.Error(), true
		}
		return "File created successfully at: " + path, false
	case "str_replace":
		old, _ := in["old_str"].(string)
		repl, _ := in["new_str"].(string)
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte(old)) {
			return "ERROR: No replacement was performed, old_str did not appear verbatim in " + path, true
		}
		if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(repl), 1), 0o644); err != nil {
			return "ERROR: " + err.Error(), true
		}
		return "The file " + path + " has been edited.", false
	}
	return "ERROR: unsupported command", true
}
