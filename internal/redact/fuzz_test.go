package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzRedact checks, for an arbitrary secret placed in arbitrary text:
//
//   - String never panics, and its output contains neither the secret nor
//     (for a credential-like secret) any 12-byte piece of it holding 6
//     bytes past its public prefix, nor its base64 form — also when the
//     text is folded at an arbitrary width (then checked without the
//     line breaks);
//   - String is idempotent, and keeps a JSON document valid JSON.
//
// (The fourth argument is unused: it padded the text for a streaming
// writer the product no longer has; the seeds keep their shape.)
//
// A secret that contains '[' or ']' or is part of a marker is not checked
// for survival: the marker itself would "contain" it.
//
//	go test ./internal/redact -run '^$' -fuzz '^FuzzRedact$' -fuzztime 20s
func FuzzRedact(f *testing.F) {
	// A small decoding window, so that runs and dump blocks reach its
	// edges.
	run, line := maxDecodeRun, maxDumpLine
	maxDecodeRun, maxDumpLine = 4<<10, 2<<10
	f.Cleanup(func() { maxDecodeRun, maxDumpLine = run, line })
	f.Add(canary, "env: X=", "\n", uint16(0), uint16(1))
	f.Add(canary, "K", "xyz", uint16(17000), uint16(4093))
	f.Add("aaaaaaaaaaaa", "aaaa", "aaaaaaaa", uint16(16383), uint16(7))
	f.Add(anthropicKey, "ANTHROPIC_API_KEY=", "\x00HOME=/root", uint16(16380), uint16(64))
	f.Add("p4ss-w0rd-123", "https://u:", "@host/x "+pemKey, uint16(100), uint16(3))
	f.Add(githubPAT, "Authorization: Bearer ", " "+jwtToken, uint16(49000), uint16(1000))
	f.Fuzz(func(t *testing.T, secret, prefix, suffix string, _, chunk uint16) {
		started := time.Now()
		defer func() {
			if d := time.Since(started); d > 3*time.Second {
				t.Fatalf("slow: %s for %d+%d+%d bytes", d, len(prefix), len(secret), len(suffix))
			}
		}()
		r := New([]string{secret})
		text := prefix + secret + suffix
		b64 := base64.StdEncoding.EncodeToString([]byte(prefix + secret + suffix))
		for _, in := range []string{text, b64} {
			out := r.String(in)
			if checkable(secret) {
				if strings.Contains(out, secret) {
					t.Fatalf("secret survived in %q", out)
				}
				if p := survivingPiece(secret, out); p != "" {
					t.Fatalf("piece %q of the secret survived in %q", p, out)
				}
				if frag := base64Fragment(base64.StdEncoding, secret, len(prefix)%3); len(frag) >= 4 && !inMarker(frag) && strings.Contains(out, frag) {
					t.Fatalf("base64 of the secret survived in %q", out)
				}
			}
			if again := r.String(out); again != out {
				t.Fatalf("not idempotent:\n%q\n%q", out, again)
			}
		}

		// Folded at any width, the secret is still caught.
		if checkable(secret) && credentialLike(secret) {
			width := int(chunk)%23 + 1
			var folded strings.Builder
			for i := 0; i < len(text); i += width {
				folded.WriteString(text[i:min(len(text), i+width)] + "\n")
			}
			out := r.String(folded.String())
			if p := survivingPiece(secret, strings.ReplaceAll(out, "\n", "")); p != "" && !strings.Contains(prefix+suffix, p) {
				t.Fatalf("folded at %d: piece %q of the secret survived in %q", width, p, out)
			}
		}

		// Redacting JSON keeps it JSON (transcripts are JSONL).
		if line, err := json.Marshal(map[string]string{"o": text}); err == nil {
			if out := r.String(string(line)); !json.Valid([]byte(out)) {
				t.Fatalf("redaction broke JSON:\n%s\n%s", line, out)
			}
		}
	})
}

// survivingPiece returns a piece of secret that must not survive and is
// in out: for a credential-like secret, 12 bytes with 6 past its public
// prefix; otherwise the secret whole.
func survivingPiece(secret, out string) string {
	if !credentialLike(secret) {
		if strings.Contains(out, secret) {
			return secret
		}
		return ""
	}
	pp := publicPrefix(secret)
	for i := 0; i+pieceRun <= len(secret); i++ {
		if i+pieceRun-max(i, pp) < pieceBody {
			continue
		}
		if piece := secret[i : i+pieceRun]; strings.Contains(out, piece) && checkable(piece) {
			return piece
		}
	}
	return ""
}

// checkable reports whether survival of s can be checked: a marker cannot
// contain it.
func checkable(s string) bool {
	return len(s) >= MinSecretLen && !strings.ContainsAny(s, "[]") && !inMarker(s)
}

func inMarker(s string) bool {
	for _, rule := range append([]string{SecretRule}, ruleNames()...) {
		if strings.Contains(Marker(rule), s) {
			return true
		}
	}
	return false
}

func ruleNames() []string {
	var n []string
	for _, r := range Rules {
		n = append(n, r.Name)
	}
	return n
}
