package engines

// Spec is everything the program outside this package needs to know about
// an engine, besides what its AgentEngine methods say (credential variables
// and their validation in RequiredEnv and ResolveEnv, API hosts and the
// egress proxy's credential routes in APIAccess). Each engine fills its Spec
// in its own file and registers it with the engine (Register), and the rest
// of the program reads it through SpecOf and Specs: no package outside this
// one keeps a table keyed by engine names or compares a name with a literal
// (TestNoEngineNameLiteralsOutsideEngines checks).
type Spec struct {
	// Default marks the engine run when none is given (--engine, the
	// Action's `engine` input). Exactly one engine is the default.
	Default bool
	// CLI is the agent CLI the engine runs; nil for an engine that runs
	// none (the keyless engines).
	CLI *CLISpec
	// Image is the released sandbox image the engine runs in.
	Image ImageSpec
	// Drift is what the engine's CLI states in its transcript, and how the
	// drift check's scripted scenarios speak to it; nil when the mock LLM
	// cannot drive it.
	Drift *DriftProfile
	// Devcontainer is what `--image devcontainer` copies from the base
	// image so the engine runs in a repository's devcontainer image; nil
	// when the engine does not support it.
	Devcontainer *DevcontainerSpec
}

// PackageRegistry is where an agent CLI's package is published.
type PackageRegistry string

// Package registries.
const (
	NPM  PackageRegistry = "npm"
	PyPI PackageRegistry = "pypi"
)

// CLISpec is an engine's agent CLI: how it is published, installed and run.
// Its pinned version is not here: internal/agentcli/pins.go is the one home
// of each pin (`readme2demo pin` rewrites it there), and PinConst names the
// constant that holds it.
type CLISpec struct {
	// Name is the CLI's name in install directories, build args and image
	// labels, e.g. "gemini-cli".
	Name     string
	Registry PackageRegistry
	Package  string // e.g. "@google/gemini-cli"
	Bin      string // the executable; on PATH in the image, e.g. "gemini"
	// PinConst is the constant in internal/agentcli/pins.go that holds the
	// pinned version, e.g. "GeminiCLIVersion".
	PinConst string
	// Scheduled: the weekly drift workflow checks this CLI (its registry is
	// reachable in CI and the mock LLM drives it).
	Scheduled bool
	// NodeMajor is the oldest Node.js major the CLI runs on (0: any).
	NodeMajor int
	// SessionFiles are where, relative to HOME, the CLI writes its own
	// session file beside the stream (filepath.Match patterns, one per
	// directory level; the newest match is the run's). Empty when it writes
	// none we read.
	SessionFiles []string
	// SessionSuffix is the suffix a session file is kept under beside its
	// transcript <name>.jsonl; "" means ".session.json" for a session
	// written as one JSON document, else ".session.jsonl".
	SessionSuffix string
	// APIEnv is the environment that points the CLI at an LLM API at
	// baseURL (the root, e.g. "http://172.17.0.1:41234") with key: the
	// variables ResolveEnv forwards into the sandbox.
	APIEnv func(baseURL, key string) map[string]string
	// Headless is how the CLI runs on a host, headless, against an LLM API
	// (drift and the test harnesses; internal/agentcli runs it). nil: it
	// cannot run so.
	Headless func(r HeadlessRun) Headless
}

// HeadlessRun is one headless run of an agent CLI on a host: non-interactive,
// every tool allowed, the transcript on stdout.
type HeadlessRun struct {
	Home     string   // HOME, where the CLI's configuration is written
	Workdir  string   // the project directory
	BaseURL  string   // the LLM API root, e.g. a mock's URL
	APIKey   string   // the key the CLI sends
	Prompt   string   // never ""
	Model    string   // "" leaves the CLI on its default model
	MaxTurns int      // > 0
	Args     []string // extra CLI arguments (before the prompt)
}

// Headless is what a HeadlessRun needs: the CLI's arguments, its
// environment beyond PATH, HOME and LANG, whether the prompt goes on stdin,
// and the directories and files to create first.
type Headless struct {
	Args          []string
	Env           []string // "K=V"
	PromptOnStdin bool
	Dirs          []string       // absolute; created 0700
	Files         []HeadlessFile // written 0600, after Dirs
}

// HeadlessFile is a file a headless run writes before it starts; What names
// it in errors ("settings").
type HeadlessFile struct{ Path, What, Content string }

// ImageSpec is the released sandbox image an engine runs in:
// images/base/Dockerfile built with the engine's CLI at its pin (its
// CLISpec) and BuildArgs. Engines with the same Flavour share one image.
type ImageSpec struct {
	Flavour   string     // image name suffix: readme2demo-sandbox-<Flavour>
	BuildArgs []BuildArg // further Dockerfile build args, in order
}

// BuildArg is one Dockerfile `--build-arg NAME=VALUE`.
type BuildArg struct{ Name, Value string }

// Presence says when a CLI states cost, turns or duration.
type Presence int

// Presences.
const (
	PresenceNever  Presence = iota // the transcript never has it: always null
	PresenceFinal                  // in the CLI's final record: null when the run was killed
	PresenceAlways                 // counted from the events: present even when killed
)

// DriftProfile is what an engine's CLI states in its transcript, as its
// engine file documents it for the pinned version. The drift check expects
// exactly this: where the CLI states nothing, the parser must say null or
// unknown, never a guess.
type DriftProfile struct {
	AgentVersion          bool // the transcript names the CLI version
	Cost, Turns, Duration Presence
	// WriteTool and EditTool are the file_edits tool names of a file
	// written whole and of a text replaced in it.
	WriteTool, EditTool string
	// BigOutputLines is how many lines the big-output scenario prints:
	// enough for the CLI to truncate it (0: 20000).
	BigOutputLines int
	// Tools is the tool dialect the scripted turns call.
	Tools ToolDialect
}

// ToolDialect is the set of tools a CLI's agent calls, as the scripted
// scenarios of the mock LLM (internal/scriptedllm) must call them.
type ToolDialect int

// Tool dialects.
const (
	// ToolsShell: Claude Code's Bash, Write and Edit, as the scripted turns
	// are written; the OpenAI and Gemini mocks translate them to the tools
	// the CLI offers.
	ToolsShell ToolDialect = iota
	// ToolsOpenHands: the OpenHands agent's terminal, file_editor and
	// finish tools (software-agent-sdk).
	ToolsOpenHands
)

// DevcontainerSpec is what a devcontainer image needs from the base image
// to run the engine: the files copied, one shell line run after them (as
// root; "" for none), and the commands that check the CLI starts.
type DevcontainerSpec struct {
	Copies []DevcontainerCopy
	Run    string
	Checks []string
}

// DevcontainerCopy is one path copied from the base image (From) into the
// devcontainer image (To).
type DevcontainerCopy struct{ From, To string }

// SpecOf returns the spec registered with the engine name.
func SpecOf(name string) (Spec, error) {
	mu.RLock()
	s, ok := specs[name]
	mu.RUnlock()
	if !ok {
		_, err := Lookup(name)
		return Spec{}, err
	}
	return s, nil
}

// Default returns the name of the engine run when none is given.
func Default() string {
	mu.RLock()
	defer mu.RUnlock()
	return defaultName
}
