package drift

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/commandlog"
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
	// Host mode: run CLIs installed under CLIDir on the host.
	Host    bool
	CLIDir  string
	Install bool               // install a missing host CLI version (npm, or pip for PyPI CLIs)
	Run     agentcli.Commander // runs the installers; nil means agentcli.ExecCommander
	// Registries resolve "latest"; the zero value asks the public ones.
	Registries agentcli.Registries
	// Parser returns the engine whose parser reads the transcripts; nil
	// means engines.Lookup. Tests pass a deliberately altered one.
	Parser func(name string) (engines.AgentEngine, error)
	// Progress receives progress lines (runs, image builds); nil discards.
	Progress io.Writer
}

// SetupError is a problem found before any scenario ran (bad version, no
// image, no CLI); nothing was checked.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Outcome is what a drift check of one engine found.
type Outcome struct {
	Engine  string
	Pinned  string       // the engine's pinned version
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
// runs every scenario for each version, saves each version's artifacts under
// o.OutDir (Save) and returns what was found. Errors before any scenario ran
// are *SetupError. WriteSummary writes the report of one or more checks.
func RunCheck(ctx context.Context, o Options) (*Outcome, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	o.Progress = &lockedWriter{w: o.Progress}
	if o.Run == nil {
		o.Run = agentcli.ExecCommander
	}
	if o.Parser == nil {
		o.Parser = engines.Lookup
	}
	cli, err := LookupCLI(o.Engine)
	if err != nil {
		return nil, &SetupError{err}
	}
	eng, err := o.Parser(cli.Engine)
	if err != nil {
		return nil, &SetupError{fmt.Errorf("look up parser: %w", err)}
	}
	version, err := ResolveVersion(ctx, o.Registries, cli, o.Version)
	if err != nil {
		return nil, &SetupError{err}
	}
	var against string
	if o.Against != "" {
		if against, err = ResolveVersion(ctx, o.Registries, cli, o.Against); err != nil {
			return nil, &SetupError{err}
		}
		if against == version {
			fmt.Fprintf(o.Progress, "drift: %s: --against %s is %s, the version under test: checked once\n", cli.Engine, o.Against, version)
			against = ""
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
	out := &Outcome{Engine: cli.Engine, Pinned: cli.Pinned}
	var agErr error
	var wg sync.WaitGroup
	if against != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rep *Report
			if rep, agErr = RunAll(ctx, eng, against, runners[against], o.Progress); agErr == nil {
				out.Against, out.AgCaps = rep, rep.Classify()
			}
		}()
	}
	rep, err := RunAll(ctx, eng, version, runners[version], o.Progress)
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
	}
	return out, nil
}

func runnerFor(ctx context.Context, o Options, cli agentcli.CLI, version string) (Runner, error) {
	if o.Host {
		bin := cli.Binary(o.CLIDir, version)
		if _, err := os.Stat(bin); err != nil {
			if !o.Install {
				return nil, fmt.Errorf("find %s %s: not installed at %s; install it with: %s",
					cli.Engine, version, bin, cli.InstallCommand(o.CLIDir, version))
			}
			fmt.Fprintf(o.Progress, "drift: installing %s@%s under %s\n", cli.Package, version, o.CLIDir)
			if err := cli.Install(ctx, o.Run, o.CLIDir, version); err != nil {
				return nil, err
			}
			if _, err := os.Stat(bin); err != nil {
				return nil, fmt.Errorf("find %s %s: the install did not create %s", cli.Engine, version, bin)
			}
		}
		return &HostRunner{CLI: cli, Binary: bin}, nil
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
	return &DockerRunner{CLI: cli, Docker: o.Docker, Image: img, Gateway: o.Gateway}, nil
}

// Save writes a version's artifacts: <dir>/<engine>-<version>/<scenario>.jsonl,
// .stderr, the CLI's session file (.rollout.jsonl, .session.jsonl) and
// .command_log.json for every scenario, and each drifted
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
		if len(bytes.TrimSpace(res.Session)) > 0 {
			cli, _ := agentcli.Lookup(rep.Engine)
			if err := os.WriteFile(base+cli.SessionSuffix(res.Session), res.Session, 0o644); err != nil {
				return fmt.Errorf("write session file: %w", err)
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

// All is the --engine value that checks every engine of the weekly
// schedule (agentcli.Scheduled).
const All = "all"

// ExpandEngines turns an --engine value into the engines to check: "all"
// is every scheduled engine; anything else is itself (LookupCLI checks it).
func ExpandEngines(engine string) []string {
	if engine != All {
		return []string{engine}
	}
	var out []string
	for _, c := range agentcli.Scheduled() {
		out = append(out, c.Engine)
	}
	return out
}

// EngineCheck is one engine's check in RunChecks: its outcome, or why it
// could not be checked.
type EngineCheck struct {
	Engine  string
	Outcome *Outcome // nil when Err is a *SetupError
	Err     error
}

// Summary is the engine's entry in drift.json.
func (c EngineCheck) Summary() CheckSummary {
	if c.Outcome == nil {
		cs := CheckSummary{Engine: c.Engine, Error: "not checked"}
		if cli, err := agentcli.Lookup(c.Engine); err == nil {
			cs.Pinned = cli.Pinned
		}
		if c.Err != nil {
			cs.Error = c.Err.Error()
		}
		return cs
	}
	return SummaryOf(c.Outcome)
}

// RunChecks runs RunCheck for each engine in turn with o (o.Engine is
// ignored) and, when any engine ran, writes drift.json and report.md under
// o.OutDir. An engine that cannot be checked is recorded and the others
// still run; a context that ended stops the run.
func RunChecks(ctx context.Context, o Options, names []string) ([]EngineCheck, error) {
	var out []EngineCheck
	for _, name := range names {
		o.Engine = name
		res, err := RunCheck(ctx, o)
		out = append(out, EngineCheck{Engine: name, Outcome: res, Err: err})
		if ctx.Err() != nil {
			break
		}
	}
	ran := false
	var sums []CheckSummary
	for _, c := range out {
		ran = ran || c.Outcome != nil
		sums = append(sums, c.Summary())
	}
	if o.OutDir != "" && ran { // nothing is written when nothing ran
		if err := WriteSummary(o.OutDir, sums); err != nil {
			return out, err
		}
	}
	return out, ctx.Err()
}
