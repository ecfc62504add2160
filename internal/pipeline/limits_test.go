package pipeline

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

func ip(n int) *int { return &n }

func result(edit func(r *sandbox.Result)) *sandbox.Result {
	r := &sandbox.Result{Profile: sandbox.ProfileDev, Limits: sandbox.Resources{Disk: 1 << 30, Inodes: 131072, Memory: 4 << 30, NanoCPUs: 2e9, PidsLimit: 4096},
		Usage: sandbox.Usage{DiskPeak: 5 << 20, InodesPeak: 4000, OOMKills: 0}}
	if edit != nil {
		edit(r)
	}
	return r
}

func TestNameLimits(t *testing.T) {
	src := func(line int) *commandlog.Source { return &commandlog.Source{File: "README.md", Line: line} }
	markdownFailed := func(c commandlog.Command) *commandlog.Log {
		return &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
			OutcomeReason: "README.md line 7: " + c.Command + " exited with 1",
			Commands:      []commandlog.Command{{ID: "1", Command: "echo hi", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(3)}, c}}
	}
	tests := []struct {
		name      string
		log       *commandlog.Log
		res       *sandbox.Result
		keyless   bool
		network   string
		denied    []string
		outcome   commandlog.Outcome
		reason    []string // the reason contains each
		notReason []string
		env       map[int]string // command index → kind
	}{
		{
			name: "strict refuses sudo: the profile is named, not the README",
			log: markdownFailed(commandlog.Command{ID: "2", Command: "sudo apt-get install -y jq", ExitCode: ip(1), Status: commandlog.StatusFailed, Source: src(7),
				Output: "sudo: The \"no new privileges\" flag is set, which prevents sudo from running as root.\n"}),
			res:     result(func(r *sandbox.Result) { r.Profile = sandbox.ProfileStrict }),
			keyless: true, outcome: commandlog.OutcomeBlocked,
			reason:    []string{"README.md line 7", "failed because of the sandbox, not the README (sandbox-profile)", "strict profile", "--sandbox dev"},
			notReason: []string{"AI engine"},
			env:       map[int]string{1: "sandbox-profile"},
		},
		{
			name: "strict read-only root for make install",
			log: markdownFailed(commandlog.Command{ID: "2", Command: "make install", ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(7),
				Output: "install: cannot create regular file '/usr/local/bin/hello': Read-only file system\nmake: *** [Makefile:4: install] Error 1\n"}),
			res:     result(func(r *sandbox.Result) { r.Profile = sandbox.ProfileStrict }),
			keyless: true, outcome: commandlog.OutcomeBlocked,
			reason: []string{"strict profile's root file system is read-only"}, notReason: []string{"AI engine"},
			env: map[int]string{1: "sandbox-profile"},
		},
		{
			name: "the disk cap stopped the run",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 4: x did not finish",
				Commands: []commandlog.Command{{ID: "1", Command: "head -c 5G /dev/zero > big", Status: commandlog.StatusUnknown, Source: src(4)}}},
			res:     result(func(r *sandbox.Result) { r.Stopped = sandbox.StoppedDisk; r.Usage.DiskPeak = 1100 << 20 }),
			keyless: true, outcome: commandlog.OutcomeFailed,
			reason:    []string{"stopped by the sandbox", "disk cap of 1GiB", "measured 1.074GiB", "README.md line 4", "--disk", "`disk`"},
			notReason: []string{"AI engine"},
			env:       map[int]string{0: "disk-full"},
		},
		{
			name: "files deleted while still open held most of it",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 4: x did not finish",
				Commands: []commandlog.Command{{ID: "1", Command: "exec 3>x; rm x; head -c 5G /dev/zero >&3", Status: commandlog.StatusUnknown, Source: src(4)}}},
			res: result(func(r *sandbox.Result) {
				r.Stopped, r.Usage.DiskPeak, r.Usage.DiskDeleted = sandbox.StoppedDisk, 1100<<20, 1000<<20
			}),
			keyless: true, outcome: commandlog.OutcomeFailed,
			reason:    []string{"disk cap of 1GiB (measured 1.074GiB, of which 1000MiB held by files deleted while still open)", "--disk"},
			notReason: []string{"AI engine"},
			env:       map[int]string{0: "disk-full"},
		},
		{
			name: "the disk cap stops even an agent that claimed success",
			log: &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeSuccess, Adjusted: true,
				Commands: []commandlog.Command{{ID: "1", Command: "npm ci", Status: commandlog.StatusUnknown}}},
			res:     result(func(r *sandbox.Result) { r.Stopped = sandbox.StoppedDisk; r.Usage.DiskPeak = 2 << 30 }),
			outcome: commandlog.OutcomeFailed, reason: []string{"disk cap", "while command 1 (\"npm ci\") ran"},
			env: map[int]string{0: "disk-full"},
		},
		{
			name: "the inode cap stopped the run",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 4: x did not finish",
				Commands: []commandlog.Command{{ID: "1", Command: "for i in $(seq 1 2000000); do : > f$i; done", Status: commandlog.StatusUnknown, Source: src(4)}}},
			res:     result(func(r *sandbox.Result) { r.Stopped = sandbox.StoppedInodes; r.Usage.InodesPeak = 131100 }),
			keyless: true, outcome: commandlog.OutcomeFailed,
			reason:    []string{"stopped by the sandbox", "more files, directories and links than the cap of 131072 (measured 131100)", "README.md line 4", "--inodes", "`inodes`"},
			notReason: []string{"AI engine", "disk cap"},
			env:       map[int]string{0: "disk-full"},
		},
		{
			name: "a fork bomb: the process limit stopped the run",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "x",
				Commands: []commandlog.Command{{ID: "1", Command: ":(){ :|:& };:", Status: commandlog.StatusUnknown, Source: src(4)}}},
			res:     result(func(r *sandbox.Result) { r.Stopped = sandbox.StoppedPids; r.Usage.PidsHit = 30 }),
			keyless: true, outcome: commandlog.OutcomeFailed,
			reason: []string{"process limit (4096 processes and threads) stayed reached", "fork bomb", "--pids"}, notReason: []string{"AI engine"},
			env: map[int]string{0: "pids"},
		},
		{
			name: "a fork bomb that fizzled out against the limit: the keyless run went on, but failed",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess,
				Commands: []commandlog.Command{
					{ID: "1", Command: ":(){ :|:& };:", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(4),
						Output: "/readme2demo/prompt.md: fork: retry: Resource temporarily unavailable\n"},
					{ID: "2", Command: "echo never", Output: "never\n", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(5)}}},
			res:     result(func(r *sandbox.Result) { r.Usage.PidsHit = 2 }),
			keyless: true, outcome: commandlog.OutcomeFailed,
			reason: []string{"README.md line 4", "passed only because the sandbox stopped what it started", "(pids)", "--pids"},
			env:    map[int]string{0: "pids"},
		},
		{
			name: "an AI agent's build that met the limit is marked, its verdict kept",
			log: &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeSuccess, Markers: []commandlog.Marker{{Kind: commandlog.MarkerSuccess}},
				Commands: []commandlog.Command{{ID: "t1", Command: "make -j64", ExitCode: ip(0), Status: commandlog.StatusOK,
					Output: "make: sleep: Resource temporarily unavailable\n"}}},
			res:     result(func(r *sandbox.Result) { r.Usage.PidsHit = 1 }),
			outcome: commandlog.OutcomeSuccess, env: map[int]string{0: "pids"},
		},
		{
			name: "refused forks without the limit reached are not the sandbox",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess,
				Commands: []commandlog.Command{{ID: "1", Command: "./x", ExitCode: ip(0), Status: commandlog.StatusOK, Output: "bash: fork: retry: Resource temporarily unavailable\n"}}},
			res: result(nil), keyless: true, outcome: commandlog.OutcomeSuccess, env: map[int]string{},
		},
		{
			name: "an 8 GiB allocation: the OOM killer",
			log: markdownFailed(commandlog.Command{ID: "2", Command: "python3 -c 'b = bytearray(8 << 30)'", ExitCode: ip(137), Status: commandlog.StatusFailed, Source: src(7),
				Output: "bash: line 1:   7 Killed                  python3 -c 'b = bytearray(8 << 30)'\n"}),
			res:     result(func(r *sandbox.Result) { r.Usage.OOMKills = 1 }),
			keyless: true, outcome: commandlog.OutcomeBlocked,
			reason: []string{"(oom)", "4GiB of memory", "--memory"}, notReason: []string{"AI engine"},
			env: map[int]string{1: "oom"},
		},
		{
			name: "network allowlist refused a host",
			log: markdownFailed(commandlog.Command{ID: "2", Command: "npm install left-pad", ExitCode: ip(1), Status: commandlog.StatusFailed, Source: src(7),
				Output: "npm ERR! 403 403 Forbidden - GET https://registry.npmjs.org/left-pad\n"}),
			res: result(nil), keyless: true, network: NetworkAllowlist, denied: []string{"registry.npmjs.org:443"},
			outcome: commandlog.OutcomeBlocked, reason: []string{"network allowlist refused registry.npmjs.org:443", "--allow-host"},
			env: map[int]string{1: "network-denied"},
		},
		{
			name: "a keyless command's own timeout with the process limit reached: blocked, the limit named",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
				OutcomeReason: "README.md line 23: `:(){ :|: ; };:` timed out after 10s (raise it with <!-- readme2demo: timeout=… -->)",
				Commands: []commandlog.Command{{ID: "1", Command: ":(){ :|: ; };:", ExitCode: ip(124), Status: commandlog.StatusFailed, Source: src(23),
					Output: "bash: fork: retry: Resource temporarily unavailable\n"}}},
			res:     result(func(r *sandbox.Result) { r.Usage.PidsHit = 3 }),
			keyless: true, outcome: commandlog.OutcomeBlocked,
			reason: []string{"README.md line 23 (\":(){ :|: ; };:\") failed because of the sandbox, not the README (pids)"},
			env:    map[int]string{0: "pids"},
		},
		{
			name: "a README failure keeps the engine's reason",
			log: markdownFailed(commandlog.Command{ID: "2", Command: "make", ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(7),
				Output: "make: *** No targets specified and no makefile found.  Stop.\n"}),
			res: result(nil), keyless: true, outcome: commandlog.OutcomeFailed,
			reason: []string{"README.md line 7: make exited with 1"}, env: map[int]string{},
		},
		{
			name: "an AI engine's reason is kept and the limit added",
			log: &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeBlocked, OutcomeReason: "the agent hit its turn limit",
				Commands: []commandlog.Command{{ID: "t1", Command: "curl https://example.com", ExitCode: ip(6), Status: commandlog.StatusFailed, Output: "curl: (6) Could not resolve host: example.com\n"}}},
			res: result(nil), network: NetworkNone, outcome: commandlog.OutcomeBlocked,
			reason: []string{"the agent hit its turn limit; sandbox limit: command 1", "--network none"}, env: map[int]string{0: "network-denied"},
		},
		{
			name: "an AI engine that worked around a limit still succeeds; the command is marked",
			log: &commandlog.Log{Engine: "codex", Outcome: commandlog.OutcomeSuccess,
				Commands: []commandlog.Command{{ID: "t1", Command: "python3 setup.py", ExitCode: ip(1), Status: commandlog.StatusFailed, Output: "EOFError: EOF when reading a line\n"},
					{ID: "t2", Command: "yes | python3 setup.py", ExitCode: ip(0), Status: commandlog.StatusOK}}},
			res: result(nil), outcome: commandlog.OutcomeSuccess, reason: nil, env: map[int]string{0: "stdin-eof"},
		},
		{
			name: "the timeout while the process limit was reached says so",
			log: &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, OutcomeReason: "timed out after 1m0s: the agent was stopped",
				Commands: []commandlog.Command{{ID: "1", Command: "./spawn-many", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(4)}}},
			res:     result(func(r *sandbox.Result) { r.TimedOut = true; r.Usage.PidsHit = 4 }),
			keyless: true, outcome: commandlog.OutcomeBlocked, reason: []string{"timed out after 1m0s", "process limit (4096) was reached during the run after README.md line 4"},
			env: map[int]string{},
		},
		{
			name:    "an agent killed by the OOM killer before any transcript",
			log:     &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeFailed, OutcomeReason: "the agent exited with code 137 without writing a transcript"},
			res:     result(func(r *sandbox.Result) { r.ExitCode = ip(137); r.Usage.OOMKills = 1 }),
			outcome: commandlog.OutcomeFailed, reason: []string{"killed by the out-of-memory killer", "--memory"}, env: map[int]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			network := tc.network
			if network == "" {
				network = NetworkOpen
			}
			nameLimits(tc.log, tc.res, signals(tc.res, network, time.Minute, tc.denied), tc.keyless, redact.New(nil))
			assert.Check(t, is.Equal(tc.log.Outcome, tc.outcome))
			for _, w := range tc.reason {
				assert.Check(t, is.Contains(tc.log.OutcomeReason, w))
			}
			for _, w := range tc.notReason {
				assert.Check(t, !strings.Contains(tc.log.OutcomeReason, w), "reason %q has %q", tc.log.OutcomeReason, w)
			}
			for i, c := range tc.log.Commands {
				want, ok := tc.env[i]
				if !ok {
					assert.Check(t, c.Environment == nil, "command %d marked %+v", i, c.Environment)
					continue
				}
				assert.Assert(t, c.Environment != nil, "command %d not marked", i)
				assert.Check(t, is.Equal(c.Environment.Kind, want))
			}
			tc.log.Normalize()
			assert.NilError(t, commandlog.Validate(tc.log))
		})
	}
}

