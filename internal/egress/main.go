package egress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// ProgramName is the name the readme2demo binary is started under inside
// the proxy container. Any binary that links this package (the CLI, the
// Action, a test binary) acts as the proxy when started under that name:
// the binary is copied into the container as /r2d-egress/<ProgramName>, so
// no separate proxy image or binary has to exist.
const ProgramName = "readme2demo-egress-proxy"

// ConfigEnv is the variable that carries the proxy's Config (JSON) into
// its exec's environment.
const ConfigEnv = "R2D_EGRESS_CONFIG"

func init() {
	if len(os.Args) > 0 && filepath.Base(os.Args[0]) == ProgramName {
		os.Exit(Main(os.Getenv, os.Stdout, os.Stderr))
	}
}

// Main runs the proxy: it reads the Config from ConfigEnv, listens on every
// address, writes one JSON Event per line to stdout ("ready" first) and
// serves until SIGTERM or SIGINT. It returns the exit status.
func Main(getenv func(string) string, stdout, stderr io.Writer) int {
	var cfg Config
	if err := json.Unmarshal([]byte(getenv(ConfigEnv)), &cfg); err != nil {
		fmt.Fprintf(stderr, "%s: read config from %s: %v\n", ProgramName, ConfigEnv, err)
		return 2
	}
	s, err := NewServer(cfg, jsonLog(stdout))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ProgramName, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := s.Serve(ctx, ""); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ProgramName, err)
		return 1
	}
	return 0
}
