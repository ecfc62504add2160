// Command readme2demo answers "does our README still work?": it runs an AI
// coding agent (or the keyless markdown engine) against a repository's README
// in a locked-down container and records every command it ran in
// command_log.json.
//
// Each verb lives in its own file and registers itself in verbs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"

	"github.com/readme2demo/readme2demo/internal/egress"
)

// env is what a verb gets from the world; tests pass their own.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

// verb is one subcommand.
type verb struct {
	summary string
	run     func(ctx context.Context, args []string, e env) int
}

var verbs = map[string]verb{}

// Exit codes shared by the verbs.
const (
	exitOK      = 0
	exitFailed  = 1 // the README did not work (run) or a check failed
	exitUsage   = 2 // bad flags, unknown engine, unreadable input
	exitBlocked = 3 // the agent could not proceed (run)
)

func main() {
	if egress.IsProxy(os.Args[0]) {
		os.Exit(egress.Main(os.Getenv, os.Stdout, os.Stderr))
	}
	// Parsing allocates many short-lived values while keeping little alive:
	// collect less often, but never let the heap pass 192 MiB.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(192 << 20)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr}))
}

func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	v, ok := verbs[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "readme2demo: unknown command %q\n\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return v.run(ctx, args[1:], e)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `readme2demo: does our README still work?

It hands a repository's README to an AI coding agent inside a fresh, locked-down
Docker container, records every command the agent ran with its output and exit
code in command_log.json, and reports the outcome and the cost.

Usage:
  readme2demo <command> [flags] [args]

Commands:
`)
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, verbs[n].summary)
	}
	fmt.Fprint(w, `
Run "readme2demo <command> --help" for a command's flags.
`)
}

// newFlagSet returns a verb's flag set, reporting to the verb's stderr.
func newFlagSet(name string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// parseFlags parses a verb's flags. done means the verb returns code now:
// 0 after --help, exitUsage after a bad flag (the flag package said why).
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	return 0, false
}
