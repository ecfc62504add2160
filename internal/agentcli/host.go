package agentcli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// CLIDir is where CLI versions are installed on the host: $R2D_CLI_DIR, or
// <repoRoot>/.cache/cli. One prefix per CLI version lives under it.
func CLIDir(getenv func(string) string, repoRoot string) string {
	return cmp.Or(getenv("R2D_CLI_DIR"), filepath.Join(repoRoot, ".cache", "cli"))
}

// Prefix is the install prefix of a version under cliDir:
// <cliDir>/<Name>-<version>.
func (c CLI) Prefix(cliDir, version string) string {
	return filepath.Join(cliDir, c.Name+"-"+version)
}

// Binary is where the executable of a version installed under cliDir is:
// <prefix>/node_modules/.bin/<Bin> (npm), <prefix>/bin/<Bin> (a PyPI venv).
func (c CLI) Binary(cliDir, version string) string {
	if c.Registry == PyPI {
		return filepath.Join(c.Prefix(cliDir, version), "bin", c.Bin)
	}
	return filepath.Join(c.Prefix(cliDir, version), "node_modules", ".bin", c.Bin)
}

// InstallCommand is the shell command that installs version where Binary
// looks, for error messages and docs.
func (c CLI) InstallCommand(cliDir, version string) string {
	p := c.Prefix(cliDir, version)
	if c.Registry == PyPI {
		return fmt.Sprintf("python3 -m venv %s && %s install %s==%s", p, filepath.Join(p, "bin", "pip"), c.Package, version)
	}
	return fmt.Sprintf("npm install --prefix %s %s@%s", p, c.Package, version)
}

// Commander runs a program and returns its standard output; tests inject one.
type Commander func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecCommander runs a program with os/exec; its stderr is folded into the
// error.
func ExecCommander(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, clip(strings.TrimSpace(stderr.String()), 400))
	}
	return stdout.Bytes(), nil
}

// Install installs version under cliDir (see Prefix) with run: npm install
// --prefix for npm packages, a venv and pip for PyPI ones.
func (c CLI) Install(ctx context.Context, run Commander, cliDir, version string) error {
	if !ValidVersion(version) {
		return fmt.Errorf("install %s: %q is not a version like 1.2.3", c.Package, version)
	}
	p := c.Prefix(cliDir, version)
	var err error
	if c.Registry == PyPI {
		if _, err = run(ctx, "python3", "-m", "venv", p); err == nil {
			_, err = run(ctx, filepath.Join(p, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check",
				c.Package+"=="+version)
		}
	} else {
		_, err = run(ctx, "npm", "install", "--prefix", p, "--no-fund", "--no-audit", "--no-save",
			"--loglevel=error", c.Package+"@"+version)
	}
	if err != nil {
		return fmt.Errorf("install %s@%s: %w", c.Package, version, err)
	}
	return nil
}
