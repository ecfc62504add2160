package action

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

// The built binary (cmd/action, a thin main over this package) is the
// Action, and the egress proxy when started under the proxy's name (as the
// proxy container starts it). The test lives here rather than in cmd/action
// so that a plain `go test ./...` does not link a test binary of the whole
// Action only to skip this long test.
func TestBinaryIsTheActionAndTheProxy(t *testing.T) {
	longtest.Require(t) // builds the binary with go build
	dir := t.TempDir()
	bin := filepath.Join(dir, "readme2demo-action")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/action")
	build.Stderr = os.Stderr
	assert.NilError(t, build.Run())

	out, err := exec.Command(bin, "--help").Output()
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(out), "INPUT_*"))

	proxy := filepath.Join(dir, egress.ProgramName)
	assert.NilError(t, os.Link(bin, proxy))
	cmd := exec.Command(proxy)
	cmd.Env = append(os.Environ(), egress.ConfigEnv+"={not json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "run as the proxy: %v", err)
	assert.Check(t, is.Equal(ee.ExitCode(), 2)) // egress.Main on a bad config
	assert.Check(t, is.Contains(stderr.String(), egress.ProgramName+": read config from "+egress.ConfigEnv))
}
