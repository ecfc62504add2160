package egress

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/shell"
)

// SelfTestExit is the exit status of the agent's command when the network
// self-test failed and the agent was not started.
const SelfTestExit = 86

// selfTestPrefix starts every line the self-test prints.
const selfTestPrefix = "readme2demo-egress-selftest:"

// SelfTest describes what the self-test checks from inside the agent's
// container before the agent starts.
type SelfTest struct {
	// ProxyIP is the egress proxy's address; "" for network none (only the
	// direct checks run).
	ProxyIP string
	// Listed is a listed host:port to reach through CONNECT ("" for none).
	Listed string
	// Upstream is a reverse-proxy port to reach with a GET (0 for none); a
	// 502 from it means the real API cannot be reached.
	Upstream int
	// Open says that the agent has a route out of its own (network open,
	// the proxy holding only its API key): only the API is checked.
	Open bool
}

// Script returns bash that runs the checks concurrently, prints one line
// per check, and exits SelfTestExit when any fails. Put it before the
// agent's command: `Script() + "\n" + command`.
//
// Checks: a direct TCP connection to 1.1.1.1:443 and to the metadata
// address 169.254.169.254:80 must fail (no route out); through the proxy, a
// CONNECT to an unlisted name and to 169.254.169.254 must get a 403; the
// listed host (or the API's reverse proxy) must answer. Open checks only
// that the API's reverse proxy answers.
func (t SelfTest) Script() string {
	var b strings.Builder
	b.WriteString(`r2d_selftest() {
  local P='` + selfTestPrefix + `'
  direct() { if timeout 4 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null; then echo "$P FAIL: direct connection to $1:$2 succeeded (it must have no route out)"; else echo "$P ok: direct connection to $1:$2 blocked"; fi; }
  connect() { timeout 15 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1; printf "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" "$3" "$3" >&3; read -r _ code _ <&3; echo "$code"' _ "$1" "$2" "$3" 2>/dev/null; }
  get() { timeout 20 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1; printf "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" "$1" >&3; read -r _ code _ <&3; echo "$code"' _ "$1" "$2" 2>/dev/null; }
  denied() { local c; c=$(connect "$1" "$2" "$3"); if [ "$c" = 403 ]; then echo "$P ok: $3 through the proxy refused (403)"; else echo "$P FAIL: $3 through the proxy answered '${c:-nothing}', want 403"; fi; }
  reached() { local c; c=$(connect "$1" "$2" "$3"); if [ "$c" = 200 ]; then echo "$P ok: listed $3 reachable through the proxy"; else echo "$P FAIL: listed $3 not reachable through the proxy (answer '${c:-nothing}')"; fi; }
  api() { local c; c=$(get "$1" "$2"); case "$c" in ""|502|503|504) echo "$P FAIL: the API behind the proxy's port $2 did not answer (answer '${c:-nothing}')";; *) echo "$P ok: the API behind the proxy's port $2 answers ($c)";; esac; }
  local out
  out=$( {
`)
	if !t.Open {
		b.WriteString("    direct 1.1.1.1 443 &\n    direct 169.254.169.254 80 &\n")
	}
	switch {
	case t.Open && t.ProxyIP != "" && t.Upstream > 0:
		b.WriteString("    api " + t.ProxyIP + " " + strconv.Itoa(t.Upstream) + " &\n")
	case t.ProxyIP != "":
		pp := t.ProxyIP + " " + strconv.Itoa(ForwardPort)
		b.WriteString("    denied " + pp + " readme2demo-selftest.invalid:443 &\n")
		b.WriteString("    denied " + pp + " 169.254.169.254:80 &\n")
		switch {
		case t.Upstream > 0:
			b.WriteString("    api " + t.ProxyIP + " " + strconv.Itoa(t.Upstream) + " &\n")
		case t.Listed != "":
			b.WriteString("    reached " + pp + " " + shell.Quote(t.Listed) + " &\n")
		}
	}
	b.WriteString(`    wait
  } 2>&1 )
  printf '%s\n' "$out" >&2
  case "$out" in *"$P FAIL"*) return 1;; esac
  return 0
}
r2d_selftest || exit ` + strconv.Itoa(SelfTestExit) + `
unset -f r2d_selftest
`)
	return b.String()
}

// SelfTestError is a failed self-test: the agent was not started.
type SelfTestError struct{ Failures []string }

func (e *SelfTestError) Error() string {
	return fmt.Sprintf("network self-test failed, the agent was not started: %s", strings.Join(e.Failures, "; "))
}

// CheckSelfTest reads the self-test's lines from the command's output.
// It returns the lines and a *SelfTestError when a check failed.
func CheckSelfTest(output []byte) (lines []string, err error) {
	var fails []string
	for _, l := range strings.Split(string(output), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), selfTestPrefix)
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		lines = append(lines, rest)
		if f, ok := strings.CutPrefix(rest, "FAIL: "); ok {
			fails = append(fails, f)
		}
	}
	if len(fails) > 0 {
		return lines, &SelfTestError{Failures: fails}
	}
	return lines, nil
}
