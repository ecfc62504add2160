package pipeline

import (
	"context"
	"errors"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// A keyless run whose deciding failure is the sandbox's is blocked, not
// failed (exit status 3, not 1), and its reason names the limit, never as
// if the README were broken; a README failure stays failed.
func TestKeylessSandboxLimitsBlock(t *testing.T) {
	src := func(line int) *commandlog.Source { return &commandlog.Source{File: "README.md", Line: line} }
	ok := commandlog.Command{ID: "1", Command: "echo hi", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(3)}
	failedAt := func(c commandlog.Command, reason string) *commandlog.Log {
		c.ID, c.Source = "2", src(7)
		return &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: reason, Commands: []commandlog.Command{ok, c}}
	}
	eof := envcause.EndOfInput()
	tests := []struct {
		name    string
		log     *commandlog.Log
		res     *sandbox.Result
		network string
		// offline: the run's network does not reach the internet
		// (github.com could not be looked up).
		offline bool
		outcome commandlog.Outcome
		reason  string
	}{
		{
			name: "network denied",
			log: failedAt(commandlog.Command{Command: "curl -fsSL https://example.com/install.sh | sh", ExitCode: ip(6), Status: commandlog.StatusFailed,
				Output: "curl: (6) Could not resolve host: example.com\n"},
				"README.md line 7: `curl -fsSL https://example.com/install.sh | sh` exited with 6; it could not reach example.com (check that the sandbox can reach the hosts the README downloads from)"),
			res: result(nil), network: NetworkNone, outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("curl -fsSL https://example.com/install.sh | sh") failed because of the sandbox, not the README (network-denied): ` +
				"the sandbox has no network (--network none, Action input `network: none`): use --network open, or allowlist with the hosts the README needs",
		},
		{
			name: "open network: a host that is always up could not be reached",
			log: failedAt(commandlog.Command{Command: "wget https://github.com/acme/tool/releases/latest/download/tool.deb", ExitCode: ip(4), Status: commandlog.StatusFailed,
				Output: "Resolving github.com (github.com)... failed: Name or service not known.\nwget: unable to resolve host address ‘github.com’\n"},
				"README.md line 7: `wget https://github.com/acme/tool/releases/latest/download/tool.deb` exited with 4; it could not reach github.com (check that the sandbox can reach the hosts the README downloads from)"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("wget https://github.com/acme/tool/releases/latest/download/tool.deb") failed because of the sandbox, not the README (network-unreachable): ` +
				"the sandbox could not reach github.com, which is up whenever a network reaches the internet: the network this run had does not reach it " +
				"(a self-hosted runner's firewall or proxy, or an outage), so the README was not at fault; GitHub's hosted runners reach it",
		},
		{
			name: "open network: a host that may be down is the README's",
			log: failedAt(commandlog.Command{Command: "curl -fsSL https://get.example.org/install.sh | sh", ExitCode: ip(6), Status: commandlog.StatusFailed,
				Output: "curl: (6) Could not resolve host: get.example.org\n"},
				"README.md line 7: `curl -fsSL https://get.example.org/install.sh | sh` exited with 6; it could not reach get.example.org (check that the sandbox can reach the hosts the README downloads from)"),
			res: result(nil), outcome: commandlog.OutcomeFailed,
			reason: "README.md line 7: `curl -fsSL https://get.example.org/install.sh | sh` exited with 6; it could not reach get.example.org (check that the sandbox can reach the hosts the README downloads from)",
		},
		{
			name: "open network that does not reach the internet: a host that may be down is the network's",
			log: failedAt(commandlog.Command{Command: "curl -fsSL https://get.example.org/install.sh | sh", ExitCode: ip(6), Status: commandlog.StatusFailed,
				Output: "curl: (6) Could not resolve host: get.example.org\n"},
				"README.md line 7: `curl -fsSL https://get.example.org/install.sh | sh` exited with 6; it could not reach get.example.org (check that the sandbox can reach the hosts the README downloads from)"),
			res: result(nil), offline: true, outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("curl -fsSL https://get.example.org/install.sh | sh") failed because of the sandbox, not the README (network-unreachable): ` +
				"the sandbox could not reach get.example.org, and the network this run had does not reach the internet (github.com could not be looked up either: " +
				"a self-hosted runner's firewall or proxy, or an outage), so whether the README's host is up could not be checked here; the README was not found at fault",
		},
		{
			name: "open network that does not reach the internet: a package not found after the update could not reach its source",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 85: `sudo apt install svu` exited with 100",
				Commands: []commandlog.Command{
					{ID: "1", Command: "sudo apt update", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(84), Planned: commandlog.PlannedStep,
						Output: aptUpdateUnresolved},
					{ID: "2", Command: "sudo apt install svu", ExitCode: ip(100), Status: commandlog.StatusFailed, Source: src(85), Planned: commandlog.PlannedStep,
						Output: "\nWARNING: apt does not have a stable CLI interface. Use with caution in scripts.\n\nReading package lists...\nBuilding dependency tree...\nReading state information...\nE: Unable to locate package svu\n"}}},
			res: result(nil), offline: true, outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 85 ("sudo apt install svu") failed because of the sandbox, not the README (network-unreachable): ` +
				"the sandbox could not reach apt.fury.io, and the network this run had does not reach the internet (github.com could not be looked up either: " +
				"a self-hosted runner's firewall or proxy, or an outage), so whether the README's host is up could not be checked here; the README was not found at fault",
		},
		{
			name: "a package not found after an update that reached every source is the README's",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 85: `sudo apt install svu` exited with 100",
				Commands: []commandlog.Command{
					{ID: "1", Command: "sudo apt update", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(84), Planned: commandlog.PlannedStep,
						Output: "Reading package lists...\nBuilding dependency tree...\n"},
					{ID: "2", Command: "sudo apt install svu", ExitCode: ip(100), Status: commandlog.StatusFailed, Source: src(85), Planned: commandlog.PlannedStep,
						Output: "E: Unable to locate package svu\n"}}},
			res: result(nil), offline: true, outcome: commandlog.OutcomeFailed,
			reason: "README.md line 85: `sudo apt install svu` exited with 100",
		},
		{
			name: "open network that does not reach the internet: a quiet download inside a pipeline",
			log: failedAt(commandlog.Command{Command: "curl -s https://apt.example.org/key.gpg | gpg --dearmor | sudo tee /usr/share/keyrings/x.gpg > /dev/null",
				ExitCode: ip(2), PipeStatus: []int{6, 2, 0}, Status: commandlog.StatusFailed, Output: "gpg: no valid OpenPGP data found.\n"},
				"README.md line 7: `curl -s https://apt.example.org/key.gpg | gpg --dearmor | sudo tee /usr/share/keyrings/x.gpg > /dev/null` exited with 2"),
			res: result(nil), offline: true, outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("curl -s https://apt.example.org/key.gpg | gpg --dearmor | sudo tee /usr/share/keyrings/x.gpg > /dev/null") failed because of the sandbox, not the README (network-unreachable): ` +
				"the sandbox could not reach apt.example.org, and the network this run had does not reach the internet (github.com could not be looked up either: " +
				"a self-hosted runner's firewall or proxy, or an outage), so whether the README's host is up could not be checked here; the README was not found at fault",
		},
		{
			name: "no Docker",
			log: failedAt(commandlog.Command{Command: "docker compose up -d", ExitCode: ip(127), Status: commandlog.StatusFailed,
				Output: "bash: docker: command not found\n"},
				"README.md line 7: `docker compose up -d` exited with 127 (docker: command not found)"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("docker compose up -d") failed because of the sandbox, not the README (no-docker): ` +
				"the sandbox has no Docker: readme2demo never gives the container a Docker daemon or the host's socket (that would hand it the host); " +
				"skip the block with <!-- readme2demo: skip --> or check that part elsewhere",
		},
		{
			name: "no display",
			log: failedAt(commandlog.Command{Command: "xdg-open http://localhost:8080", ExitCode: ip(127), Status: commandlog.StatusFailed,
				Output: "bash: xdg-open: command not found\n"},
				"README.md line 7: `xdg-open http://localhost:8080` exited with 127 (xdg-open: command not found)"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("xdg-open http://localhost:8080") failed because of the sandbox, not the README (no-display): ` +
				"the sandbox has no display and no web browser (as in CI): a command that opens a browser or a window cannot work here; " +
				"use the program's option that prints instead of opening (such as --print or --no-browser), or skip the block with <!-- readme2demo: skip -->",
		},
		{
			name: "no terminal",
			log: failedAt(commandlog.Command{Command: "top", ExitCode: ip(1), Status: commandlog.StatusFailed,
				Output: "top: failed tty get\n"},
				"README.md line 7: `top` exited with 1"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("top") failed because of the sandbox, not the README (no-terminal): ` +
				"it needs a terminal (a full-screen or interactive program) and the sandbox has none (as in CI); " +
				"give it a form that prints and exits (an option such as --no-tui, --print or --batch), or skip the block with <!-- readme2demo: skip -->",
		},
		{
			name: "a program GitHub's runners have and the image lacks",
			log: failedAt(commandlog.Command{Command: "mvn -B package", ExitCode: ip(127), Status: commandlog.StatusFailed,
				Output: "bash: line 1: mvn: command not found\n"},
				"README.md line 7: `mvn -B package` exited with 127 (mvn: command not found); the markdown engine runs only what the README's code blocks say"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("mvn -B package") failed because of the sandbox, not the README (missing-tool): ` +
				"the sandbox image has no mvn, which GitHub's hosted Ubuntu runners have preinstalled, so the README may well work there: " +
				"run with an image that has it (--image, Action input `image`), or give its install in a code block the README runs",
		},
		{
			name: "a question nobody answered (the runner saw it read its input)",
			log: failedAt(commandlog.Command{Command: "read -r -p 'Name? ' name", ExitCode: ip(1), Status: commandlog.StatusFailed,
				Environment: &commandlog.Environment{Kind: string(eof.Kind), Detail: eof.Detail}},
				"README.md line 7: `read -r -p 'Name? ' name` exited with 1"),
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("read -r -p 'Name? ' name") failed because of the sandbox, not the README (stdin-eof): ` + eof.Detail,
		},
		{
			name: "the run's wall-clock limit",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
				OutcomeReason: "README.md line 7: `make test` did not finish (the run was killed or timed out)",
				Commands:      []commandlog.Command{ok, {ID: "2", Command: "make test", Status: commandlog.StatusUnknown, Source: src(7)}}},
			res: result(func(r *sandbox.Result) { r.TimedOut = true }), outcome: commandlog.OutcomeBlocked,
			reason: `README.md line 7 ("make test") did not finish because of the sandbox, not the README (run-timeout): ` +
				"the run's time limit (30m0s, wall clock, for the whole README) ended it while it ran; raise it with --timeout (Action input `timeout-minutes`), " +
				"or bound the command with <!-- readme2demo: timeout=… --> if it should not take that long",
		},
		{
			name: "the run's wall-clock limit between two commands",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "the run ended without the runner's summary (it was killed)",
				Commands: []commandlog.Command{ok}},
			res: result(func(r *sandbox.Result) { r.TimedOut = true }), outcome: commandlog.OutcomeBlocked,
			reason: `the run's time limit (30m0s, wall clock, for the whole README) ended the run after README.md line 3 ("echo hi"); ` +
				"raise it with --timeout (Action input `timeout-minutes`) if the README needs longer",
		},
		{
			name: "no step could run: the only one needs Docker, the passing commands were probes",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
				{ID: "1", Command: "cp .env.example .env", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(3), Planned: commandlog.PlannedProbe},
				{ID: "2", Command: "docker compose up -d", ExitCode: ip(127), Status: commandlog.StatusFailed, Source: src(7), Planned: commandlog.PlannedStep,
					Output: "bash: docker: command not found\n"}}},
			res: result(nil), outcome: commandlog.OutcomeBlocked,
			reason: `no step of the README could be checked in the sandbox: README.md line 7 ("docker compose up -d") failed because of the sandbox, not the README (no-docker): ` +
				"the sandbox has no Docker: readme2demo never gives the container a Docker daemon or the host's socket (that would hand it the host); " +
				"skip the block with <!-- readme2demo: skip --> or check that part elsewhere",
		},
		{
			name: "a probe that needs Docker does not block a run whose steps passed",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
				{ID: "1", Command: "make build", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(3), Planned: commandlog.PlannedStep},
				{ID: "2", Command: "docker run demo", ExitCode: ip(127), Status: commandlog.StatusFailed, Source: src(7), Planned: commandlog.PlannedProbe,
					Output: "bash: docker: command not found\n"}}},
			res: result(nil), outcome: commandlog.OutcomeSuccess, reason: "",
		},
		{
			name: "a fork bomb's runaway processes fail the run; the process limit it met is added",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
				OutcomeReason: "README.md line 4: `:(){ :|:& };:` left 737 processes running when it ended (a fork bomb?); they were killed; 1 of 2 planned commands was not reached",
				Commands: []commandlog.Command{{ID: "1", Command: ":(){ :|:& };:", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(4),
					Output: "bash: fork: retry: Resource temporarily unavailable\n"}}},
			res: result(func(r *sandbox.Result) { r.Usage.PidsHit = 2 }), outcome: commandlog.OutcomeFailed,
			reason: "README.md line 4: `:(){ :|:& };:` left 737 processes running when it ended (a fork bomb?); they were killed; 1 of 2 planned commands was not reached; " +
				`sandbox limit: README.md line 4 (":(){ :|:& };:") passed only because the sandbox stopped what it started, not the README (pids): ` +
				"processes it started could not start: the sandbox's process limit (4096 processes and threads) was reached (a fork bomb, or a build that starts very many); " +
				"raise it with --pids (Action input `pids`) if the README really needs more",
		},
		{
			name: "a step that passed only because the process limit stopped its children fails the run",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
				{ID: "1", Command: ":(){ :|:& };:", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(4), Planned: commandlog.PlannedStep,
					Output: "bash: fork: retry: Resource temporarily unavailable\n"},
				{ID: "2", Command: "echo next", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(8), Planned: commandlog.PlannedStep}}},
			res: result(func(r *sandbox.Result) { r.Usage.PidsHit = 2 }), outcome: commandlog.OutcomeFailed,
			reason: `README.md line 4 (":(){ :|:& };:") passed only because the sandbox stopped what it started, not the README (pids): ` +
				"processes it started could not start: the sandbox's process limit (4096 processes and threads) was reached (a fork bomb, or a build that starts very many); " +
				"raise it with --pids (Action input `pids`) if the README really needs more",
		},
		{
			name: "a probe that passed only because the process limit stopped its children is marked, and does not fail the run",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
				{ID: "1", Command: ":(){ :|:& };:", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(4), Planned: commandlog.PlannedProbe,
					Output: "bash: fork: retry: Resource temporarily unavailable\n"},
				{ID: "2", Command: "echo next", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(8), Planned: commandlog.PlannedStep}}},
			res: result(func(r *sandbox.Result) { r.Usage.PidsHit = 2 }), outcome: commandlog.OutcomeSuccess, reason: "",
		},
		{
			name: "a README failure stays failed, its reason kept",
			log: failedAt(commandlog.Command{Command: "python3 greet.py --shout World", ExitCode: ip(2), Status: commandlog.StatusFailed,
				Output: "greet.py: error: unrecognized arguments: --shout\n"},
				"README.md line 7: `python3 greet.py --shout World` exited with 2"),
			res: result(nil), outcome: commandlog.OutcomeFailed,
			reason: "README.md line 7: `python3 greet.py --shout World` exited with 2",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			network := tc.network
			if network == "" {
				network = NetworkOpen
			}
			explain(tc.log, tc.res, 30*time.Minute, true)
			sig := signals(tc.res, network, 30*time.Minute, nil)
			sig.InternetUnreached = tc.offline
			sig.SourcesUnreached = sourcesUnreached(tc.log)
			nameLimits(tc.log, tc.res, sig, true, redact.New(nil))
			assert.Equal(t, tc.log.Outcome, tc.outcome)
			assert.Equal(t, tc.log.OutcomeReason, tc.reason)
			tc.log.Normalize()
			assert.NilError(t, commandlog.Validate(tc.log))
		})
	}
}

