// Package envcause tells a command that failed because of the sandbox from
// one that failed because of the README, for every engine.
//
// It is a pure classifier: it reads a command (its text, output, exit code
// and status) and what the sandbox observed about the run (Signals: the
// profile, the limits, the cgroup's OOM kills, the process limit being
// reached, the disk cap stopping the run, hosts the egress proxy refused,
// the timeout) and returns the limit that explains the failure, with what to
// change, or nothing. It is conservative on purpose: a pattern in the output
// names a limit only when a run signal agrees, or when the pattern cannot
// come from anything but the sandbox; everything else is left to the README.
//
// The strings it recognises were produced in the sandbox image (see
// envcause_test.go, which holds them verbatim).
package envcause

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/docker/go-units"
)

// Kind is the sandbox limit a command ran into (commandlog's
// environment.kind).
type Kind string

// The kinds.
const (
	DiskFull      Kind = "disk-full"      // the disk cap, a full tmpfs, or the host's disk
	OOM           Kind = "oom"            // the memory limit: the OOM killer ended the command
	Pids          Kind = "pids"           // the process limit: fork failed
	CPUTime       Kind = "cpu-time"       // the run's time limit ended the agent's command
	RunTimeout    Kind = "run-timeout"    // the run's time limit (wall clock) ended the keyless runner's command
	NetworkDenied Kind = "network-denied" // the network policy refused a host
	// NetworkUnreachable: under the open network, a host that is always up
	// could not be reached, or any host where the network the run had does
	// not reach the internet.
	NetworkUnreachable Kind = "network-unreachable"
	StdinEOF           Kind = "stdin-eof"       // the command asked a question and read end of file
	Profile            Kind = "sandbox-profile" // the strict profile refused (sudo, read-only root)
	NoDocker           Kind = "no-docker"       // the sandbox has no Docker daemon, by design
	NoSystemd          Kind = "no-systemd"      // the sandbox is a container: no systemd as PID 1
	NoDisplay          Kind = "no-display"      // no display and no web browser: a command that opens one
	NoTerminal         Kind = "no-terminal"     // no terminal: a full-screen or interactive program that needs one
	MissingTool        Kind = "missing-tool"    // a program GitHub's hosted runners have that the sandbox image lacks
)

// Profiles and network policies as the sandbox and the pipeline name them.
const (
	ProfileDev       = "dev"
	ProfileStrict    = "strict"
	NetworkOpen      = "open"
	NetworkNone      = "none"
	NetworkAllowlist = "allowlist"
)

// Command is what the classifier reads of one command.
type Command struct {
	Text     string
	Output   string
	ExitCode *int
	// PipeStatus are the statuses of its last pipeline's programs, when
	// it had more than one and the runner saw them.
	PipeStatus []int
	// Unknown is true when the command never finished (status unknown).
	Unknown bool
	// Last is true for the last command of the run: the one in progress
	// when the sandbox stopped it.
	Last bool
}

// Signals are what the sandbox observed about the whole run. Negative
// counts mean "not known".
type Signals struct {
	Profile string // ProfileDev or ProfileStrict
	Network string // NetworkOpen, NetworkNone or NetworkAllowlist
	// Disk is the cap on the run's writable space in bytes; DiskStopped
	// says the sandbox stopped the run because usage passed it, DiskPeak is
	// the largest usage measured (-1 unknown).
	Disk        int64
	DiskStopped bool
	DiskPeak    int64
	// Inodes is the cap on the files, directories and links of the run's
	// writable space; InodesStopped says the sandbox stopped the run
	// because it passed it, InodesPeak is the most measured (-1 unknown).
	Inodes        int64
	InodesStopped bool
	InodesPeak    int64
	// TmpSize is the size of the strict profile's /tmp tmpfs ("512m").
	TmpSize string
	Memory  int64
	// OOMKills is how many processes the cgroup's OOM killer ended.
	OOMKills int
	Pids     int64
	// PidsHit counts the times the process limit was seen reached;
	// PidsStopped says the sandbox stopped the run because it stayed
	// reached.
	PidsHit     int
	PidsStopped bool
	// TimedOut says the run's timeout stopped it.
	TimedOut bool
	Timeout  time.Duration
	// Denied are the hosts the egress proxy refused (allowlist).
	Denied []string
	// InternetUnreached says that the run's network (open) does not
	// reach the internet: github.com could not be looked up when a
	// command could not reach a host that is not always up
	// (NeedsReachCheck). Any host a command could not reach is then the
	// network's doing, not the README's.
	InternetUnreached bool
	// SourcesUnreached are the hosts of package sources that an index
	// update of the run could not reach (SourcesUnreached): a package
	// not found afterwards is the network's doing.
	SourcesUnreached []string
	// Keyless says that readme2demo's own runner ran the commands (the
	// keyless engines), not an agent: the run's time limit is named for
	// what it is there (RunTimeout).
	Keyless bool
}

