package agentcli

import (
	"bytes"
	"cmp"
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

	"github.com/readme2demo/readme2demo/engines"
)

// OpenHandsModel is the LiteLLM model a headless OpenHands run asks for when
// none is given (engines.OpenHandsModel).
const OpenHandsModel = engines.OpenHandsModel

// APIEnv is the environment that points the engine's CLI at an LLM API at
// baseURL (the root, e.g. "http://172.17.0.1:41234") with key: the variables
// the engine's ResolveEnv forwards into the sandbox.
func (c CLI) APIEnv(baseURL, key string) map[string]string {
	if c.apiEnv == nil {
		return nil
	}
	return c.apiEnv(baseURL, key)
}

// Run is one headless run of a CLI on this machine, as the engine runs it in
// the sandbox: non-interactive, every tool allowed, the transcript on stdout.
type Run struct {
	Binary  string // the executable (required)
	Workdir string // the project directory (required)
	Home    string // HOME, and where the CLI's config is written (required)
	BaseURL string // the LLM API root (required), e.g. a mock's URL
	APIKey  string // the key the CLI sends (required)
	Prompt  string // "" means a short default prompt
	Model   string // "" leaves the CLI on its default model
	// MaxTurns limits the turns where the CLI can (claude-code, gemini);
	// 0 means engines.DefaultMaxTurns.
	MaxTurns int
	Args     []string // extra CLI arguments (before the prompt)
	Env      []string // extra "K=V" entries
}

// DefaultPrompt is the prompt of a Run without one.
const DefaultPrompt = "Follow the README in this directory and run its demo."

// Command prepares the run: it writes the CLI's configuration into Home
// (codex: CODEX_HOME; gemini: .gemini/settings.json; openhands: the prompt
// file) and returns the command, not started. The environment is minimal:
// PATH, HOME, LANG and what the CLI needs to reach BaseURL.
func (c CLI) Command(r Run) (*exec.Cmd, error) {
	if r.Binary == "" || r.Workdir == "" || r.Home == "" || r.BaseURL == "" {
		return nil, fmt.Errorf("run %s: Binary, Workdir, Home and BaseURL are required", c.Bin)
	}
	bin, err := filepath.Abs(r.Binary) // cmd.Dir must not change what a relative path means
	if err != nil {
		return nil, fmt.Errorf("find %s binary: %w", c.Bin, err)
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("find %s binary: %w", c.Bin, err)
	}
	r.Prompt = cmp.Or(r.Prompt, DefaultPrompt)
	if r.MaxTurns <= 0 {
		r.MaxTurns = engines.DefaultMaxTurns
	}
	if c.headless == nil {
		return nil, fmt.Errorf("run %s: %w", c.Engine, ErrUnknown)
	}
	h := c.headless(engines.HeadlessRun{Home: r.Home, Workdir: r.Workdir, BaseURL: r.BaseURL, APIKey: r.APIKey,
		Prompt: r.Prompt, Model: r.Model, MaxTurns: r.MaxTurns, Args: r.Args})
	for _, d := range h.Dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create %s home: %w", c.Bin, err)
		}
	}
	for _, f := range h.Files {
		if err := os.WriteFile(f.Path, []byte(f.Content), 0o600); err != nil {
			return nil, fmt.Errorf("write %s %s: %w", c.Bin, f.What, err)
		}
	}
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.Home, "LANG=C.UTF-8"}, h.Env...)
	args := h.Args
	cmd := exec.Command(bin, args...)
	cmd.Dir = r.Workdir
	cmd.Env = append(env, r.Env...)
	if h.PromptOnStdin {
		cmd.Stdin = bytes.NewBufferString(r.Prompt)
	}
	return cmd, nil
}

// GeminiArgs are the gemini arguments a headless run uses
// (engines.GeminiHeadlessArgs).
func GeminiArgs(model string) []string { return engines.GeminiHeadlessArgs(model) }

// Kill says when Supervise kills a run on purpose: When has been closed
// (e.g. a mock served its last scripted turn), then a process of the run
// whose command line contains Running has started (when Running is set),
// then After has passed. So the kill lands mid-command however slowly the
// CLI starts the command on a loaded machine. A zero Kill never fires.
type Kill struct {
	When    <-chan struct{}
	Running string // e.g. "sleep 60"
	After   time.Duration
}

// Result is what a supervised run produced.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int  // -1 when killed by a signal
	Killed         bool // Kill fired
	Duration       time.Duration
}

// Supervise starts cmd in its own process group with stdout and stderr
// captured, kills its whole process tree when kill fires or ctx ends, and
// waits. A non-zero exit is reported in the result, not as an error; errors
// are for runs that could not start or be waited for, and for a context that
// ended the run (with what it wrote so far).
func Supervise(ctx context.Context, cmd *exec.Cmd, kill Kill) (*Result, error) {
	name := filepath.Base(cmd.Path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	// CLIs start shell commands in their own sessions (Claude Code's Bash
	// tool does), so killing the process group is not enough: killTree kills
	// the whole tree. The CLI is reaped last, so no signal can reach a
	// process that reused one of its pids (see proctree.go).
	p := watchExit(cmd)
	res := &Result{}
	var timer, poll <-chan time.Time
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	when := kill.When
	if kill.After <= 0 {
		when = nil
	}
	var ctxErr error
loop:
	for {
		select {
		case <-p.exited:
			break loop
		case <-when:
			when = nil
			if kill.Running == "" {
				timer = time.After(kill.After)
				continue
			}
			ticker = time.NewTicker(100 * time.Millisecond)
			poll = ticker.C
		case <-poll:
			if running(cmd.Process.Pid, kill.Running) {
				ticker.Stop()
				poll, timer = nil, time.After(kill.After)
			}
		case <-timer:
			res.Killed = true
			p.killTree()
		case <-ctx.Done():
			p.killTree()
			ctxErr = ctx.Err()
			break loop
		}
	}
	werr := p.reap() // kills what the CLI left in its process group first
	res.Stdout, res.Stderr, res.Duration = stdout.Bytes(), stderr.Bytes(), time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ctxErr != nil {
		return res, fmt.Errorf("run %s: %w", name, ctxErr)
	}
	var exitErr *exec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return res, fmt.Errorf("wait %s: %w", name, werr)
	}
	return res, nil
}

// running reports whether a descendant of pid has a command line that
// contains fragment (arguments joined by spaces).
func running(pid int, fragment string) bool {
	for _, p := range descendants(pid) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), fragment) {
			return true
		}
	}
	return false
}
