package drift

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/mockllm"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// Docker is what a Docker-mode check needs from the daemon.
type Docker interface {
	sandbox.Docker
	ImageBuilder
}

// Options configure Check of one or two CLI versions.
type Options struct {
	Engine  string
	Version string // a version, "latest" or "pinned" ("" means pinned)
	Against string // "" for none; else a version, "latest" or "pinned"
	OutDir  string // where transcripts, command logs and fixture candidates go
	// Docker mode: the base image the CLI version is layered on, the
	// daemon, and the bridge gateway the mock listens on.
	Image   string
	Docker  Docker
	Gateway string
	// Host mode: run npm-installed CLIs from CLIDir on the host.
	Host    bool
	CLIDir  string
	Install bool // npm install a missing host CLI version
	Run     Commander
	// Progress receives progress lines (runs, image builds); nil discards.
	Progress io.Writer
}

// SetupError is a problem found before any scenario ran (bad version, no
// image, no CLI); nothing was checked.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Outcome is what a drift check found.
type Outcome struct {
	Report  *Report      // the version under test
	Caps    Capabilities // of the version under test
	Against *Report      // the --against version, nil without one
	AgCaps  Capabilities
}

// Drifted reports whether either version drifted.
func (o *Outcome) Drifted() bool {
	return o.Report.Drifted() || (o.Against != nil && o.Against.Drifted())
}

// RunCheck resolves the versions, gets the CLIs (image or host install),
// runs every scenario for each version, saves the artifacts under
// o.OutDir and returns what was found. Errors before any scenario ran are
// *SetupError.
func RunCheck(ctx context.Context, o Options) (*Outcome, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	o.Progress = &lockedWriter{w: o.Progress}
	if o.Run == nil {
		o.Run = ExecCommander
	}
	cli, err := LookupCLI(o.Engine)
	if err != nil {
		return nil, &SetupError{err}
	}
	version, err := ResolveVersion(ctx, o.Run, cli, o.Version)
	if err != nil {
		return nil, &SetupError{err}
	}
	var against string
	if o.Against != "" {
		if against, err = ResolveVersion(ctx, o.Run, cli, o.Against); err != nil {
			return nil, &SetupError{err}
		}
	}
	// Get every CLI before running anything, so a setup error costs no runs.
	runners := map[string]Runner{}
	for _, v := range []string{version, against} {
		if v == "" || runners[v] != nil {
			continue
		}
		r, err := runnerFor(ctx, o, cli, v)
		if err != nil {
			return nil, &SetupError{err}
		}
		runners[v] = r
	}
	// The two versions run side by side: each scenario has its own mock,
	// project and HOME (or container), and most of a run is waiting.
	out := &Outcome{}
	var agErr error
	var wg sync.WaitGroup
	if against != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rep *Report
			if rep, agErr = RunAll(ctx, o.Engine, against, runners[against], o.Progress); agErr == nil {
				out.Against, out.AgCaps = rep, rep.Classify()
			}
		}()
	}
	rep, err := RunAll(ctx, o.Engine, version, runners[version], o.Progress)
	wg.Wait()
	if err = errors.Join(err, agErr); err != nil {
		return nil, err
	}
	out.Report, out.Caps = rep, rep.Classify()
	if o.OutDir != "" {
		for _, r := range []*Report{out.Against, out.Report} {
			if r == nil {
				continue
			}
			if err := Save(o.OutDir, r); err != nil {
				return out, err
			}
		}
		if err := os.WriteFile(filepath.Join(o.OutDir, "report.md"), []byte(Markdown(out)), 0o644); err != nil {
			return out, fmt.Errorf("write report: %w", err)
		}
	}
	return out, nil
}

func runnerFor(ctx context.Context, o Options, cli CLI, version string) (Runner, error) {
	if o.Host {
		bin := mockllm.ClaudeBinary(o.CLIDir, version)
		if _, err := os.Stat(bin); err != nil {
			if !o.Install {
				return nil, fmt.Errorf("find %s %s: not installed at %s; install it with: %s",
					cli.Engine, version, bin, mockllm.ClaudeInstallCommand(o.CLIDir, version))
			}
			fmt.Fprintf(o.Progress, "drift: installing %s@%s under %s\n", cli.Package, version, o.CLIDir)
			prefix := filepath.Join(o.CLIDir, cli.Engine+"-"+version)
			if _, err := o.Run(ctx, "npm", "install", "--prefix", prefix, "--no-fund", "--no-audit",
				"--no-save", "--loglevel=error", cli.Package+"@"+version); err != nil {
				return nil, fmt.Errorf("install %s@%s: %w", cli.Package, version, err)
			}
		}
		return &HostRunner{Binary: bin}, nil
	}
	if o.Docker == nil {
		return nil, errors.New("run drift in docker: no Docker client")
	}
	if err := sandbox.Check(ctx, o.Docker); err != nil {
		return nil, err
	}
	img, err := EnsureImage(ctx, o.Docker, cli, o.Image, version, o.Progress)
	if err != nil {
		return nil, err
	}
	return &DockerRunner{Engine: cli.Engine, Docker: o.Docker, Image: img, Gateway: o.Gateway}, nil
}

