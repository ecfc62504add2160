package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// A run of an image already seen reads its command list from the host's
// cache, not from the container: the list read from the image is kept by
// the image's ID (an image without one too), a failed read is not kept,
// and an ID that is not a digest keeps nothing.
func TestProgramsCacheReadsEachImageOnce(t *testing.T) {
	id := "sha256:" + strings.Repeat("ab", 32)
	other := "sha256:" + strings.Repeat("cd", 32)
	images := map[string]map[string]string{
		id:    {engines.ProgramsContainerPath: "cargo\nls\n"},
		other: nil, // records no list
	}
	var reads []string
	failing := false
	readerFor := func(image string) sandbox.ReadFile {
		return func(p string, limit int64) ([]byte, error) {
			reads = append(reads, image+" "+p)
			if failing {
				return nil, errors.New("daemon gone")
			}
			return readerOf(images[image], nil)(p, limit)
		}
	}
	cache := programsCache{t.TempDir()}
	read := func(image string) string {
		b, err := cache.reader(image, readerFor(image))(engines.ProgramsContainerPath, maxProgramsBytes)
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%q", b)
	}

	failing = true
	assert.Check(t, is.Equal(read(id), "error: daemon gone"))
	failing = false
	assert.Check(t, is.Equal(read(id), `"cargo\nls\n"`))
	assert.Check(t, is.Equal(read(id), `"cargo\nls\n"`))
	assert.Check(t, is.Equal(read(other), `""`))
	assert.Check(t, is.Equal(read(other), `""`))
	assert.Check(t, is.Equal(read("img-without-digest"), `""`))
	assert.Check(t, is.Equal(read("img-without-digest"), `""`))
	p := engines.ProgramsContainerPath
	assert.Check(t, is.DeepEqual(reads, []string{id + " " + p, id + " " + p, other + " " + p,
		"img-without-digest " + p, "img-without-digest " + p}))

	// Other files, and no cache directory, pass through.
	reads = nil
	_, _ = cache.reader(id, readerFor(id))("/etc/os-release", 1<<10)
	_, _ = programsCache{}.reader(id, readerFor(id))(p, maxProgramsBytes)
	assert.Check(t, is.DeepEqual(reads, []string{id + " /etc/os-release", id + " " + p}))
}

// A cached list larger than a list may be is not believed.
func TestProgramsCacheIgnoresAnOversizedFile(t *testing.T) {
	id := "sha256:" + strings.Repeat("ef", 32)
	cache := programsCache{t.TempDir()}
	file, ok := cache.file(id)
	assert.Assert(t, ok)
	assert.NilError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	assert.NilError(t, os.WriteFile(file, bytes.Repeat([]byte("x\n"), maxProgramsBytes), 0o644))
	b, err := cache.reader(id, readerOf(map[string]string{engines.ProgramsContainerPath: "ls\n"}, nil))(engines.ProgramsContainerPath, maxProgramsBytes)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(b), "ls\n"))
	kept, err := os.ReadFile(file)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(kept), "ls\n"), "the image's list replaces the oversized one")
}
