package pinbump_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/pinbump"
)

const repoRoot = "../.."

// The one source of truth: every copy of every pin in this repository
// agrees with internal/agentcli/pins.go.
func TestEveryPinCopyAgrees(t *testing.T) {
	assert.NilError(t, pinbump.Check(repoRoot))
}

// The facts beside the pins (build args, image labels, packages, binaries,
// host install names) are agentcli's too: the image and CI say the same.
func TestImageAndCIUseTheCLIFacts(t *testing.T) {
	dockerfile := read(t, "images/base/Dockerfile")
	ci := read(t, ".ci/run")
	rows := map[string][]string{} // .ci/run's cli_pins rows by name
	for _, m := range regexp.MustCompile(`"(\S+)\s+(\S+)\s+\$(R2D_\w+)\s+(\S+)"`).FindAllStringSubmatch(ci, -1) {
		rows[m[1]] = m[2:]
	}
	for _, c := range agentcli.All() {
		t.Run(c.Engine, func(t *testing.T) {
			arg := c.BuildArg()
			assert.Check(t, is.Regexp(`(?m)^ARG `+arg+`=`, dockerfile))
			assert.Check(t, is.Contains(dockerfile, c.ImageLabel()+`="${`+arg+`}"`))
			if c.Registry != agentcli.NPM {
				return
			}
			assert.Check(t, is.Contains(dockerfile, `"`+c.Package+`@${`+arg+`}"`))
			assert.Check(t, is.Contains(dockerfile, `v="$(`), "the image checks the installed version")
			if !c.Scheduled {
				return
			}
			assert.Check(t, is.DeepEqual(rows[c.Name], []string{c.Package, c.PinEnv(), c.Bin}), ".ci/run installs %s", c.Name)
			assert.Check(t, is.Regexp(`(?m)^export `+c.PinEnv()+`=`, ci))
		})
	}
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	assert.NilError(t, err)
	return string(b)
}

// copyRepo copies the files holding pins into a temporary repository root.
func copyRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	seen := map[string]bool{}
	for _, l := range pinbump.Locations() {
		if seen[l.File] {
			continue
		}
		seen[l.File] = true
		b := read(t, l.File)
		p := filepath.Join(root, filepath.FromSlash(l.File))
		assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		assert.NilError(t, os.WriteFile(p, []byte(b), 0o644))
	}
	return root
}

func TestBumpRewritesEveryCopyAndNothingElse(t *testing.T) {
	for _, c := range agentcli.All() {
		t.Run(c.Engine, func(t *testing.T) {
			root := copyRepo(t)
			before := map[string]string{}
			for _, l := range pinbump.Locations() {
				if _, ok := before[l.File]; !ok {
					before[l.File] = read(t, l.File)
				}
			}
			changed, err := pinbump.Bump(root, c.Engine, "9.8.7")
			assert.NilError(t, err)
			found, err := pinbump.Read(root, "")
			assert.NilError(t, err)
			files := map[string]bool{}
			for _, f := range found {
				assert.Assert(t, len(f.Versions) > 0, "%s lost its %s pin", f.File, f.Pin)
				want, err := pinbump.Pinned(f.Pin)
				assert.NilError(t, err)
				if f.Pin == c.Engine {
					want = "9.8.7"
					files[f.File] = true
				}
				for _, got := range f.Versions {
					assert.Check(t, is.Equal(got, want), "%s %s", f.File, f.Re)
				}
			}
			var wantChanged []string
			for f := range files {
				wantChanged = append(wantChanged, f)
			}
			sort.Strings(wantChanged)
			assert.Check(t, is.DeepEqual(changed, wantChanged))
			assert.Check(t, is.Contains(changed, "internal/agentcli/pins.go"), "the home moves with the copies")
			// Only the version changed: the old text with the old pin put back is the old file.
			for _, f := range changed {
				after, err := os.ReadFile(filepath.Join(root, f))
				assert.NilError(t, err)
				assert.Check(t, is.Equal(strings.ReplaceAll(string(after), "9.8.7", c.Pinned), before[f]), f)
			}
			// A second bump to the same version changes nothing.
			again, err := pinbump.Bump(root, c.Engine, "9.8.7")
			assert.NilError(t, err)
			assert.Check(t, is.Len(again, 0))
			// And Check on the bumped copy names what disagrees with agentcli.
			err = pinbump.Check(root)
			assert.Check(t, is.ErrorContains(err, "the "+c.Engine+" pin is 9.8.7, internal/agentcli/pins.go says "+c.Pinned))
		})
	}
}

func TestBumpRefusesBadInputAndChangesNothing(t *testing.T) {
	root := copyRepo(t)
	_, err := pinbump.Bump(root, "codex", "0.172")
	assert.Check(t, is.ErrorContains(err, `"0.172" is not a version`))
	_, err = pinbump.Bump(root, "markdown", "1.2.3")
	assert.Check(t, is.ErrorContains(err, "no agent CLI"))
	// A copy that no longer matches (someone reworded the docs): no file is written.
	p := filepath.Join(root, "docs", "engines", "codex.md")
	assert.NilError(t, os.WriteFile(p, []byte("# codex\n"), 0o644))
	_, err = pinbump.Bump(root, "codex", "0.172.0")
	assert.Check(t, is.ErrorContains(err, "docs/engines/codex.md: no copy of the codex pin matches"))
	assert.Check(t, is.ErrorContains(err, "nothing was changed"))
	assert.Check(t, is.Equal(read(t, "action.yml"), string(must(os.ReadFile(filepath.Join(root, "action.yml"))))))
	err = pinbump.Check(root)
	assert.Check(t, is.ErrorContains(err, "docs/engines/codex.md: no copy of the codex pin matches"))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
