package action

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// actionSchema compiles SchemaStore's schema of action metadata
// (testdata/schema/SOURCES).
func actionSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/schema/github-action.json")
	assert.NilError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	assert.NilError(t, err)
	c := jsonschema.NewCompiler()
	assert.NilError(t, c.AddResource("github-action.json", doc))
	sch, err := c.Compile("github-action.json")
	assert.NilError(t, err)
	return sch
}

// yamlToJSONValue decodes YAML into the values a JSON schema validator
// takes (through JSON, so numbers and maps have JSON's types).
func yamlToJSONValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	assert.NilError(t, yaml.Unmarshal([]byte(text), &v))
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	assert.NilError(t, err)
	return out
}

// action.yml is valid action metadata by the schema editors and linters
// use; a misspelt key or a step with both run and uses fails here.
func TestActionYAMLMatchesTheSchema(t *testing.T) {
	sch := actionSchema(t)
	y := readFile(t, "../../action.yml")
	assert.NilError(t, sch.Validate(yamlToJSONValue(t, y)))

	// The check can fail: the same file with one misspelt step key does not pass.
	bad := strings.Replace(y, "      working-directory: ${{ github.action_path }}", "      workdir: ${{ github.action_path }}", 1)
	assert.Assert(t, bad != y)
	assert.ErrorContains(t, sch.Validate(yamlToJSONValue(t, bad)), "workdir")
}

// The validate step checks what the run will get: every input and
// credential the run step reads reaches it too (the run adds only what the
// setup found: the image, the base image of image: devcontainer, the artifact name, the output directory).
func TestValidateStepGetsTheRunsInputs(t *testing.T) {
	var doc struct {
		Runs struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	assert.NilError(t, yaml.Unmarshal([]byte(readFile(t, "../../action.yml")), &doc))
	env := map[string]map[string]string{}
	for _, s := range doc.Runs.Steps {
		env[s.ID] = s.Env
	}
	run, validate := env["run"], env["validate"]
	assert.Assert(t, len(run) > 0 && len(validate) > 0, "steps run and validate with env")
	for k, v := range run {
		switch k {
		case "INPUT_IMAGE":
			assert.Check(t, is.Equal(validate[k], "${{ inputs.image }}"))
		case "INPUT_ARTIFACT_NAME", "INPUT_OUTPUT_DIR", "INPUT_BASE_IMAGE":
			assert.Check(t, is.Equal(validate[k], ""), "%s is the setup's", k)
		default:
			assert.Check(t, is.Equal(validate[k], v), "the validate step's %s", k)
		}
	}
	for k := range validate {
		_, ok := run[k]
		assert.Check(t, ok, "the validate step has %s, the run does not", k)
	}
}

// Step ids are unique: the runner does not say when two steps share one,
// and the second silently takes the first's place in steps.<id>.
func TestActionStepIDsAreUnique(t *testing.T) {
	var doc struct {
		Runs struct {
			Steps []struct {
				ID string `yaml:"id"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	assert.NilError(t, yaml.Unmarshal([]byte(readFile(t, "../../action.yml")), &doc))
	seen := map[string]bool{}
	for _, s := range doc.Runs.Steps {
		if s.ID == "" {
			continue
		}
		assert.Check(t, !seen[s.ID], "two steps have the id %s", s.ID)
		seen[s.ID] = true
	}
}
