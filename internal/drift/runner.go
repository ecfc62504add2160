package drift

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// Runner runs one scenario with a real CLI against a fresh mock LLM and
// returns what the CLI wrote.
type Runner interface {
	// ProjectDir is the project directory as the CLI sees it; scenario file
	// paths and expected file edits are under it.
	ProjectDir() string
	// Mode describes where the CLI runs, e.g. "host" or "docker image X".
	Mode() string
	// Run runs the scenario; an error comes with what the CLI wrote so far.
	Run(ctx context.Context, sc Scenario) (Output, error)
}

// Output is what a CLI wrote in one scenario run.
type Output struct {
	Transcript []byte // its stdout: the stream the engine parses
	Stderr     []byte
	// Session is the CLI's own session file of the run (Codex's rollout,
	// Gemini CLI's chat session), nil when there is none.
	Session []byte
}

// RunTimeout bounds one scenario run.
const RunTimeout = 3 * time.Minute

// HostRunner runs an installed CLI binary on the host with the mock on
// 127.0.0.1 (Capture): fast, no Docker, no sandbox. Transcripts have
// their temporary root rewritten to CaptureRoot.
type HostRunner struct {
	CLI    agentcli.CLI
	Binary string
}

// ProjectDir implements Runner.
func (h *HostRunner) ProjectDir() string { return filepath.Join(CaptureRoot, "project") }

// Mode implements Runner.
func (h *HostRunner) Mode() string { return "host" }

// Run implements Runner.
func (h *HostRunner) Run(ctx context.Context, sc Scenario) (Output, error) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	engine := h.CLI.Engine
	c, err := Capture(ctx, CaptureRun{
		CLI: h.CLI, Binary: h.Binary, Kill: sc.Kill, MaxTurns: maxTurns,
		// The same scenario, for the capture's own temporary project.
		Scenario: func(dir string) (scriptedllm.Scenario, error) {
			return scriptedllm.CaptureScenario(engine, sc.Name, dir)
		},
	})
	if c == nil {
		return Output{}, fmt.Errorf("run %s on the host: %w", sc.Name, err)
	}
	out := Output{Transcript: c.Transcript, Stderr: c.Stderr, Session: c.Session}
	if err != nil {
		return out, fmt.Errorf("run %s on the host: %w", sc.Name, err)
	}
	if sc.Kill && !c.Killed {
		return out, fmt.Errorf("run %s on the host: the CLI ended before it could be killed mid-command (exit %d)", sc.Name, c.ExitCode)
	}
	return out, nil
}

// maxTurns is the turn limit of a scenario run: more than any scenario has.
const maxTurns = 20

// DockerRunner runs the engine in the hardened sandbox through the same
// pipeline as `readme2demo run`, in an image holding the CLI version, with
// the mock listening on the Docker bridge gateway.
type DockerRunner struct {
	CLI     agentcli.CLI
	Docker  sandbox.Docker
	Image   string
	Gateway string // the bridge gateway address (sandbox.BridgeGateway)
}

// ProjectDir implements Runner.
func (d *DockerRunner) ProjectDir() string { return engines.WorkspaceContainerPath }

// Mode implements Runner.
func (d *DockerRunner) Mode() string { return "docker " + d.Image }