// InodesPassed says that the run's writable space passed the inode cap
// (peak < 0: not known); RaiseInodes says what to change.
func InodesPassed(limit, peak int64) string {
	measured := ""
	if peak >= 0 {
		measured = fmt.Sprintf(" (measured %d)", peak)
	}
	return fmt.Sprintf("its writable space held more files, directories and links than the cap of %d%s", limit, measured)
}

// RaiseInodes is what to change when the inode cap stopped a run.
var RaiseInodes = raise("--inodes", "inodes")

// Cause is a sandbox limit that explains a failed command.
type Cause struct {
	Kind Kind
	// Detail says what happened and what to change, for people.
	Detail string
}

// Classify returns the sandbox limit that explains c's failure, if one
// does. A command that succeeded is never classified.
func Classify(c Command, s Signals) (Cause, bool) {
	if c.ExitCode != nil && *c.ExitCode == 0 {
		return Cause{}, false
	}
	out := c.Output
	switch {
	case c.Last && c.Unknown && s.DiskStopped:
		return Cause{DiskFull, diskCapDetail(s)}, true
	case c.Last && c.Unknown && s.InodesStopped:
		return Cause{DiskFull, InodesPassed(s.Inodes, s.InodesPeak) + "; " + RaiseInodes}, true
	case fileTooLarge(out, c.ExitCode):
		return Cause{DiskFull, fmt.Sprintf("a file reached the size limit, which equals the disk cap (%s): no single file may exceed it; %s",
			size(s.Disk), raise("--disk", "disk"))}, true
	case s.Profile == ProfileStrict && strictRefused(out):
		return Cause{Profile, strictDetail(out)}, true
	case oomKilled(c, s):
		return Cause{OOM, fmt.Sprintf("the out-of-memory killer ended it: the sandbox has %s of memory and no swap; %s",
			size(s.Memory), raise("--memory", "memory"))}, true
	case pidsExhausted(c, s):
		return Cause{Pids, fmt.Sprintf("it could not start a process: the sandbox's process limit (%d processes and threads) was reached (a fork bomb, or a build that starts very many); %s",
			s.Pids, raise("--pids", "pids"))}, true
	case c.Last && c.Unknown && s.TimedOut && s.Keyless:
		return Cause{RunTimeout, fmt.Sprintf("the run's time limit (%s, wall clock, for the whole README) ended it while it ran; "+
			"raise it with --timeout (Action input `timeout-minutes`), or bound the command with <!-- readme2demo: timeout=… --> if it should not take that long", s.Timeout)}, true
	case c.Last && c.Unknown && s.TimedOut:
		return Cause{CPUTime, fmt.Sprintf("the run's time limit (%s) ended it; raise it with --timeout (Action input `timeout-minutes`)", s.Timeout)}, true
	case noSpace.MatchString(out):
		return Cause{DiskFull, noSpaceDetail(s)}, true
	}
	if dockerMissing.MatchString(out) {
		return Cause{NoDocker, "the sandbox has no Docker: readme2demo never gives the container a Docker daemon or the host's socket " +
			"(that would hand it the host); skip the block with <!-- readme2demo: skip --> or check that part elsewhere"}, true
	}
	if systemdMissing.MatchString(out) {
		return Cause{NoSystemd, "the sandbox is a container without systemd (like a GitHub container job, unlike a runner VM): " +
			"start the service directly (`sudo service NAME start`, or the daemon in the background)"}, true
	}
	if displayMissing.MatchString(out) {
		return Cause{NoDisplay, "the sandbox has no display and no web browser (as in CI): a command that opens a browser or a window cannot work here; " +
			"use the program's option that prints instead of opening (such as --print or --no-browser), or skip the block with <!-- readme2demo: skip -->"}, true
	}
	if terminalMissing.MatchString(out) {
		return Cause{NoTerminal, "it needs a terminal (a full-screen or interactive program) and the sandbox has none (as in CI); " +
			"give it a form that prints and exits (an option such as --no-tui, --print or --batch), or skip the block with <!-- readme2demo: skip -->"}, true
	}
	if d, ok := networkDenied(out, s); ok {
		return Cause{NetworkDenied, d}, true
	}
	if d, ok := networkUnreachable(c, s); ok {
		return Cause{NetworkUnreachable, d}, true
	}
	if p := missingRunnerTool(out); p != "" {
		return Cause{MissingTool, fmt.Sprintf("the sandbox image has no %s, which GitHub's hosted Ubuntu runners have preinstalled, "+
			"so the README may well work there: run with an image that has it (--image, Action input `image`), "+
			"or give its install in a code block the README runs", p)}, true
	}
	if askedQuestion(out) {
		return Cause{StdinEOF, "it asked a question on standard input and read end of file: there is no terminal in the sandbox (as in CI); " +
			"make the command non-interactive (`-y`, `--yes`, `yes |`, a `--non-interactive` flag), or let an AI engine (e.g. --engine claude-code) answer it"}, true
	}
	return Cause{}, false
}

