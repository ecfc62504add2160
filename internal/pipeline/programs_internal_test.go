package pipeline

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// readerOf is a sandbox.ReadFile over an image that has only the files of
// files, or that fails every read with err.
func readerOf(files map[string]string, err error) sandbox.ReadFile {
	return func(p string, _ int64) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, nil
	}
}

// The image's command list is what the image recorded; an image without
// one, or with an empty one, has none (the plan keeps the default list).
func TestImagePrograms(t *testing.T) {
	boom := errors.New("daemon gone")
	tests := []struct {
		name    string
		read    sandbox.ReadFile
		want    []string
		wantErr string
	}{
		{"recorded list", readerOf(map[string]string{engines.ProgramsContainerPath: "cargo\nls\nruby\n"}, nil), []string{"cargo", "ls", "ruby"}, ""},
		{"older or custom image", readerOf(nil, nil), nil, ""},
		{"empty list", readerOf(map[string]string{engines.ProgramsContainerPath: "\n# nothing\n"}, nil), nil, ""},
		{"unreadable", readerOf(nil, boom), nil, "read the image's command list: daemon gone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := imagePrograms(tc.read)
			if tc.wantErr != "" {
				assert.Check(t, errors.Is(err, boom))
				assert.Check(t, is.Error(err, tc.wantErr))
				return
			}
			assert.NilError(t, err)
			assert.Check(t, is.Equal(got == nil, tc.want == nil))
			assert.Check(t, is.DeepEqual(slices.Sorted(maps.Keys(got)), tc.want))
		})
	}
}

// inputEngine is a keyless engine that records the RunInput it was given.
type inputEngine struct {
	engines.AgentEngine
	got []engines.RunInput
}

func (e *inputEngine) PrepareInput(in engines.RunInput) ([]byte, error) {
	e.got = append(e.got, in)
	return []byte("input for " + strings.Join(slices.Sorted(maps.Keys(in.Programs)), " ")), nil
}

// A keyless engine prepares its input with the command list of the image
// the run uses; with none (or an unreadable one, which is a warning) the
// input made before the run stands.
func TestInputFromImageGivesTheEngineTheImagesCommands(t *testing.T) {
	tests := []struct {
		name      string
		read      sandbox.ReadFile
		files     []sandbox.File
		programs  []string // the list the engine was given; nil: not asked again
		progress  string
		wantInput string
	}{
		{"image with a list", readerOf(map[string]string{engines.ProgramsContainerPath: "cargo\nls\n"}, nil),
			[]sandbox.File{{Path: engines.PromptContainerPath, Data: []byte("input for cargo ls")}}, []string{"cargo", "ls"}, "", "input for cargo ls"},
		{"image without a list", readerOf(nil, nil), nil, nil, "", "input made before the run"},
		{"unreadable list", readerOf(nil, errors.New("daemon gone")), nil, nil,
			"warning: read the image's command list: daemon gone; the plan uses the default image's\n", "input made before the run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng := &inputEngine{}
			var progress bytes.Buffer
			r := &run{cfg: Config{Readme: "README.md", RepoDir: t.TempDir(), Getenv: func(string) string { return "" }, Progress: &progress},
				eng: eng, readmeText: []byte("# x\n"), promptText: "input made before the run"}
			files, err := r.inputFromImage(context.Background(), tc.read)
			assert.NilError(t, err)
			assert.Check(t, is.DeepEqual(files, tc.files))
			assert.Check(t, is.Equal(r.promptText, tc.wantInput))
			assert.Check(t, is.Equal(progress.String(), tc.progress))
			if tc.programs == nil {
				assert.Check(t, is.Len(eng.got, 0))
				return
			}
			assert.Assert(t, is.Len(eng.got, 1))
			assert.Check(t, is.DeepEqual(slices.Sorted(maps.Keys(eng.got[0].Programs)), tc.programs))
			assert.Check(t, is.Equal(eng.got[0].ReadmeName, "README.md"))
		})
	}
}

// The image build writes the command list where runs read it.
func TestTheImageRecordsItsCommandsWhereRunsReadThem(t *testing.T) {
	df, err := os.ReadFile("../../images/base/Dockerfile")
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(df), "f="+engines.ProgramsContainerPath+";"))
}

// The default image's command list shipped with readme2demo
// (internal/plan/programs.txt, plan.DefaultPrograms) is the list the test
// image recorded, read the way a run reads it. After an image change,
// scripts/update-programs.sh (this test with -update) rewrites the copy.
func TestDefaultProgramsAreTheTestImages(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var recorded []byte
	var programs map[string]bool
	_, err := sandbox.Run(ctx, cli, sandbox.Spec{
		Image: img, Command: "true", NetworkMode: "none", Timeout: time.Minute,
		Prepare: func(_ context.Context, read sandbox.ReadFile) ([]sandbox.File, error) {
			var err error
			if recorded, err = read(engines.ProgramsContainerPath, maxProgramsBytes); err != nil {
				return nil, err
			}
			programs, err = imagePrograms(read)
			return nil, err
		},
	})
	assert.NilError(t, err)
	assert.Assert(t, recorded != nil, "%s records no command list at %s: build it with scripts/build-test-image.sh", img, engines.ProgramsContainerPath)
	for _, name := range []string{"bash", "cd", "[", "git", "sudo", "go", "python3", "pip", "node", "npm",
		"rustc", "cargo", "ruby", "gem", "bundle", "autoreconf", "libtoolize", "cmake", "jq", "claude", "codex", "gemini"} {
		assert.Check(t, programs[name], "%s is not in the command list of %s", name, img)
	}
	shipped, err := filepath.Abs("../plan/programs.txt")
	assert.NilError(t, err)
	golden.Assert(t, string(recorded), shipped, "the image's command list changed: run scripts/update-programs.sh")
	if !golden.FlagUpdate() {
		assert.Check(t, is.DeepEqual(programs, plan.DefaultPrograms()))
	}
}
