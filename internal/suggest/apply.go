package suggest

import (
	"fmt"
	"strings"
)

// Fixed is a README with the agent's edit applied.
type Fixed struct {
	Text []byte
	// Changed are the lines of Text each change wrote (1-based, inclusive);
	// a deletion's is the line after it (Start == End + 1 when nothing was
	// written).
	Changed []Lines
}

// Lines is an inclusive range of 1-based lines.
type Lines struct{ Start, End int }

// Files returns the paths a unified diff changes, in order.
func Files(diffText []byte) ([]string, error) {
	fds, err := parseDiff("readme diff", diffText)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range fds {
		out = append(out, f.path)
	}
	return out, nil
}

// HunkError is a hunk of the edit that does not match the README.
type HunkError struct {
	Path string
	Line int // the hunk's first line in the README
}

func (e *HunkError) Error() string {
	return fmt.Sprintf("apply edit to %s: the hunk at line %d does not match the README", e.Path, e.Line)
}

// Apply applies the part of readmeDiff that changes path to readme, the
// README the run followed, exactly: every hunk must match at its line
// (line endings aside), or the error is a *HunkError. A diff that does not
// change path gives readme back with no change.
func Apply(path string, readme, readmeDiff []byte) (*Fixed, error) {
	fds, err := parseDiff("readme diff", readmeDiff)
	if err != nil {
		return nil, err
	}
	lines := splitLines(readme)
	out := &Fixed{}
	var b strings.Builder
	next := 0    // index in lines of the next line to copy
	newLine := 1 // 1-based line of Text the next written line gets
	for _, f := range fds {
		if f.path != path {
			continue
		}
		for _, h := range f.hunks {
			start := int(h.OrigStartLine) - 1
			if h.OrigLines == 0 {
				start++
			}
			if start < next || start > len(lines) {
				return nil, &HunkError{path, int(h.OrigStartLine)}
			}
			for ; next < start; next++ {
				b.WriteString(lines[next])
				newLine++
			}
			changeStart := -1
			body := strings.TrimSuffix(string(h.Body), "\n")
			for _, l := range strings.Split(body, "\n") {
				op, text := byte(' '), ""
				if l != "" {
					op, text = l[0], l[1:]
				}
				switch op {
				case ' ', '-':
					if next >= len(lines) || bare(lines[next]) != strings.TrimSuffix(text, "\r") {
						return nil, &HunkError{path, int(h.OrigStartLine)}
					}
					if op == ' ' {
						if changeStart >= 0 {
							out.Changed = append(out.Changed, Lines{changeStart, newLine - 1})
							changeStart = -1
						}
						b.WriteString(lines[next])
						newLine++
					} else if changeStart < 0 {
						changeStart = newLine
					}
					next++
				case '+':
					if changeStart < 0 {
						changeStart = newLine
					}
					b.WriteString(text + "\n")
					newLine++
				default:
					return nil, &HunkError{path, int(h.OrigStartLine)}
				}
			}
			if changeStart >= 0 {
				out.Changed = append(out.Changed, Lines{changeStart, newLine - 1})
			}
		}
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
	}
	out.Text = []byte(b.String())
	return out, nil
}