// EndOfInput is the cause of a command that failed after it read its
// standard input and got end of file, which the keyless runner sees even
// when the command printed no question (bash's read and select, a program
// that waits for input).
func EndOfInput() Cause {
	return Cause{StdinEOF, "it waited for input on standard input and got end of file: there is no terminal in the sandbox (as in CI), nobody types; " +
		"give the input in the command (`yes |`, `printf 'y\n' |`, a flag such as `-y` or `--non-interactive`), or skip the block with <!-- readme2demo: skip -->"}
}

// Reached returns the process limit for a command that finished, even
// with exit 0, while processes it started could not be: its output shows
// refused forks and the run reached the limit (a fork bomb that fizzled out
// against it, a build whose workers never started). Such a command "worked"
// only because the sandbox stopped what it started.
func Reached(c Command, s Signals) (Cause, bool) {
	if s.PidsHit == 0 || !forkFailed.MatchString(c.Output) {
		return Cause{}, false
	}
	return Cause{Pids, fmt.Sprintf("processes it started could not start: the sandbox's process limit (%d processes and threads) was reached (a fork bomb, or a build that starts very many); %s",
		s.Pids, raise("--pids", "pids"))}, true
}

// raise names the flag and the Action input that change a limit.
func raise(flag, input string) string {
	return fmt.Sprintf("raise it with %s (Action input `%s`) if the README really needs more", flag, input)
}

func size(b int64) string {
	if b <= 0 {
		return "an unknown amount"
	}
	return units.BytesSize(float64(b))
}

func diskCapDetail(s Signals) string {
	peak := ""
	if s.DiskPeak > 0 {
		peak = fmt.Sprintf(" (measured %s)", size(s.DiskPeak))
	}
	return fmt.Sprintf("the sandbox stopped the run: its writable space passed the disk cap of %s%s while this command ran; %s",
		size(s.Disk), peak, raise("--disk", "disk"))
}

// fileTooLarge: the sandbox sets RLIMIT_FSIZE to the disk cap, so a write
// or truncate past it fails with EFBIG ("File too large"), or SIGXFSZ ends
// the writer: exit 153, which only that limit causes (bash prints "File
// size limit exceeded", not always into the command's own output).
func fileTooLarge(out string, code *int) bool {
	return strings.Contains(out, "File size limit exceeded") || strings.Contains(out, "File too large") ||
		(code != nil && *code == 128+25)
}

var noSpace = regexp.MustCompile(`No space left on device|Disk quota exceeded|ENOSPC`)

