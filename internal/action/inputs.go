package action

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/devcontainer"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// Comment modes (input `comment`).
const (
	commentAlways    = "always"
	commentOnFailure = "on-failure"
	commentNever     = "never"
)

// Fix modes (input `fix`): what becomes of the agent's README edit.
const (
	fixSuggest     = "suggest"      // a review of suggested changes on the pull request
	fixPullRequest = "pull-request" // a verified fix pull request (schedule, push)
	fixOff         = "off"
)

// defaultFixBranch is the branch of the fix pull request.
const defaultFixBranch = "readme2demo/fix-readme"

// config is the Action's inputs, validated.
type config struct {
	Engine       string
	Readme       string
	WorkDir      string // repository directory the README belongs to
	Model        string
	MaxTurns     int
	MaxCostUSD   float64
	Timeout      time.Duration
	Image        string
	Devcontainer bool              // image: devcontainer (Image is then the base the CLI comes from)
	Sandbox      string            // the sandbox profile: dev or strict
	Resources    sandbox.Resources // disk, memory, cpus, pids (zero: the profile's defaults)
	Network      string            // a pipeline.Network* policy
	AllowHosts   []string          // under allowlist: the allow-hosts input, parsed
	Order        string            // the markdown engine's run order ("" = the README's)
	Comment      string
	FailOn       failOn
	GitHubToken  string
	Fix          string // a fix* mode; "" means suggest on pull requests, off otherwise
	FixBranch    string
	OutDir       string
	ArtifactName string
}

// InputError is one bad input; several are joined with errors.Join.
type InputError struct {
	Input  string
	Reason string
}

func (e *InputError) Error() string { return fmt.Sprintf("input %s: %s", e.Input, e.Reason) }

// inputReader reads an input the way both kinds of runner pass it:
// INPUT_MAX_TURNS (what action.yml sets for the composite step) or
// INPUT_MAX-TURNS (what the runner sets for JavaScript and Docker actions).
type inputReader func(string) string

func newInputReader(getenv func(string) string) inputReader {
	return func(name string) string {
		up := strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
		if v := strings.TrimSpace(getenv("INPUT_" + strings.ReplaceAll(up, "-", "_"))); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("INPUT_" + up))
	}
}

// parseConfig validates every input and reports all problems at once.
func parseConfig(in inputReader, getenv func(string) string) (config, error) {
	var errs []error
	bad := func(input, format string, a ...any) {
		errs = append(errs, &InputError{Input: input, Reason: fmt.Sprintf(format, a...)})
	}
	c := config{
		Engine:       cmp.Or(in("engine"), engines.Default()),
		Readme:       cmp.Or(in("readme"), "README.md"),
		Model:        in("model"),
		Image:        in("image"),
		Order:        in("order"),
		Comment:      cmp.Or(in("comment"), commentAlways),
		GitHubToken:  in("github-token"),
		Fix:          in("fix"),
		FixBranch:    cmp.Or(in("fix-branch"), defaultFixBranch),
		ArtifactName: cmp.Or(in("artifact-name"), "readme2demo"),
	}
	c.WorkDir = cmp.Or(in("working-directory"), ".")
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" && !filepath.IsAbs(c.WorkDir) {
		c.WorkDir = filepath.Join(ws, c.WorkDir)
	}
	c.OutDir = in("output-dir")
	if c.OutDir == "" {
		if tmp := getenv("RUNNER_TEMP"); tmp != "" {
			c.OutDir = filepath.Join(tmp, "readme2demo")
		} else {
			c.OutDir = "readme2demo-out"
		}
	}
	if filepath.IsAbs(c.Readme) || strings.HasPrefix(filepath.Clean(c.Readme), "..") {
		bad("readme", "%q must be a path inside the working directory", c.Readme)
	}
	if v := in("max-turns"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			bad("max-turns", "%q is not a positive whole number", v)
		}
		c.MaxTurns = n
	}
	if v := in("max-cost-usd"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			bad("max-cost-usd", "%q is not a positive number of dollars", v)
		}
		c.MaxCostUSD = f
	}
	if v := in("timeout-minutes"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			bad("timeout-minutes", "%q is not a positive number of minutes", v)
		}
		c.Timeout = time.Duration(f * float64(time.Minute))
	}
	if c.Image == devcontainer.ImageFlag {
		// The composite action pulls or builds the base image (with the
		// engine's CLI) and names it in INPUT_BASE_IMAGE for the run (the
		// validate step runs before it exists).
		c.Devcontainer, c.Image = true, in("base-image")
	}
	c.Sandbox = cmp.Or(in("sandbox"), sandbox.DefaultProfile)
	if err := sandbox.CheckProfile(c.Sandbox); err != nil {
		bad("sandbox", "%q is not %s", c.Sandbox, strings.Join(sandbox.Profiles, " or "))
	}
	for _, sz := range []struct {
		input string
		dst   *int64
	}{{"disk", &c.Resources.Disk}, {"memory", &c.Resources.Memory}} {
		if v := in(sz.input); v != "" {
			n, err := sandbox.ParseSize(v)
			if err != nil {
				bad(sz.input, "%v", err)
			}
			*sz.dst = n
		}
	}
	if v := in("cpus"); v != "" {
		n, err := sandbox.ParseCPUs(v)
		if err != nil {
			bad("cpus", "%v", err)
		}
		c.Resources.NanoCPUs = n
	}
	for _, n := range []struct {
		input string
		dst   *int64
	}{{"pids", &c.Resources.PidsLimit}, {"inodes", &c.Resources.Inodes}} {
		if v := in(n.input); v != "" {
			k, err := strconv.ParseInt(v, 10, 64)
			if err != nil || k < 1 {
				bad(n.input, "%q is not a positive whole number", v)
			}
			*n.dst = k
		}
	}
	network, err := pipeline.ParseNetwork(cmp.Or(in("network"), pipeline.NetworkAllowlist), c.Engine)
	if err != nil {
		bad("network", "%v", err)
	}
	if c.Order != "" && !slices.Contains(plan.Orders, c.Order) {
		bad("order", "%q is not %s", c.Order, strings.Join(plan.Orders, " or "))
	}
	c.Network = network
	hosts, err := egress.ParseHosts(in("allow-hosts"))
	if err != nil {
		bad("allow-hosts", "%v", err)
	}
	if network == pipeline.NetworkAllowlist {
		c.AllowHosts = hosts
	}
	switch c.Comment {
	case commentAlways, commentOnFailure, commentNever:
	default:
		bad("comment", "%q is not always, on-failure or never", c.Comment)
	}
	switch c.Fix {
	case "", fixSuggest, fixPullRequest, fixOff:
	default:
		bad("fix", "%q is not suggest, pull-request or off", c.Fix)
	}
	if !validBranch(c.FixBranch) {
		bad("fix-branch", "%q is not a branch name", c.FixBranch)
	}
	f, err := parseFailOn(cmp.Or(in("fail-on"), defaultFailOn))
	if err != nil {
		errs = append(errs, err)
	}
	c.FailOn = f
	return c, errors.Join(errs...)
}

// validBranch reports whether name is a plain git branch name (git
// check-ref-format's rules, less its rarer corners).
func validBranch(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") ||
		strings.HasPrefix(name, "-") || strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	return true
}