func TestSandboxRecord(t *testing.T) {
	res := result(func(r *sandbox.Result) {
		r.Profile = sandbox.ProfileStrict
		r.TimedOut = true
		r.Usage.OOMKills = 2
		r.Usage.PidsHit = 1
	})
	rec := sandboxRecord("img:tag", NetworkAllowlist, res)
	peak := int64(5 << 20)
	inodes := int64(4000)
	assert.Check(t, is.DeepEqual(rec, &commandlog.Sandbox{Profile: "strict", Image: "img:tag", Network: "allowlist", Disk: 1 << 30, Memory: 4 << 30, CPU: 2,
		Pids: 4096, DiskPeak: &peak, Inodes: 131072, InodesPeak: &inodes, Stopped: "timeout", Reached: []string{"memory", "pids", "timeout"}}))
	rec = sandboxRecord("img", NetworkOpen, result(func(r *sandbox.Result) { r.Usage.DiskPeak = -1; r.Stopped = sandbox.StoppedDisk }))
	assert.Check(t, rec.DiskPeak == nil)
	assert.Check(t, is.Equal(rec.Stopped, "disk"))
	rec = sandboxRecord("img", NetworkOpen, result(func(r *sandbox.Result) { r.Usage.InodesPeak = -1; r.Stopped = sandbox.StoppedInodes }))
	assert.Check(t, rec.InodesPeak == nil, "inodes not measured")
	assert.Check(t, is.Equal(rec.Stopped, "inodes"))
	assert.Check(t, is.DeepEqual(rec.Reached, []string{"inodes"}))
}

// An AI agent's run that timed out already says so; the command the
// timeout killed is marked, the reason is not repeated.
func TestTimeoutReasonIsNotRepeated(t *testing.T) {
	l := &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeFailed,
		OutcomeReason: "timed out after 30s: the agent was stopped; raise the limit with --timeout",
		Commands:      []commandlog.Command{{ID: "t1", Command: "sleep 600", Status: commandlog.StatusUnknown}}}
	res := result(func(r *sandbox.Result) { r.TimedOut = true })
	nameLimits(l, res, signals(res, NetworkOpen, 30*time.Second, nil), false, redact.New(nil))
	assert.Check(t, is.Equal(l.OutcomeReason, "timed out after 30s: the agent was stopped; raise the limit with --timeout"))
	assert.Assert(t, l.Commands[0].Environment != nil)
	assert.Check(t, is.Equal(l.Commands[0].Environment.Kind, "cpu-time"))
}
