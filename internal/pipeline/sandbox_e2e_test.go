package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// The sandbox as a README meets it, through the real pipeline, the real
// image and the keyless markdown engine (no LLM): what works on a
// developer's machine works in the dev profile; the strict profile and the
// limits are named as such, never blamed on the README.

// markdownRun runs readme (a README's text) with the markdown engine and
// returns the command log.
func markdownRun(t *testing.T, readme string, edit func(*pipeline.Config)) *commandlog.Log {
	t.Helper()
	cli, img := sandboxtest.Docker(t)
	repo := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte(readme), 0o644))
	cfg := pipeline.Config{
		Engine: engines.MarkdownName, RepoDir: repo, Image: img, OutDir: t.TempDir(),
		Network: pipeline.NetworkOpen, Limits: engines.Limits{Timeout: 8 * time.Minute},
		Docker: cli,
	}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	res, err := pipeline.Run(ctx, cfg)
	assert.NilError(t, err)
	data, err := os.ReadFile(res.CommandLog)
	assert.NilError(t, err)
	l, err := commandlog.Decode(strings.NewReader(string(data)))
	assert.NilError(t, err)
	return l
}

// commandByText finds the command whose text starts with prefix.
func commandByText(t *testing.T, l *commandlog.Log, prefix string) commandlog.Command {
	t.Helper()
	for _, c := range l.Commands {
		if strings.HasPrefix(c.Command, prefix) {
			return c
		}
	}
	t.Fatalf("no command %q in %v", prefix, l.Commands)
	return commandlog.Command{}
}

// devReadme is what READMEs ask of a developer's machine: apt through
// sudo, `make install` into /usr/local/bin, a big file in /tmp, `go install`
// of a real module, a Python venv with pip.
const devReadme = "# a developer's machine\n\n```sh\n" +
	"sudo apt-get install -y jq && jq --version\n" +
	"printf 'install:\\n\\tinstall -m 755 hello.sh /usr/local/bin/r2d-hello\\n' > Makefile\n" +
	"printf '#!/bin/sh\\necho hello from make install\\n' > hello.sh\n" +
	"make install && r2d-hello\n" +
	"head -c 1G /dev/zero > /tmp/one-gib && ls -l /tmp/one-gib && rm /tmp/one-gib\n" +
	"go install golang.org/x/example/hello@v0.0.0-20250915201037-7f05d217867b && hello readme2demo\n" +
	"python3 -m venv v && v/bin/pip --version\n" +
	"```\n"

func TestDevProfileRunsWhatADevelopersMachineRuns(t *testing.T) {
	l := markdownRun(t, devReadme, nil)
	assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess), "reason: %s", l.OutcomeReason)
	for prefix, out := range map[string]string{
		"sudo apt-get install -y jq": "jq-1.",
		"make install":               "hello from make install",
		"head -c 1G":                 "1073741824",
		"go install":                 "readme2demo",
		"python3 -m venv":            "pip ",
	} {
		c := commandByText(t, l, prefix)
		assert.Check(t, is.Equal(c.Status, commandlog.StatusOK), "%s: %s", prefix, c.Output)
		assert.Check(t, is.Contains(c.Output, out), "%s", prefix)
		assert.Check(t, c.Environment == nil)
	}
	assert.Assert(t, l.Sandbox != nil)
	assert.Check(t, is.Equal(l.Sandbox.Profile, sandbox.ProfileDev))
	assert.Check(t, is.Equal(l.Sandbox.Disk, int64(sandbox.DefaultDisk)))
	assert.Check(t, l.Sandbox.DiskPeak != nil && *l.Sandbox.DiskPeak > 0)
	assert.Check(t, is.Equal(l.Sandbox.Stopped, ""))
}

