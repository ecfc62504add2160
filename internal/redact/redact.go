// Package redact removes secrets from everything readme2demo publishes:
// command_log.json, transcripts, reports, PR comments, logs and demo files.
//
// Two kinds of rule apply:
//
//   - The values of the secrets the run forwarded, in the forms they take in
//     logs: the raw value and, for values that look like generated
//     credentials (credentialLike), any substring of it at least
//     max(12, len/2) bytes long (an agent told to "drop the first seven
//     characters to dodge the scanner" is still caught), base64 (standard
//     and URL alphabets, padded or not, at each of the three byte alignments
//     a secret embedded in longer text can have), hex, reversed,
//     URL-encoded and JSON-escaped.
//   - The shapes of well-known tokens (Rules): Anthropic, OpenAI, GitHub,
//     AWS and Google keys, PEM private keys, JWTs, bearer tokens, URL
//     credentials and NAME=value pairs whose name says secret, so a token the
//     agent found somewhere else is caught too.
//
// A match becomes "[REDACTED:<rule>]" ("[REDACTED:secret]" for a forwarded
// value). Redaction is idempotent. The secret itself never appears in any
// message this package produces.
//
// Redaction is one pass over the text: a rolling 3- and 4-byte window is
// looked up in small bit tables built from the rules' literal prefixes and
// the secrets' forms, and only candidate positions are examined further, so
// ordinary output streams through at hundreds of MB/s (BenchmarkRedactString).
// NewWriter applies the same rules to a stream and catches secrets split
// across writes.
package redact

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"sort"
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
	needles map[uint32][]needle // by the needle's first three bytes
	bits    *bitset             // filter over the hashed first three bytes of rule prefixes and needles
	maxLen  int                 // longest secret
}

// needle is one form of one secret to look for.
type needle struct {
	text string
	// For a block of the raw value: the secret it comes from, its offset
	// there and the shortest run that counts as a leak. secret is "" for an
	// exact form (an encoding), which must match whole.
	secret string
	offset int
	minRun int
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
	r := &Redactor{needles: map[uint32][]needle{}, bits: &bits}
	seen := map[needle]bool{}
	add := func(n needle) {
		if len(n.text) < 4 || seen[n] {
			return
		}
		seen[n] = true
		k := key3(n.text)
		r.needles[k] = append(r.needles[k], n)
		r.bits.set(hash(k))
		if len(n.text) > r.maxLen {
			r.maxLen = len(n.text)
		}
	}
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		// Any run of at least minRun bytes of s contains one whole block
		// of size (minRun+1)/2 starting at a multiple of that size: look
		// for the blocks and extend each hit both ways. Values that do not
		// look like credentials (a base URL, a model name) are only
		// matched whole: a piece of them is ordinary text.
		minRun := len(s)
		if credentialLike(s) {
			minRun = min(len(s), max(12, len(s)/2))
		}
		block := (minRun + 1) / 2
		for off := 0; off+block <= len(s); off += block {
			add(needle{text: s[off : off+block], secret: s, offset: off, minRun: minRun})
		}
		if len(s) > r.maxLen {
			r.maxLen = len(s)
		}
		for _, e := range Encodings(s) {
			if e != s {
				add(needle{text: e})
			}
		}
	}
	if len(r.needles) == 0 {
		return nil
	}
	return r
}

// credentialLike reports whether a forwarded value looks like a generated
// credential, whose pieces are secret too: at least 16 bytes, no white
// space, not a URL, and upper-case letters, lower-case letters and digits
// all present (API keys and tokens are; URLs, model and project names are
// not).
func credentialLike(s string) bool {
	if len(s) < 16 || strings.Contains(s, "://") {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ':
			return false
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// Encodings returns the forms a secret commonly takes in logs, s itself
// first: base64 in the standard and URL alphabets at each of the three byte
// alignments (only the characters that depend on s alone, so the form is
// found inside the encoding of any longer text), hex in both cases, s
// reversed, URL-encoded (query and path) and JSON-escaped.
func Encodings(s string) []string {
	out := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for align := 0; align < 3; align++ {
			out = append(out, base64Fragment(enc, s, align))
		}
	}
	h := hex.EncodeToString([]byte(s))
	out = append(out, h, strings.ToUpper(h), reverse(s), url.QueryEscape(s), url.PathEscape(s), jsonEscape(s))
	seen := map[string]bool{}
	uniq := out[:0]
	for _, e := range out {
		if !seen[e] && e != "" {
			seen[e] = true
			uniq = append(uniq, e)
		}
	}
	return uniq
}

// base64Fragment encodes s as it appears after align bytes of other data,
// keeping only the characters whose six bits all come from s.
func base64Fragment(enc *base64.Encoding, s string, align int) string {
	buf := make([]byte, align+len(s))
	copy(buf[align:], s)
	full := enc.EncodeToString(buf)
	first := (8*align + 5) / 6         // first char starting at or after bit 8*align
	last := (8 * (align + len(s))) / 6 // chars [first, last) end at or before the last bit of s
	if last <= first {
		return ""
	}
	return full[first:last]
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

var jsonEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "/", `\/`)

func jsonEscape(s string) string { return jsonEscaper.Replace(s) }

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
	spans := r.find(s, 0)
	if len(spans) == 0 {
		return s
	}
	return render(s, spans, len(s))
}

