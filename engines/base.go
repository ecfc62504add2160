// Package engines is the only place that knows which AI agent ran.
//
// An engine turns limits into the shell command that runs its agent CLI in
// the sandbox, says which host variables the agent needs, and parses the
// agent's raw transcript into a command_log.json (internal/commandlog).
// Engines register themselves in init, like database/sql drivers; callers
// pick one with Lookup. Nothing downstream of the command log imports an
// engine.
//
// Parsing is pure: ParseTranscript reads the transcript and nothing else (no
// environment, files, Docker or network), so the same transcript always
// gives the same command log.
//
// Every other fact about an engine (its agent CLI and how it runs headless,
// its sandbox image flavour, its drift profile, what a devcontainer image
// needs, whether it is the default) is in the Spec it registers with
// (spec.go); the rest of the program reads it through SpecOf and never names
// an engine (TestNoEngineNameLiteralsOutsideEngines). Adding an engine is
// one file here that ends with Register(engine, spec), its fixtures and
// golden logs, and, for an agent CLI, its pin in internal/agentcli/pins.go;
// engines/fakeengine shows a fake engine reaching agentcli, drift, the
// devcontainer image, parsing and the Action from one test file.
package engines

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/containerpath"
)

// The canonical paths inside the sandbox container, built on the
// containerpath constants the sandbox uses too; nothing hardcodes the
// strings (containerpath's test checks).
const (
	// ContainerDir is the directory that holds the run's own files.
	ContainerDir = containerpath.RunDir
	// PromptContainerPath is where the rendered prompt is copied.
	PromptContainerPath = ContainerDir + "/prompt.md"
	// TranscriptContainerPath is where the agent's raw transcript is written.
	TranscriptContainerPath = ContainerDir + "/transcript.jsonl"
	// StderrContainerPath is where the agent's stderr is written.
	StderrContainerPath = ContainerDir + "/transcript.stderr"
	// WorkspaceContainerPath is where the repository under test is copied.
	WorkspaceContainerPath = containerpath.Workspace
	// ProgramsContainerPath is the image's command list: every command its
	// user's login shell knows, one a line, recorded when the image was
	// built (images/base/Dockerfile). Images without it are older or custom.
	ProgramsContainerPath = "/usr/share/readme2demo/programs.txt"
)

// Limits bound one agent run.
type Limits struct {
	MaxTurns   int           // 0: the engine's default
	MaxCostUSD float64       // 0: no cap
	Timeout    time.Duration // 0: no timeout
	Model      string        // "": the agent's default model
}

// AgentEngine is one agent backend.
type AgentEngine interface {
	// Name is the value of --engine and of the Action's `engine` input.
	Name() string
	// RequiredEnv lists the host variables the engine may forward into the
	// sandbox, on the command's standard input as it starts (alternatives
	// included).
	RequiredEnv() []string
	// ResolveEnv picks the variables to forward from getenv. It returns an
	// *EngineError when a credential is missing or malformed; the error never
	// contains a variable's value.
	ResolveEnv(getenv func(string) string) (map[string]string, error)
	// BuildCommand returns one shell string for `bash -lc`. It reads the
	// prompt from PromptContainerPath and writes the transcript to
	// TranscriptContainerPath and stderr to StderrContainerPath.
	BuildCommand(l Limits) string
	// ParseTranscript turns a raw transcript into a command log. It is pure,
	// deterministic and tolerant: malformed records and unknown events are
	// counted in ParseStats, never fatal. It fails only when r fails.
	ParseTranscript(r io.Reader) (*commandlog.Log, error)
}

// EngineError is an engine's complaint about its configuration: a missing
// or malformed credential, a bad limit. It never carries a secret value.
type EngineError struct {
	Engine string // engine name
	Var    string // the variable at fault, if any
	Reason string // what is wrong and what to do
}

func (e *EngineError) Error() string {
	if e.Var != "" {
		return fmt.Sprintf("engine %s: %s: %s", e.Engine, e.Var, e.Reason)
	}
	return fmt.Sprintf("engine %s: %s", e.Engine, e.Reason)
}

// ErrUnknownEngine is wrapped by Lookup's error for a name nobody registered.
var ErrUnknownEngine = errors.New("unknown engine")

var (
	mu          sync.RWMutex
	registry    = map[string]AgentEngine{}
	specs       = map[string]Spec{}
	defaultName string
)

// Register makes an engine available by its name, with its spec. It panics
// when e is nil, its name is empty, the name is taken, or a second engine
// claims to be the default: those are programming errors.
func Register(e AgentEngine, s Spec) {
	mu.Lock()
	defer mu.Unlock()
	if e == nil {
		panic("engines: Register engine is nil")
	}
	name := e.Name()
	if name == "" {
		panic("engines: Register engine with empty name")
	}
	if _, dup := registry[name]; dup {
		panic("engines: Register called twice for engine " + name)
	}
	if s.Default && defaultName != "" {
		panic("engines: Register engine " + name + " as the default, but " + defaultName + " is")
	}
	registry[name] = e
	specs[name] = s
	if s.Default {
		defaultName = name
	}
}

// Lookup returns the engine registered as name.
func Lookup(name string) (AgentEngine, error) {
	mu.RLock()
	e, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known engines: %s)", ErrUnknownEngine, name, strings.Join(Names(), ", "))
	}
	return e, nil
}

// Names returns the registered engine names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}
