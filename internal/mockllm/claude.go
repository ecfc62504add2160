package mockllm

// RunClaude runs a REAL `claude` CLI binary against a running mock Server, on the host.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DummyAPIKey is the API key the harness gives the CLI. The mock accepts any key.
const DummyAPIKey = "r2d-mock-key-not-a-secret"

// ClaudeRun configures RunClaude.
type ClaudeRun struct {
	Binary  string  // path to the claude executable (required)
	Server  *Server // the mock to talk to (required)
	Workdir string  // the CLI's working directory (required)
	// Home is HOME for the CLI; empty means a fresh temporary directory, removed afterwards.
	Home     string
	Prompt   string // sent on stdin; empty means a short default prompt
	MaxTurns int    // --max-turns; 0 means 10
	// KillAfter > 0 SIGKILLs the CLI's process group KillAfter after the mock has served the
	// scenario's last scripted turn, so the kill lands mid-command whatever the startup time.
	KillAfter time.Duration
	// Env holds extra "K=V" entries. The CLI otherwise gets a minimal environment: PATH, HOME,
	// LANG, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY (DummyAPIKey), IS_SANDBOX=1 (so
	// --dangerously-skip-permissions works as root), DISABLE_AUTOUPDATER=1.
	Env []string
}

// ClaudeResult is what a run produced.
type ClaudeResult struct {
	Transcript []byte // stdout: the stream-json transcript
	Stderr     []byte
	ExitCode   int  // -1 when killed by a signal
	Killed     bool // the harness killed the CLI (KillAfter)
	Duration   time.Duration
}

// ClaudeArgs are the CLI arguments the harness uses (the prompt comes on stdin).
func ClaudeArgs(maxTurns int) []string {
	return []string{"-p", "--output-format", "stream-json", "--verbose",
		"--max-turns", strconv.Itoa(maxTurns), "--dangerously-skip-permissions"}
}

// RunClaude runs the CLI to completion (or until ctx is done or KillAfter fires). A non-zero
// exit is reported in the result, not as an error; errors are for runs that could not start.
func RunClaude(ctx context.Context, o ClaudeRun) (*ClaudeResult, error) {
	if o.Binary == "" || o.Server == nil || o.Workdir == "" {
		return nil, errors.New("run claude: Binary, Server and Workdir are required")
	}
	bin, err := filepath.Abs(o.Binary) // cmd.Dir must not change what a relative path means
	if err != nil {
		return nil, fmt.Errorf("find claude binary: %w", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("find claude binary: %w", err)
	}
	if o.Home == "" {
		home, err := os.MkdirTemp("", "r2d-claude-home-")
		if err != nil {
			return nil, fmt.Errorf("create claude home: %w", err)
		}
		defer os.RemoveAll(home)
		o.Home = home
	}
	if o.MaxTurns == 0 {
		o.MaxTurns = 10
	}
	if o.Prompt == "" {
		o.Prompt = "Follow the README in this directory and run its demo."
	}
	cmd := exec.Command(bin, ClaudeArgs(o.MaxTurns)...)
	cmd.Dir = o.Workdir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + o.Home,
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + o.Server.URL(),
		"ANTHROPIC_API_KEY=" + DummyAPIKey,
		"IS_SANDBOX=1",
		"DISABLE_AUTOUPDATER=1",
	}, o.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = bytes.NewBufferString(o.Prompt)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start claude: %w", err)
	}
	// The Bash tool starts commands in their own session, so killing the CLI's process group
	// is not enough: killTree kills the whole process tree. The CLI is reaped last, so no
	// signal can reach a process that reused its pid (see proctree.go).
	p := watchExit(cmd)
	var killTimer <-chan time.Time
	exhausted := o.Server.Exhausted()
	if o.KillAfter <= 0 {
		exhausted = nil
	}
	res := &ClaudeResult{}
loop:
	for {
		select {
		case <-p.exited:
			break loop
		case <-exhausted:
			exhausted = nil
			killTimer = time.After(o.KillAfter)
		case <-killTimer:
			res.Killed = true
			p.killTree()
		case <-ctx.Done():
			p.killTree()
			_ = p.reap()
			res.Transcript, res.Stderr, res.Duration = stdout.Bytes(), stderr.Bytes(), time.Since(start)
			return res, fmt.Errorf("run claude: %w", ctx.Err())
		}
	}
	werr := p.reap() // kills anything the CLI left in its process group first
	res.Transcript, res.Stderr, res.Duration = stdout.Bytes(), stderr.Bytes(), time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return res, fmt.Errorf("wait claude: %w", werr)
	}
	return res, nil
}

// ClaudeBinary is where the harness expects an npm-installed CLI version:
// <cliDir>/claude-code-<version>/node_modules/.bin/claude.
func ClaudeBinary(cliDir, version string) string {
	return filepath.Join(cliDir, "claude-code-"+version, "node_modules", ".bin", "claude")
}

// Names of the capture scenarios (ClaudeScenario).
const (
	ScenarioSuccess  = "success"   // commands that succeed, a Write and an Edit, FIX + ADJUSTED_SUCCESS
	ScenarioFailures = "failures"  // exit codes 1, 3, 127, 2 (with stderr), BLOCKED
	ScenarioBigOut   = "bigoutput" // a huge output and a command printing SUCCESS; no marker
	ScenarioKilled   = "killed"    // `sleep 60`, the CLI is SIGKILLed mid-command: no result line
)

