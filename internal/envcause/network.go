package envcause

import (
	"fmt"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// A command that could not reach a host: the messages of the tools that
// say so, the exit codes of quiet downloads, and the hosts that are up
// whenever a network reaches the internet.

// unreachedRe finds the messages of tools that could not reach a host:
// curl, wget, git, the Go command, npm, pip (Python's resolver), cargo,
// Java, Bundler and gem (Ruby's Net::HTTP), Dart's pub, .NET, Erlang and
// Elixir (nxdomain) and Zig.
// Its groups capture the host where the message names one.
var unreachedRe = lazyre.New(`(?m)curl: \((?:6|7|28|35)\) .*?(?:host:? ([\w.-]+)|$)|[Cc]ould not resolve host:? '?([\w.-]+)|unable to resolve host address ['‘]?([\w.-]+)|Temporary failure in name resolution|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)|dial tcp: lookup ([\w.-]+)|reading https://([\w.-]+)/\S*: 403 Forbidden|Network is unreachable|Failed to connect to ([\w.-]+)|Failed to open TCP connection to ([\w.-]+)|host='([\w.-]+)', port=\d+\): Max retries exceeded|Name or service not known|failed to resolve address for ([\w.-]+)|lookup ([\w.-]+)(?: on [\d.:]+)?: no such host|UnknownHostException: ([\w.-]+)|Could not reach host ([\w.-]+)|Failed host lookup: '([\w.-]+)'|Resource temporarily unavailable \(([\w.-]+):\d+\)|:?nxdomain\b|NameServerFailure`)

// Unreached reports an output with a message of a tool that could not
// reach a host, and the hosts the messages name, in order, without
// repeats (none when no message names one).
func Unreached(output string) (hosts []string, ok bool) {
	ms := unreachedRe.FindAllStringSubmatch(output, -1)
	for _, m := range ms {
		for _, g := range m[1:] {
			if g != "" && !slices.Contains(hosts, g) {
				hosts = append(hosts, g)
			}
		}
	}
	return hosts, ms != nil
}

// QuietNetworkFailure reports curl's and wget's exit codes for a network
// failure, for a command that runs one of them: curl 6 (host not
// resolved), 7 (no connection), 28 (timeout); wget 4 (network).
func QuietNetworkFailure(command string, code int) bool {
	fields := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '|' || r == ';' || r == '&' || r == '(' || r == '"' })
	for _, f := range fields {
		switch f {
		case "curl":
			if code == 6 || code == 7 || code == 28 {
				return true
			}
		case "wget":
			if code == 4 {
				return true
			}
		}
	}
	return false
}

// sourceUnreachedRe finds a package source that an index update could not
// reach, as apt reports it (`W: Failed to fetch URL  Could not resolve
// 'HOST'`, `Temporary failure resolving 'HOST'`, `Could not connect to
// HOST:443`).
var sourceUnreachedRe = lazyre.New(`(?:Could not resolve|Temporary failure resolving) '([\w.-]+)'|Could not connect to ([\w.-]+?)(?::\d+)? \(`)

