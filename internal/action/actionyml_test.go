package action

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/secrets"
)

// topKeys returns the keys indented by two spaces under a top-level
// section of action.yml ("inputs:" or "outputs:").
func topKeys(t *testing.T, text, section string) []string {
	t.Helper()
	var keys []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == section+":":
			in = true
		case in && line != "" && !strings.HasPrefix(line, " "):
			in = false
		case in && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			keys = append(keys, strings.TrimSuffix(strings.TrimSpace(line), ":"))
		}
	}
	assert.Assert(t, len(keys) > 0, "no %s in action.yml", section)
	return keys
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(b)
}

// action.yml and the Action must agree: every input reaches the binary,
// every output the binary sets is declared, and the reverse.
func TestActionYAMLMatchesTheBinary(t *testing.T) {
	y := readFile(t, "../../action.yml")
	for _, in := range topKeys(t, y, "inputs") {
		if v, ok := secrets.CredentialInputs[in]; ok {
			assert.Check(t, is.Contains(y, v+": ${{ inputs."+in+" || env."+v+" }}"), "credential input %s", in)
			continue
		}
		switch in {
		case "retention-days":
			assert.Check(t, is.Contains(y, "${{ inputs.retention-days }}"))
			continue
		case "artifact-name":
			assert.Check(t, is.Contains(y, "INPUT_ARTIFACT_NAME: ${{ steps.prep.outputs.artifact-name }}"))
			continue
		case "image":
			// The input overrides the released image (pull) and the one built from source (image);
			// image: devcontainer still pulls or builds it: the agent CLI comes from it.
			assert.Check(t, is.Contains(y, "INPUT_IMAGE: ${{ inputs.image || steps.pull.outputs.image || steps.image.outputs.image }}"))
			assert.Check(t, is.Contains(y, "if: (inputs.image == '' || inputs.image == 'devcontainer') && steps.validate.outputs.proceed == 'true' && steps.release.outputs.path == 'released'"))
			assert.Check(t, is.Contains(y, "if: (inputs.image == '' || inputs.image == 'devcontainer') && steps.validate.outputs.proceed == 'true' && steps.release.outputs.path == 'source'"))
			assert.Check(t, is.Contains(y, "INPUT_BASE_IMAGE: ${{ steps.pull.outputs.image || steps.image.outputs.image }}"))
			assert.Check(t, is.Contains(readFile(t, "inputs.go"), `in("base-image")`))
			continue
		}
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(in, "-", "_"))
		assert.Check(t, is.Contains(y, env+": ${{ inputs."+in+" }}"), "input %s", in)
		assert.Check(t, is.Contains(usageText+readFile(t, "inputs.go"), `"`+in+`"`), "input %s is not read by the Action", in)
	}
	outs := topKeys(t, y, "outputs")
	sort.Strings(outs)
	want := append([]string(nil), allOutputs...)
	sort.Strings(want)
	assert.Check(t, is.DeepEqual(outs, want))
	for _, o := range outs {
		if o == "outcome" {
			// Bad inputs end the Action in the validate step, before the run.
			assert.Check(t, is.Contains(y, "value: ${{ steps.run.outputs.outcome || steps.validate.outputs.outcome }}"))
			continue
		}
		assert.Check(t, is.Contains(y, "value: ${{ steps.run.outputs."+o+" }}"))
	}
}

var pinned = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)

// The workflows and the action follow the security notes: actions pinned
// to full commit SHAs, no pull_request_target, checkouts that do not
// persist the token, and an artifact of explicit files only.
func TestWorkflowsFollowTheSecurityNotes(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	assert.NilError(t, err)
	assert.Assert(t, len(files) >= 4, "workflows: %v", files)
	files = append(files, "../../action.yml", "../../docs/action.md")
	usesRe := regexp.MustCompile(`^\s*(?:- )?uses:\s*([^\s#]+)`)
	for _, f := range files {
		text := readFile(t, f)
		for _, line := range strings.Split(text, "\n") {
			m := usesRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			u := m[1]
			if u == "./" || strings.HasPrefix(u, "readme2demo/readme2demo@") {
				continue
			}
			assert.Check(t, pinned.MatchString(u), "%s: %s is not pinned to a commit SHA", f, u)
		}
		for _, line := range strings.Split(text, "\n") {
			l := strings.TrimSpace(line)
			// Only prose may mention pull_request_target (to warn against it).
			if strings.HasPrefix(l, "pull_request_target") || strings.HasPrefix(l, "on: pull_request_target") || strings.Contains(l, "[pull_request_target") {
				t.Errorf("%s: uses pull_request_target: %q", f, l)
			}
		}
		checkouts := strings.Count(text, "uses: actions/checkout@")
		persist := strings.Count(text, "\n          persist-credentials: false") + strings.Count(text, "\n            persist-credentials: false")
		assert.Check(t, is.Equal(persist, checkouts), "%s: a checkout persists the token", f)
	}
	y := readFile(t, "../../action.yml")
	assert.Check(t, is.Contains(y, "if: always()"))
	assert.Check(t, !strings.Contains(y, "path: .\n") && !strings.Contains(y, "*"), "the artifact must list explicit files")
	assert.Check(t, is.Contains(y, "retention-days: ${{ inputs.retention-days }}"))
}
