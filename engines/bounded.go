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

import "hash/maphash"

const (
	// idWindow is how many ids (calls, messages, texts) a parser remembers.
	idWindow = 1 << 15
	// openSlots and openBytes bound the commands and file edits kept in
	// memory while their results may still come: past either, the oldest
	// is sealed (final, handed to the sink).
	openSlots = 4096
	openBytes = 8 << 20
)

// window is a map that keeps only its max most recently added keys.
// Updating a key keeps its place; keys are never deleted otherwise, so the
// eviction order is the insertion order and parsing stays deterministic.
type window[K comparable, V any] struct {
	m    map[K]V
	ring []K
	head int
	max  int
}

func newWindow[K comparable, V any](max int) *window[K, V] {
	return &window[K, V]{m: map[K]V{}, max: max}
}

func (w *window[K, V]) get(k K) (V, bool) {
	v, ok := w.m[k]
	return v, ok
}

// at is get without the second result, like indexing a map.
func (w *window[K, V]) at(k K) V { return w.m[k] }

func (w *window[K, V]) has(k K) bool {
	_, ok := w.m[k]
	return ok
}

// put sets the value of k; a new key evicts the oldest one when the window
// is full.
func (w *window[K, V]) put(k K, v V) {
	if _, ok := w.m[k]; ok {
		w.m[k] = v
		return
	}
	w.m[k] = v
	if len(w.ring) < w.max {
		w.ring = append(w.ring, k)
		return
	}
	delete(w.m, w.ring[w.head])
	w.ring[w.head] = k
	w.head = (w.head + 1) % w.max
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

// slot is one open item of a region.
type slot[T any] struct {
	id   string
	item T
	size int
}

// region holds the open items of one list (commands or file edits) in list
// order. Items are sealed — handed to seal, final — from the front, when
// the region holds more than openSlots items or openBytes bytes, or at the
// end of the transcript. A sealed id is remembered (a window) so that a
// repeated call is still recognised.
type region[T any] struct {
	slots  []*slot[T] // slots[front:] are open, oldest first
	front  int
	open   map[string]*slot[T]
	sealed *window[string, struct{}]
	bytes  int
	seal   func(*T)
}

func newRegion[T any](seal func(*T)) *region[T] {
	return &region[T]{open: map[string]*slot[T]{}, sealed: newWindow[string, struct{}](idWindow), seal: seal}
}

// known reports whether id names an item, open or recently sealed.
func (r *region[T]) known(id string) bool {
	if _, ok := r.open[id]; ok {
		return true
	}
	return r.sealed.has(id)
}

// lookup returns the open item named id, or nil.
func (r *region[T]) lookup(id string) *slot[T] { return r.open[id] }

// add opens an item at the end of the list; id may be "" (an item nothing
// refers to later).
func (r *region[T]) add(id string, item T, size int) {
	s := &slot[T]{id: id, item: item, size: size}
	r.slots = append(r.slots, s)
	if id != "" {
		r.open[id] = s
	}
	r.bytes += size
	r.trim()
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
		r.slots = append(r.slots[:0], r.slots[r.front:]...)
		r.front = 0
	}
	r.bytes -= s.size
	if s.id != "" {
		delete(r.open, s.id)
		r.sealed.put(s.id, struct{}{})
	}
	r.seal(&s.item)
}

// sealAll seals every open item, in order.
func (r *region[T]) sealAll() {
	for r.front < len(r.slots) {
		r.sealFront()
	}
}
