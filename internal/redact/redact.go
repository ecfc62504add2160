// Package redact removes secrets from everything readme2demo publishes:
// command_log.json, transcripts, reports, PR comments, logs and demo files.
//
// It is defence in depth: the network allowlist keeps API keys out of the
// sandbox altogether (the egress proxy holds them), so under the default
// policy there is nothing for a README to print. Redaction is what stands
// when a key does reach the sandbox (network open, engines whose key must
// be inside), and for tokens the agent finds elsewhere.
//
// Three kinds of rule apply:
//
//   - The values of the secrets the run forwarded (internal/secrets finds
//     them), in the forms they take in logs (forms.go): whole, in their
//     common encodings, and — for values that look like generated
//     credentials — any piece of at least 12 characters, raw, reversed,
//     rot13, hex, base64 or base32, also when wrapped, folded or spaced
//     (the skeleton, skeleton.go).
//   - The shapes of well-known tokens (Rules): the token families of
//     gitleaks' rule set with a distinctive prefix, the generic
//     "key = value" rule, PEM keys, JWTs, URL and header credentials and
//     NAME=value env dumps, so a token the agent found elsewhere is caught
//     too.
//   - Both again inside nested encodings (decode.go, dump.go): base64 and
//     base32 runs, compressed streams inside them, and od/xxd/hexdump
//     dumps and byte lists are decoded and searched.
//
// A match becomes "[REDACTED:<rule>]" ("[REDACTED:secret]" for a forwarded
// value). Redaction is idempotent. The secret itself never appears in any
// message this package produces. A command that appears verbatim in the
// README is public already: Log leaves it to the forwarded-value rules
// only, so redaction never rewrites a README command into a different one
// (see Log).
//
// What it cannot catch is stated in SECURITY.md: a secret never forwarded
// that has no known shape, and a determined encoding (encryption with a
// key the README holds, a custom alphabet, pieces shorter than 12
// characters mixed with noise).
//
// Redaction is one pass over the text for the rules and the exact forms (a
// rolling 3-byte window looked up in small bit tables), one over its
// skeleton for the pieces, and decoding only where runs or dumps stand.
package redact

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// MinSecretLen is the shortest forwarded value treated as a secret; shorter
// values (a model name like "o3", a flag) would redact ordinary words.
const MinSecretLen = 8

// SecretRule is the rule name of a forwarded secret value.
const SecretRule = "secret"

// Marker returns the text that replaces a match of the named rule.
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

const markerPrefix = "[REDACTED:"

// Redactor replaces secrets in text. A nil *Redactor (New without secrets
// returns one) redacts token shapes only. It is safe for concurrent use.
type Redactor struct {
	needles map[uint32][]needle // exact forms, by their first three bytes
	bits    *bitset             // filter over the hashed first three bytes of rule prefixes and exact forms
	pieces  map[uint32][]needle // blocks of piece forms, matched in the skeleton
	pbits   *bitset
	forms   []form // piece forms, indexed by needle.form
	maxForm int    // longest form
}

// needle is one exact form of a secret, or one block of a piece form.
type needle struct {
	text   string
	form   int // index in forms (pieces only)
	offset int // of text in the form (pieces only)
}

type bitset [1 << 16 / 64]uint64

func (b *bitset) set(h uint32)      { b[(h>>6)&1023] |= 1 << (h & 63) }
func (b *bitset) has(h uint32) bool { return b[(h>>6)&1023]&(1<<(h&63)) != 0 }

// hash maps a 3-byte key to 16 bits.
func hash(k uint32) uint32 { return (k * 0x9E3779B1) >> 16 }

func key3(s string) uint32 { return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2]) }

// New returns a Redactor for the given secret values (forwarded
// credentials) plus the known token shapes. Values shorter than MinSecretLen
// are ignored.
func New(secrets []string) *Redactor {
	bits := *anchorBits
	r := &Redactor{needles: map[uint32][]needle{}, bits: &bits, pieces: map[uint32][]needle{}, pbits: new(bitset)}
	seen := map[string]bool{}
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		for _, e := range Encodings(s) {
			if len(e) < 4 || seen[e] {
				continue
			}
			seen[e] = true
			k := key3(e)
			r.needles[k] = append(r.needles[k], needle{text: e})
			r.bits.set(hash(k))
			r.maxForm = max(r.maxForm, len(e))
		}
		if !credentialLike(s) {
			// A base URL or a model name: its pieces are ordinary text.
			continue
		}
		for _, f := range pieceForms(s) {
			// Any run of at least minRun characters of the form holds
			// one whole block of (minRun+1)/2 starting at a multiple of
			// that size: look for the blocks and extend each hit.
			fi := len(r.forms)
			r.forms = append(r.forms, f)
			r.maxForm = max(r.maxForm, len(f.text))
			block := (f.minRun + 1) / 2
			for off := 0; off+block <= len(f.text); off += block {
				k := key3(f.text[off:])
				r.pieces[k] = append(r.pieces[k], needle{text: f.text[off : off+block], form: fi, offset: off})
				r.pbits.set(hash(k))
			}
		}
	}
	if len(r.needles) == 0 {
		return nil
	}
	return r
}

