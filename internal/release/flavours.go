package release

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
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

// cliArgs sets every CLI build arg (one per agent CLI, in engine order)
// empty except the ones given, which keep their order after them when they
// are not CLI args.
func cliArgs(set ...BuildArg) []BuildArg {
	var args []BuildArg
	for _, c := range agentcli.All() {
		args = append(args, BuildArg{c.BuildArg(), ""})
	}
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

// Flavours are the images every release publishes, in build order: one per
// engines.Spec.Image flavour, with internal/agentcli's pins (the one home
// of each; `readme2demo pin` moves them). Flavours with an agent CLI come
// first, in the order of their first engine's name, then the ones without.
var Flavours = flavours()

func flavours() []Flavour {
	byName := map[string]*Flavour{}
	var withCLI, without []string
	for _, name := range engines.Names() {
		spec, err := engines.SpecOf(name)
		if err != nil || spec.Image.Flavour == "" {
			continue
		}
		f, ok := byName[spec.Image.Flavour]
		if !ok {
			f = &Flavour{Name: spec.Image.Flavour, CLIs: map[string]string{}}
			byName[f.Name] = f
		}
		f.Engines = append(f.Engines, name)
		var set []BuildArg
		if c, err := agentcli.Lookup(name); err == nil {
			set = append(set, BuildArg{c.BuildArg(), c.Pinned})
			f.CLIs[c.Name] = c.Pinned
		}
		for _, a := range spec.Image.BuildArgs {
			set = append(set, BuildArg(a))
		}
		f.BuildArgs = append(f.BuildArgs, set...)
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if len(byName[name].CLIs) > 0 {
			withCLI = append(withCLI, name)
		} else {
			without = append(without, name)
		}
	}
	order := func(names []string) []Flavour {
		var out []Flavour
		for _, name := range names {
			f := *byName[name]
			f.BuildArgs = cliArgs(f.BuildArgs...)
			out = append(out, f)
		}
		slices.SortStableFunc(out, func(a, b Flavour) int { return strings.Compare(a.Engines[0], b.Engines[0]) })
		return out
	}
	return append(order(withCLI), order(without)...)
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
