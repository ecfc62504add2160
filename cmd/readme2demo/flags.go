package main

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/pipeline"
)

// Flags that several verbs share, each defined once here.

// defaultImage is the sandbox image unless --image or R2D_IMAGE names
// another (build it from images/base).
const defaultImage = "readme2demo-base"

// addEngineFlag defines --engine (completed from the engine registry).
func addEngineFlag(cmd *cobra.Command, p *string, def, usage string) {
	cmd.Flags().StringVar(p, "engine", def, usage)
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(engines.Names(), cobra.ShellCompDirectiveNoFileComp))
}

// addOutFlag defines -o/--out, where a verb writes.
func addOutFlag(cmd *cobra.Command, p *string, def, usage string) {
	cmd.Flags().StringVarP(p, "out", "o", def, usage)
}

// addImageFlag defines --image, defaulting to R2D_IMAGE when set, else
// defaultImage.
func addImageFlag(cmd *cobra.Command, p *string, e env, usage string) {
	cmd.Flags().StringVar(p, "image", cmp.Or(e.getenv("R2D_IMAGE"), defaultImage), usage+"; R2D_IMAGE sets the default")
}

// oneArg wants exactly one positional argument, named by what.
func oneArg(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("give exactly one %s", what)
		}
		return nil
	}
}

// noArgs wants no positional argument.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q", args[0])
	}
	return nil
}

// atMostOneRepo wants at most one positional argument, REPO_DIR.
func atMostOneRepo(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		return errors.New("give at most one repository directory")
	}
	return nil
}

// networkFlags are --network and --allow-host.
type networkFlags struct {
	network    string
	allowHosts []string
}

func addNetworkFlags(cmd *cobra.Command, n *networkFlags) {
	cmd.Flags().StringVar(&n.network, "network", "", `the agent's network: "allowlist" (an internal network whose only way out is an egress proxy that allows the engine's API and the --allow-host hosts, and holds the API key), "open" (alias "bridge"), or "none". Default: allowlist for engines that use an API key, open for the keyless engines`)
	_ = cmd.RegisterFlagCompletionFunc("network", cobra.FixedCompletions(pipeline.NetworkModes, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().StringArrayVar(&n.allowHosts, "allow-host", nil, "a `host` the agent may reach under --network allowlist: a name, *.suffix or IP address, with an optional :port (repeat it, or separate hosts with commas)")
}

// resolve returns the engine's network policy and the allowed hosts.
func (n *networkFlags) resolve(engine string) (policy string, hosts []string, err error) {
	policy, err = pipeline.ParseNetwork(n.network, engine)
	if err != nil {
		return "", nil, fmt.Errorf("--network %w", err)
	}
	hosts, err = egress.ParseHosts(n.allowHosts...)
	if err != nil {
		return "", nil, fmt.Errorf("--allow-host: %w", err)
	}
	if len(hosts) > 0 && policy != pipeline.NetworkAllowlist {
		return "", nil, errors.New("--allow-host needs --network allowlist (the network is " + policy + ")")
	}
	return policy, hosts, nil
}
