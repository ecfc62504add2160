package engines

// How an engine's CLI reaches its LLM API, so that the run can keep the
// API key out of the agent's container: the egress proxy
// (internal/egress) holds the key and the CLI gets a placeholder and a
// base URL that points at the proxy. Each engine declares its own routes
// in its file (APIUser); internal/pipeline builds the network from them.

// PlaceholderKey is what the agent gets in a key variable the egress proxy
// holds: any request made with it outside the proxy fails, and it is no
// secret.
const PlaceholderKey = "readme2demo-placeholder-the-egress-proxy-adds-the-real-key"

// APIRoute is one credential the egress proxy can hold: the CLI reads the
// key from KeyVar and the API's base URL from BaseVar, so the run gives it
// Placeholder and the proxy's address; the proxy sends every request on
// to the real base URL (BaseVar's value, else DefaultBase) with the key
// in Header (after Prefix), and in the Query parameter when the CLI sent
// one.
type APIRoute struct {
	API         string // for logs: "anthropic", "openai", "gemini"
	KeyVar      string
	BaseVar     string
	DefaultBase string
	Header      string
	Prefix      string // e.g. "Bearer "
	Query       string // "" for none
	Placeholder string // "" means PlaceholderKey
}

// PlaceholderValue is what the agent gets in KeyVar.
func (r APIRoute) PlaceholderValue() string {
	if r.Placeholder != "" {
		return r.Placeholder
	}
	return PlaceholderKey
}

// APIAccess is how an engine's CLI reaches its API with the credentials
// ResolveEnv returned.
type APIAccess struct {
	// Routes are the credentials the egress proxy holds, in ResolveEnv's
	// order of preference.
	Routes []APIRoute
	// InContainer names the credential variables that enter the agent's
	// environment: its CLI cannot use them through the proxy, or has not
	// been shown to. Why says which, for the report's warning.
	InContainer []string
	Why         string
	// Hosts are the API hosts the agent reaches itself, with the key in
	// its environment (InContainer): network allowlist lists them. Empty
	// when they cannot be told; HostsFrom then names what was read.
	Hosts     []string
	HostsFrom string
	// Quiet is environment for the CLI when it reaches nothing but its
	// API (network allowlist and none): it stops the CLI's own traffic to
	// other hosts (telemetry, update checks).
	Quiet map[string]string
}

// APIUser is an engine whose CLI calls an LLM API with the credentials
// ResolveEnv returns. The keyless engines are not.
type APIUser interface {
	// APIAccess describes how the CLI reaches its API, for env (what
	// ResolveEnv returned). It reads nothing else.
	APIAccess(env map[string]string) APIAccess
}
