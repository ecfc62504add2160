package plan

import "fmt"

// Kind is what the plan decided about a candidate, as a type: later logic
// (alternatives, what a skipped step takes with it, the report, the
// evaluation) switches on it, never on the reason's words. Its values are
// the `kind` of `readme2demo plan --format json`.
type Kind string

// The kinds of entries that run.
const (
	KindCommand    Kind = "command"     // a command of a shell block, run as written (or as adjusted in Step)
	KindWriteFile  Kind = "write-file"  // a block written to the file the README names
	KindShellSetup Kind = "shell-setup" // set-up for ~/.bashrc, run in the session as a new shell would
	KindLinkClone  Kind = "link-clone"  // a clone of this repository into another directory: linked to the checkout
	KindCloneRest  Kind = "clone-rest"  // a line that clones this repository, then more: the rest runs
)

// The kinds of entries that are skipped.
const (
	KindOutput        Kind = "output"         // output a command prints, shown in the README
	KindText          Kind = "text"           // prose, a list of names, a help text, a key press, data
	KindSynopsis      Kind = "synopsis"       // usage syntax: [options], FILE...
	KindFileContent   Kind = "file-content"   // the content of a file, not commands
	KindOtherLanguage Kind = "other-language" // a block in a language that is not shell
	KindOtherPlatform Kind = "other-platform" // macOS, Windows, another Linux family, Homebrew, Snap, …
	KindOtherShell    Kind = "other-shell"    // fish, zsh, PowerShell syntax or set-up
	KindAlternative   Kind = "alternative"    // another way of doing what a line that runs already does
	KindCloneOfSelf   Kind = "clone-of-self"  // the clone of this repository and the cd into it
	KindPlaceholder   Kind = "placeholder"    // a value the reader must fill in, or a made-up example
	KindMissingInput  Kind = "missing-input"  // a file, archive, directory or server nothing made
	KindInteractive   Kind = "interactive"    // needs a person at a terminal: a UI, an editor, a REPL, a prompt
	KindServer        Kind = "server"         // does not end by itself: a follower, a watcher
	KindNeedsAccount  Kind = "needs-account"  // logs in, publishes, or needs a hosted service's account
	KindRemote        Kind = "remote"         // another machine or a service outside the sandbox
	KindContainer     Kind = "container"      // needs a container engine, or is typed inside a container
	KindMaintenance   Kind = "maintenance"    // upgrade, uninstall, benchmark, packaging, another VCS
	KindOptional      Kind = "optional"       // an optional setting or alias, troubleshooting
	KindLibraryUse    Kind = "library-use"    // adds this project to the reader's own project
	KindPrepares      Kind = "prepares"       // only prepares a step that is skipped
	KindNothingTested Kind = "nothing-tested" // only definitions: running them would test nothing
	KindHint          Kind = "hint"           // the README's skip or platform hint
)

// Runs reports whether entries of the kind run.
func (k Kind) Runs() bool {
	switch k {
	case KindCommand, KindWriteFile, KindShellSetup, KindLinkClone, KindCloneRest:
		return true
	}
	return false
}

// Decision is what one rule decided: the kind, and the reason in words
// (rendered from the facts the rule found; nothing reads it back).
type Decision struct {
	Kind   Kind
	Reason string
	// cause is what later rules need to know of it beyond its kind.
	cause cause
}

// cause marks decisions that later rules look back at: a skipped install
// takes the rest of its block with it, a skipped goal the steps that only
// prepare it.
type cause uint8

const (
	causeAlternative   cause = 1 << iota // an install skipped for an earlier or better one
	causeArchive                         // extracts an archive that nothing downloaded
	causePackageSource                   // adds a package source (a PPA) that is not used
	causeClone                           // a clone of this repository
	causeOtherPlatform                   // a command for another platform
	causeGitPush                         // publishes with git push
	causeNamedByText                     // a file the README's text names, written for a later line
	causeSandboxLacks                    // needs hardware the sandbox does not have
)

// with is the decision with the cause added.
func (d Decision) with(c cause) Decision {
	d.cause |= c
	return d
}

// otherPlatform is the decision for another platform's command or block.
func otherPlatform(format string, a ...any) Decision {
	return Decision{Kind: KindOtherPlatform, Reason: reasonf("other platform: "+format, a...), cause: causeOtherPlatform}
}

// reasonf renders a reason. Tests replace it to show that no decision
// depends on a reason's words.
var reasonf = fmt.Sprintf

// because is a Decision of the kind, for the reason.
func because(k Kind, format string, a ...any) Decision {
	return Decision{Kind: k, Reason: reasonf(format, a...)}
}
