package main

import (
	"context"
)

// defaultPipeline is the real pipeline.
func defaultPipeline(ctx context.Context, cfg pipelineConfig) (*pipelineResult, error) {
	return nil, errNoPipeline
}