func noSpaceDetail(s Signals) string {
	if s.Profile == ProfileStrict {
		return fmt.Sprintf("a file system of the sandbox is full: under --sandbox strict /tmp is a %s tmpfs in memory; "+
			"write elsewhere (the workspace, $HOME) or use --sandbox dev, where /tmp is on disk under the disk cap", cmp.Or(s.TmpSize, "small"))
	}
	return fmt.Sprintf("a file system of the sandbox is full (No space left on device) before the disk cap of %s: "+
		"the Docker host's disk, or /dev/shm, is full; free space on the host", size(s.Disk))
}

// strictRefused: sudo under no-new-privileges, or a write to the read-only
// root.
var strictPatterns = regexp.MustCompile(`sudo: effective uid is not 0|"no new privileges" flag is set|Read-only file system|EROFS`)

func strictRefused(out string) bool { return strictPatterns.MatchString(out) }

func strictDetail(out string) string {
	if strings.Contains(out, "sudo:") {
		return "the strict profile refuses privilege escalation: sudo cannot work under no-new-privileges with no capabilities; " +
			"run with --sandbox dev (Action input `sandbox: dev`), where the agent user has passwordless sudo as on a GitHub runner"
	}
	return "the strict profile's root file system is read-only (only /workspace, $HOME, /readme2demo and /tmp are writable); " +
		"run with --sandbox dev (Action input `sandbox: dev`), where the root file system is the container's own throw-away layer"
}

// killedLine is bash's report of a child killed by SIGKILL.
var killedLine = regexp.MustCompile(`(?m)(^|\s)Killed(\s|$)`)

// oomKilled: the cgroup's OOM killer ended a process during the run, and
// this command shows a SIGKILL (exit 137, bash's "Killed") or never
// finished.
func oomKilled(c Command, s Signals) bool {
	if s.OOMKills <= 0 {
		return false
	}
	if c.ExitCode != nil && *c.ExitCode == 128+9 {
		return true
	}
	return killedLine.MatchString(c.Output) || (c.Unknown && c.Last)
}

// forkFailed are the messages of a fork or thread creation refused by the
// pids cgroup (EAGAIN), from bash, make, glibc, Go, Python and Node. Only
// read when the run saw the limit reached: EAGAIN has other causes.
var forkFailed = regexp.MustCompile(`fork: retry: Resource temporarily unavailable|fork: Resource temporarily unavailable|` +
	`[Cc]an(no|')t fork|pthread_create failed|failed to create new OS thread|fatal error: newosproc|` +
	`BlockingIOError: \[Errno 11\] Resource temporarily unavailable|spawn \S+ EAGAIN|: Resource temporarily unavailable`)

// pidsExhausted: a fork failure in the output while the limit was reached
// (or nothing says whether it was), or the last command, which never
// finished, in a run that met the limit: a fork bomb starves even the
// runner (the keyless runner's shell dies when a fork it needs fails, and
// an agent's tool call never returns).
func pidsExhausted(c Command, s Signals) bool {
	if s.PidsHit == 0 && !s.PidsStopped {
		return false
	}
	if forkFailed.MatchString(c.Output) {
		return true
	}
	return c.Unknown && c.Last
}

// dnsFailed are resolver failures (curl, git, glibc, Python, Node, npm,
// Go, apt, wget, cargo); netUnreachable a network with no route; the
// proxy patterns are a 403 from the egress proxy as curl, git, Python, pip,
// wget and plain HTTP clients report it.
var (
	dnsFailed = regexp.MustCompile(`Could not resolve host|Temporary failure in name resolution|Temporary failure resolving|` +
		`Name or service not known|getaddrinfo (EAI_AGAIN|ENOTFOUND)|code EAI_AGAIN|no such host|unable to resolve host address|` +
		`failed to resolve address|Name does not resolve|Could not resolve '|` +
		// Go's own resolver, asking a name server that does not answer
		// (none is reachable); Java's name for a host it cannot resolve.
		`lookup [\w.-]+ on [\w.:\[\]]+: (read|dial) udp|UnknownHostException|` +
		// Bundler; Erlang's and Elixir's (mix, rebar3) inet error; Dart's
		// pub; Zig's resolver; .NET's (NuGet) socket error.
		`Could not reach host|:?nxdomain\b|Failed host lookup|(Temporary)?NameServerFailure|Resource temporarily unavailable \([\w.-]+:\d+\)`)
	netUnreachable = regexp.MustCompile(`(?i)network is unreachable|ENETUNREACH`)
	proxyRefused   = regexp.MustCompile(`CONNECT tunnel failed, response 403|Tunnel connection failed: 403|` +
		`Proxy tunneling failed: Forbidden|Received HTTP code 403 from proxy|readme2demo egress proxy: .* refused`)
)

