// Package agentcli owns what readme2demo knows about the agent CLIs it runs:
// for each engine, the CLI's name, its package and registry, the pinned
// version (pins.go, the one home of each pin), the executable, where a
// version lives on the host and in an image, how to install a version (on the
// host and as an image layer), how to find the newest published version, and
// how to run it headless against an LLM API base URL (a scripted mock, for
// drift and tests) under supervision.
//
// The facts come from each engine's own file (engines.Spec.CLI), the pins
// from pins.go; images, drift, the test harnesses and the pin checks read
// them here instead of keeping their own copies.
//
// Files:
//   - pins.go: the pinned versions.
//   - agentcli.go: the CLI table.
//   - host.go: host install layout and npm/pip installs.
//   - image.go: the image label and the Dockerfile layer for a version.
//   - registry.go: the newest published version (npm registry, PyPI).
//   - run.go: a headless run against an API base URL, and Supervise.
package agentcli

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
)

// Registry is where a CLI's package is published.
type Registry = engines.PackageRegistry

// Registries.
const (
	NPM  = engines.NPM
	PyPI = engines.PyPI
)

// CLI is one agent CLI.
type CLI struct {
	Engine string // the engine that runs it (--engine), e.g. "gemini"
	// Name is the CLI's name in install directories, build args and image
	// labels, e.g. "gemini-cli".
	Name     string
	Registry Registry
	Package  string // e.g. "@google/gemini-cli"
	Bin      string // the executable; on PATH in the image, e.g. "gemini"
	Pinned   string // the pinned version (pins.go)
	// Scheduled: the weekly drift workflow checks this CLI (its registry is
	// reachable in CI and the mock LLM drives it). `drift --engine all`
	// runs exactly these.
	Scheduled bool
	// NodeMajor is the oldest Node.js major the CLI runs on (0: any).
	NodeMajor int
	// SessionFiles are where, relative to HOME, the CLI writes its own
	// session file beside the stream (filepath.Match patterns, one per
	// directory level; the newest match is the run's): Codex's rollout,
	// Gemini CLI's chat session. Empty when it writes none we read.
	SessionFiles []string
	// PinConst is the constant in pins.go that holds Pinned.
	PinConst string

	sessionSuffix string
	apiEnv        func(baseURL, key string) map[string]string
	headless      func(engines.HeadlessRun) engines.Headless
}

// BuildArg is the images/base Dockerfile build argument that installs a
// version, e.g. "GEMINI_CLI_VERSION".
func (c CLI) BuildArg() string {
	return strings.ToUpper(strings.ReplaceAll(c.Name, "-", "_")) + "_VERSION"
}

// PinEnv is the variable .ci/run exports the pin in for tests, e.g.
// "R2D_GEMINI_CLI_VERSION".
func (c CLI) PinEnv() string { return "R2D_" + c.BuildArg() }

// ImageLabel is the image label holding the installed version, e.g.
// "io.readme2demo.gemini-cli-version".
func (c CLI) ImageLabel() string { return "io.readme2demo." + c.Name + "-version" }

// table is the CLIs the registered engines declare (engines.Spec.CLI),
// with their pins. It is built on every call, so an engine registered late
// (a test's) is in it too.
func table() []CLI {
	var out []CLI
	for _, name := range engines.Names() {
		spec, err := engines.SpecOf(name)
		if err != nil || spec.CLI == nil {
			continue
		}
		c := spec.CLI
		out = append(out, CLI{Engine: name, Name: c.Name, Registry: c.Registry, Package: c.Package, Bin: c.Bin,
			Pinned: pins[c.PinConst], Scheduled: c.Scheduled, NodeMajor: c.NodeMajor, SessionFiles: c.SessionFiles,
			PinConst: c.PinConst, sessionSuffix: c.SessionSuffix, apiEnv: c.APIEnv, headless: c.Headless})
	}
	return out
}

// ErrUnknown is returned for an engine without an agent CLI (markdown,
// replay) or an unknown name; errors.Is tells it apart.
var ErrUnknown = errors.New("no agent CLI for this engine")

// Lookup returns the CLI of an engine.
func Lookup(engine string) (CLI, error) {
	for _, c := range table() {
		if c.Engine == engine {
			return c, nil
		}
	}
	return CLI{}, fmt.Errorf("look up agent CLI %q: %w (CLIs: %s)", engine, ErrUnknown, strings.Join(Engines(), ", "))
}

// All returns every CLI, sorted by engine name.
func All() []CLI {
	out := table()
	sort.Slice(out, func(i, j int) bool { return out[i].Engine < out[j].Engine })
	return out
}

// Engines returns the engine names that have a CLI, sorted.
func Engines() []string {
	var out []string
	for _, c := range All() {
		out = append(out, c.Engine)
	}
	return out
}

// Scheduled returns the CLIs the weekly drift workflow checks, sorted.
func Scheduled() []CLI {
	var out []CLI
	for _, c := range All() {
		if c.Scheduled {
			out = append(out, c)
		}
	}
	return out
}

// versionRe is what a CLI version may look like: it ends up in shell
// commands, image tags and file names.
var versionRe = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// The version words a user may give instead of a version (drift's
// --cli-version and --against, pin's --version).
const (
	VersionPinned = "pinned" // the version this release pins ("" means it too)
	VersionLatest = "latest" // the package registry's newest
)

// ValidVersion reports whether v is a plain semver version such as 1.2.3 or
// 1.2.3-rc.1.
func ValidVersion(v string) bool { return versionRe.MatchString(v) }

// SessionSuffix is the suffix a session file of this CLI is kept under
// beside its transcript <name>.jsonl (artifacts and fixtures):
// ".rollout.jsonl" for Codex; ".session.json" for a Gemini CLI session
// written as one JSON document (older versions), else ".session.jsonl".
func (c CLI) SessionSuffix(session []byte) string {
	switch {
	case c.sessionSuffix != "":
		return c.sessionSuffix
	case bytes.HasPrefix(bytes.TrimSpace(session), []byte("{\n")):
		return ".session.json"
	}
	return ".session.jsonl"
}