// The internet is looked up only when a command could not reach a host
// that may be down, and only under the open network; the run's network
// does not reach it when github.com does not resolve.
func TestInternetUnreached(t *testing.T) {
	failed := func(cmd, out string, code int) *commandlog.Log {
		return &commandlog.Log{Commands: []commandlog.Command{{ID: "1", Command: cmd, Output: out, ExitCode: ip(code), Status: commandlog.StatusFailed}}}
	}
	mayBeDown := failed("curl -fsSL https://getmic.ro | bash", "curl: (6) Could not resolve host: getmic.ro\n", 6)
	alwaysUp := failed("git clone https://github.com/acme/tool", "fatal: unable to access 'https://github.com/acme/tool/': Could not resolve host: github.com\n", 128)
	readmeFault := failed("make test", "FAIL: test_x\n", 2)
	sourceDown := &commandlog.Log{Commands: []commandlog.Command{
		{ID: "1", Command: "sudo apt update", Output: aptUpdateUnresolved, ExitCode: ip(0), Status: commandlog.StatusOK},
		{ID: "2", Command: "sudo apt install svu", Output: "E: Unable to locate package svu\n", ExitCode: ip(100), Status: commandlog.StatusFailed}}}
	tests := []struct {
		name    string
		log     *commandlog.Log
		network string
		resolve error // what looking up github.com returns
		want    bool
		lookups int
	}{
		{"a host that may be down, offline", mayBeDown, NetworkOpen, errors.New("no such host"), true, 1},
		{"a host that may be down, online", mayBeDown, NetworkOpen, nil, false, 1},
		{"an always-up host needs no look-up", alwaysUp, NetworkOpen, errors.New("no such host"), false, 0},
		{"a failure of the README's needs no look-up", readmeFault, NetworkOpen, errors.New("no such host"), false, 0},
		{"no network needs no look-up", mayBeDown, NetworkNone, errors.New("no such host"), false, 0},
		{"a package whose source did not resolve, offline", sourceDown, NetworkOpen, errors.New("no such host"), true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookups := 0
			lookup := func(_ context.Context, host string) ([]string, error) {
				lookups++
				assert.Equal(t, host, "github.com")
				return nil, tc.resolve
			}
			sig := signals(result(nil), tc.network, time.Minute, nil)
			sig.SourcesUnreached = sourcesUnreached(tc.log)
			assert.Equal(t, internetUnreached(context.Background(), tc.log, sig, lookup), tc.want)
			assert.Equal(t, lookups, tc.lookups)
		})
	}
}

// aptUpdateUnresolved is the end of `sudo apt update` in the sandbox image
// after a README added a source whose host did not resolve (caarlos0/svu's
// apt.fury.io, on a machine that reaches only Debian's mirrors).
const aptUpdateUnresolved = "Ign:1 https://apt.fury.io/caarlos0  InRelease\nErr:1 https://apt.fury.io/caarlos0  InRelease\n  Could not resolve 'apt.fury.io'\n" +
	"Fetched 186 kB in 7s (26.5 kB/s)\nReading package lists...\nBuilding dependency tree...\nReading state information...\n" +
	"44 packages can be upgraded. Run 'apt list --upgradable' to see them.\n" +
	"W: Failed to fetch https://apt.fury.io/caarlos0/InRelease  Could not resolve 'apt.fury.io'\n" +
	"W: Some index files failed to download. They have been ignored, or old ones used instead.\n"