// toolchainReadme is what READMEs ask of the toolchains a GitHub-hosted
// runner has, offline: a Rust crate of edition 2024 (Debian's own rustc,
// 1.63, cannot build one), Ruby with a gem installed and bundled without
// sudo, autotools with libtool making a configure script, a cmake build,
// jq.
const toolchainReadme = "# a runner's toolchains\n\n```sh\n" +
	"cargo new --vcs none r2d-rust\n" +
	"cd r2d-rust\n" +
	"grep '^edition' Cargo.toml\n" +
	"cargo build --offline && ./target/debug/r2d-rust\n" +
	"cd ..\n" +
	"ruby -e 'puts \"ruby #{RUBY_VERSION}\"'\n" +
	"bundle --version\n" +
	"mkdir -p r2d-gem/exe\n" +
	"cd r2d-gem\n" +
	"printf '#!/usr/bin/env ruby\\nputs \"hello from a gem\"\\n' > exe/r2d-hello\n" +
	"printf 'Gem::Specification.new do |s|\\n  s.name = \"r2d-hello\"\\n  s.version = \"0.1.0\"\\n  s.summary = \"r2d\"\\n  s.authors = [\"r2d\"]\\n  s.files = [\"exe/r2d-hello\"]\\n  s.bindir = \"exe\"\\n  s.executables = [\"r2d-hello\"]\\nend\\n' > r2d-hello.gemspec\n" +
	"gem build r2d-hello.gemspec && gem install --local r2d-hello-0.1.0.gem && r2d-hello\n" +
	"printf 'source \"https://rubygems.org\"\\ngem \"r2d-hello\"\\n' > Gemfile\n" +
	"bundle install --local && bundle exec r2d-hello\n" +
	"cd ..\n" +
	"mkdir r2d-auto\n" +
	"cd r2d-auto\n" +
	"printf 'AC_INIT([r2d], [1.0])\\nAM_INIT_AUTOMAKE([foreign])\\nLT_INIT\\nAC_PROG_CC\\nAC_CONFIG_FILES([Makefile])\\nAC_OUTPUT\\n' > configure.ac\n" +
	"printf 'lib_LTLIBRARIES = libr2d.la\\nlibr2d_la_SOURCES = r2d.c\\n' > Makefile.am\n" +
	"echo 'int r2d(void) { return 42; }' > r2d.c\n" +
	"autoreconf -fi && ls configure Makefile.in ltmain.sh\n" +
	"cd ..\n" +
	"mkdir r2d-cmake\n" +
	"cd r2d-cmake\n" +
	"printf 'cmake_minimum_required(VERSION 3.16)\\nproject(r2d C)\\nadd_executable(r2d main.c)\\n' > CMakeLists.txt\n" +
	"printf 'int main(void) { return 0; }\\n' > main.c\n" +
	"cmake -S . -B build && cmake --build build && ./build/r2d && echo cmake-built\n" +
	"cd ..\n" +
	"echo '{\"runner\": \"ubuntu\"}' | jq -r .runner\n" +
	"```\n"

func TestImageHasTheToolchainsOfAGitHubRunner(t *testing.T) {
	l := markdownRun(t, toolchainReadme, func(c *pipeline.Config) { c.Network = pipeline.NetworkNone })
	assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeSuccess), "reason: %s", l.OutcomeReason)
	for prefix, out := range map[string]string{
		"grep '^edition'":       `edition = "2024"`,
		"cargo build --offline": "Hello, world!",
		"ruby -e":               "ruby 3.",
		"bundle --version":      "Bundler version 2.",
		"gem build":             "hello from a gem",
		"bundle install":        "hello from a gem",
		"autoreconf -fi":        "ltmain.sh",
		"cmake -S . -B":         "cmake-built",
		`echo '{"runner"`:       "ubuntu",
	} {
		c := commandByText(t, l, prefix)
		assert.Check(t, is.Equal(c.Status, commandlog.StatusOK), "%s: %s", prefix, c.Output)
		assert.Check(t, is.Contains(c.Output, out), "%s", prefix)
	}
}

// Under --sandbox strict the same sudo and `make install` fail, with a
// reason that names the strict profile and how to leave it.
func TestStrictProfileRefusalsNameTheProfile(t *testing.T) {
	readme := "# strict\n\n<!-- readme2demo: continue-on-error -->\n```sh\nsudo apt-get install -y jq && jq --version\n```\n\n```sh\n" +
		"printf 'install:\\n\\tinstall -m 755 hello.sh /usr/local/bin/r2d-hello\\n' > Makefile\n" +
		"printf '#!/bin/sh\\necho hi\\n' > hello.sh\nmake install\n```\n"
	l := markdownRun(t, readme, func(c *pipeline.Config) { c.Sandbox = sandbox.ProfileStrict })
	assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked), "the sandbox's limit, not the README's failure")
	for _, prefix := range []string{"sudo apt-get", "make install"} {
		c := commandByText(t, l, prefix)
		assert.Check(t, is.Equal(c.Status, commandlog.StatusFailed), "%s: %s", prefix, c.Output)
		assert.Assert(t, c.Environment != nil, "%s not marked: %s", prefix, c.Output)
		assert.Check(t, is.Equal(c.Environment.Kind, "sandbox-profile"))
		assert.Check(t, is.Contains(c.Environment.Detail, "--sandbox dev"))
	}
	assert.Check(t, is.Contains(l.OutcomeReason, "strict profile"), "reason: %s", l.OutcomeReason)
	assert.Check(t, !strings.Contains(l.OutcomeReason, "AI engine"), "reason: %s", l.OutcomeReason)
	assert.Check(t, is.Equal(l.Sandbox.Profile, sandbox.ProfileStrict))
}