// span is one match: bytes [start, end) of the text, replaced by rule's
// marker.
type span struct {
	start, end int
	rule       string
	order      int // rule precedence when two spans start together
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if len(s) < 3 {
		return s
	}
	return r.settle(s, true)
}

// Values returns s with the forwarded values replaced, and nothing else:
// for text that is public already (a README command). A nil Redactor
// changes nothing.
func (r *Redactor) Values(s string) string {
	if r == nil || len(s) < 3 {
		return s
	}
	return r.settle(s, false)
}

// maxPasses bounds the passes of settle.
const maxPasses = 4

// settle redacts s until nothing more is found: a replacement can make
// what is left around it readable (a run of base64 that decoded to
// binary as a whole decodes to a private key's header once the secret's
// own base64 inside it is gone), and redacting the output again must
// change nothing. Text with no match costs one scan, as before.
func (r *Redactor) settle(s string, shapes bool) string {
	for range maxPasses {
		sc := r.top(len(s))
		sc.shapes = shapes
		spans := r.find(s, 0, sc)
		if len(spans) == 0 {
			break
		}
		s = render(s, spans, len(s))
	}
	return s
}

// top is the scan of a whole text of n bytes.
func (r *Redactor) top(n int) scan {
	budget := 4*n + 4<<20
	return scan{shapes: true, budget: &budget}
}

