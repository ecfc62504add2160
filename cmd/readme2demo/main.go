// Command readme2demo answers "does our README still work?": it runs an AI
// coding agent (or the keyless markdown engine) against a repository's README
// in a locked-down container and records every command it ran in
// command_log.json.
//
// The command line is spf13/cobra's. Each verb lives in its own file as a
// constructor, newXCmd(e env) *cobra.Command, added in newRootCmd; flags
// that several verbs share are defined once in flags.go. A verb's RunE
// prints its own errors and returns exitWith(status); errors cobra finds
// (a bad flag, a wrong number of arguments, an unknown verb) exit 2.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// env is what a verb gets from the world; tests pass their own.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	// drift is what the drift verb reaches outside the process; nil means
	// the real Docker daemon, programs and parsers (realDriftDeps).
	drift *driftDeps
}

func main() {
	if egress.IsProxy(os.Args[0]) {
		os.Exit(egress.Main(os.Getenv, os.Stdout, os.Stderr))
	}
	if sandbox.IsMeter(os.Args[0]) {
		os.Exit(sandbox.MeterMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	// Parsing allocates many short-lived values while keeping little alive:
	// collect less often, but never let the heap pass 192 MiB.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(192 << 20)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr}))
}

// run runs the command line args and returns the exit status
// (internal/exitcode).
func run(ctx context.Context, args []string, e env) int {
	return execute(ctx, newRootCmd(e), args, e)
}

// execute runs root on args and maps the outcome to an exit status.
func execute(ctx context.Context, root *cobra.Command, args []string, e env) int {
	if len(args) == 0 {
		_ = root.Help() // no command given
		return exitcode.Usage
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	var status exitError
	switch {
	case err == nil:
		return exitcode.OK
	case errors.As(err, &status):
		return int(status)
	}
	fmt.Fprintf(e.stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
	return exitcode.Usage
}

func newRootCmd(e env) *cobra.Command {
	root := &cobra.Command{
		Use:   "readme2demo",
		Short: "does our README still work?",
		Long: `readme2demo: does our README still work?

It hands a repository's README to an AI coding agent inside a fresh, locked-down
Docker container, records every command the agent ran with its output and exit
code in command_log.json, and reports the outcome and the cost.

Exit status: 0 success, 1 failed, 2 bad flags or configuration, 3 blocked
(each command's --help says what its statuses mean).`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.AddCommand(
		newRunCmd(e),
		newPlanCmd(e),
		newParseCmd(e),
		newReportCmd(e),
		newDemoCmd(e),
		newDriftCmd(e),
		newPinCmd(e),
		newSuggestCmd(e),
	)
	return root
}

// exitError is a verb's exit status; the verb has said why already.
type exitError int

func (s exitError) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// exitWith turns a verb's exit status into its RunE result.
func exitWith(status int) error {
	if status == exitcode.OK {
		return nil
	}
	return exitError(status)
}
