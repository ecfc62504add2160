// Package exitcode owns the exit statuses of readme2demo's programs: the
// CLI (cmd/readme2demo) and the GitHub Action (cmd/action) exit with the
// same numbers for the same outcomes, as README.md documents.
package exitcode

const (
	// OK: the README worked, or the verb did what was asked.
	OK = 0
	// Failed: the README did not work (or the run was interrupted), a check
	// failed, or an output could not be written.
	Failed = 1
	// Usage: bad flags, inputs or configuration, an unknown engine, an
	// unreadable input; nothing was started.
	Usage = 2
	// Blocked: the agent could not proceed (for example it needs a
	// credential it was not given).
	Blocked = 3
	// NotUnderstood: `readme2demo parse` refused a transcript the engine did
	// not understand (no record recognised, or more than half unknown).
	NotUnderstood = 4
)
