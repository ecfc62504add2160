// Package egress is the sandbox's way out under `network: allowlist`: an
// HTTP proxy that lets the agent reach only the listed hosts, and a reverse
// proxy per LLM API that adds the real credential, so the API key never
// enters the agent's container.
//
// The agent container sits on an internal Docker network (no route out).
// The proxy runs in a second container, created from the same sandbox
// image and attached to both that internal network and the default bridge;
// its program is the readme2demo binary itself, copied in and started under
// the name readme2demo-egress-proxy (a multi-call binary: see Main). It
// serves
//
//   - a forward proxy (HTTP CONNECT and absolute-URI plain HTTP) that allows
//     a host only if it is listed exactly, or matches a `*.suffix` entry;
//     an IP literal only if that literal is listed; and never dials a
//     link-local, loopback or unspecified address unless that address is
//     listed (so a listed name that resolves to 169.254.169.254 is refused
//     too). Everything else gets a 403 with a body that says why and how to
//     allow it;
//   - one reverse proxy per Upstream, which strips whatever credential the
//     agent sent, adds the real one and forwards to the real API (or a mock).
//
// Package dockerproxy starts the proxy's container and network.
package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Policy is a host allowlist. The zero Policy allows nothing.
type Policy struct {
	exact    map[string]bool // "host" or "host:port", lower case
	suffixes []string        // ".example.com" (from "*.example.com"), with an optional ":port"
	ips      map[netip.Addr]bool
}

// HostError is an allowlist entry that cannot be used.
type HostError struct {
	Entry  string
	Reason string
}

func (e *HostError) Error() string { return fmt.Sprintf("allow host %q: %s", e.Entry, e.Reason) }

// ParseHosts splits a comma-, space- or newline-separated list of hosts
// (as the --allow-host flag and the allow-hosts input take them) into
// entries, lower case, without empty ones or duplicates. A URL is reduced
// to its host (and explicit port); ".example.com" means *.example.com.
func ParseHosts(list ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' }) {
			h, err := normalizeEntry(f)
			if err != nil {
				return nil, err
			}
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out, nil
}

func normalizeEntry(e string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(e))
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
		if j := strings.IndexAny(h, "/?#"); j >= 0 {
			h = h[:j]
		}
		if j := strings.LastIndexByte(h, '@'); j >= 0 {
			h = h[j+1:]
		}
	}
	h = strings.TrimSuffix(h, "/")
	if h == "" || h == "*" || h == "*." {
		return "", &HostError{Entry: e, Reason: "allows everything: use network open instead"}
	}
	if strings.HasPrefix(h, ".") {
		h = "*" + h // ".example.com" is the NO_PROXY spelling of *.example.com
	}
	host, port := splitHostPort(h)
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", &HostError{Entry: e, Reason: "the port is not a number from 1 to 65535"}
		}
	}
	name := strings.TrimPrefix(host, "*.")
	if _, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		if strings.HasPrefix(host, "*.") {
			return "", &HostError{Entry: e, Reason: "a wildcard cannot cover an IP address"}
		}
		return h, nil
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", &HostError{Entry: e, Reason: "not a host name, *.suffix or IP address"}
		}
	}
	return h, nil
}

// splitHostPort splits "host:port", "[v6]:port", "host" and "v6".
func splitHostPort(h string) (host, port string) {
	if hh, p, err := net.SplitHostPort(h); err == nil {
		return hh, p
	}
	return h, ""
}

// NewPolicy builds a Policy from entries normalised by ParseHosts: exact
// names, `*.suffix` wildcards (any subdomain, not the bare suffix) and IP
// literals, each optionally with `:port` (only that port).
func NewPolicy(entries []string) Policy {
	p := Policy{exact: map[string]bool{}, ips: map[netip.Addr]bool{}}
	for _, e := range entries {
		host, port := splitHostPort(e)
		if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
			p.ips[a.Unmap()] = true
			p.exact[joinPort(a.Unmap().String(), port)] = true
			continue
		}
		if strings.HasPrefix(host, "*.") {
			p.suffixes = append(p.suffixes, joinPort(host[1:], port))
			continue
		}
		p.exact[joinPort(host, port)] = true
	}
	return p
}

func joinPort(host, port string) string {
	if port == "" {
		return host
	}
	return host + ":" + port
}

// Allows reports whether host (a name or IP literal) on port may be
// reached, and if not, why.
func (p Policy) Allows(host, port string) (bool, string) {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		if p.exact[a.String()] || p.exact[a.String()+":"+port] {
			return true, ""
		}
		return false, "IP address " + a.String() + " is not in the allowlist (addresses are reachable only when listed literally)"
	}
	if p.exact[host] || p.exact[host+":"+port] {
		return true, ""
	}
	for _, s := range p.suffixes {
		sh, sp := splitHostPort(s)
		if strings.HasSuffix(host, sh) && len(host) > len(sh) && (sp == "" || sp == port) {
			return true, ""
		}
	}
	return false, "host " + host + " is not in the allowlist"
}

// AllowsAddr reports whether a resolved address may be dialled: anything
// but link-local, loopback, unspecified and multicast addresses, which are
// allowed only when listed literally (the cloud metadata service lives at
// 169.254.169.254).
func (p Policy) AllowsAddr(a netip.Addr) bool {
	a = a.Unmap()
	if p.ips[a] {
		return true
	}
	return !(a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsLoopback() || a.IsUnspecified() || a.IsMulticast())
}