func networkDenied(out string, s Signals) (string, bool) {
	switch s.Network {
	case NetworkNone:
		if dnsFailed.MatchString(out) || netUnreachable.MatchString(out) {
			return "the sandbox has no network (--network none, Action input `network: none`): use --network open, " +
				"or allowlist with the hosts the README needs", true
		}
	case NetworkAllowlist:
		var named []string
		for _, h := range s.Denied {
			if h != "" && strings.Contains(out, strings.Split(h, ":")[0]) {
				named = append(named, h)
			}
		}
		if len(named) == 0 && (proxyRefused.MatchString(out) || dnsFailed.MatchString(out)) && len(s.Denied) > 0 {
			named = s.Denied
		}
		if len(named) > 0 {
			hosts := strings.Join(named, ", ")
			return fmt.Sprintf("the network allowlist refused %s: add it with --allow-host (Action input `allow-hosts`) if the README needs it", hosts), true
		}
		if proxyRefused.MatchString(out) || dnsFailed.MatchString(out) {
			return "the network allowlist refused a host (the sandbox reaches only the engine's API and the listed hosts, " +
				"through the egress proxy; a program that ignores HTTPS_PROXY cannot resolve names): list the hosts with --allow-host (Action input `allow-hosts`)", true
		}
	}
	return "", false
}

// dockerMissing, systemdMissing, displayMissing and terminalMissing: what the sandbox does
// not have by design, as bash, sudo, systemctl, X clients and terminal programs report it.
var (
	dockerMissing  = regexp.MustCompile(`(^|\n|: )docker(-compose)?: (command )?not found|Cannot connect to the Docker daemon`)
	systemdMissing = regexp.MustCompile(`(^|\n|: )systemctl: (command )?not found|System has not been booted with systemd as init system`)
	// displayMissing: the programs that open a browser or a file in the
	// desktop's application, and X clients without a display.
	displayMissing = regexp.MustCompile(`(^|\n|: )(xdg-open|sensible-browser|x-www-browser|www-browser|gnome-open|kde-open|gio|wslview): (command )?not found|[Cc]an(no|')t open display|cannot connect to X server|no \$?DISPLAY environment variable|Missing X server or \$DISPLAY`)
	// terminalMissing is what a program says when it finds no terminal:
	// procps' top, Go's TTY libraries (bubbletea, survey), fzf, ncurses
	// and Python's curses, vim, Rust's dialoguer, Node's prompt libraries,
	// docker -t, Python's getpass.
	terminalMissing = regexp.MustCompile(`failed tty get|open /dev/tty: no such device or address|could not open a new TTY|` +
		`[Ff]ailed to read /dev/tty|the input device is not a TTY|Input is not from a terminal|[Ee]rror opening terminal|` +
		`setupterm: could not find terminal|IO error: not a terminal|(stdin|standard input|input) is not a (terminal|tty|TTY)\b|` +
		`non-TTY environment|setRawMode is not a function|GetPassWarning: Can not control echo on the terminal`)
)

// questions are prompts a program prints before reading an answer; with
// stdin at end of file it then aborts.
var (
	eofPatterns = regexp.MustCompile(`EOFError: EOF when reading a line|Do you want to continue\? \[Y/n\] Abort|` +
		`\[[Yy]/[Nn]\]\s*(Abort\.?)?\s*$|\([Yy]/[Nn]\)\s*$|\[yes/no\]\s*$|\(yes/no\)\s*$|` +
		`Inappropriate ioctl for device\s*$|end of file on standard input|EOF on standard input|` +
		`Is this ok \[y/N\]|Proceed \(\[y\]/n\)\?\s*$`)
)

func askedQuestion(out string) bool {
	tail := strings.TrimRight(out, " \t\r\n")
	if len(tail) > 2048 {
		tail = tail[len(tail)-2048:]
	}
	return eofPatterns.MatchString(tail)
}
