package engines

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Resolver failures of pip (Python), cargo and the Go command name the
// network, with the host where the message gives one.
func TestNetworkNoteMoreTools(t *testing.T) {
	for out, want := range map[string]string{
		"WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/icdiff/\nERROR: No matching distribution found for icdiff\n": "could not reach the network",
		"pip._vendor.urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/x/\n":                                                                                                                                                              "could not reach pypi.org",
		"error: failed to resolve address for index.crates.io: Name or service not known\n":                                                                                                                                                                                                                      "could not reach index.crates.io",
		"go: downloading x: dial tcp: lookup proxy.example.org on 10.0.0.2:53: no such host\n":                                                                                                                                                                                                                   "could not reach proxy.example.org",
	} {
		got := networkNote(out, "pip install icdiff", nil)
		assert.Assert(t, strings.Contains(got, want), "%q: %q", out, got)
	}
}

// A command that failed because a host could not be reached is not sent
// to an AI engine: it could not reach the host either.
func TestNetworkFailureGivesNoAIAdvice(t *testing.T) {
	t.Parallel()
	assert.Equal(t, runnerHint(MarkdownName, "network"), "")
	md := "```sh\nsh -c 'echo \"Failed to establish a new connection: [Errno -2] Name or service not known\" >&2; exit 1'\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Equal(t, l.Outcome, commandlog.OutcomeFailed)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "could not reach the network"), l.OutcomeReason)
	assert.Assert(t, !strings.Contains(l.OutcomeReason, "try an AI engine"), l.OutcomeReason)

	md = "```sh\nsh -c 'echo \"cc: error: no input files\" >&2; exit 2'\n```\n"
	l, _ = runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.Assert(t, strings.Contains(l.OutcomeReason, "try an AI engine"), l.OutcomeReason)
}

// A resolver message without a host is followed by one with it (wget), or
// the command names the one host it downloads from.
func TestNetworkNoteFindsTheHost(t *testing.T) {
	out := "Resolving github.com (github.com)... failed: Name or service not known.\nwget: unable to resolve host address ‘github.com’\n"
	assert.Assert(t, strings.Contains(networkNote(out, "wget https://github.com/x/y.deb", nil), "could not reach github.com"))
	pip := "Failed to establish a new connection: [Errno -2] Name or service not known\n"
	assert.Assert(t, strings.Contains(networkNote(pip, "pip install x", nil), "could not reach the network"))
	assert.Assert(t, strings.Contains(networkNote(pip, "curl -sSL https://get.example.org/i.sh | sh", nil), "could not reach get.example.org"))
	assert.Assert(t, strings.Contains(networkNote(pip, "curl https://a.example.org/x https://b.example.org/y", nil), "could not reach the network"))
}
