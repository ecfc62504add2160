package pipeline

import (
	"fmt"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// checkUnderstood fails a run whose transcript the engine did not understand
// (engines.Misunderstood: no record recognised, or more than half unknown or
// malformed): that is parser drift (a CLI version writing what this parser
// does not know), and a log built from the few records it did read must not
// pass as the README's verdict. An empty transcript is not drift (the agent
// wrote nothing; explain says why). It returns the refusal, nil when the
// transcript was understood.
func checkUnderstood(eng engines.AgentEngine, l *commandlog.Log, transcript []byte) *engines.NotUnderstoodError {
	understood, total := engines.Understood(l)
	if len(transcript) == 0 || !engines.Misunderstood(understood, total) {
		return nil
	}
	nu := &engines.NotUnderstoodError{File: TranscriptFile, Engine: eng.Name(), Understood: understood, Total: total,
		LooksLike: "output of a " + eng.Name() + " CLI this readme2demo does not know (parser drift: run `readme2demo drift` for the pinned version, or re-parse " + TranscriptFile + " with a newer readme2demo)"}
	l.Outcome, l.Adjusted = commandlog.OutcomeFailed, false
	l.OutcomeReason = fmt.Sprintf("readme2demo did not understand the agent's transcript (%d of %d records): parser drift, not the README's verdict", understood, total)
	return nu
}
