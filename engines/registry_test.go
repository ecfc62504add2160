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