// A fork bomb and an 8 GiB allocation end the run with their limits named.
func TestLimitsEndTheRunWithTheirNames(t *testing.T) {
	tests := []struct {
		name, block string
		resources   sandbox.Resources
		kind        string
		reason      []string
		stopped     string
		// outcomes: failed when the sandbox stopped the run, or the bomb
		// fizzled out against the limit (the README misbehaved); blocked
		// when the deciding command failed because of the limit.
		outcomes []commandlog.Outcome
	}{
		{"fork bomb", ":(){ :|:& };:\necho never", sandbox.Resources{PidsLimit: 1024}, "pids",
			[]string{"process limit (1024 processes and threads)", "--pids"}, "pids", []commandlog.Outcome{commandlog.OutcomeFailed, commandlog.OutcomeBlocked}},
		{"8 GiB allocation", "python3 -c 'b = bytearray(8 << 30)'", sandbox.Resources{Memory: 1 << 30}, "oom",
			[]string{"(oom)", "1GiB of memory", "--memory"}, "", []commandlog.Outcome{commandlog.OutcomeBlocked}},
		{"a fork loop that never stops", "while :; do sleep 600 & done", sandbox.Resources{PidsLimit: 512}, "pids",
			[]string{"process limit (512 processes and threads)", "--pids"}, "pids", []commandlog.Outcome{commandlog.OutcomeFailed, commandlog.OutcomeBlocked}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			l := markdownRun(t, "# limits\n\n```sh\n"+tc.block+"\n```\n", func(c *pipeline.Config) { c.Resources = tc.resources })
			assert.Check(t, is.Contains(tc.outcomes, l.Outcome), "reason: %s", l.OutcomeReason)
			for _, w := range tc.reason {
				assert.Check(t, is.Contains(l.OutcomeReason, w))
			}
			assert.Check(t, !strings.Contains(l.OutcomeReason, "AI engine"), "reason: %s", l.OutcomeReason)
			// The command that met the limit is marked: the bomb itself, or
			// the next one, which nothing could start any more.
			var marked []string
			for _, c := range l.Commands {
				if c.Environment != nil {
					marked = append(marked, c.Environment.Kind)
				}
			}
			assert.Check(t, is.Contains(marked, tc.kind), "commands: %+v", l.Commands)
			if tc.stopped != "" {
				// A fork bomb keeps the count at the limit (the sandbox
				// stops the run) or fizzles out against it (the run goes
				// on, and fails on the command that met the limit).
				assert.Check(t, l.Sandbox.Stopped == tc.stopped || l.Sandbox.Stopped == "", "stopped %q", l.Sandbox.Stopped)
				assert.Check(t, is.Contains(l.Sandbox.Reached, "pids"))
			} else {
				assert.Check(t, is.Equal(l.Sandbox.Stopped, ""))
			}
			assert.Check(t, time.Since(start) < 4*time.Minute, "the limit took %v to end the run", time.Since(start))
		})
	}
}

// In the real sandbox (dev and strict: the runner's directory is on the
// container's layer or a tmpfs), a command that waited for input and got
// end of file is stdin-eof and blocks the run, not the README; a pipeline
// whose first program was not found fails.
func TestKeylessQuestionsAndPipelinesInSandbox(t *testing.T) {
	readme := "# questions\n\n<!-- readme2demo: run continue-on-error -->\n```sh\nr2d-no-such-tool --list | sort\nyes | head -n 1\n```\n<!-- readme2demo: run -->\n" +
		"```sh\nread -r -p 'Your name? ' name\necho \"hello $name\"\n```\n"
	for _, profile := range []string{sandbox.ProfileDev, sandbox.ProfileStrict} {
		t.Run(profile, func(t *testing.T) {
			l := markdownRun(t, readme, func(c *pipeline.Config) { c.Sandbox = profile })
			var got []string
			for _, c := range l.Commands {
				kind := ""
				if c.Environment != nil {
					kind = " " + c.Environment.Kind
				}
				got = append(got, fmt.Sprintf("%s => %s%s", c.Command, c.Status, kind))
			}
			assert.Check(t, is.DeepEqual(got, []string{
				"r2d-no-such-tool --list | sort => failed",
				"yes | head -n 1 => ok",
				"read -r -p 'Your name? ' name => failed stdin-eof",
			}))
			assert.Check(t, is.Equal(l.Outcome, commandlog.OutcomeBlocked))
			assert.Check(t, is.Equal(l.OutcomeReason, `README.md line 10 ("read -r -p 'Your name? ' name") failed because of the sandbox, not the README (stdin-eof): `+
				envcause.EndOfInput().Detail))
		})
	}
}
