package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/egress/dockerproxy"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// Network policies (Config.Network). In every one the egress proxy
// (internal/egress) holds the API key of an engine whose CLI can use a
// placeholder (engines.APIUser), so the key never enters the agent's
// container; setupNetwork says how.
const (
	// NetworkOpen is the default bridge: the agent reaches anything, and
	// its API through the proxy.
	NetworkOpen = "open"
	// NetworkNone cuts the network: the agent reaches nothing, or only its
	// API through the proxy.
	NetworkNone = "none"
	// NetworkAllowlist puts the agent on an internal network whose only way
	// out is the egress proxy: the engine's API through a reverse proxy
	// that adds the key, and the hosts in Config.AllowHosts.
	NetworkAllowlist = "allowlist"
)

// NetworkModes lists the policies, for flags and inputs.
var NetworkModes = []string{NetworkOpen, NetworkNone, NetworkAllowlist}

// DefaultNetwork is the CLI's policy when none is given: allowlist for an
// engine that uses an API key (a key to keep out of reach), open for the
// keyless engines (nothing secret enters their container, README demos
// often download packages, and open needs no Linux build of readme2demo to
// run the proxy). An unknown engine gets allowlist; its lookup fails later.
func DefaultNetwork(engine string) string {
	if e, err := engines.Lookup(engine); err == nil && len(e.RequiredEnv()) == 0 {
		return NetworkOpen
	}
	return NetworkAllowlist
}

// PlaceholderKey is what the agent gets instead of an API key the egress
// proxy holds (engines.PlaceholderKey).
const PlaceholderKey = engines.PlaceholderKey

// agentNetwork is a run's network: the sandbox's NetworkMode, the agent's
// environment, the self-test before the agent, and the proxy to remove.
type agentNetwork struct {
	policy string
	mode   string
	env    map[string]string
	test   string // bash run before the agent; "" for none
	proxy  *dockerproxy.Proxy
	hosts  []string
	held   []string // credential variables the proxy holds
	// inContainer are the credential variables in the agent's
	// environment, and why they are there.
	inContainer []string
	why         string

	mu     sync.Mutex
	denied map[string]int
	failed map[string]bool // upstreams whose error has been told
}

// rawModeWhy is why the credentials are in the container when the run
// gives a raw Docker network mode (Config.Network "").
const rawModeWhy = "the run gave a Docker network mode, not a network policy"

