// Command action is the readme2demo GitHub Action's entry point: it reads
// the Action's inputs (INPUT_* variables), masks every secret, runs the
// shared pipeline (engine → sandbox → parse → redact → command_log.json),
// then sets the step outputs, writes the job summary, annotates failed
// README commands, keeps one PR comment up to date, and exits by the
// fail-on policy.
//
// Run outside Actions (no GITHUB_OUTPUT / GITHUB_STEP_SUMMARY) it is a CLI:
// it prints the report to stdout and never touches the Actions files.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is main with the world passed in.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return defaultApp().run(ctx, args, getenv, stdout, stderr)
}