// Found returns the names of the rules that match s, without redacting it;
// a self-test uses it to prove an output surface is leak-free.
func (r *Redactor) Found(s string) []string {
	var names []string
	seen := map[string]bool{}
	for _, sp := range r.find(s, 0) {
		if !seen[sp.rule] {
			seen[sp.rule] = true
			names = append(names, sp.rule)
		}
	}
	sort.Strings(names)
	return names
}

// maxWindow is how many bytes a match can span: the longest token shape or
// secret form. NewWriter holds back this much.
func (r *Redactor) maxWindow() int {
	w := maxRuleLen
	if r != nil && 3*r.maxLen > w {
		w = 3 * r.maxLen
	}
	return w
}

// find returns the merged matches in s that end after from (the bytes
// before from are context already written out; a match reaching into them
// is cut at from).
func (r *Redactor) find(s string, from int) []span {
	var spans []span
	var skip [16]int // per rule: anchors before this offset are inside a run already examined
	bits, needles := anchorBits, map[uint32][]needle(nil)
	if r != nil {
		bits, needles = r.bits, r.needles
	}
	var w uint32
	for i := 2; i < len(s); i++ {
		w = uint32(s[i-2])<<16 | uint32(s[i-1])<<8 | uint32(s[i])
		if !bits.has(hash(w)) {
			continue
		}
		p := i - 2
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
		if ns := needles[w]; ns != nil {
			spans = needleAt(s, p, ns, from, spans)
		}
	}
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

func needleAt(s string, p int, ns []needle, from int, spans []span) []span {
	for _, n := range ns {
		if !strings.HasPrefix(s[p:], n.text) {
			continue
		}
		if n.secret == "" {
			if p+len(n.text) > from {
				spans = append(spans, span{max(p, from), p + len(n.text), SecretRule, -1})
			}
			continue
		}
		a, off := p, n.offset
		for a > 0 && off > 0 && s[a-1] == n.secret[off-1] {
			a--
			off--
		}
		b, end := p+len(n.text), n.offset+len(n.text)
		for b < len(s) && end < len(n.secret) && s[b] == n.secret[end] {
			b++
			end++
		}
		if b-a >= n.minRun && b > from {
			spans = append(spans, span{max(a, from), b, SecretRule, -1})
		}
	}
	return spans
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

// Log redacts every string of a command log in place.
func Log(l *commandlog.Log, r *Redactor) {
	if l == nil {
		return
	}
	if l.AgentVersion != nil {
		v := r.String(*l.AgentVersion)
		l.AgentVersion = &v
	}
	l.OutcomeReason = r.String(l.OutcomeReason)
	for i := range l.Markers {
		l.Markers[i].Text = r.String(l.Markers[i].Text)
	}
	for i := range l.Commands {
		c := &l.Commands[i]
		c.ID = r.String(c.ID)
		c.Command = r.String(c.Command)
		c.Output = r.String(c.Output)
		c.ParentID = r.String(c.ParentID)
		if c.Source != nil {
			c.Source.File = r.String(c.Source.File)
		}
	}
	for i := range l.FileEdits {
		l.FileEdits[i].Path = r.String(l.FileEdits[i].Path)
		l.FileEdits[i].Tool = r.String(l.FileEdits[i].Tool)
	}
	for i := range l.Skipped {
		s := &l.Skipped[i]
		s.File, s.Command, s.Reason = r.String(s.File), r.String(s.Command), r.String(s.Reason)
	}
}
