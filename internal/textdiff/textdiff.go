// Package textdiff writes unified diffs of small text files, such as the
// README edits an agent made, for reports and suggested fixes.
//
// Memory is bounded whatever the input: texts larger than MaxBytes or
// longer than MaxLines, and diffs larger than MaxDiff, are not diffed —
// the caller gets a *TooLargeError saying so ("README.md changed too much
// to diff"), not a diff that would take gigabytes to compute or read. The
// line diff itself is github.com/aymanbagabas/go-udiff (the Go tools'
// internal diff, exported): Myers' algorithm in linear space with a bound
// on the edit distance it explores, so time and memory stay linear in the
// (capped) input; past the bound it returns a correct but not always
// minimal diff.
package textdiff

import (
	"errors"
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Context is the number of unchanged lines shown around a change.
const Context = 3

// The limits.
const (
	MaxBytes = 2 << 20 // each text
	MaxLines = 40000   // each text
	MaxDiff  = 1 << 20 // the unified diff
)

// ErrTooLarge is wrapped by every *TooLargeError.
var ErrTooLarge = errors.New("changed too much to diff")

// TooLargeError says which limit a diff hit.
type TooLargeError struct {
	Name   string // the file, as named in the diff header
	Reason string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s changed too much to diff: %s", e.Name, e.Reason)
}

// Unwrap lets errors.Is(err, ErrTooLarge) classify it.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Unified returns the unified diff turning a into b, with the given file
// names in its header, or "" when their lines are equal (a missing newline
// at the end of the file is not a change here). Inputs or a result over
// the limits give a *TooLargeError (name is nameB without its "b/").
func Unified(nameA, nameB, a, b string) (string, error) {
	name := strings.TrimPrefix(nameB, "b/")
	for _, t := range []struct {
		what, text string
	}{{"before", a}, {"after", b}} {
		if len(t.text) > MaxBytes {
			return "", &TooLargeError{name, fmt.Sprintf("%d bytes %s the edit (the limit is %d MiB)", len(t.text), t.what, MaxBytes>>20)}
		}
		if n := strings.Count(t.text, "\n"); n > MaxLines {
			return "", &TooLargeError{name, fmt.Sprintf("%d lines %s the edit (the limit is %d)", n, t.what, MaxLines)}
		}
	}
	a, b = withFinalNewline(a), withFinalNewline(b)
	if a == b {
		return "", nil
	}
	edits := udiff.Lines(a, b)
	d, err := udiff.ToUnified(nameA, nameB, a, edits, Context)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", name, err)
	}
	if len(d) > MaxDiff {
		return "", &TooLargeError{name, fmt.Sprintf("the diff is %d bytes (the limit is %d MiB)", len(d), MaxDiff>>20)}
	}
	return d, nil
}

func withFinalNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
