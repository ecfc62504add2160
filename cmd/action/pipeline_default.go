package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/egress"
	"github.com/readme2demo/readme2demo/internal/pipeline"
)

// ReadmeDiffFile is where a run may leave a unified diff of the agent's
// README edits, beside command_log.json. The report shows it as a suggested
// fix when it exists.
const ReadmeDiffFile = "readme.diff"

// defaultPipeline runs the shared pipeline (internal/pipeline).
func defaultPipeline(ctx context.Context, cfg pipelineConfig) (*pipelineResult, error) {
	policy := pipeline.NetworkOpen
	var hosts []string
	switch cfg.Network {
	case "none":
		policy = pipeline.NetworkNone
	case "allowlist":
		// The allow-hosts input (validated with the others in inputs.go).
		h, err := egress.ParseHosts(newInputReader(cfg.Getenv)("allow-hosts"))
		if err != nil {
			return nil, &InputError{Input: "allow-hosts", Reason: err.Error()}
		}
		policy, hosts = pipeline.NetworkAllowlist, h
	}
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine:       cfg.Engine,
		RepoDir:      cfg.RepoDir,
		Readme:       cfg.Readme,
		Image:        cfg.Image,
		Devcontainer: cfg.Devcontainer,
		Sandbox:      cfg.Sandbox,
		Resources:    cfg.Resources,
		Limits:       engines.Limits{MaxTurns: cfg.MaxTurns, MaxCostUSD: cfg.MaxCostUSD, Timeout: cfg.Timeout, Model: cfg.Model},
		OutDir:       cfg.OutDir,
		Network:      policy,
		AllowHosts:   hosts,
		Getenv:       cfg.Getenv,
		Progress:     cfg.Progress,
	})
	if res == nil {
		return nil, err
	}
	out := &pipelineResult{Log: res.Log, CommandLogPath: res.CommandLog, TranscriptPath: res.Transcript, StderrPath: res.Stderr}
	if diff := filepath.Join(cfg.OutDir, ReadmeDiffFile); fileExists(diff) {
		out.ReadmeDiffPath = diff
	}
	return out, err
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
