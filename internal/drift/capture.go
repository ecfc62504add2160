package drift

// Capture: one run of a REAL agent CLI on this machine against a fresh scripted LLM server
// (internal/scriptedllm), in a fresh project, with the run's temporary root rewritten so the
// transcript holds no machine-specific path. `readme2demo drift --host` runs its scenarios this
// way (HostRunner), and the real-CLI tests (*_capture_test.go) capture the committed fixtures
// with it (CAPTURES.md).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// CaptureRoot replaces the temporary directory of a capture in its transcript and stderr, so
// committed fixtures carry no machine-specific paths. The project is CaptureRoot+"/project",
// HOME is CaptureRoot+"/home".
const CaptureRoot = "/tmp/r2d-capture"

// CaptureReadme is the README.md of the project a capture runs in.
const CaptureReadme = "# Demo\n\n1. Run `make`.\n2. Run `./build/demo`.\n"

// CapturePrompt is the prompt a capture sends (the mock ignores it; it shapes the transcript
// like a real run).
const CapturePrompt = "Follow README.md from a fresh checkout as a new user would and run the demo it describes. " +
	"End with exactly one line: SUCCESS, ADJUSTED_SUCCESS or BLOCKED: <reason>; " +
	"report each deviation as a line FIX: <what and why>.\n"

// CaptureKillAfter is how long the killed scenario's command runs before the CLI is SIGKILLed:
// measured from when a process running scriptedllm.KilledCommandRunning has started, not from
// when the mock served the call, so a CLI slow to start the command on a loaded machine is
// still killed mid-command.
const CaptureKillAfter = 3 * time.Second

// CaptureRun configures Capture.
type CaptureRun struct {
	CLI    agentcli.CLI
	Binary string // the CLI executable (required)
	// Scenario builds the scenario for the project directory the CLI runs in (file tools need
	// absolute paths), e.g. func(dir string) (scriptedllm.Scenario, error) {
	// return scriptedllm.CaptureScenario(e, n, dir) }.
	Scenario func(dir string) (scriptedllm.Scenario, error)
	// Kill, when true, SIGKILLs the CLI's process tree once the mock served the scenario's last
	// scripted turn and scriptedllm.KilledCommandRunning has run for CaptureKillAfter: mid-command.
	Kill     bool
	Model    string // "" leaves the CLI on its default model
	MaxTurns int    // 0: the engine's default
}

// Captured is what a capture produced.
type Captured struct {
	Transcript []byte // stdout, CaptureRoot substituted
	Stderr     []byte // CaptureRoot substituted
	ExitCode   int    // -1 when killed by a signal
	Killed     bool   // the capture killed the CLI (CaptureRun.Kill)
	Duration   time.Duration
	Scenario   scriptedllm.Scenario  // as built for the temporary project
	Requests   []scriptedllm.Request // what the mock received
	// Session is the session file the CLI wrote under its HOME (agentcli.CLI.SessionFiles:
	// Codex's rollout, Gemini CLI's chat session), CaptureRoot substituted; nil when none.
	Session []byte
}

// Capture runs a scenario with a real CLI against a fresh mock on 127.0.0.1, in a fresh project
// holding CaptureReadme, with a fresh HOME (agentcli.CLI.Command and agentcli.Supervise), and
// returns the run with the temporary root rewritten to CaptureRoot. A CLI that exits non-zero is
// a result, not an error; an error with a non-nil result carries what the CLI wrote.
func Capture(ctx context.Context, o CaptureRun) (*Captured, error) {
	name := o.CLI.Engine
	if o.Scenario == nil {
		return nil, fmt.Errorf("capture %s: no scenario", name)
	}
	root, project, home, err := captureDirs()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	sc, err := o.Scenario(project)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", name, err)
	}
	srv, err := scriptedllm.Start("127.0.0.1:0", sc)
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", name, err)
	}
	cmd, err := o.CLI.Command(agentcli.Run{
		Binary: o.Binary, Workdir: project, Home: home, BaseURL: srv.URL(), APIKey: scriptedllm.DummyAPIKey,
		Prompt: CapturePrompt, Model: o.Model, MaxTurns: o.MaxTurns,
	})
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("capture %s: %w", name, err)
	}
	var kill agentcli.Kill
	if o.Kill {
		kill = agentcli.Kill{When: srv.Exhausted(), Running: scriptedllm.KilledCommandRunning, After: CaptureKillAfter}
	}
	res, runErr := agentcli.Supervise(ctx, cmd, kill)
	closeErr := srv.Close()
	if res == nil {
		return nil, fmt.Errorf("capture %s: %w", name, runErr)
	}
	c := &Captured{
		Transcript: sanitizePaths(res.Stdout, root), Stderr: sanitizePaths(res.Stderr, root),
		ExitCode: res.ExitCode, Killed: res.Killed, Duration: res.Duration,
		Scenario: sc, Requests: srv.Requests(),
	}
	session, sessionErr := sessionFile(home, o.CLI.SessionFiles...)
	if session != nil {
		c.Session = sanitizePaths(session, root)
	}
	if err := errors.Join(runErr, closeErr, sessionErr); err != nil {
		return c, fmt.Errorf("capture %s: %w", name, err)
	}
	return c, nil
}

// sessionFile returns the newest file under home whose path, relative to home, matches one of
// patterns (filepath.Match syntax, one pattern per directory level): the session file the CLI
// wrote beside its stream. nil when there is none.
func sessionFile(home string, patterns ...string) ([]byte, error) {
	var newest string
	var newestMod int64
	for _, p := range patterns {
		matches, err := filepath.Glob(filepath.Join(home, p))
		if err != nil {
			return nil, fmt.Errorf("find session file: %w", err)
		}
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			if mod := st.ModTime().UnixNano(); newest == "" || mod > newestMod {
				newest, newestMod = m, mod
			}
		}
	}
	if newest == "" {
		return nil, nil
	}
	b, err := os.ReadFile(newest)
	if err != nil {
		return nil, fmt.Errorf("read session file: %w", err)
	}
	return b, nil
}

// captureDirs makes the fresh directories of one capture run: a project holding CaptureReadme
// and an empty home, under a temporary root that the caller removes.
func captureDirs() (root, project, home string, err error) {
	root, err = os.MkdirTemp("", "r2d-capture-")
	if err != nil {
		return "", "", "", fmt.Errorf("create capture dir: %w", err)
	}
	project, home = filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{project, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			os.RemoveAll(root)
			return "", "", "", fmt.Errorf("create capture dir: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte(CaptureReadme), 0o644); err != nil {
		os.RemoveAll(root)
		return "", "", "", fmt.Errorf("write capture readme: %w", err)
	}
	return root, project, home, nil
}

// sanitizePaths replaces root, and its form encoded as a project directory name (every "/" and
// "." as "-", as in ~/.claude/projects/-tmp-x), by CaptureRoot.
func sanitizePaths(b []byte, root string) []byte {
	encode := strings.NewReplacer("/", "-", ".", "-").Replace
	b = bytes.ReplaceAll(b, []byte(root), []byte(CaptureRoot))
	return bytes.ReplaceAll(b, []byte(encode(root)), []byte(encode(CaptureRoot)))
}
