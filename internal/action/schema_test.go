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
