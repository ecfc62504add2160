package egress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"syscall"
)

// ProgramName is the name the readme2demo binary is started under inside
// the proxy container: the binary is copied into the container as
// /r2d-egress/<ProgramName>, so no separate proxy image or binary has to
// exist. A main that may be run as the proxy (the CLI, the Action, and the
// TestMain of a test package that starts one) checks IsProxy first.
const ProgramName = "readme2demo-egress-proxy"

// ConfigEnv is the variable that carries the proxy's Config (JSON) into
// its exec's environment.
const ConfigEnv = "R2D_EGRESS_CONFIG"

// IsProxy reports whether a program started as arg0 (os.Args[0]) is to
// run as the proxy; its main then returns Main's status instead of doing
// its own work.
func IsProxy(arg0 string) bool { return filepath.Base(arg0) == ProgramName }

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
