package engines

import (
	"errors"
	"io"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

type fakeEngine struct{ name string }

func (f *fakeEngine) Name() string                                              { return f.name }
func (f *fakeEngine) RequiredEnv() []string                                     { return nil }
func (f *fakeEngine) ResolveEnv(func(string) string) (map[string]string, error) { return nil, nil }
func (f *fakeEngine) BuildCommand(Limits) string                                { return "true" }
func (f *fakeEngine) ParseTranscript(io.Reader) (*commandlog.Log, error) {
	return nil, nil
}

func TestRegisterPanics(t *testing.T) {
	tests := []struct {
		name string
		e    AgentEngine
		want string
	}{
		{"nil", nil, "nil"},
		{"empty name", &fakeEngine{}, "empty name"},
		{"duplicate", &fakeEngine{name: ClaudeCodeName}, "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				assert.Assert(t, r != nil, "Register must panic")
				assert.Assert(t, strings.Contains(r.(string), tt.want), r)
			}()
			Register(tt.e, Spec{})
		})
	}
}

func TestLookup(t *testing.T) {
	e, err := Lookup(ClaudeCodeName)
	assert.NilError(t, err)
	assert.Equal(t, e.Name(), ClaudeCodeName)

	_, err = Lookup("clod")
	assert.Assert(t, errors.Is(err, ErrUnknownEngine))
	assert.ErrorContains(t, err, `"clod"`)
	assert.ErrorContains(t, err, ClaudeCodeName, "the error lists the known engines")
}

func TestNamesSorted(t *testing.T) {
	names := Names()
	assert.Assert(t, len(names) > 0)
	for i := 1; i < len(names); i++ {
		assert.Assert(t, names[i-1] < names[i], "%v", names)
	}
}

// Every engine's command uses the canonical container paths.
func TestBuildCommandUsesCanonicalPaths(t *testing.T) {
	for _, name := range Names() {
		e, _ := Lookup(name)
		cmd := e.BuildCommand(Limits{MaxTurns: 7})
		for _, p := range []string{PromptContainerPath, TranscriptContainerPath, StderrContainerPath} {
			assert.Assert(t, strings.Contains(cmd, p), "engine %s: command %q does not use %s", name, cmd, p)
		}
	}
}

// Every engine's spec says what the rest of the program needs: one default,
// an image flavour, and for an agent CLI how to pin, run and point it.
func TestSpecs(t *testing.T) {
	var defaults []string
	for _, name := range Names() {
		s, err := SpecOf(name)
		assert.NilError(t, err)
		if s.Default {
			defaults = append(defaults, name)
		}
		assert.Check(t, s.Image.Flavour != "", "engine %s: no image flavour", name)
		if s.CLI == nil {
			assert.Check(t, s.Drift == nil, "engine %s: a drift profile but no CLI for the mock to drive", name)
			continue
		}
		assert.Check(t, s.CLI.Name != "" && s.CLI.Bin != "" && s.CLI.Package != "", "engine %s: CLI incomplete", name)
		assert.Check(t, s.CLI.PinConst != "", "engine %s: no pin", name)
		assert.Check(t, s.CLI.APIEnv != nil, "engine %s: no APIEnv", name)
		assert.Check(t, s.CLI.Headless != nil, "engine %s: no Headless", name)
	}
	assert.DeepEqual(t, defaults, []string{Default()})

	_, err := SpecOf("clod")
	assert.Assert(t, errors.Is(err, ErrUnknownEngine))
}

func TestRegisterSecondDefaultPanics(t *testing.T) {
	defer func() {
		r := recover()
		assert.Assert(t, r != nil, "Register must panic")
		assert.Assert(t, strings.Contains(r.(string), "default"), r)
	}()
	Register(&fakeEngine{name: "second-default"}, Spec{Default: true})
}
