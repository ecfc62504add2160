package envcause

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func code(n int) *int { return &n }

// Every output below was produced verbatim in the sandbox image
// (readme2demo-base, Debian bookworm) by the command shown, under the
// limit named: docker run with --pids-limit, -m, --ulimit fsize,
// --tmpfs size, --network none, --read-only, no-new-privileges, the
// sandbox's seccomp profile, or a proxy answering 403.
func TestClassify(t *testing.T) {
	dev := Signals{Profile: ProfileDev, Network: NetworkOpen, Disk: 10 << 30, DiskPeak: -1, Memory: 4 << 30, OOMKills: 0, Pids: 4096, Timeout: 30 * time.Minute}
	with := func(edit func(*Signals)) Signals { s := dev; edit(&s); return s }
	strict := with(func(s *Signals) { s.Profile = ProfileStrict; s.TmpSize = "512m"; s.Pids = 512 })
	oom := with(func(s *Signals) { s.OOMKills = 1 })
	pidsHit := with(func(s *Signals) { s.PidsHit = 3 })
	none := with(func(s *Signals) { s.Network = NetworkNone })
	allow := with(func(s *Signals) {
		s.Network = NetworkAllowlist
		s.Denied = []string{"registry.npmjs.org:443", "pypi.org:443"}
	})
	allowNothingDenied := with(func(s *Signals) { s.Network = NetworkAllowlist })

	tests := []struct {
		name  string
		cmd   Command
		sig   Signals
		want  Kind // "" means: not the sandbox
		words []string
	}{
		// ---- disk ----
		{"disk cap stopped the command in progress", Command{Text: "head -c 20G /dev/zero > big", Unknown: true, Last: true},
			with(func(s *Signals) { s.DiskStopped = true; s.DiskPeak = 11 << 30 }), DiskFull, []string{"disk cap of 10GiB", "measured 11GiB", "--disk", "`disk`"}},
		{"inode cap stopped the command in progress", Command{Text: "touch $(seq 1 2000000)", Unknown: true, Last: true},
			with(func(s *Signals) { s.InodesStopped = true; s.Inodes = 131072; s.InodesPeak = 140000 }), DiskFull,
			[]string{"files, directories and links", "cap of 131072 (measured 140000)", "--inodes", "`inodes`"}},
		{"inode cap: an earlier unknown command is not blamed", Command{Text: "sleep 1", Unknown: true, Last: false},
			with(func(s *Signals) { s.InodesStopped = true }), "", nil},
		{"disk cap: an earlier unknown command is not blamed", Command{Text: "sleep 1", Unknown: true, Last: false},
			with(func(s *Signals) { s.DiskStopped = true }), "", nil},
		{"file size limit (bash, SIGXFSZ)", Command{Text: "head -c 2M /dev/zero > x", ExitCode: code(153),
			Output: "bash: line 1:     7 File size limit exceededhead -c 2M /dev/zero > x\n"}, dev, DiskFull, []string{"size limit", "--disk"}},
		{"file size limit (exit 153 alone: SIGXFSZ)", Command{Text: "head -c 50G /dev/zero > huge", ExitCode: code(153)}, dev, DiskFull, nil},
		{"truncate EFBIG", Command{ExitCode: code(1), Output: "truncate: failed to truncate '/workspace/sparse' at 21474836480 bytes: File too large\n"}, dev, DiskFull, nil},
		{"file size limit (python EFBIG)", Command{ExitCode: code(1),
			Output: "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nOSError: [Errno 27] File too large\n"}, dev, DiskFull, nil},
		{"tmpfs full under strict", Command{Text: "head -c 2M /dev/zero > /tmp/x", ExitCode: code(1),
			Output: "head: error writing 'standard output': No space left on device\n"}, strict, DiskFull, []string{"512m tmpfs", "--sandbox dev"}},
		{"python ENOSPC under dev", Command{ExitCode: code(1),
			Output: "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nOSError: [Errno 28] No space left on device\n"}, dev, DiskFull, []string{"host"}},

		// ---- memory ----
		{"OOM killer (bash reports Killed)", Command{Text: `python3 -c "b = bytearray(600<<20)"`, ExitCode: code(137),
			Output: "bash: line 1:     7 Killed                  python3 -c \"b = bytearray(600<<20)\"\n"}, oom, OOM, []string{"4GiB", "--memory", "`memory`"}},
		{"exit 137 without an OOM kill is not the memory limit", Command{ExitCode: code(137), Output: "Killed\n"}, dev, "", nil},
		{"OOM count unknown: not named", Command{ExitCode: code(137), Output: "Killed\n"}, with(func(s *Signals) { s.OOMKills = -1 }), "", nil},

		// ---- processes ----
		{"bash fork", Command{ExitCode: code(254), Output: "bash: fork: retry: Resource temporarily unavailable\nbash: fork: retry: Resource temporarily unavailable\n"}, pidsHit, Pids, []string{"4096", "--pids"}},
		{"python fork", Command{ExitCode: code(1), Output: "Traceback (most recent call last):\n  File \"<string>\", line 4, in <module>\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n"}, pidsHit, Pids, nil},
		{"node spawn", Command{ExitCode: code(1), Output: "spawn sleep EAGAIN\nspawn sleep EAGAIN\n"}, pidsHit, Pids, nil},
		{"make -j", Command{ExitCode: code(2), Output: "make: sleep: Resource temporarily unavailable\nmake: *** [Makefile:3: t27] Error 127\nmake: *** Waiting for unfinished jobs....\n"}, pidsHit, Pids, nil},
		{"go runtime", Command{ExitCode: code(2), Output: "runtime: failed to create new OS thread (have 18 already; errno=11)\nruntime: may need to increase max user processes (ulimit -u)\nfatal error: newosproc\n"}, pidsHit, Pids, nil},
		{"EAGAIN without the limit reached is not the sandbox", Command{ExitCode: code(1), Output: "read error: Resource temporarily unavailable\n"}, dev, "", nil},
		{"a fork bomb starved the run until the timeout", Command{Text: ":(){ :|:& };:", Unknown: true, Last: true},
			with(func(s *Signals) { s.PidsHit = 5; s.TimedOut = true }), Pids, nil},
		{"a fork bomb took a fork the runner's shell needed: it died, its command never ended", Command{Text: ":(){ :|:& };:", Unknown: true, Last: true},
			pidsHit, Pids, []string{"could not start a process"}},
		{"a command that never ended in a run that never met the limit is not the process limit", Command{Text: "sleep 100", Unknown: true, Last: true}, dev, "", nil},

		// ---- time ----
		{"the run's timeout", Command{Text: "npm test", Unknown: true, Last: true}, with(func(s *Signals) { s.TimedOut = true }), CPUTime, []string{"30m0s", "--timeout", "timeout-minutes"}},

		// ---- network ----
		{"none: curl", Command{ExitCode: code(6), Output: "curl: (6) Could not resolve host: example.com\n"}, none, NetworkDenied, []string{"--network none"}},
		{"none: python", Command{ExitCode: code(1), Output: "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n"}, none, NetworkDenied, nil},
		{"none: npm", Command{ExitCode: code(1), Output: "npm ERR! code EAI_AGAIN\nnpm ERR! syscall getaddrinfo\n"}, none, NetworkDenied, nil},
		{"none: go", Command{ExitCode: code(1), Output: `go: golang.org/x/example/hello@latest: module golang.org/x/example/hello: Get "https://proxy.golang.org/golang.org/x/example/hello/@v/list": dial tcp: lookup proxy.golang.org on 10.255.255.53:53: dial udp 10.255.255.53:53: connect: network is unreachable`}, none, NetworkDenied, nil},
		{"none: go, the local resolver", Command{ExitCode: code(1), Output: `go: github.com/acme/tool@latest: module github.com/acme/tool: Get "https://proxy.golang.org/github.com/acme/tool/@v/list": dial tcp: lookup proxy.golang.org on [::1]:53: read udp [::1]:50919->[::1]:53: read: connection refused`}, none, NetworkDenied, nil},
		{"none: maven", Command{ExitCode: code(1), Output: "[ERROR] Plugin org.apache.maven.plugins:maven-clean-plugin:3.2.0 could not be resolved: Could not transfer artifact ... from/to central (https://repo.maven.apache.org/maven2): java.net.UnknownHostException: repo.maven.apache.org\n"}, none, NetworkDenied, nil},
		{"none: bundler", Command{ExitCode: code(17), Output: "Could not reach host index.rubygems.org. Check your network connection and try again.\n"}, none, NetworkDenied, nil},
		{"none: mix", Command{ExitCode: code(1), Output: "** (Mix) httpc request failed with: {:failed_connect, [{:to_address, {~c\"builds.hex.pm\", 443}}, {:inet, [:inet], :nxdomain}]}\n"}, none, NetworkDenied, nil},
		{"none: dart pub", Command{ExitCode: code(69), Output: "Got socket error trying to find package http at https://pub.dev.\nFailed host lookup: 'pub.dev'\n"}, none, NetworkDenied, nil},
		{"none: zig", Command{ExitCode: code(1), Output: "error: TemporaryNameServerFailure\n"}, none, NetworkDenied, nil},
		{"none: dotnet", Command{ExitCode: code(1), Output: "error NU1301: Unable to load the service index for source https://api.nuget.org/v3/index.json.\n  Resource temporarily unavailable (api.nuget.org:443)\n"}, none, NetworkDenied, nil},
		{"none: a refused local server is the README's", Command{ExitCode: code(7), Output: "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused\n"}, none, "", nil},
		{"none: apt", Command{ExitCode: code(100), Output: "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'\n"}, none, NetworkDenied, nil},
		{"none: cargo", Command{ExitCode: code(101), Output: "Caused by:\n  failed to resolve address for github.com: Temporary failure in name resolution; class=Net (12)\n"}, none, NetworkDenied, nil},
		{"none: wget", Command{ExitCode: code(4), Output: "wget: unable to resolve host address ‘example.com’\n"}, none, NetworkDenied, nil},
		{"open: a DNS failure is left to the README", Command{ExitCode: code(6), Output: "curl: (6) Could not resolve host: example.com\n"}, dev, "", nil},
		{"open: a host that is always up, not resolved (wget)", Command{Text: "wget https://github.com/derailed/k9s/releases/latest/download/k9s_linux_amd64.deb", ExitCode: code(4),
			Output: "Resolving github.com (github.com)... failed: Name or service not known.\nwget: unable to resolve host address ‘github.com’\n"}, dev, NetworkUnreachable,
			[]string{"could not reach github.com", "not at fault"}},
		{"open: a quiet download of a host that is always up", Command{Text: "curl -fsSL https://raw.githubusercontent.com/acme/tool/main/install.sh | bash", ExitCode: code(6)}, dev, NetworkUnreachable,
			[]string{"raw.githubusercontent.com"}},
		{"open: the module proxy answered 403", Command{Text: "go install github.com/acme/tool@latest", ExitCode: code(1),
			Output: "go: github.com/acme/tool@latest: module github.com/acme/tool: reading https://proxy.golang.org/github.com/acme/tool/@v/list: 403 Forbidden\n"}, dev, NetworkUnreachable,
			[]string{"proxy.golang.org"}},
		{"open: a resolver message with no host, and a URL that is always up", Command{Text: "pip install --index-url https://pypi.org/simple tool", ExitCode: code(1),
			Output: "Failed to establish a new connection: [Errno -2] Name or service not known\n"}, dev, NetworkUnreachable, []string{"pypi.org"}},
		{"open: gem names the host it could not open", Command{Text: "gem install overmind", ExitCode: code(2),
			Output: "ERROR:  Could not find a valid gem 'overmind' (>= 0), here is why:\n          Unable to download data from https://rubygems.org/ - SocketError: Failed to open TCP connection to rubygems.org:443 (getaddrinfo: Name or service not known) (https://rubygems.org/specs.4.8.gz)\n"},
			dev, NetworkUnreachable, []string{"rubygems.org"}},
		{"open: a resolver message with no host, the URL in the output", Command{Text: "tool fetch", ExitCode: code(1),
			Output: "fetching https://pypi.org/simple/tool/\nName or service not known\n"}, dev, NetworkUnreachable, []string{"pypi.org"}},
		{"open: one of the hosts may be down: left to the README", Command{Text: "curl https://get.example.org/i.sh https://github.com/x", ExitCode: code(6),
			Output: "curl: (6) Could not resolve host: get.example.org\n"}, dev, "", nil},
		{"open: a look-alike of a host that is always up is left to the README", Command{ExitCode: code(6), Output: "curl: (6) Could not resolve host: github.com.example.org\n"}, dev, "", nil},
		{"open: a failure with no network message is left to the README", Command{Text: "curl -f https://github.com/x/y.tar.gz -o y.tar.gz", ExitCode: code(22),
			Output: "curl: (22) The requested URL returned error: 404\n"}, dev, "", nil},
		{"allowlist: npm names the refused host", Command{ExitCode: code(1), Output: "npm ERR! code E403\nnpm ERR! 403 403 Forbidden - GET https://registry.npmjs.org/left-pad\n"}, allow, NetworkDenied, []string{"registry.npmjs.org:443", "--allow-host", "allow-hosts"}},
		{"allowlist: python names no host, the refused ones are listed", Command{ExitCode: code(1), Output: "urllib.error.URLError: <urlopen error Tunnel connection failed: 403 Forbidden>\n"}, allow, NetworkDenied, []string{"pypi.org:443"}},
		{"allowlist: curl CONNECT 403", Command{ExitCode: code(56), Output: "curl: (56) CONNECT tunnel failed, response 403\n"}, allowNothingDenied, NetworkDenied, []string{"--allow-host"}},
		{"allowlist: wget", Command{ExitCode: code(8), Output: "Connecting to 172.17.0.1:18931... connected.\nProxy tunneling failed: ForbiddenUnable to establish SSL connection.\n"}, allowNothingDenied, NetworkDenied, nil},
		{"allowlist: a 403 from a listed server is the README's", Command{ExitCode: code(22), Output: "curl: (22) The requested URL returned error: 403\n"}, allowNothingDenied, "", nil},

		// ---- questions ----
		{"python input()", Command{ExitCode: code(1), Output: "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nEOFError: EOF when reading a line\nName? "}, dev, StdinEOF, []string{"non-interactive", "AI engine"}},
		{"apt without -y", Command{ExitCode: code(1), Output: "Need to get 30.9 kB of archives.\nAfter this operation, 136 kB of additional disk space will be used.\nDo you want to continue? [Y/n] Abort.\n"}, dev, StdinEOF, nil},
		{"a question left unanswered at the end", Command{ExitCode: code(1), Output: "Overwrite existing config? [y/N] "}, dev, StdinEOF, nil},
		{"a [y/N] in the middle of a log is not a question", Command{ExitCode: code(1), Output: "Use --force [y/N] to overwrite\nerror: tests failed\n"}, dev, "", nil},

		// ---- the strict profile ----
		{"strict: sudo", Command{Text: "sudo apt-get install -y jq", ExitCode: code(1), Output: "sudo: The \"no new privileges\" flag is set, which prevents sudo from running as root.\nsudo: If sudo is running in a container, you may need to adjust the container configuration to disable the flag.\n"}, strict, Profile, []string{"strict profile", "--sandbox dev", "sudo"}},
		{"strict: make install", Command{Text: "make install", ExitCode: code(2), Output: "install -m 755 hello.sh /usr/local/bin/hello\ninstall: cannot create regular file '/usr/local/bin/hello': Read-only file system\nmake: *** [Makefile:4: install] Error 1\n"}, strict, Profile, []string{"read-only", "--sandbox dev"}},
		{"dev: a read-only file system is not the profile's doing", Command{ExitCode: code(1), Output: "touch: cannot touch '/proc/sys/x': Read-only file system\n"}, dev, "", nil},

		// ---- what the sandbox does not have, by design ----
		{"docker", Command{ExitCode: code(127), Output: "bash: line 1: docker: command not found\n"}, dev, NoDocker, []string{"readme2demo: skip"}},
		{"docker-compose", Command{ExitCode: code(127), Output: "bash: line 1: docker-compose: command not found\n"}, dev, NoDocker, nil},
		{"docker daemon", Command{ExitCode: code(1), Output: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"}, dev, NoDocker, nil},
		{"sudo systemctl", Command{ExitCode: code(1), Output: "sudo: systemctl: command not found\n"}, dev, NoSystemd, []string{"sudo service"}},
		{"no browser opener (git-open calls xdg-open)", Command{ExitCode: code(127), Output: "/workspace/git-open: line 301: xdg-open: command not found\n"}, dev, NoDisplay, []string{"no display", "--print"}},
		{"no browser opener (bash)", Command{ExitCode: code(127), Output: "bash: line 1: sensible-browser: command not found\n"}, dev, NoDisplay, nil},
		{"top without a terminal", Command{ExitCode: code(1), Output: "top: failed tty get\n"}, dev, NoTerminal, []string{"needs a terminal", "readme2demo: skip"}},
		{"a bubbletea program", Command{ExitCode: code(1), Output: "Error running program: could not open a new TTY: open /dev/tty: no such device or address\n"}, dev, NoTerminal, nil},
		{"fzf", Command{ExitCode: code(2), Output: "Failed to read /dev/tty\n"}, dev, NoTerminal, nil},
		{"python curses", Command{ExitCode: code(1), Output: "_curses.error: setupterm: could not find terminal\n"}, dev, NoTerminal, nil},
		{"dialoguer", Command{ExitCode: code(1), Output: "Error: IO error: not a terminal\n"}, dev, NoTerminal, nil},
		{"inquirer", Command{ExitCode: code(1), Output: "Error: Prompts can not be meaningfully rendered in non-TTY environments\n"}, dev, NoTerminal, nil},
		{"a word about terminals in a log is the README's", Command{ExitCode: code(1), Output: "error: the terminal width is unknown, tests failed\n"}, dev, "", nil},
		{"another missing program is not the display", Command{ExitCode: code(127), Output: "bash: line 1: xdg-user-dir: command not found\n"}, dev, "", nil},
		{"systemd not PID 1", Command{ExitCode: code(1), Output: "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down\n"}, dev, NoSystemd, nil},
		{"another missing command is the README's", Command{ExitCode: code(127), Output: "bash: line 1: mydocker: command not found\n"}, dev, "", nil},

		// ---- what GitHub's runners have and the image lacks ----
		{"maven", Command{ExitCode: code(127), Output: "bash: line 1: mvn: command not found\n"}, dev, MissingTool, []string{"no mvn", "GitHub's hosted Ubuntu runners", "--image"}},
		{"sudo dotnet", Command{ExitCode: code(1), Output: "sudo: dotnet: command not found\n"}, dev, MissingTool, []string{"no dotnet"}},
		{"dash: php", Command{ExitCode: code(127), Output: "sh: 1: php: not found\n"}, dev, MissingTool, []string{"no php"}},
		{"env: java", Command{ExitCode: code(127), Output: "env: 'java': No such file or directory\n"}, dev, MissingTool, []string{"no java"}},
		{"a script's missing gradle", Command{ExitCode: code(127), Output: "Building…\n./build.sh: line 12: gradle: command not found\n"}, dev, MissingTool, []string{"no gradle"}},
		{"the project's own program is the README's", Command{ExitCode: code(127), Output: "bash: line 1: mytool: command not found\n"}, dev, "", nil},
		{"a word in a sentence is not a missing program", Command{ExitCode: code(1), Output: "error: the file mvn: command not found in the index, see above\n"}, dev, "", nil},

		// ---- not the sandbox ----
		{"success is never classified", Command{ExitCode: code(0), Output: "No space left on device\n"}, dev, "", nil},
		{"an ordinary failure", Command{ExitCode: code(2), Output: "make: *** No rule to make target 'install'.  Stop.\n"}, dev, "", nil},
		{"a test failure mentioning Killed is not OOM without a kill", Command{ExitCode: code(1), Output: "FAIL: process Killed by test harness\n"}, dev, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Classify(tc.cmd, tc.sig)
			if tc.want == "" {
				assert.Check(t, !ok, "classified as %s: %s", got.Kind, got.Detail)
				return
			}
			assert.Assert(t, ok, "not classified, want %s", tc.want)
			assert.Check(t, is.Equal(got.Kind, tc.want), "detail: %s", got.Detail)
			for _, w := range tc.words {
				assert.Check(t, is.Contains(got.Detail, w))
			}
			assert.Check(t, got.Detail != "" && !strings.Contains(got.Detail, "\n"))
		})
	}
}

// The "try an AI engine" advice appears only where an AI engine helps: a
// question to answer, not a sandbox limit.
func TestAIEngineAdviceOnlyWhereItHelps(t *testing.T) {
	s := Signals{Profile: ProfileStrict, Network: NetworkNone, Disk: 1 << 30, OOMKills: 1, PidsHit: 1, Pids: 512, Memory: 1 << 30}
	for _, out := range []string{
		"sudo: The \"no new privileges\" flag is set, which prevents sudo from running as root.",
		"curl: (6) Could not resolve host: example.com", "bash: fork: retry: Resource temporarily unavailable",
		"OSError: [Errno 27] File too large", "bash: line 1: 7 Killed  python3 x",
	} {
		c, ok := Classify(Command{ExitCode: code(1), Output: out}, s)
		assert.Assert(t, ok, out)
		assert.Check(t, !strings.Contains(c.Detail, "AI engine"), "%s: %s", c.Kind, c.Detail)
	}
}

// The package sources an index update could not reach, as apt names them.
func TestSourcesUnreached(t *testing.T) {
	out := "Err:1 https://apt.fury.io/caarlos0  InRelease\n  Could not resolve 'apt.fury.io'\n" +
		"Err:2 http://deb.example.org/debian bookworm InRelease\n  Temporary failure resolving 'deb.example.org'\n" +
		"Err:3 https://pkg.example.net/apt stable InRelease\n  Could not connect to pkg.example.net:443 (203.0.113.5), connection timed out\n" +
		"W: Failed to fetch https://apt.fury.io/caarlos0/InRelease  Could not resolve 'apt.fury.io'\n"
	assert.DeepEqual(t, SourcesUnreached(out), []string{"apt.fury.io", "deb.example.org", "pkg.example.net"})
	assert.Check(t, is.Len(SourcesUnreached("Hit:1 http://deb.debian.org/debian bookworm InRelease\nReading package lists...\n"), 0))
}
