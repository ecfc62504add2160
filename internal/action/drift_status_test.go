package action

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/pipeline"
)

// A run whose transcript the engine did not understand (parser drift) fails
// the step with the refusal, whatever fail-on says: the log built from the
// few records read is not the README's verdict.
func TestTranscriptNotUnderstoodFailsTheStep(t *testing.T) {
	h := newHarness(t, "event_pull_request.json")
	h.env["INPUT_FAIL_ON"] = "never"
	h.env["INPUT_COMMENT"] = "never"
	inner := h.pipeline
	h.pipeline = func(ctx context.Context, cfg pipeline.Config) (*pipeline.Result, error) {
		res, err := inner(ctx, cfg)
		res.NotUnderstood = &engines.NotUnderstoodError{File: "transcript.jsonl", Engine: "codex", Understood: 2, Total: 40,
			LooksLike: "output of a codex CLI this readme2demo does not know"}
		return res, err
	}
	r := h.run()
	assert.Check(t, is.Equal(r.code, exitcode.Failed))
	assert.Check(t, is.Contains(r.stdout, "::error::readme2demo: transcript.jsonl does not look like a codex transcript: 2 of 40 records understood"))
}
