package pipeline

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// docs/sandbox.md names Run's steps in the order they run.
func TestStepsAreTheOnesTheDocsName(t *testing.T) {
	doc, err := os.ReadFile("../../docs/sandbox.md")
	assert.NilError(t, err)
	para := regexp.MustCompile("(?s)`pipeline.Run` performs a run as named steps, in this order:(.*?)\\. A step").FindSubmatch(doc)
	assert.Assert(t, para != nil, "docs/sandbox.md no longer lists pipeline.Run's steps")
	// The step names are the backquoted words outside parentheses.
	text := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(string(para[1]), "")
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(text, -1) {
		documented = append(documented, m[1])
	}
	var names []string
	for _, s := range steps {
		names = append(names, s.name)
	}
	assert.DeepEqual(t, documented, names)
}

// runSteps runs the steps in order, stops at the first error and names
// its step, with the step's own message.
func TestRunStepsInOrderAndNameTheFailingStep(t *testing.T) {
	var ran []string
	record := func(name string, err error) step {
		return step{name: name, run: func(*run, context.Context) error { ran = append(ran, name); return err }}
	}
	boom := errors.New("image foo: not found; build it first")
	err := runSteps(context.Background(), &run{}, []step{
		record("one", nil), record("two", nil), record("three", boom), record("four", nil),
	})
	assert.DeepEqual(t, ran, []string{"one", "two", "three"})
	var se *StepError
	assert.Assert(t, errors.As(err, &se), "%T %v", err, err)
	assert.Check(t, is.Equal(se.Step, "three"))
	assert.Check(t, errors.Is(err, boom))
	assert.Check(t, is.Equal(err.Error(), boom.Error()), "the message users read is the step's own")

	ran = nil
	assert.NilError(t, runSteps(context.Background(), &run{}, []step{record("a", nil), record("b", nil)}))
	assert.DeepEqual(t, ran, []string{"a", "b"})
}

// Run's configuration checks fail in their own steps, before any container.
func TestRunNamesTheStepOfAConfigurationError(t *testing.T) {
	repo := t.TempDir()
	assert.NilError(t, os.WriteFile(repo+"/README.md", []byte("# x\n\n```sh\necho hi\n```\n"), 0o644))
	tests := []struct {
		name, step string
		cfg        Config
	}{
		{"unknown engine", "engine", Config{Engine: "nope", RepoDir: repo}},
		{"missing README", "readme", Config{Engine: "markdown", RepoDir: repo, Readme: "MISSING.md"}},
		{"bad order", "input", Config{Engine: "markdown", RepoDir: repo, Order: "sideways"}},
		{"no image", "settings", Config{Engine: "markdown", RepoDir: repo}},
		{"bad sandbox profile", "settings", Config{Engine: "markdown", RepoDir: repo, Image: "img", Sandbox: "loose"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.OutDir = t.TempDir()
			res, err := Run(context.Background(), tc.cfg)
			assert.Check(t, res == nil)
			var se *StepError
			assert.Assert(t, errors.As(err, &se), "%T %v", err, err)
			assert.Check(t, is.Equal(se.Step, tc.step), "error %q", err)
			assert.Check(t, !strings.HasPrefix(err.Error(), tc.step+":"), "the message is the step's own: %q", err)
		})
	}
}

// Config.ReadmeText is the README a run follows, in place of the file (a
// verification run of a fixed README).
func TestReadmeTextReplacesTheFile(t *testing.T) {
	repo := t.TempDir()
	assert.NilError(t, os.WriteFile(repo+"/README.md", []byte("# x\n\n```sh\necho old-step\n```\n"), 0o644))
	r := &run{cfg: Config{Engine: "markdown", RepoDir: repo, Readme: "README.md", Getenv: func(string) string { return "" },
		ReadmeText: []byte("# x\n\n```sh\necho fixed-step\n```\n")}}
	assert.NilError(t, runSteps(context.Background(), r, steps[:3])) // engine, readme, input
	assert.Check(t, is.Equal(string(r.readmeText), "# x\n\n```sh\necho fixed-step\n```\n"))
	assert.Check(t, is.Contains(r.promptText, "echo fixed-step"))
	assert.Check(t, !strings.Contains(r.promptText, "echo old-step"))
}
