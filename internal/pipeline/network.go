package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
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

// Network policies (Config.Network).
const (
	// NetworkOpen is the default bridge: the agent reaches anything.
	NetworkOpen = "open"
	// NetworkNone cuts the network: only for agents that need no API (the
	// keyless engines).
	NetworkNone = "none"
	// NetworkAllowlist puts the agent on an internal network whose only way
	// out is the egress proxy (internal/egress): the engine's API through a
	// reverse proxy that adds the key, and the hosts in Config.AllowHosts.
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

// PlaceholderKey is what the agent gets instead of its API key under
// allowlist when the proxy adds the real one: any request the agent makes
// with it outside the proxy fails, and it is no secret.
const PlaceholderKey = "readme2demo-placeholder-the-egress-proxy-adds-the-real-key"

// credentialRoute says how the proxy can hold one engine credential: the
// variable with the key, the variable with the API's base URL and its
// default, and the header (with a value prefix) that carries the key.
type credentialRoute struct {
	name, keyVar, baseVar, defaultBase, header, prefix, query string
	placeholder                                               string // "" means PlaceholderKey
}

// credentialRoutes are the engines whose CLI takes a base URL and a key
// from the environment, so the key can stay outside the container.
var credentialRoutes = map[string][]credentialRoute{
	engines.ClaudeCodeName: {
		{name: "anthropic", keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL", defaultBase: "https://api.anthropic.com", header: "x-api-key"},
		{name: "anthropic", keyVar: "CLAUDE_CODE_OAUTH_TOKEN", baseVar: "ANTHROPIC_BASE_URL", defaultBase: "https://api.anthropic.com", header: "Authorization", prefix: "Bearer ",
			placeholder: "sk-ant-oat01-" + PlaceholderKey},
	},
	engines.CodexName: {
		{name: "openai", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL", defaultBase: "https://api.openai.com/v1", header: "Authorization", prefix: "Bearer "},
		{name: "openai", keyVar: "CODEX_API_KEY", baseVar: "OPENAI_BASE_URL", defaultBase: "https://api.openai.com/v1", header: "Authorization", prefix: "Bearer "},
	},
	engines.GeminiName: {
		{name: "gemini", keyVar: "GEMINI_API_KEY", baseVar: "GOOGLE_GEMINI_BASE_URL", defaultBase: "https://generativelanguage.googleapis.com", header: "x-goog-api-key", query: "key"},
	},
}

// directAPIHosts are the API hosts listed for engines whose key must enter
// the container (OpenHands' LiteLLM, Gemini on Vertex AI): by the base-URL
// variable when set, else by the model's provider prefix.
var directAPIHosts = map[string]struct {
	baseVar string
	byModel map[string]string // provider prefix of LLM_MODEL → host
	modelV  string
	always  []string
}{
	engines.OpenHandsName: {baseVar: "LLM_BASE_URL", modelV: "LLM_MODEL", byModel: map[string]string{
		"anthropic/": "api.anthropic.com", "openai/": "api.openai.com", "gemini/": "generativelanguage.googleapis.com",
	}},
	engines.GeminiName: {always: []string{"*.googleapis.com"}},
}

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

	mu     sync.Mutex
	denied map[string]int
}

// setupNetwork prepares cfg.Network for the run. env is the engine's
// resolved environment (real credentials); the returned network's env is
// what the agent gets. Close it whatever the error.
func setupNetwork(ctx context.Context, d sandbox.Docker, cfg Config, eng engines.AgentEngine, env map[string]string,
	runID string, deadline time.Time, red *redact.Redactor, note func(string, ...any)) (*agentNetwork, error) {
	n := &agentNetwork{policy: cfg.Network, env: maps.Clone(env), denied: map[string]int{}}
	switch cfg.Network {
	case "":
		n.mode = cfg.NetworkMode
		return n, nil
	case NetworkOpen:
		n.mode = "bridge"
		return n, nil
	case NetworkNone:
		n.mode = "none"
		n.test = egress.SelfTest{}.Script()
		return n, nil
	case NetworkAllowlist:
	default:
		return n, &ConfigError{fmt.Sprintf("network %q: use %s", cfg.Network, strings.Join(NetworkModes, ", "))}
	}
	user, err := egress.ParseHosts(cfg.AllowHosts...)
	if err != nil {
		return n, &ConfigError{err.Error()}
	}
	ed, ok := d.(dockerproxy.Docker)
	if !ok {
		return n, &ConfigError{"network allowlist needs a Docker client that manages networks"}
	}
	bin, err := dockerproxy.ResolveBinary(cfg.EgressBinary, cfg.Getenv)
	if err != nil {
		return n, &ConfigError{err.Error()}
	}

	var ecfg egress.Config
	ecfg.Allow = append(ecfg.Allow, user...)
	type route struct {
		r    credentialRoute
		base string
	}
	var routes []route
	for _, r := range credentialRoutes[eng.Name()] {
		if env[r.keyVar] == "" {
			continue
		}
		base := cmp.Or(env[r.baseVar], r.defaultBase)
		routes = append(routes, route{r, base})
		ecfg.Upstreams = append(ecfg.Upstreams, egress.Upstream{
			Name: r.name, URL: base, Header: r.header, Value: r.prefix + env[r.keyVar], QueryParam: r.query,
		})
	}
	if len(routes) == 0 {
		hosts, err := apiHosts(eng.Name(), env)
		if err != nil {
			return n, err
		}
		ecfg.Allow = append(ecfg.Allow, hosts...)
	}
	n.hosts = ecfg.Allow

	// Leftover containers first, so their networks can go too.
	_, _ = sandbox.Sweep(ctx, d, time.Now())
	p, err := dockerproxy.Setup(ctx, ed, dockerproxy.Options{
		RunID: runID, Image: cfg.Image, Binary: bin, Config: ecfg, Deadline: deadline,
		OnEvent: func(e egress.Event) {
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
		return n, fmt.Errorf("set up network allowlist: %w", err)
	}
	n.mode = p.Network

	for i, rt := range routes {
		n.env[rt.r.keyVar] = cmp.Or(rt.r.placeholder, PlaceholderKey)
		n.env[rt.r.baseVar] = p.UpstreamURL(i, rt.base)
		n.held = append(n.held, rt.r.keyVar)
	}
	fwd := p.ForwardURL()
	noProxy := "localhost,127.0.0.1,::1," + p.IP
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		n.env[k] = fwd
	}
	n.env["NO_PROXY"], n.env["no_proxy"] = noProxy, noProxy
	n.env["NODE_USE_ENV_PROXY"] = "1" // Node ≥ 24's fetch honours the proxy variables only with this
	if eng.Name() == engines.ClaudeCodeName {
		n.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1" // no telemetry hosts to allow
	}

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

// apiHosts are the hosts to list for an engine whose key enters the
// container.
func apiHosts(engine string, env map[string]string) ([]string, error) {
	spec, ok := directAPIHosts[engine]
	if !ok {
		return nil, nil // keyless engines: only what the user lists
	}
	hosts := append([]string(nil), spec.always...)
	if spec.baseVar != "" && env[spec.baseVar] != "" {
		u, err := url.Parse(env[spec.baseVar])
		if err != nil || u.Host == "" {
			return nil, &ConfigError{fmt.Sprintf("%s is not a URL: cannot list its host for network allowlist", spec.baseVar)}
		}
		return append(hosts, u.Host), nil
	}
	if spec.modelV != "" {
		m := env[spec.modelV]
		for prefix, h := range spec.byModel {
			if strings.HasPrefix(m, prefix) {
				return append(hosts, h), nil
			}
		}
		if len(hosts) == 0 {
			return nil, &ConfigError{fmt.Sprintf("network allowlist: cannot tell the API host of %s from %s=%q: list it with --allow-host (allow-hosts)", engine, spec.modelV, m)}
		}
	}
	return hosts, nil
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
	switch {
	case n.proxy != nil:
		hosts := "nothing else"
		if len(n.hosts) > 0 {
			hosts = strings.Join(n.hosts, ", ")
		}
		held := ""
		if len(n.held) > 0 {
			held = "; the proxy holds " + strings.Join(n.held, ", ") + " (the agent has a placeholder)"
		}
		return fmt.Sprintf("network allowlist: internal network, egress proxy %s allows %s%s", n.proxy.IP, hosts, held)
	case n.mode == "none":
		return "network none: the agent has no network"
	default:
		return "network open: the agent reaches any host"
	}
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
