package suggest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// context is how many unchanged lines an edit keeps on each side (the
// readme.diff's own context, textdiff.Context).
const context = 3

// edit is one change of a README edit: a run of removed and added lines,
// with the unchanged lines of its hunk around it (at most context on each
// side). Lines are kept without their line ending.
type edit struct {
	before, removed, added, after []string
	// oldStart is the line, in the README the run followed, of the first
	// removed line (of an insertion: of the line it goes before).
	oldStart int
}

// fileDiff is one file of a unified diff.
type fileDiff struct {
	path  string // the new name, without its "b/"
	hunks []*diff.Hunk
	raw   *diff.FileDiff
}

// parseDiff reads a unified diff of one or more files (git's form or
// plain). Carriage returns stay in the lines, so a CRLF README diffs as it
// is.
func parseDiff(what string, text []byte) ([]fileDiff, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, nil
	}
	fds, err := diff.ParseMultiFileDiffOptions(text, diff.ParseOptions{KeepCR: true})
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", what, err)
	}
	var out []fileDiff
	for _, fd := range fds {
		name := fd.NewName
		if name == "/dev/null" || name == "" {
			name = fd.OrigName
		}
		name = strings.TrimRight(name, "\r")
		for _, p := range []string{"a/", "b/"} {
			if s, ok := strings.CutPrefix(name, p); ok {
				name = s
				break
			}
		}
		out = append(out, fileDiff{path: name, hunks: fd.Hunks, raw: fd})
	}
	return out, nil
}

// hunkLine is one line of a hunk's body.
type hunkLine struct {
	op   byte // ' ', '-' or '+'
	text string
}

// hunkLines splits a hunk's body into its lines, without line endings. An
// empty line is an empty context line (some tools strip the space).
func hunkLines(h *diff.Hunk) []hunkLine {
	body := strings.TrimSuffix(string(h.Body), "\n")
	if body == "" {
		return nil
	}
	var out []hunkLine
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if l == "" {
			out = append(out, hunkLine{' ', ""})
			continue
		}
		out = append(out, hunkLine{l[0], l[1:]})
	}
	return out
}

// edits splits hunks into their changes: a hunk of readme.diff holds every
// change less than 2×context lines apart, and each becomes its own edit.
func edits(hunks []*diff.Hunk) []edit {
	var out []edit
	for _, h := range hunks {
		lines := hunkLines(h)
		// old is the hunk's old side: context and removed lines, in order.
		var old []string
		type block struct {
			from, to       int // the block's removed lines in old: old[from:to]
			added          []string
			oldStartInFile int
		}
		var blocks []block
		oldLine := int(h.OrigStartLine)
		if h.OrigLines == 0 {
			oldLine++ // "@@ -N,0": the insertion goes after line N
		}
		var cur *block
		for _, l := range lines {
			switch l.op {
			case '-', '+':
				if cur == nil {
					blocks = append(blocks, block{from: len(old), to: len(old), oldStartInFile: oldLine})
					cur = &blocks[len(blocks)-1]
				}
				if l.op == '-' {
					old = append(old, l.text)
					cur.to = len(old)
					oldLine++
				} else {
					cur.added = append(cur.added, l.text)
				}
			default:
				cur = nil
				old = append(old, l.text)
				oldLine++
			}
		}
		for _, b := range blocks {
			out = append(out, edit{
				before:   old[max(0, b.from-context):b.from],
				removed:  old[b.from:b.to],
				added:    b.added,
				after:    old[b.to:min(len(old), b.to+context)],
				oldStart: b.oldStartInFile,
			})
		}
	}
	return out
}

// lineRange is an inclusive range of 1-based lines.
type lineRange struct{ start, end int }

// newRanges returns the lines of the new side each hunk shows: the lines a
// pull request review may comment on (RIGHT side).
func newRanges(hunks []*diff.Hunk) []lineRange {
	var out []lineRange
	for _, h := range hunks {
		if h.NewLines > 0 {
			out = append(out, lineRange{int(h.NewStartLine), int(h.NewStartLine + h.NewLines - 1)})
		}
	}
	return out
}

// splitLines splits text into lines, each with its line ending ("\n",
// "\r\n" or none for a last line without one).
func splitLines(text []byte) []string {
	s := string(text)
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// bare is a line without its line ending.
func bare(l string) string {
	return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
}
