// Package suggest turns the README edit an agent made while following a
// README (the run's readme.diff) into the review readme2demo posts on a pull
// request: each change that falls inside the pull request's diff becomes a
// suggested change GitHub can commit in one click, and every other change a
// patch the maintainer can `git apply`, with the reason it is not a
// suggestion. It also applies a README edit for the fix pull request
// (Apply).
//
// It is pure: bytes in, a Review out; no network, no files.
//
// Changes are placed in the README as the pull request's head has it by
// content, not by line number: the Action's checkout of a pull request is
// the merge commit, whose README can differ from the head's (lines moved by
// a change on the base branch). A change is found by its removed lines and
// the unchanged lines around it (patch(1)'s fuzz: context is dropped from
// the outside when it changed, never a removed line). A change that cannot
// be found, or is found in more than one place, is never guessed: it goes
// to OutsideDiff with the reason.
//
// Diffs are read with github.com/sourcegraph/go-diff (git's extended
// headers, several files, "\ No newline at end of file"); go-udiff, which
// writes readme2demo's diffs, has no parser of unified diffs.
package suggest

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// Side is the only side readme2demo comments on: the PR head's lines.
const Side = "RIGHT"

// Review is what readme2demo would post on a pull request. Its JSON form
// is stable (`readme2demo suggest --format json`).
type Review struct {
	Comments    []Comment `json:"comments"`
	OutsideDiff []Patch   `json:"outside_diff"`
	// Markers are the run's FIX markers: why the agent changed the README.
	Markers []commandlog.Marker `json:"markers"`
}

// Comment is one review comment holding a suggested change. Line is the last
// line it replaces in the PR head's README; StartLine, for more than one
// line, the first.
type Comment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	StartLine int    `json:"start_line,omitempty"`
	Side      string `json:"side"`
	Body      string `json:"body"`
}

// Patch is one change that is not a suggestion: a unified diff of the file
// that `git apply` takes, the lines it changes and why it is here. For a
// change found in the PR head's README (or with no head given) the lines and
// the patch are the head's; for one that could not be found, they are those
// of the README the run followed.
type Patch struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Patch     string `json:"patch"`
	Kind      Kind   `json:"kind"`
	Reason    string `json:"reason"`
}

// Kind says why a change is a patch rather than a suggestion.
type Kind string

// The kinds.
const (
	KindNoPRDiff    Kind = "no-pr-diff"   // no pull request diff was given
	KindNotInPR     Kind = "not-in-pr"    // the pull request does not change the README
	KindOutsideDiff Kind = "outside-diff" // the lines are not in the pull request's diff
	KindStraddles   Kind = "straddles"    // the lines are partly in the pull request's diff
	KindNotFound    Kind = "not-found"    // the lines are not in the PR head's README
	KindAmbiguous   Kind = "ambiguous"    // the lines are in the PR head's README more than once
	KindNotReadme   Kind = "not-readme"   // the edit is to another file
	KindUnsafeText  Kind = "unsafe-text"  // control characters or a redacted value
	KindNoHeadLines Kind = "empty-readme" // the PR head's README is empty
	KindDeletedFile Kind = "deleted-file" // the pull request deletes the README
	kindNone        Kind = ""             // a suggestion
)

// Reason is the English for a kind; path is the README's.
func (k Kind) Reason(path string) string {
	switch k {
	case KindNoPRDiff:
		return "no pull request diff was given, and GitHub takes suggestions only on lines of a pull request's diff"
	case KindNotInPR:
		return fmt.Sprintf("the pull request does not change %s, and GitHub takes suggestions only on lines of its diff", path)
	case KindOutsideDiff:
		return "the pull request does not change these lines, and GitHub takes suggestions only on lines of its diff"
	case KindStraddles:
		return "the change reaches past the edge of the pull request's diff, and GitHub takes a suggestion only on lines inside one part of it"
	case KindNotFound:
		return fmt.Sprintf("the lines it changes are not in %s as the pull request's head has it (changed since the run), so it cannot be placed; the patch is against the README the run followed", path)
	case KindAmbiguous:
		return fmt.Sprintf("the lines it changes occur more than once in %s as the pull request's head has it, so it is not placed by guess; the patch is against the README the run followed", path)
	case KindNotReadme:
		return "the edit changes a file other than the README"
	case KindUnsafeText:
		return "the change holds control or invisible characters, or a value redaction removed: review it by hand"
	case KindNoHeadLines:
		return fmt.Sprintf("%s is empty at the pull request's head, so the change cannot be placed", path)
	case KindDeletedFile:
		return fmt.Sprintf("the pull request deletes %s", path)
	}
	return ""
}

// Input is what Compute needs.
type Input struct {
	// Readme is the README's path in the repository, slash-separated
	// ("README.md", "docs/README.md"): the path of the comments.
	Readme string
	// DiffPath is the README's name in ReadmeDiff when it differs from
	// Readme (a run in a subdirectory names it relative to that); "" means
	// Readme.
	DiffPath string
	// ReadmeDiff is the run's readme.diff.
	ReadmeDiff []byte
	// Head is the README as the pull request's head has it.
	Head []byte
	// PRDiff is the pull request's unified diff (all files, or the
	// README's part); nil when there is no pull request.
	PRDiff []byte
	// Log is the run's command log, for its FIX markers; nil is none.
	Log *commandlog.Log
	// Redact is applied to the agent's text in comment bodies (the run's
	// redactor); nil leaves it as is.
	Redact func(string) string
}