// setupNetwork prepares cfg.Network for the run. env is the engine's
// resolved environment (real credentials); the returned network's env is
// what the agent gets. Close it whatever the error.
//
// Whenever the engine's CLI can use a placeholder (engines.APIUser
// routes), the egress proxy holds its credentials, in every policy: under
// allowlist the agent's only way out is the proxy; under open the agent
// stays on the default bridge and reaches the proxy there for its API
// only; under none the agent's internal network reaches the proxy's API
// ports and nothing else. Credentials without a route enter the agent's
// environment as before (APIAccess.InContainer).
func setupNetwork(ctx context.Context, d sandbox.Docker, cfg Config, eng engines.AgentEngine, env map[string]string,
	runID string, deadline time.Time, red *redact.Redactor, note func(string, ...any)) (*agentNetwork, error) {
	n := &agentNetwork{policy: cfg.Network, env: maps.Clone(env), denied: map[string]int{}, failed: map[string]bool{}}
	var access engines.APIAccess
	if u, ok := eng.(engines.APIUser); ok {
		access = u.APIAccess(env)
	}
	if cfg.Network == "" {
		// The library's raw mode (tests, drift captures with a dummy
		// key): every credential stays in the agent's environment.
		n.mode = cfg.NetworkMode
		for _, r := range access.Routes {
			n.inContainer = append(n.inContainer, r.KeyVar)
		}
		n.inContainer = append(n.inContainer, access.InContainer...)
		if len(n.inContainer) > 0 {
			n.why = rawModeWhy
		}
		return n, nil
	}
	if !slices.Contains(NetworkModes, cfg.Network) {
		return n, &ConfigError{fmt.Sprintf("network %q: use %s", cfg.Network, strings.Join(NetworkModes, ", "))}
	}
	n.inContainer, n.why = access.InContainer, access.Why
	var routes []engines.APIRoute
	for _, r := range access.Routes {
		if env[r.KeyVar] != "" {
			routes = append(routes, r)
		}
	}
	if len(routes) == 0 {
		switch cfg.Network {
		case NetworkOpen:
			n.mode = "bridge"
			return n, nil
		case NetworkNone:
			n.mode = "none"
			n.test = egress.SelfTest{}.Script()
			return n, nil
		}
	}

	var ecfg egress.Config
	if cfg.Network == NetworkAllowlist {
		user, err := egress.ParseHosts(cfg.AllowHosts...)
		if err != nil {
			return n, &ConfigError{err.Error()}
		}
		if len(access.Hosts) == 0 && access.HostsFrom != "" && len(user) == 0 {
			return n, &ConfigError{fmt.Sprintf("network allowlist: cannot tell the API host of %s from %s: list it with --allow-host (allow-hosts)",
				eng.Name(), access.HostsFrom)}
		}
		ecfg.Allow = append(append(ecfg.Allow, user...), access.Hosts...)
	}
	ed, ok := d.(dockerproxy.Docker)
	if !ok {
		return n, &ConfigError{"network " + cfg.Network + " needs a Docker client that manages networks (for the egress proxy)"}
	}
	bin, err := dockerproxy.ResolveBinary(cfg.EgressBinary, cfg.Getenv)
	if err != nil {
		return n, &ConfigError{err.Error()}
	}
	bases := make([]string, len(routes))
	for i, r := range routes {
		bases[i] = cmp.Or(env[r.BaseVar], r.DefaultBase)
		ecfg.Upstreams = append(ecfg.Upstreams, egress.Upstream{
			Name: r.API, URL: bases[i], Header: r.Header, Value: r.Prefix + env[r.KeyVar], QueryParam: r.Query,
		})
	}
	n.hosts = ecfg.Allow

	// Leftover containers first, so their networks can go too.
	_, _ = sandbox.Sweep(ctx, d, time.Now())
	p, err := dockerproxy.Setup(ctx, ed, dockerproxy.Options{
		RunID: runID, Image: cfg.Image, Binary: bin, Config: ecfg, Deadline: deadline, ExtraHosts: cfg.ExtraHosts,
		OnEvent: func(e egress.Event) {
			if e.Event == "error" {
				// The first failure between the proxy and each API or
				// host (a stream cut off, a refused connection) is told:
				// the agent's own error may not say where it broke.
				who := cmp.Or(e.Name, e.Host)
				n.mu.Lock()
				first := !n.failed[who]
				n.failed[who] = true
				n.mu.Unlock()
				if first {
					note("egress: %s: %s", red.String(who), red.String(strings.TrimPrefix(e.Reason, "httputil: ")))
				}
				return
			}
			if e.Event != "deny" {
				return
			}
			n.mu.Lock()
			n.denied[e.Host]++
			first := n.denied[e.Host] == 1
			n.mu.Unlock()
			if first {
				note("egress: refused %s: %s", red.String(e.Host), red.String(e.Reason))
			}
		},
	})
	n.proxy = p
	if err != nil {
		return n, fmt.Errorf("set up network %s: %w", cfg.Network, err)
	}

	upstream := p.UpstreamURL
	if cfg.Network == NetworkOpen {
		if p.BridgeIP == "" {
			return n, &dockerproxy.SetupError{Reason: "the proxy container has no address on Docker's default bridge"}
		}
		upstream = p.BridgeUpstreamURL
	}
	for i, r := range routes {
		n.env[r.KeyVar] = r.PlaceholderValue()
		n.env[r.BaseVar] = upstream(i, bases[i])
		n.held = append(n.held, r.KeyVar)
	}

	switch cfg.Network {
	case NetworkOpen:
		// The agent keeps its own route to every host; only its API goes
		// through the proxy, on the bridge.
		n.mode = "bridge"
		if len(routes) > 0 {
			n.test = egress.SelfTest{Open: true, ProxyIP: p.BridgeIP, Upstream: egress.UpstreamPort}.Script()
		}
		return n, nil
	case NetworkNone:
		// The internal network reaches the proxy's API ports; no proxy
		// variables: nothing else is reachable.
		n.mode = p.Network
		maps.Copy(n.env, access.Quiet)
		n.test = egress.SelfTest{ProxyIP: p.IP, Upstream: egress.UpstreamPort}.Script()
		return n, nil
	}

	n.mode = p.Network
	fwd := p.ForwardURL()
	noProxy := "localhost,127.0.0.1,::1," + p.IP
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		n.env[k] = fwd
	}
	n.env["NO_PROXY"], n.env["no_proxy"] = noProxy, noProxy
	n.env["NODE_USE_ENV_PROXY"] = "1" // Node ≥ 24's fetch honours the proxy variables only with this
	maps.Copy(n.env, access.Quiet)

	st := egress.SelfTest{ProxyIP: p.IP}
	if len(routes) > 0 {
		st.Upstream = egress.UpstreamPort
	} else {
		for _, h := range ecfg.Allow {
			if !strings.HasPrefix(h, "*.") {
				if !strings.Contains(strings.TrimPrefix(h, "["), ":") || strings.HasSuffix(h, "]") {
					h += ":443"
				}
				st.Listed = h
				break
			}
		}
	}
	n.test = st.Script()
	return n, nil
}

