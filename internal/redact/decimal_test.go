package redact

import (
	"bytes"
	"encoding/base32"
	"math/rand/v2"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// decodeDigits decodes a string of base64 characters from its start, as
// decodedSpans does at one alignment.
func decodeDigits(chars string) []byte {
	var d decoded
	decodeBase64(&d, []byte(chars), make([]int32, len(chars)))
	return d.data
}

// TestDecimalBase64 checks, over every group of four decimal digits, what
// decodedSpans relies on to skip reading a run of digits as base64
// (decimal): no decoded text, no compressed stream at any offset.
func TestDecimalBase64(t *testing.T) {
	const digits = "0123456789"
	var first, last [256]bool // byte values seen first and last in a group
	for g := range 10000 {
		var group [4]byte
		for i, x := 3, g; i >= 0; i, x = i-1, x/10 {
			group[i] = digits[x%10]
		}
		b := decodeDigits(string(group[:]))
		// The asserts below run only for a group that fails a check: the
		// t.Helper calls of 70,000 of them cost more than the checks.
		bad := len(b) != 3 || b[0] < 0x7f
		for i, c := range b {
			bad = bad || c == 0x1f || c == 'B' || i < 2 && (c == 0x78 || c == 0xfd)
		}
		if bad {
			assert.Equal(t, len(b), 3)
			// The first byte of every group is not text: at least one byte
			// in three is binary, and textLike wants seven in eight.
			assert.Assert(t, b[0] >= 0x7f, "group %s", group)
			for i, c := range b {
				// gzip and bzip2 streams start with 0x1f and 'B': never seen.
				assert.Assert(t, c != 0x1f && c != 'B', "group %s byte %d", group, i)
				// zlib (0x78) and xz (0xfd) only as a group's last byte.
				if i < 2 {
					assert.Assert(t, c != 0x78 && c != 0xfd, "group %s byte %d", group, i)
				}
			}
		}
		first[b[0]], last[b[2]] = true, true
	}
	// A group's last byte followed by the next group's first: neither a
	// zlib header nor the start of an xz magic.
	for x := range 256 {
		if !last[x] {
			continue
		}
		for y := range 256 {
			if !first[y] {
				continue
			}
			hdr := []byte{byte(x), byte(y), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
			if x == 0x78 || x == 0xfd {
				assert.Assert(t, !magic(hdr), "bytes %#x %#x", x, y)
			}
		}
	}
	// The same, end to end, on runs of any length at every alignment.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 16 + rng.IntN(300) {
			b.WriteByte(digits[rng.IntN(10)])
		}
		run := b.String()
		for k := range 4 {
			data := decodeDigits(run[k:])
			if promising(data) && len(data) > 0 || textLike(data) { // assert only then, as above
				assert.Assert(t, !promising(data) || len(data) == 0, "run %s at %d", run, k)
				assert.Assert(t, !textLike(data), "run %s at %d", run, k)
			}
		}
	}
}

// TestDecimalBase32StillDecoded pins what the decimal shortcut must not
// skip: in base32's extended-hex alphabet a run of digits decodes to text,
// and a secret written so is redacted.
func TestDecimalBase32StillDecoded(t *testing.T) {
	// Bytes whose base32 (extended hex) is digits only: 61130921… .
	secret := "0B0$A0B1 A0B2 A0B3$A"
	enc := base32.HexEncoding.EncodeToString([]byte(secret))
	assert.Equal(t, strings.Trim(enc, "0123456789"), "", "the encoding is digits only: %s", enc)
	r := New([]string{secret})
	for _, out := range []string{
		enc,
		"count: " + enc + "\n",
		"1\n2\n3\n" + enc[:16] + "\n" + enc[16:] + "\n4\n", // wrapped among seq output
	} {
		got := r.String(out)
		assert.Assert(t, !strings.Contains(got, enc[:16]), "not redacted: %q -> %q", out, got)
	}
}

// A probe of an alignment decodes the same bytes as the decoder it stands
// for, on runs of every alphabet, with and without padding, cut anywhere.
func TestProbesDecodeAsDecoders(t *testing.T) {
	alphabet := []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=!")
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 0; n < 20000; n++ {
		chars := make([]byte, rng.IntN(120))
		for i := range chars {
			chars[i] = alphabet[rng.IntN(len(alphabet))]
			if n%3 == 0 {
				chars[i] = "0123456789"[rng.IntN(10)]
			}
		}
		pos := make([]int32, len(chars))
		for i := range pos {
			pos[i] = int32(i)
		}
		var d decoded
		decodeBase64(&d, chars, pos)
		if got := probeBase64(nil, chars); !bytes.Equal(got, d.data) {
			t.Fatalf("base64 %q: probe %q, decoder %q", chars, got, d.data)
		}
		for _, alpha := range []*[256]int8{&b32Std, &b32Hex} {
			d.reset()
			decodeBase32(&d, alpha, chars, pos)
			if got := probeBase32(nil, alpha, chars); !bytes.Equal(got, d.data) {
				t.Fatalf("base32 %q: probe %q, decoder %q", chars, got, d.data)
			}
		}
	}
}
