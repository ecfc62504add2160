package release

import (
	"os"
	"regexp"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
)

// The release images carry the same CLI versions as everything else that
// pins them: until internal/agentcli is their one home, this test is what
// keeps the copies in flavours.go honest.
func TestPinsMatchTheirHomes(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		assert.NilError(t, err)
		return string(b)
	}
	find := func(text, pattern string) string {
		m := regexp.MustCompile(pattern).FindStringSubmatch(text)
		assert.Assert(t, m != nil, "no match for %s", pattern)
		return m[1]
	}
	dockerfile := read("../../images/base/Dockerfile")
	actionYML := read("../../action.yml")
	ciRun := read("../../.ci/run")

	assert.Check(t, is.Equal(find(dockerfile, `(?m)^ARG CLAUDE_CODE_VERSION=(\S+)$`), ClaudeCodeVersion), "images/base/Dockerfile")
	assert.Check(t, is.Equal(find(ciRun, `(?m)^export R2D_CLAUDE_CODE_VERSION=(\S+)$`), ClaudeCodeVersion), ".ci/run")
	assert.Check(t, is.Equal(find(actionYML, `--build-arg CODEX_VERSION=(\S+)\)`), CodexVersion), "action.yml")
	assert.Check(t, is.Equal(find(ciRun, `(?m)^export R2D_CODEX_VERSION=(\S+)$`), CodexVersion), ".ci/run")
	assert.Check(t, is.Equal(find(actionYML, `--build-arg GEMINI_CLI_VERSION=(\S+) `), GeminiCLIVersion), "action.yml")
	assert.Check(t, is.Equal(find(ciRun, `(?m)^export R2D_GEMINI_CLI_VERSION=(\S+)$`), GeminiCLIVersion), ".ci/run")
	assert.Check(t, is.Equal(engines.OpenHandsCLIVersion, OpenHandsVersion), "engines.OpenHandsCLIVersion")
}