// Compute returns the review for in. Its error is a diff that cannot be
// read.
func Compute(in Input) (*Review, error) {
	rv := &Review{Comments: []Comment{}, OutsideDiff: []Patch{}, Markers: []commandlog.Marker{}}
	if in.Log != nil {
		for _, m := range in.Log.Markers {
			if m.Kind == commandlog.MarkerFix {
				rv.Markers = append(rv.Markers, commandlog.Marker{Kind: m.Kind, Text: redactWith(in.Redact, m.Text)})
			}
		}
	}
	files, err := parseDiff("readme diff", in.ReadmeDiff)
	if err != nil {
		return nil, err
	}
	var ranges []lineRange
	prKind := KindNoPRDiff
	if in.PRDiff != nil {
		prKind = KindNotInPR
		pr, err := parseDiff("pull request diff", in.PRDiff)
		if err != nil {
			return nil, err
		}
		for _, f := range pr {
			if f.path != in.Readme {
				continue
			}
			if f.raw.NewName == "/dev/null" {
				prKind = KindDeletedFile
				continue
			}
			prKind = kindNone
			ranges = append(ranges, newRanges(f.hunks)...)
		}
	}
	headLines := splitLines(in.Head)
	head := make([]string, len(headLines))
	for i, l := range headLines {
		head[i] = bare(l)
	}
	diffPath := cmp.Or(in.DiffPath, in.Readme)
	for _, f := range files {
		if f.path != diffPath {
			for _, h := range f.hunks {
				rv.OutsideDiff = append(rv.OutsideDiff, Patch{Path: f.path, StartLine: int(h.OrigStartLine),
					EndLine: int(h.OrigStartLine + max(h.OrigLines, 1) - 1), Patch: filePatch(f.path, h), Kind: KindNotReadme, Reason: KindNotReadme.Reason(f.path)})
			}
			continue
		}
		for _, e := range edits(f.hunks) {
			rv.place(in, e, head, headLines, ranges, prKind)
		}
	}
	return rv, nil
}

// place decides what one edit becomes.
func (rv *Review) place(in Input, e edit, head, headLines []string, ranges []lineRange, prKind Kind) {
	outside := func(k Kind, p Patch) {
		p.Path, p.Kind, p.Reason = in.Readme, k, k.Reason(in.Readme)
		rv.OutsideDiff = append(rv.OutsideDiff, p)
	}
	if len(head) == 0 {
		outside(KindNoHeadLines, runPatch(in.Readme, e))
		return
	}
	a, kind := anchor(head, e)
	if kind != kindNone {
		outside(kind, runPatch(in.Readme, e))
		return
	}
	start, end, lines := suggestionLines(e, a, head)
	patch := Patch{StartLine: start, EndLine: end, Patch: headPatch(in.Readme, e, a, headLines)}
	switch {
	case unsafeText(slices.Concat(lines, e.added)):
		outside(KindUnsafeText, patch)
		return
	case prKind != kindNone:
		outside(prKind, patch)
		return
	}
	switch within(ranges, start, end) {
	case inside:
		c := Comment{Path: in.Readme, Line: end, Side: Side, Body: commentBody(e, lines, rv.Markers)}
		if start != end {
			c.StartLine = start
		}
		rv.Comments = append(rv.Comments, c)
	case partly:
		outside(KindStraddles, patch)
	default:
		outside(KindOutsideDiff, patch)
	}
}

// suggestionLines returns the head's lines a suggestion replaces (1-based,
// inclusive) and the lines that replace them. An insertion replaces the line
// before it with that line and the new ones (the line after, at the top of
// the file); a deletion replaces its lines with nothing.
func suggestionLines(e edit, a anchored, head []string) (start, end int, lines []string) {
	if len(e.removed) > 0 {
		return a.at + 1, a.at + len(e.removed), e.added
	}
	if a.at > 0 {
		return a.at, a.at, slices.Concat([]string{head[a.at-1]}, e.added)
	}
	return 1, 1, slices.Concat(e.added, []string{head[0]})
}

type overlap int

const (
	none overlap = iota
	partly
	inside
)

// within says whether lines start..end lie inside one of ranges.
func within(ranges []lineRange, start, end int) overlap {
	o := none
	for _, r := range ranges {
		switch {
		case start >= r.start && end <= r.end:
			return inside
		case start <= r.end && end >= r.start:
			o = partly
		}
	}
	return o
}

func redactWith(f func(string) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

// unsafeText reports whether a line holds what a suggestion must not carry
// unseen: a control, bidirectional or invisible character, or the marker
// redaction left where a value stood.
func unsafeText(lines []string) bool {
	for _, l := range lines {
		if redact.ContainsMarker(l) {
			return true
		}
		for _, r := range l {
			if r == '\t' {
				continue
			}
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || invisible(r) {
				return true
			}
		}
	}
	return false
}

// invisible are zero-width, byte-order-mark, bidirectional and soft-hyphen
// characters: text that reads differently from what it is.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r == 0xFEFF, r == 0x00AD, r == 0x061C,
		r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
