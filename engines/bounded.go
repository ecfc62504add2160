package engines

// Bounded parser state. A transcript of any size parses in bounded memory
// (docs/benchmarks.md): every table a parser keeps per call, message or
// text is a window that forgets its oldest entries past a fixed size, and
// the builder keeps only the commands and file edits that are still open,
// handing the others to its Sink in list order.
//
// Transcripts of real runs never reach these bounds, so their command logs
// are exactly what an unbounded parser would give. Past them the parser
// degrades the way a killed run does: a result that arrives more than
// idWindow calls (or more than openSlots commands) after its call is not
// paired and its command stays "unknown".
//
// Bounds, with what they cost in memory at most: open commands and edits
// (openSlots, openBytes: 2 MiB), ids remembered per table (idWindow to
// 2*idWindow, about 100 bytes each), one unfinished line of streamed agent
// text (maxAgentLine).

import "hash/maphash"

const (
	// idWindow is how many ids (calls, messages, texts) a parser remembers
	// at least (windows remember up to twice as many): plenty for any real
	// run (a result follows its call within a few calls), and small enough
	// for its tables to stay in the processor's caches.
	idWindow = 1 << 12
	// openSlots and openBytes bound the commands and file edits kept in
	// memory while their results may still come: past either, the oldest
	// is sealed (final, handed to the sink).
	openSlots = 512
	openBytes = 2 << 20
)

// window is a map that remembers only its most recent keys: at least max,
// at most 2*max. Keys go into the current generation; when it holds max
// keys it becomes the previous one and the one before is forgotten. That
// costs one map assignment per new key (no deletion), and what is
// forgotten depends only on the order of insertion, so parsing stays
// deterministic.
type window[K comparable, V any] struct {
	cur, prev map[K]V
	max       int
}

func newWindow[K comparable, V any](max int) *window[K, V] {
	return &window[K, V]{cur: map[K]V{}, prev: map[K]V{}, max: max}
}

func (w *window[K, V]) get(k K) (V, bool) {
	if v, ok := w.cur[k]; ok {
		return v, true
	}
	v, ok := w.prev[k]
	return v, ok
}

// at is get without the second result, like indexing a map.
func (w *window[K, V]) at(k K) V {
	v, _ := w.get(k)
	return v
}

func (w *window[K, V]) has(k K) bool {
	_, ok := w.get(k)
	return ok
}

// put sets the value of k (in the current generation).
func (w *window[K, V]) put(k K, v V) {
	if len(w.cur) >= w.max {
		if _, ok := w.cur[k]; !ok {
			w.rotate()
		}
	}
	w.cur[k] = v
}

// rotate starts a new generation, forgetting the oldest.
func (w *window[K, V]) rotate() {
	w.prev, w.cur = w.cur, w.prev
	clear(w.cur)
}

// seenSet remembers which strings (message texts, markers) were seen
// recently, as 64-bit hashes: its memory does not depend on the strings'
// length.
type seenSet struct {
	seed maphash.Seed
	w    *window[uint64, struct{}]
}

func newSeenSet() *seenSet {
	return &seenSet{seed: maphash.MakeSeed(), w: newWindow[uint64, struct{}](idWindow)}
}

// add records parts (joined) and reports whether they were new.
func (s *seenSet) add(parts ...string) bool {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	k := h.Sum64()
	if s.w.has(k) {
		return false
	}
	s.w.put(k, struct{}{})
	return true
}

// slot is one item of a region: open, or sealed and remembered by id.
type slot[T any] struct {
	id     string
	item   T
	size   int
	sealed bool
}

// region holds the open items of one list (commands or file edits) in list
// order. Items are sealed — handed to seal, final — from the front, when
// the region holds more than openSlots items or openBytes bytes, or at the
// end of the transcript. Sealed items are remembered by id (a window), so
// that a repeated call is still recognised; open ones are never forgotten.
type region[T any] struct {
	slots []*slot[T] // slots[front:] are open, oldest first
	front int
	ids   *window[string, *slot[T]]
	bytes int
	seal  func(*T)
}

func newRegion[T any](seal func(*T)) *region[T] {
	return &region[T]{ids: newWindow[string, *slot[T]](idWindow), seal: seal}
}

// known reports whether id names an item, open or recently sealed.
func (r *region[T]) known(id string) bool { return r.ids.has(id) }

// lookup returns the open item named id, or nil.
func (r *region[T]) lookup(id string) *slot[T] {
	if s := r.ids.at(id); s != nil && !s.sealed {
		return s
	}
	return nil
}

// add opens an item at the end of the list; id may be "" (an item nothing
// refers to later).
func (r *region[T]) add(id string, item T, size int) {
	s := &slot[T]{id: id, item: item, size: size}
	r.slots = append(r.slots, s)
	if id != "" {
		if len(r.ids.cur) >= r.ids.max {
			r.rotate()
		}
		r.ids.cur[id] = s
	}
	r.bytes += size
	r.trim()
}

// rotate starts a new generation of ids, carrying the open items over.
func (r *region[T]) rotate() {
	r.ids.rotate()
	for _, s := range r.slots[r.front:] {
		if s.id != "" && !r.ids.has(s.id) {
			r.ids.cur[s.id] = s
		}
	}
}

// resize records that an open item now holds size bytes.
func (r *region[T]) resize(s *slot[T], size int) {
	r.bytes += size - s.size
	s.size = size
	r.trim()
}

func (r *region[T]) trim() {
	for len(r.slots)-r.front > openSlots || r.bytes > openBytes && len(r.slots)-r.front > 1 {
		r.sealFront()
	}
}

func (r *region[T]) sealFront() {
	s := r.slots[r.front]
	r.slots[r.front] = nil
	r.front++
	if r.front > 1024 && r.front*2 > len(r.slots) {
		n := copy(r.slots, r.slots[r.front:])
		clear(r.slots[n:])
		r.slots = r.slots[:n]
		r.front = 0
	}
	r.bytes -= s.size
	r.seal(&s.item)
	var zero T
	s.item, s.sealed = zero, true
}

// sealAll seals every open item, in order.
func (r *region[T]) sealAll() {
	for r.front < len(r.slots) {
		r.sealFront()
	}
}
