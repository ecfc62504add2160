// Package clitest finds an installed agent CLI for a test that runs the real
// one. Such tests take seconds each, so they are long tests (longtest): a
// plain `go test ./...` skips them, CI runs them. Imported by tests only.
package clitest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/readme2demo/readme2demo/internal/agentcli"
	"github.com/readme2demo/readme2demo/internal/longtest"
)

// Require returns the CLI of engine, the absolute directory its versions are
// installed under ($R2D_CLI_DIR or <repoRoot>/.cache/cli) and the binary of
// version there. It skips t unless long tests run; when the version is not
// installed it fails t in CI (CI=true) and skips it elsewhere, with the
// command that installs it.
func Require(t testing.TB, engine, version, repoRoot string) (cli agentcli.CLI, dir, bin string) {
	t.Helper()
	longtest.Require(t)
	return Find(t, engine, version, repoRoot)
}

// Find is Require for a run asked for explicitly (a capture of fixtures):
// it does not wait for long tests to be on.
func Find(t testing.TB, engine, version, repoRoot string) (cli agentcli.CLI, dir, bin string) {
	t.Helper()
	cli, err := agentcli.Lookup(engine)
	if err != nil {
		t.Fatal(err)
	}
	dir, err = filepath.Abs(agentcli.CLIDir(os.Getenv, repoRoot))
	if err != nil {
		t.Fatal(err)
	}
	bin = cli.Binary(dir, version)
	if _, err := os.Stat(bin); err != nil {
		msg := cli.Name + " " + version + " not installed at " + bin + "; install it with: " + cli.InstallCommand(dir, version)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return cli, dir, bin
}
