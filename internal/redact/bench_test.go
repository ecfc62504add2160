package redact

import (
	"fmt"
	"strings"
	"testing"
)

// ordinaryOutput is about n bytes of the text commands print: build logs,
// paths, hashes, package names, prose.
func ordinaryOutput(n int) string {
	lines := []string{
		"npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.",
		"added 1337 packages, and audited 1338 packages in 12s",
		"resolved https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main, origin/main)",
		"ok  	github.com/example/project/internal/server	0.412s	coverage: 81.2% of statements",
		"Step 4/12 : RUN pip install --no-cache-dir -r requirements.txt ---> Running in 3f4e5d6c7b8a",
		"request_id=7c9e6679-7425-40de-944b-e07fc1f90ae7 status=200 duration_ms=12 path=/api/v1/users?page=2",
		"The quick brown fox jumps over the lazy dog; the desk task skipped because the key was missing.",
		"export PATH=/usr/local/go/bin:$PATH && go build -o bin/server ./cmd/server",
		"dGhpcyBpcyBqdXN0IHNvbWUgYmFzZTY0IG9mIG9yZGluYXJ5IHRleHQsIG5vdGhpbmcgc2VjcmV0",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%5d %s\n", i, lines[i%len(lines)])
	}
	return b.String()
}

func benchSecrets() []string {
	return []string{
		"sk-ant-api03-" + strings.Repeat("Zx9_", 23) + "AA",
		"ghs_" + strings.Repeat("q7Lm", 9),
		"s3cr3t-Passw0rd-for-the-db",
	}
}

func BenchmarkRedactString(b *testing.B) {
	s := ordinaryOutput(1 << 20)
	for _, bc := range []struct {
		name    string
		secrets []string
	}{{"shapes-only", nil}, {"three-secrets", benchSecrets()}} {
		r := New(bc.secrets)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if out := r.String(s); len(out) != len(s) {
					b.Fatalf("ordinary output changed: %d -> %d bytes", len(s), len(out))
				}
			}
		})
	}
}

// seqOutput is the head and tail of `seq 1 200000` as a log keeps them
// (n bytes in all): one run of digits across line breaks, which the
// decoders probe as base64 and base32 and the dump reader reads line by
// line.
func seqOutput(n int) string {
	var head, tail strings.Builder
	for i := 1; head.Len() < n/2; i++ {
		fmt.Fprintf(&head, "%d\n", i)
	}
	for i := 199000; tail.Len() < n/2; i++ {
		fmt.Fprintf(&tail, "%d\n", i)
	}
	return head.String() + "… 180000 lines cut …\n" + tail.String()
}

func BenchmarkRedactSeq(b *testing.B) {
	s := seqOutput(4 << 10)
	r := New(benchSecrets())
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if out := r.String(s); out != s {
			b.Fatal("seq output changed")
		}
	}
}