// ExecCommander runs a program with os/exec; stderr is folded into the error.
func ExecCommander(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, Clip(strings.TrimSpace(stderr.String()), 400))
	}
	return stdout.Bytes(), nil
}

// Save writes a version's artifacts: <dir>/<engine>-<version>/<scenario>.jsonl,
// .stderr and .command_log.json for every scenario, and each drifted
// scenario's transcript as a fixture candidate
// <dir>/fixture-candidates/<engine>/real-<version>-<scenario>.jsonl (the
// name testdata/fixtures/<engine>/ uses).
func Save(dir string, rep *Report) error {
	vdir := filepath.Join(dir, rep.Engine+"-"+rep.Version)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	for _, res := range rep.Results {
		base := filepath.Join(vdir, res.Scenario)
		if err := os.WriteFile(base+".jsonl", res.Transcript, 0o644); err != nil {
			return fmt.Errorf("write transcript: %w", err)
		}
		if len(bytes.TrimSpace(res.Stderr)) > 0 {
			if err := os.WriteFile(base+".stderr", res.Stderr, 0o644); err != nil {
				return fmt.Errorf("write stderr: %w", err)
			}
		}
		if res.Log != nil {
			var buf bytes.Buffer
			if err := commandlog.Encode(&buf, res.Log); err != nil {
				return fmt.Errorf("encode command log: %w", err)
			}
			if err := os.WriteFile(base+".command_log.json", buf.Bytes(), 0o644); err != nil {
				return fmt.Errorf("write command log: %w", err)
			}
		}
		if res.Drifted() && len(res.Transcript) > 0 {
			p := CandidatePath(dir, rep.Engine, rep.Version, res.Scenario)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("create fixture candidates: %w", err)
			}
			if err := os.WriteFile(p, res.Transcript, 0o644); err != nil {
				return fmt.Errorf("write fixture candidate: %w", err)
			}
		}
	}
	return nil
}

// CandidatePath is where Save puts a drifted scenario's transcript.
func CandidatePath(dir, engine, version, scenario string) string {
	return filepath.Join(dir, "fixture-candidates", engine, "real-"+version+"-"+scenario+".jsonl")
}

// Write prints the tables, the diff (with --against) and the verdicts.
func (o *Outcome) Write(w io.Writer) {
	if o.Against != nil {
		o.Against.WriteTables(w)
		o.Against.WriteSummary(w, o.AgCaps)
	}
	o.Report.WriteTables(w)
	o.Report.WriteSummary(w, o.Caps)
	if o.Against != nil {
		WriteDiff(w, o.Against, o.Report)
	}
}

// Markdown is the report as GitHub markdown (the drift issue's body).
func Markdown(o *Outcome) string {
	var b strings.Builder
	section := func(rep *Report, caps Capabilities) {
		fmt.Fprintf(&b, "### %s %s (%s)\n\n", rep.Engine, rep.Version, rep.Mode)
		if !rep.Drifted() {
			fmt.Fprintf(&b, "No drift: every expectation holds in %d scenarios.\n\n", len(rep.Results))
			return
		}
		fmt.Fprintf(&b, "**Drift.** %s\n\n", mdEscape(rep.FirstLine()))
		fmt.Fprintf(&b, "Capabilities: exit codes stated: %s; agent version stated: %s.\n\n", yesNo(caps.ExitCodes), yesNo(caps.AgentVersion))
		for _, d := range rep.Differences() {
			fmt.Fprintf(&b, "- %s\n", mdEscape(d))
		}
		fmt.Fprintf(&b, "\nFixture candidates: `fixture-candidates/%s/real-%s-{%s}.jsonl` in the workflow artifact.\n\n",
			rep.Engine, rep.Version, strings.Join(rep.DriftedScenarios(), ","))
	}
	b.WriteString("## readme2demo drift\n\n")
	section(o.Report, o.Caps)
	if o.Against != nil {
		section(o.Against, o.AgCaps)
		var d bytes.Buffer
		WriteDiff(&d, o.Against, o.Report)
		b.WriteString("<details><summary>Command logs side by side</summary>\n\n```text\n")
		b.WriteString(strings.ReplaceAll(d.String(), "```", "'''"))
		b.WriteString("\n```\n\n</details>\n\n")
	}
	b.WriteString("How to bump a pinned CLI safely: docs/drift.md.\n")
	return b.String()
}

func mdEscape(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "|", "\\|").Replace(s)
}

// lockedWriter serialises writes from the two versions' runs.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