// SourcesUnreached returns the hosts of the package sources that index
// updates could not reach, as their outputs name them, in order, without
// repeats.
func SourcesUnreached(outputs ...string) []string {
	var hosts []string
	for _, out := range outputs {
		for _, m := range sourceUnreachedRe.FindAllStringSubmatch(out, -1) {
			if h := m[1] + m[2]; !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts
}

// packageMissingRe is a package manager that found no package of the
// name: apt, dnf and yum, zypper, apk.
var packageMissingRe = lazyre.New(`Unable to locate package |Package '[^']+' has no installation candidate|has no installation candidate|No match for argument: |No package [^ ]+ available|No provider of '|unable to select packages:`)

// urlHostRe finds the host of a URL in a command.
var urlHostRe = lazyre.New(`https?://([\w.-]+)`)

// URLHosts are the hosts of the URLs a command names, in order, without
// repeats.
func URLHosts(command string) []string {
	var hosts []string
	for _, m := range urlHostRe.FindAllStringSubmatch(command, -1) {
		if !slices.Contains(hosts, m[1]) {
			hosts = append(hosts, m[1])
		}
	}
	return hosts
}

// alwaysUpRe are domains that are up whenever a network reaches the
// internet: code hosts, package registries, language and distribution
// sites, the large CDNs. A README cannot make one of them unreachable (a
// made-up or dead domain is not among them), so a command that could not
// reach one met the network the run had, not the README.
var alwaysUpRe = lazyre.New(`(?i)(^|\.)(github\.com|githubusercontent\.com|github\.io|ghcr\.io|gitlab\.com|bitbucket\.org|codeberg\.org|sourceforge\.net|` +
	`npmjs\.org|npmjs\.com|yarnpkg\.com|unpkg\.com|jsdelivr\.net|nodejs\.org|deno\.land|bun\.sh|` +
	`pypi\.org|pythonhosted\.org|python\.org|crates\.io|rust-lang\.org|rustup\.rs|golang\.org|go\.dev|` +
	`rubygems\.org|ruby-lang\.org|maven\.org|apache\.org|gradle\.org|packagist\.org|getcomposer\.org|nuget\.org|hex\.pm|pub\.dev|` +
	`debian\.org|ubuntu\.com|kernel\.org|gnu\.org|docker\.com|docker\.io|` +
	`google\.com|googleapis\.com|microsoft\.com|cloudflare\.com|amazonaws\.com|brew\.sh)$`)

// unreachedHosts returns, under the open network, the hosts a failed
// command could not reach (its URLs' when the messages name none); ok is
// false when it did not fail that way.
func unreachedHosts(c Command, s Signals) (hosts []string, ok bool) {
	if s.Network != NetworkOpen {
		return nil, false
	}
	hosts, ok = Unreached(c.Output)
	quiet := c.ExitCode != nil && QuietNetworkFailure(c.Text, *c.ExitCode) ||
		slices.ContainsFunc(c.PipeStatus, func(st int) bool { return QuietNetworkFailure(c.Text, st) })
	if !ok && !quiet {
		// A package not found after an update that could not reach a
		// package source: the source that has it, most likely.
		if len(s.SourcesUnreached) > 0 && packageMissingRe.MatchString(c.Output) {
			return s.SourcesUnreached, true
		}
		return nil, false
	}
	if len(hosts) == 0 {
		hosts = URLHosts(c.Text)
	}
	if len(hosts) == 0 && ok {
		hosts = URLHosts(c.Output) // `gem install x`: "Unable to download data from https://rubygems.org/"
	}
	return hosts, len(hosts) > 0
}

// alwaysUp reports hosts that are all up whenever a network reaches the
// internet.
func alwaysUp(hosts []string) bool {
	for _, h := range hosts {
		if !alwaysUpRe.MatchString(h) {
			return false
		}
	}
	return true
}

// NeedsReachCheck reports a command that could not reach a host that is
// not always up (getmic.ro): whether that is the README's fault depends
// on whether the run's network reaches the internet at all, which the
// caller finds out (Signals.InternetUnreached).
func NeedsReachCheck(c Command, s Signals) bool {
	hosts, ok := unreachedHosts(c, s)
	return ok && !alwaysUp(hosts)
}

// networkUnreachable explains, under the open network, a command that
// could not reach hosts that are up whenever a network reaches the
// internet, or any host when the run's network does not reach the
// internet (Signals.InternetUnreached).
func networkUnreachable(c Command, s Signals) (string, bool) {
	hosts, ok := unreachedHosts(c, s)
	switch {
	case !ok:
		return "", false
	case alwaysUp(hosts):
		return fmt.Sprintf("the sandbox could not reach %s, which is up whenever a network reaches the internet: the network this run had does not reach it "+
			"(a self-hosted runner's firewall or proxy, or an outage), so the README was not at fault; GitHub's hosted runners reach it", strings.Join(hosts, ", ")), true
	case s.InternetUnreached:
		return fmt.Sprintf("the sandbox could not reach %s, and the network this run had does not reach the internet (github.com could not be looked up either: "+
			"a self-hosted runner's firewall or proxy, or an outage), so whether the README's host is up could not be checked here; "+
			"the README was not found at fault", strings.Join(hosts, ", ")), true
	}
	return "", false
}
