// Command action is the readme2demo GitHub Action's entry point
// (internal/action holds its logic). Started as the egress proxy
// (internal/egress) it serves as the proxy instead.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/readme2demo/readme2demo/internal/action"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

func main() {
	if egress.IsProxy(os.Args[0]) {
		os.Exit(egress.Main(os.Getenv, os.Stdout, os.Stderr))
	}
	if sandbox.IsMeter(os.Args[0]) {
		os.Exit(sandbox.MeterMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(action.Run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}
