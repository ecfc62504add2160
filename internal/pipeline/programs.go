package pipeline

import (
	"context"
	"fmt"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// maxProgramsBytes bounds the image's command list (the default image's is
// under 10 KiB).
const maxProgramsBytes = 1 << 20

// imagePrograms reads the command list the sandbox image recorded when it
// was built (engines.ProgramsContainerPath) with read, the sandbox's reader
// of the run's own container before it starts. It is nil when the image has
// no list or an empty one (an older or custom image): the plan then keeps
// the default image's (plan.DefaultPrograms).
func imagePrograms(read sandbox.ReadFile) (map[string]bool, error) {
	b, err := read(engines.ProgramsContainerPath, maxProgramsBytes)
	if err != nil {
		return nil, fmt.Errorf("read the image's command list: %w", err)
	}
	if p := plan.ParsePrograms(string(b)); len(p) > 0 {
		return p, nil
	}
	return nil, nil
}

// inputFromImage is the sandbox's Prepare for an engine that prepares its
// own input (engines.InputPreparer). The input step made that input before
// Docker was asked (its errors come before any container), with the default
// image's command list; when the image the run uses recorded its own, the
// input is made again with it and replaces the first. A list that cannot
// be read leaves the first input, with a warning.
func (r *run) inputFromImage(_ context.Context, read sandbox.ReadFile) ([]sandbox.File, error) {
	programs, err := imagePrograms(read)
	if err != nil {
		fmt.Fprintf(r.cfg.Progress, "warning: %v; the plan uses the default image's\n", err)
		return nil, nil
	}
	if programs == nil {
		return nil, nil
	}
	text, err := input(r.eng, r.cfg, r.readmeText, programs)
	if err != nil {
		return nil, err
	}
	r.promptText = text
	return []sandbox.File{{Path: engines.PromptContainerPath, Data: []byte(text)}}, nil
}
