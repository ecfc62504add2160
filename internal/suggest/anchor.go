package suggest

import "slices"

// anchored is where an edit sits in the PR head's README.
type anchored struct {
	at int // 0-based index of the first removed line (of an insertion: of the line it goes before)
	// matched says how many lines of context before and after were found
	// around it (the rest had changed).
	before, after int
}

// anchor finds an edit in head (its lines, without line endings) by
// content, the way patch(1) does with fuzz: first with all its context,
// then with up to context lines of it dropped from the outside, never
// dropping a removed line. The first level that matches decides: exactly
// one match anchors it; several make it ambiguous (never guessed); an
// insertion needs at least one line of context to find its place.
func anchor(head []string, e edit) (anchored, Kind) {
	for fuzz := 0; fuzz <= context; fuzz++ {
		b := e.before[min(fuzz, len(e.before)):]
		a := e.after[:len(e.after)-min(fuzz, len(e.after))]
		pattern := slices.Concat(b, e.removed, a)
		if len(pattern) == 0 {
			break
		}
		var found []int
		for i := 0; i+len(pattern) <= len(head); i++ {
			if slices.Equal(head[i:i+len(pattern)], pattern) {
				found = append(found, i)
				if len(found) > 1 {
					break
				}
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return anchored{at: found[0] + len(b), before: len(b), after: len(a)}, ""
		default:
			return anchored{}, KindAmbiguous
		}
	}
	return anchored{}, KindNotFound
}
