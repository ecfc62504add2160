package main

import (
	"context"
	"io"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// pipelineConfig is what one run of the shared pipeline needs.
type pipelineConfig struct {
	Engine       string
	Readme       string // relative to RepoDir
	RepoDir      string
	Model        string
	MaxTurns     int
	MaxCostUSD   float64
	Timeout      time.Duration
	Image        string
	Devcontainer bool
	Network      string // open | none | allowlist
	Sandbox      string
	Resources    sandbox.Resources
	OutDir       string
	Getenv       func(string) string // GitHub and runner tokens hidden
	Progress     io.Writer
}

// pipelineResult is what a run produced. The log is already redacted.
type pipelineResult struct {
	Log            *commandlog.Log
	CommandLogPath string
	TranscriptPath string // redacted raw transcript, when kept
	StderrPath     string
	ReadmeDiffPath string // unified diff of the agent's README edits, when any
}

// pipelineFunc runs the shared pipeline; tests inject a fake.
type pipelineFunc func(ctx context.Context, cfg pipelineConfig) (*pipelineResult, error)