// Found returns the names of the rules that match s, without redacting it;
// a self-test uses it to prove an output surface is leak-free.
func (r *Redactor) Found(s string) []string {
	var names []string
	for _, sp := range r.find(s, 0, r.top(len(s))) {
		names = append(names, sp.rule)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// find returns the merged matches in s that end after from (the bytes
// before from are context already written out; a match reaching into them
// is cut at from).
func (r *Redactor) find(s string, from int, sc scan) []span {
	spans := r.rawSpans(s, from, sc, nil)
	spans = r.skeletonSpans(s, from, spans)
	spans = r.decodedSpans(s, from, sc, spans)
	return finish(s, from, spans)
}

// rawSpans finds the rules (when sc.shapes) and the exact forms of the
// forwarded values in s.
func (r *Redactor) rawSpans(s string, from int, sc scan, spans []span) []span {
	bits, needles := anchorBits, map[uint32][]needle(nil)
	if r != nil {
		bits, needles = r.bits, r.needles
	}
	var skip []int // per rule: anchors before this offset are inside a run already examined
	if sc.shapes {
		var fixed [64]int
		if len(Rules) <= len(fixed) {
			skip = fixed[:len(Rules)]
		} else {
			skip = make([]int, len(Rules))
		}
	}
	if len(s) < 3 {
		return spans
	}
	w := uint32(s[0])<<8 | uint32(s[1]) // the three bytes ending at s[i], rolled on
	for i := 2; i < len(s); i++ {
		w = (w<<8 | uint32(s[i])) & 0xffffff
		if !bits.has(hash(w)) {
			continue
		}
		p := i - 2
		if sc.shapes {
			for _, a := range anchors[w] {
				if p < skip[a.rule] || !strings.HasPrefix(s[p:], a.prefix) {
					continue
				}
				rule := &Rules[a.rule]
				start, end, next := rule.match(s, p, a.prefix)
				skip[a.rule] = next
				if end > start && end > from {
					spans = append(spans, span{max(start, from), end, rule.Name, a.rule})
				}
			}
		}
		for _, n := range needles[w] {
			if strings.HasPrefix(s[p:], n.text) && p+len(n.text) > from {
				spans = append(spans, span{max(p, from), p + len(n.text), SecretRule, -1})
			}
		}
	}
	return spans
}

// finish fits the spans to s's escapes and merges them.
func finish(s string, from int, spans []span) []span {
	for i := range spans {
		spans[i].start, spans[i].end = keepEscapes(s, spans[i].start, spans[i].end, from)
	}
	return merge(spans)
}

// keepEscapes moves a span's edges so that it never splits a backslash
// escape: redacting a JSON transcript line must leave valid JSON. A span
// ending on the backslash of an escape ("…abc\" before `"`) gives it back;
// a span starting right after one takes it.
func keepEscapes(s string, start, end, from int) (int, int) {
	if end > start && oddBackslashes(s, end-1) {
		end--
	}
	if start > from && oddBackslashes(s, start-1) {
		start--
	}
	// A \uXXXX escape cut by an edge is taken whole (or, before from, left
	// out whole).
	if j := uEscapeAround(s, start); j >= 0 {
		if j >= from {
			start = j
		} else {
			start = min(j+6, len(s))
		}
	}
	if j := uEscapeAround(s, end); j >= 0 && end > start {
		end = min(j+6, len(s))
	}
	// A secret that holds a quote must not take the quote that closes or
	// opens a JSON string with it: leave such an unescaped quote in place.
	if end > start && s[end-1] == '"' && !(end >= 2 && oddBackslashes(s, end-2)) {
		end--
	}
	if end > start && s[start] == '"' && !(start >= 1 && oddBackslashes(s, start-1)) {
		start++
	}
	return start, max(start, end)
}

// uEscapeAround returns where a \uXXXX escape starts when position i falls
// strictly inside it, else -1.
func uEscapeAround(s string, i int) int {
	for j := i - 1; j >= 0 && j > i-6; j-- {
		if s[j] == '\\' && j+1 < len(s) && s[j+1] == 'u' && oddBackslashes(s, j) {
			return j
		}
	}
	return -1
}

// oddBackslashes reports whether s[i] is a backslash that starts an escape:
// it ends an odd run of backslashes.
func oddBackslashes(s string, i int) bool {
	n := 0
	for ; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// merge sorts spans and joins overlapping ones; the first (earliest, then
// longest, then highest-precedence) names the result.
func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	sort.Slice(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.order < b.order
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// render writes s[:upto] with the spans that end at or before upto replaced.
func render(s string, spans []span, upto int) string {
	var b strings.Builder
	b.Grow(upto)
	prev := 0
	for _, sp := range spans {
		if sp.end > upto {
			break
		}
		b.WriteString(s[prev:sp.start])
		b.WriteString(Marker(sp.rule))
		prev = sp.end
	}
	b.WriteString(s[prev:upto])
	return b.String()
}

// Log redacts every string of a command log in place (the one traversal,
// commandlog.MapStrings, so no field is forgotten). A command that
// appears verbatim in one of the public texts (the README: every line of
// it is a substring) is public already: only forwarded values are
// redacted from it, never a token shape, so a README command is never
// rewritten into a different one (`gpgkey=https://…` stays as written,
// and the replay engine re-runs what the README says).
func Log(l *commandlog.Log, r *Redactor, public ...string) {
	commandlog.MapStrings(l, func(f commandlog.Field, s string) string {
		if f.Name == "command" && verbatim(s, public) {
			return r.Values(s)
		}
		return r.String(s)
	})
}

// Copy returns a redacted deep copy of l, leaving l as it was: for the
// demo and the reports, which redact again whatever their caller did. A
// command with a README source (mapped by the pipeline, which applied the
// shape rules to every command the README does not hold verbatim) keeps
// its text but for forwarded values.
func Copy(l *commandlog.Log, r *Redactor) *commandlog.Log { return CopyFunc(l, r.String, r.Values) }

// CopyFunc is Copy with the redactions given as functions: all applies to
// every string, values (when not nil) instead to the text of a command
// with a README source.
func CopyFunc(l *commandlog.Log, all, values func(string) string) *commandlog.Log {
	c := commandlog.Clone(l)
	sourced := map[string]bool{}
	if c != nil {
		for i := range c.Commands {
			if c.Commands[i].Source != nil {
				sourced["commands["+strconv.Itoa(i)+"].command"] = true
			}
		}
	}
	commandlog.MapStrings(c, func(f commandlog.Field, s string) string {
		if values != nil && sourced[f.Path] {
			return values(s)
		}
		return all(s)
	})
	return c
}

// verbatim reports whether every line of cmd occurs in one of the texts.
func verbatim(cmd string, texts []string) bool {
	if strings.TrimSpace(cmd) == "" || len(texts) == 0 {
		return false
	}
	for _, line := range strings.Split(cmd, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, line) }) {
			return false
		}
	}
	return true
}

// ContainsMarker reports whether s holds a redaction marker: text that
// redaction altered.
func ContainsMarker(s string) bool {
	i := strings.Index(s, markerPrefix)
	return i >= 0 && strings.IndexByte(s[i:], ']') > len(markerPrefix)
}