// Run implements Runner.
func (d *DockerRunner) Run(ctx context.Context, sc Scenario) (Output, error) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	srv, err := scriptedllm.Start(d.Gateway+":0", sc.Mock)
	if err != nil {
		return Output{}, fmt.Errorf("run %s in docker: %w", sc.Name, err)
	}
	defer srv.Close()
	tmp, err := os.MkdirTemp("", "r2d-drift-")
	if err != nil {
		return Output{}, fmt.Errorf("create drift dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	repo, out := filepath.Join(tmp, "repo"), filepath.Join(tmp, "out")
	if err := os.Mkdir(repo, 0o755); err != nil {
		return Output{}, fmt.Errorf("create drift repo: %w", err)
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte(CaptureReadme), 0o644); err != nil {
		return Output{}, fmt.Errorf("write drift readme: %w", err)
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	runID := sandbox.NewRunID()
	killed := make(chan struct{})
	if sc.Kill {
		go func() {
			// Once the last call was served and its command runs in the
			// container (a loaded machine may take a while to start it),
			// let it run CaptureKillAfter, then kill the run.
			select {
			case <-srv.Exhausted():
			case <-runCtx.Done():
				return
			}
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			// Both the process and the CLI's record of it: a CLI writes
			// its "command started" event after spawning the command,
			// which on a loaded machine can take longer than
			// CaptureKillAfter (seen with codex at load 100: the kill came
			// first and the transcript held no command).
			name := sandbox.ContainerName(runID)
			for !d.containerRuns(runCtx, name, scriptedllm.KilledCommandRunning) ||
				!d.transcriptHas(runCtx, name, scriptedllm.KilledCommandRunning) {
				select {
				case <-tick.C:
				case <-runCtx.Done():
					return
				}
			}
			select {
			case <-time.After(CaptureKillAfter):
				close(killed)
				stop()
			case <-runCtx.Done():
			}
		}()
	}
	env := d.CLI.APIEnv(srv.URL(), scriptedllm.DummyAPIKey)
	res, runErr := pipeline.Run(runCtx, pipeline.Config{
		Engine:  d.CLI.Engine,
		RunID:   runID,
		RepoDir: repo,
		Image:   d.Image,
		Limits:  engines.Limits{MaxTurns: maxTurns, Timeout: RunTimeout - 10*time.Second},
		OutDir:  out,
		Getenv:  func(k string) string { return env[k] },
		Docker:  d.Docker,
	})
	wasKilled := false
	select {
	case <-killed:
		wasKilled = true
	default:
	}
	if res == nil {
		return Output{}, fmt.Errorf("run %s in docker: %w", sc.Name, runErr)
	}
	tr, err := os.ReadFile(res.Transcript)
	if err != nil {
		return Output{}, fmt.Errorf("read transcript: %w", err)
	}
	got := Output{Transcript: tr}
	got.Stderr, _ = os.ReadFile(res.Stderr)
	if res.Session != "" { // the session file the run copied out (pipeline.SessionFile)
		got.Session, _ = os.ReadFile(res.Session)
	}
	switch {
	case runErr != nil && !(wasKilled && errors.Is(runErr, context.Canceled)):
		return got, fmt.Errorf("run %s in docker: %w", sc.Name, runErr)
	case sc.Kill && !wasKilled:
		return got, fmt.Errorf("run %s in docker: the CLI ended before it could be killed mid-command", sc.Name)
	case res.TimedOut:
		return got, fmt.Errorf("run %s in docker: timed out", sc.Name)
	}
	return got, nil
}

// transcriptHas reports whether the transcript the CLI is writing in the
// container already holds fragment.
func (d *DockerRunner) transcriptHas(ctx context.Context, name, fragment string) bool {
	rc, _, err := d.Docker.CopyFromContainer(ctx, name, engines.TranscriptContainerPath)
	if err != nil {
		return false // not written yet
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
	if err != nil {
		return false
	}
	return bytes.Contains(b, []byte(fragment))
}

// containerRuns reports whether a process in the container has a command
// line that contains fragment.
func (d *DockerRunner) containerRuns(ctx context.Context, name, fragment string) bool {
	top, ok := d.Docker.(interface {
		ContainerTop(ctx context.Context, containerID string, arguments []string) (container.TopResponse, error)
	})
	if !ok {
		return true // no way to look: kill on the timer alone
	}
	procs, err := top.ContainerTop(ctx, name, nil)
	if err != nil {
		return false // not started yet
	}
	col := len(procs.Titles) - 1 // ps puts the command line last
	for i, t := range procs.Titles {
		if t == "CMD" || t == "COMMAND" {
			col = i
		}
	}
	for _, p := range procs.Processes {
		if col >= 0 && col < len(p) && strings.Contains(p[col], fragment) {
			return true
		}
	}
	return false
}

// RunAll runs every scenario with r and checks it with the parser eng. A
// scenario that cannot run is recorded in its Result; the error is only for
// a context that ended.
func RunAll(ctx context.Context, eng engines.AgentEngine, version string, r Runner, progress io.Writer) (*Report, error) {
	engineName := eng.Name()
	scs, err := Scenarios(engineName, r.ProjectDir(), version)
	if err != nil {
		return nil, err
	}
	rep := &Report{Engine: engineName, Version: version, Mode: r.Mode()}
	for _, sc := range scs {
		if progress != nil {
			fmt.Fprintf(progress, "drift: %s %s: scenario %s (%s)\n", engineName, version, sc.Name, r.Mode())
		}
		start := time.Now()
		out, runErr := r.Run(ctx, sc)
		res := Evaluate(eng, sc, out)
		if runErr != nil {
			res.Err = runErr
		}
		if progress != nil {
			verdict := "ok"
			if res.Drifted() {
				verdict = "differs"
			}
			fmt.Fprintf(progress, "drift: %s %s: scenario %s: %s (%s)\n", engineName, version, sc.Name, verdict, time.Since(start).Round(100*time.Millisecond))
		}
		rep.Results = append(rep.Results, res)
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("run drift: %w", err)
		}
	}
	return rep, nil
}
