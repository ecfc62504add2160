package redact

// The skeleton of a text is the text without its separators: white space,
// line breaks, and the JSON escapes of line breaks and tabs (\n, \r, \t)
// that stand for them in a transcript. A secret printed wrapped
// (base64 -w 40), folded (fold -w 11), spaced (sed 's/./& /g') or dumped
// with spaces (od -An -tx1) is contiguous again in the skeleton, and piece
// forms are looked for there. A gap of more than maxGap separator bytes
// breaks the skeleton: two characters that far apart are not one match.
// Each skeleton character remembers its offset in the text, so a match
// maps back to the bytes to replace.

const (
	maxGap = 16
	// skelChunk bounds the skeleton built at once: long texts are
	// examined in chunks overlapping by the longest possible match.
	skelChunk = 1 << 20
	// gapMark stands for a broken gap in the skeleton; no piece form
	// holds it (credential-like values have no control characters).
	gapMark = 0
)

// sepLen returns the length of the separator at s[i], 0 if none.
func sepLen(s string, i int) int {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return 1
	case '\\':
		// \n, \r, \t as JSON writes them, and as nested JSON or %q
		// write them again (\\n): a backslash run then n, r or t.
		j := i
		for j < len(s) && j-i < 8 && s[j] == '\\' {
			j++
		}
		if j < len(s) && (s[j] == 'n' || s[j] == 'r' || s[j] == 't') {
			return j + 1 - i
		}
	}
	return 0
}

// skeletonOf appends the skeleton of s[lo:hi] to view and its offsets to
// pos.
func skeletonOf(s string, lo, hi int, view []byte, pos []int32) ([]byte, []int32) {
	gap := 0
	for i := lo; i < hi; {
		if !sepStart[s[i]] {
			// A run without separators, copied at once.
			j := i + 1
			for j < hi && !sepStart[s[j]] {
				j++
			}
			if gap > maxGap && len(view) > 0 {
				view = append(view, gapMark)
				pos = append(pos, int32(i))
			}
			gap = 0
			view = append(view, s[i:j]...)
			for k := i; k < j; k++ {
				pos = append(pos, int32(k))
			}
			i = j
			continue
		}
		if n := sepLen(s, i); n > 0 {
			gap += n
			i += n
			continue
		}
		if gap > maxGap && len(view) > 0 {
			view = append(view, gapMark)
			pos = append(pos, int32(i))
		}
		gap = 0
		view = append(view, s[i])
		pos = append(pos, int32(i))
		i++
	}
	return view, pos
}

// sepStart marks the bytes a separator can start with.
var sepStart = func() (t [256]bool) {
	for _, c := range " \t\n\r\v\f\\" {
		t[c] = true
	}
	return t
}()

// maxExtent bounds the text a piece match can span: every character of
// the longest form with a full gap after it.
func (r *Redactor) maxExtent() int { return r.maxForm * (maxGap + 2) }

// skeletonSpans finds the piece forms of r's secrets in s's skeleton and
// returns the spans of s they cover that end after from.
func (r *Redactor) skeletonSpans(s string, from int, spans []span) []span {
	if r == nil || len(r.pieces) == 0 {
		return spans
	}
	over := r.maxExtent()
	n := min(len(s), skelChunk+2*over)
	view, pos := make([]byte, 0, n), make([]int32, 0, n)
	for lo := 0; lo < len(s); lo += skelChunk {
		wlo, whi := max(0, lo-over), min(len(s), lo+skelChunk+over)
		view, pos = skeletonOf(s, wlo, whi, view[:0], pos[:0])
		for _, sp := range r.pieceMatches(view, pos) {
			// Each match once: from the chunk its start falls in (its
			// whole extent is inside that chunk's window).
			if sp.start >= lo && sp.start < lo+skelChunk && sp.end > from {
				sp.start = max(sp.start, from)
				spans = append(spans, sp)
			}
		}
		if whi == len(s) {
			break
		}
	}
	return spans
}

// pieceMatches returns the text spans of the piece matches in a skeleton
// (pos nil: the view is the text).
func (r *Redactor) pieceMatches(view []byte, pos []int32) []span {
	at := func(i int) int {
		if pos == nil {
			return i
		}
		return int(pos[i])
	}
	var out []span
	for i := 2; i < len(view); i++ {
		k := uint32(view[i-2])<<16 | uint32(view[i-1])<<8 | uint32(view[i])
		if !r.pbits.has(hash(k)) {
			continue
		}
		p := i - 2
		for _, n := range r.pieces[k] {
			if !hasPrefixBytes(view[p:], n.text) {
				continue
			}
			f := &r.forms[n.form]
			a, off := p, n.offset
			for a > 0 && off > 0 && view[a-1] == f.text[off-1] {
				a--
				off--
			}
			b, end := p+len(n.text), n.offset+len(n.text)
			for b < len(view) && end < len(f.text) && view[b] == f.text[end] {
				b++
				end++
			}
			outside := (end - off) - overlap(off, end, f.pubLo, f.pubHi)
			if b-a >= f.minRun && outside >= f.bodyMin {
				out = append(out, span{at(a), at(b-1) + 1, SecretRule, -1})
			}
		}
	}
	return out
}

// overlap is the length of [a,b) ∩ [c,d).
func overlap(a, b, c, d int) int { return max(0, min(b, d)-max(a, c)) }

func hasPrefixBytes(b []byte, p string) bool {
	if len(b) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if b[i] != p[i] {
			return false
		}
	}
	return true
}

// oddBackslashesNear is oddBackslashes looking back at most 64 bytes (a
// longer run of backslashes is not worth quadratic time).
func oddBackslashesNear(s string, i int) bool {
	n := 0
	for ; i >= 0 && s[i] == '\\' && n < 64; i-- {
		n++
	}
	return n%2 == 1
}