// ClaudeScenarioNames lists the capture scenarios in a stable order.
var ClaudeScenarioNames = []string{ScenarioSuccess, ScenarioFailures, ScenarioBigOut, ScenarioKilled}

// ClaudeScenario returns a named capture scenario for a project at dir (an absolute path as the
// CLI sees it; file tools need absolute paths). The project is expected to hold a README.md.
func ClaudeScenario(name, dir string) (Scenario, error) {
	notes := filepath.Join(dir, "NOTES.md")
	switch name {
	case ScenarioSuccess:
		return Scenario{Name: name, Turns: []Turn{
			Run("I'll look at the project first.", Bash("ls"), Bash("echo hi")),
			Run("", Bash("cat README.md")),
			Run("Recording what I found.", Write(notes, "# Notes\n\nstep 2: run make\n")),
			Run("", Edit(notes, "step 2: run make", "step 2: mkdir build && make")),
		}, FinalText: "The demo works after one change.\n" +
			"FIX: README step 2 needs mkdir build first\n" +
			"ADJUSTED_SUCCESS"}, nil
	case ScenarioFailures:
		return Scenario{Name: name, Turns: []Turn{
			Run("Trying the build.", Bash("false")),
			Run("", Bash("exit 3")),
			Run("", Bash("r2d-no-such-command --version")),
			Run("", Bash("echo 'error: cannot connect to database' >&2; exit 2")),
			Run("Two at once.", Bash("false"), Bash("echo after-parallel")),
		}, FinalText: "The demo cannot run here.\nBLOCKED: needs a database"}, nil
	case ScenarioBigOut:
		return Scenario{Name: name, Turns: []Turn{
			Run("Printing a lot.", Bash("seq 1 200000")),
			Run("", Bash("echo SUCCESS")),
		}, FinalText: "I printed the numbers and the word from the README, nothing more to report."}, nil
	case ScenarioKilled:
		return Scenario{Name: name, Turns: []Turn{
			Run("Waiting for the server.", Bash("echo waiting for the server; sleep 60; echo done")),
		}}, nil
	}
	return Scenario{}, fmt.Errorf("look up claude scenario %q: unknown (known: %v)", name, ClaudeScenarioNames)
}

// Claude Code versions the harness knows.
const (
	// ClaudePinnedVersion is the version the project pins; TestRealClaudeCLI runs it.
	ClaudePinnedVersion = "2.1.332"
)

// ClaudeCaptureVersions are the versions whose real-* fixtures are committed (newest first).
var ClaudeCaptureVersions = []string{ClaudePinnedVersion, "2.0.77", "1.0.128"}

// CLIDir is where npm-installed agent CLIs live: $R2D_CLI_DIR, or <repoRoot>/.cache/cli.
func CLIDir(getenv func(string) string, repoRoot string) string {
	if d := getenv("R2D_CLI_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot, ".cache", "cli")
}

// ClaudeInstallCommand is the shell command that installs version where ClaudeBinary looks.
func ClaudeInstallCommand(cliDir, version string) string {
	return fmt.Sprintf("npm install --prefix %s @anthropic-ai/claude-code@%s",
		filepath.Join(cliDir, "claude-code-"+version), version)
}

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

// CaptureKillAfter is how long the killed scenario's command runs before the CLI is SIGKILLed.
const CaptureKillAfter = 3 * time.Second

// Capture is the outcome of CaptureClaude.
type Capture struct {
	*ClaudeResult
	Scenario Scenario
	Requests []Request // what the mock received
}

// CaptureClaude runs the named capture scenario (see ClaudeScenario) with a real claude binary
// against a fresh mock on 127.0.0.1, in a fresh project holding CaptureReadme, with a fresh
// HOME, and returns the run with the temporary root rewritten to CaptureRoot.
func CaptureClaude(ctx context.Context, binary, scenario string) (*Capture, error) {
	root, project, home, err := captureDirs()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	sc, err := ClaudeScenario(scenario, project)
	if err != nil {
		return nil, fmt.Errorf("capture claude: %w", err)
	}
	srv, err := Start("127.0.0.1:0", sc)
	if err != nil {
		return nil, fmt.Errorf("capture claude: %w", err)
	}
	run := ClaudeRun{Binary: binary, Server: srv, Workdir: project, Home: home, Prompt: CapturePrompt}
	if scenario == ScenarioKilled {
		run.KillAfter = CaptureKillAfter
	}
	res, runErr := RunClaude(ctx, run)
	closeErr := srv.Close()
	if res == nil {
		return nil, runErr
	}
	res.Transcript = sanitizePaths(res.Transcript, root)
	res.Stderr = sanitizePaths(res.Stderr, root)
	c := &Capture{ClaudeResult: res, Scenario: sc, Requests: srv.Requests()}
	if err := errors.Join(runErr, closeErr); err != nil {
		return c, fmt.Errorf("capture claude: %w", err)
	}
	return c, nil
}

// sanitizePaths replaces root, and its form encoded as a project directory name (every "/" and
// "." as "-", as in ~/.claude/projects/-tmp-x), by CaptureRoot.
func sanitizePaths(b []byte, root string) []byte {
	encode := strings.NewReplacer("/", "-", ".", "-").Replace
	b = bytes.ReplaceAll(b, []byte(root), []byte(CaptureRoot))
	return bytes.ReplaceAll(b, []byte(encode(root)), []byte(encode(CaptureRoot)))
}
