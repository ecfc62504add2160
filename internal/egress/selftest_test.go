package egress

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The self-test under network open (the agent has a route of its own, the
// proxy holds only the API key) checks the API's port alone: it passes
// when the API answers and stops the agent when the proxy reports the API
// unreachable (502). It tries no direct connection out.
func TestSelfTestOpenChecksOnlyTheAPI(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct {
		status   int
		exit     int
		failures []string
	}{
		{http.StatusUnauthorized, 0, nil}, // the API answered (a GET / it does not serve)
		{http.StatusBadGateway, SelfTestExit, []string{"the API behind the proxy's port PORT did not answer (answer '502')"}},
	} {
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tc.status) }))
		host, port, err := net.SplitHostPort(api.Listener.Addr().String())
		assert.NilError(t, err)
		p, _ := strconv.Atoi(port)
		script := SelfTest{Open: true, ProxyIP: host, Upstream: p}.Script()
		assert.Check(t, !strings.Contains(script, "direct 1.1.1.1"), "open tries a direct connection")
		out, err := exec.Command("bash", "-c", script+"echo agent-started").CombinedOutput()
		api.Close()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		assert.Check(t, is.Equal(code, tc.exit), "%s", out)
		_, serr := CheckSelfTest(out)
		var st *SelfTestError
		if tc.failures == nil {
			assert.Check(t, serr)
			assert.Check(t, is.Contains(string(out), "agent-started"))
			continue
		}
		assert.Assert(t, errors.As(serr, &st), "%s", out)
		for i := range tc.failures {
			tc.failures[i] = strings.ReplaceAll(tc.failures[i], "PORT", port)
		}
		assert.Check(t, is.DeepEqual(st.Failures, tc.failures))
	}
}
