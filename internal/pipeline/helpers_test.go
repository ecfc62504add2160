package pipeline_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/readme2demo/readme2demo/internal/commandlog"

	"github.com/docker/docker/client"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"

	"gotest.tools/v3/assert"
)

// treeHash hashes every path, mode, modification time, symlink target and
// file content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00" + info.ModTime().String() + "\x00"))
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			h.Write([]byte(l))
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	assert.NilError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

// startMock starts the scripted mock LLM on the Docker bridge's gateway,
// where the sandbox reaches the host, until the test ends.
func startMock(ctx context.Context, t *testing.T, cli *client.Client, sc scriptedllm.Scenario) *scriptedllm.Server {
	t.Helper()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	srv, err := scriptedllm.Start(gw+":0", sc)
	assert.NilError(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// sandboxCmd is what the end-to-end tests compare per command.
type sandboxCmd struct {
	Command string
	Exit    int
	Status  commandlog.Status
	Line    int
}

// sandboxCmds lists a log's commands as sandboxCmd; each must have an exit code.
func sandboxCmds(t *testing.T, l *commandlog.Log) []sandboxCmd {
	t.Helper()
	var got []sandboxCmd
	for _, c := range l.Commands {
		assert.Assert(t, c.ExitCode != nil, "command %q has no exit code", c.Command)
		line := 0
		if c.Source != nil {
			line = c.Source.Line
		}
		got = append(got, sandboxCmd{c.Command, *c.ExitCode, c.Status, line})
	}
	return got
}