// command puts the self-test before the agent's command.
func (n *agentNetwork) command(agent string) string {
	if n.test == "" {
		return agent
	}
	return n.test + agent
}

// describe is the progress line about the network.
func (n *agentNetwork) describe() string {
	held := ""
	if len(n.held) > 0 {
		held = "; the proxy holds " + strings.Join(n.held, ", ") + " (the agent has a placeholder)"
	}
	switch {
	case n.proxy != nil && n.policy == NetworkOpen:
		return fmt.Sprintf("network open: the agent reaches any host, and its API through the egress proxy %s%s", n.proxy.BridgeIP, held)
	case n.proxy != nil && n.policy == NetworkNone:
		return fmt.Sprintf("network none: the agent reaches nothing but its API, through the egress proxy %s on an internal network%s", n.proxy.IP, held)
	case n.proxy != nil:
		hosts := "nothing else"
		if len(n.hosts) > 0 {
			hosts = strings.Join(n.hosts, ", ")
		}
		return fmt.Sprintf("network allowlist: internal network, egress proxy %s allows %s%s", n.proxy.IP, hosts, held)
	case n.mode == "none":
		return "network none: the agent has no network"
	default:
		return "network open: the agent reaches any host"
	}
}

// keyWarning is the progress warning about credentials in the agent's
// environment; "" when there are none.
func (n *agentNetwork) keyWarning() string {
	if len(n.inContainer) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: %s in the agent's environment (%s): a README can read it, and only redaction guards what is published",
		strings.Join(n.inContainer, ", "), n.why)
}

// check fails the run when the self-test did.
func (n *agentNetwork) check(res *sandbox.Result) error {
	if n.test == "" || res.ExitCode == nil || *res.ExitCode != egress.SelfTestExit {
		return nil
	}
	_, err := egress.CheckSelfTest(res.Output)
	return err
}

// deniedSummary lists the refused hosts, most often first.
func (n *agentNetwork) deniedSummary() string {
	hosts := n.deniedHosts()
	n.mu.Lock()
	defer n.mu.Unlock()
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = h + " ×" + strconv.Itoa(n.denied[h])
	}
	return strings.Join(parts, ", ")
}

// deniedHosts lists the hosts the proxy refused, most often first.
func (n *agentNetwork) deniedHosts() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	hosts := make([]string, 0, len(n.denied))
	for h := range n.denied {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool {
		if n.denied[hosts[i]] != n.denied[hosts[j]] {
			return n.denied[hosts[i]] > n.denied[hosts[j]]
		}
		return hosts[i] < hosts[j]
	})
	return hosts
}

// networkOf names the policy of a raw network mode (Config.Network "").
func networkOf(mode string) string {
	switch mode {
	case "none":
		return NetworkNone
	case "", "bridge", "default":
		return NetworkOpen
	}
	return NetworkAllowlist
}

// close removes the proxy and the internal network.
func (n *agentNetwork) close() error {
	if n == nil || n.proxy == nil {
		return nil
	}
	return n.proxy.Close()
}
