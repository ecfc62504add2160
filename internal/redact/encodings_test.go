package redact

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
	"gotest.tools/v3/assert"
)

// A realistic forwarded key: public prefix, random body.
const fwdKey = "sk-ant-api03-Qm7Zk2Lx9Pw4Rt8Yv3Nc6Hb1Jd5Fg0Ks7Ua2Ie9Oq4Wm8Xn3Bz6Cy1Dt5Gh0Vj7Lp2Sr9Tk4Ef8AA"

func wrapAt(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		b.WriteString(s[i:min(len(s), i+n)] + "\n")
	}
	return b.String()
}

// od formats, emulated: 16 bytes a line, an octal offset first.
func odLines(b []byte, field func(chunk []byte) string) string {
	var out strings.Builder
	for off := 0; off < len(b); off += 16 {
		fmt.Fprintf(&out, "%07o %s\n", off, field(b[off:min(len(b), off+16)]))
	}
	fmt.Fprintf(&out, "%07o\n", len(b))
	return out.String()
}

func odC(b []byte) string {
	return odLines(b, func(c []byte) string {
		var f []string
		for _, x := range c {
			switch {
			case x == '\n':
				f = append(f, ` \n`)
			case x == 0:
				f = append(f, ` \0`)
			case x < 0x20 || x >= 0x7f:
				f = append(f, fmt.Sprintf("%03o", x))
			default:
				f = append(f, "  "+string(x))
			}
		}
		return " " + strings.Join(f, " ")
	})
}

func odX(b []byte) string {
	return odLines(b, func(c []byte) string {
		var f []string
		for i := 0; i+1 < len(c); i += 2 {
			f = append(f, fmt.Sprintf("%02x%02x", c[i+1], c[i]))
		}
		return strings.Join(f, " ")
	})
}

func odB(b []byte) string {
	return odLines(b, func(c []byte) string {
		var f []string
		for _, x := range c {
			f = append(f, fmt.Sprintf("%03o", x))
		}
		return strings.Join(f, " ")
	})
}

func xxdDump(b []byte) string {
	var out strings.Builder
	for off := 0; off < len(b); off += 16 {
		c := b[off:min(len(b), off+16)]
		var groups []string
		for i := 0; i < len(c); i += 2 {
			groups = append(groups, hex.EncodeToString(c[i:min(len(c), i+2)]))
		}
		fmt.Fprintf(&out, "%08x: %-40s  %s\n", off, strings.Join(groups, " "), c)
	}
	return out.String()
}

func hexdumpC(b []byte) string {
	var out strings.Builder
	for off := 0; off < len(b); off += 16 {
		c := b[off:min(len(b), off+16)]
		var f []string
		for _, x := range c {
			f = append(f, fmt.Sprintf("%02x", x))
		}
		fmt.Fprintf(&out, "%08x  %-48s |%s|\n", off, strings.Join(f, " "), c)
	}
	return out.String()
}

func compress(t *testing.T, kind string, b []byte) []byte {
	var buf bytes.Buffer
	switch kind {
	case "gzip":
		w := gzip.NewWriter(&buf)
		_, _ = w.Write(b)
		_ = w.Close()
	case "zlib":
		w := zlib.NewWriter(&buf)
		_, _ = w.Write(b)
		_ = w.Close()
	case "xz":
		w, err := xz.NewWriter(&buf)
		assert.NilError(t, err)
		_, _ = w.Write(b)
		_ = w.Close()
	}
	return buf.Bytes()
}

// encodedForms are the ways a README can print a forwarded key (or the
// environment holding it) so that it stays recoverable.
func encodedForms(t *testing.T, key string) map[string]string {
	env := "HOME=/home/agent\nPATH=/usr/bin:/bin\nANTHROPIC_API_KEY=" + key + "\nTERM=xterm\n"
	b64 := base64.StdEncoding.EncodeToString
	spaced := strings.Join(strings.Split(key, ""), " ")
	var dec []string
	for _, c := range []byte(key) {
		dec = append(dec, fmt.Sprint(c))
	}
	var hexList []string
	for _, c := range []byte(key) {
		hexList = append(hexList, fmt.Sprintf("0x%02x", c))
	}
	return map[string]string{
		"base64 76":          wrapAt(b64([]byte(env)), 76),
		"base64 40":          wrapAt(b64([]byte(key+"\n")), 40),
		"base64 23 offset":   wrapAt(b64([]byte("xy"+key)), 23),
		"base64url 0":        base64.RawURLEncoding.EncodeToString([]byte("!" + key)),
		"base64 of a piece":  b64([]byte(key[25:70])),
		"double base64":      wrapAt(b64([]byte(wrapAt(b64([]byte(key+"\n")), 76))), 76),
		"triple base64":      b64([]byte(wrapAt(b64([]byte(b64([]byte(key)))), 50))),
		"gzip base64":        wrapAt(b64(compress(t, "gzip", []byte(env))), 76),
		"zlib base64":        b64(compress(t, "zlib", []byte(env))),
		"xz base64":          wrapAt(b64(compress(t, "xz", []byte(env))), 76),
		"gzip base32":        wrapAt(base32.StdEncoding.EncodeToString(compress(t, "gzip", []byte(key))), 60),
		"base32":             wrapAt(base32.StdEncoding.EncodeToString([]byte(key+"\n")), 76),
		"base32 33 offset":   wrapAt(base32.StdEncoding.EncodeToString([]byte("abc"+key)), 33),
		"hex wrapped":        wrapAt(hex.EncodeToString([]byte(key)), 14),
		"HEX wrapped":        wrapAt(strings.ToUpper(hex.EncodeToString([]byte(key))), 60),
		"od -An -tx1":        strings.ReplaceAll(wrapAt(hex.EncodeToString([]byte(key)), 32), "", ""),
		"spaced hex":         spacedHex(key, 16),
		"od -c":              odC([]byte(key + "\n")),
		"od -c env":          odC([]byte(env)),
		"od -x":              odX([]byte(key + "\n")),
		"od -b":              odB([]byte(key + "\n")),
		"xxd":                xxdDump([]byte(key + "\n")),
		"hexdump -C":         hexdumpC([]byte("x" + key + "\n")),
		"rot13":              rot13(key),
		"rot13 of env":       rot13(env),
		"reversed folded":    wrapAt(reverse(key), 9),
		"spaced":             spaced,
		"double spaced fold": wrapAt(strings.Join(strings.Split(key, ""), "  "), 30),
		"fold 11":            wrapAt(key, 11),
		"fold 4":             wrapAt(key, 4),
		"one per line":       wrapAt(key, 1),
		"decimal list":       "[" + strings.Join(dec, ", ") + "]",
		"hex list":           "{" + strings.Join(hexList, ", ") + "}",
		"cut first 20":       key[20:],
		"base32hex":          wrapAt(base32.HexEncoding.EncodeToString([]byte(key)), 76),
		"base2msbf":          wrapAt(bits(key, true), 76),
		"base2lsbf":          wrapAt(bits(key, false), 76),
		"colon hex":          colonHex(key, ":"),
		"printf hex escapes": `\x` + colonHex(key, `\x`),
		"url-encoded all":    "%" + colonHex(key, "%"),
		"octal escapes":      octalEscapes(key),
		"rot47":              rot47(key),
		"base64 reversed":    reverse(b64([]byte(key))),
		"base64 rot13":       rot13(b64([]byte("\n" + key))),
		"hex of base64":      hex.EncodeToString([]byte(b64([]byte(key)))),
		"base64 of hex":      b64([]byte(hex.EncodeToString([]byte(key)))),
		"commas decimal":     strings.Join(dec, ","),
		"json-escaped fold":  strings.ReplaceAll(wrapAt(key, 7), "\n", `\n`),
	}
}

func bits(s string, msb bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		for k := 0; k < 8; k++ {
			shift := uint(7 - k)
			if !msb {
				shift = uint(k)
			}
			b.WriteByte('0' + s[i]>>shift&1)
		}
	}
	return b.String()
}

func colonHex(s, sep string) string {
	var parts []string
	for i := 0; i < len(s); i++ {
		parts = append(parts, fmt.Sprintf("%02x", s[i]))
	}
	return strings.Join(parts, sep)
}

func octalEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%03o", s[i])
	}
	return b.String()
}

func spacedHex(s string, perLine int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, " %02x", s[i])
		if (i+1)%perLine == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// leaks reports a 12-character piece of the key's random part that can be
// read back from text by the decodings a reader would try.
func leaks(text, key string) string {
	body := key[publicPrefix(key):]
	var views []string
	tight := strings.Join(strings.Fields(strings.ReplaceAll(text, `\n`, "\n")), "")
	views = append(views, text, tight, rot13(tight), reverse(tight))
	for off := 0; off < 4; off++ {
		if off < len(tight) {
			b, _ := base64.StdEncoding.DecodeString(strings.TrimRight(tight[off:], "=")[:len(strings.TrimRight(tight[off:], "="))/4*4])
			views = append(views, string(b))
		}
	}
	for _, v := range views {
		for i := 0; i+12 <= len(body); i++ {
			if strings.Contains(v, body[i:i+12]) {
				return body[i : i+12]
			}
		}
	}
	return ""
}

// Every encoded form of a forwarded key is redacted so that no piece of
// its random part can be read back, in plain text and inside a JSON
// transcript line; the result is idempotent and the JSON stays valid.
func TestEncodedSecretForms(t *testing.T) {
	r := New([]string{fwdKey})
	for name, text := range encodedForms(t, fwdKey) {
		t.Run(name, func(t *testing.T) {
			// (Most forms hide the key from a plain look: they are built
			// from it above, which is what makes them cases.)
			got := r.String(text)
			assert.Check(t, strings.Contains(got, "[REDACTED:"), "nothing redacted in %q", got)
			assert.Check(t, leaks(got, fwdKey) == "", "piece %q survives in %q", leaks(got, fwdKey), got)
			assert.Check(t, r.String(got) == got, "not idempotent")
			line, err := json.Marshal(map[string]string{"output": text})
			assert.NilError(t, err)
			gotJSON := r.String(string(line))
			assert.Check(t, json.Valid([]byte(gotJSON)), "invalid JSON: %s", gotJSON)
			var back map[string]string
			if json.Unmarshal([]byte(gotJSON), &back) == nil {
				assert.Check(t, leaks(back["output"], fwdKey) == "", "JSON: piece survives in %q", back["output"])
			}
		})
	}
}

// Token shapes inside encodings are found too (the markdown transcript
// keeps every output in base64).
func TestShapesInsideEncodings(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	for name, text := range map[string]string{
		"base64":      base64.StdEncoding.EncodeToString([]byte("output: " + token + "\n")),
		"gzip base64": base64.StdEncoding.EncodeToString(compress(t, "gzip", []byte("GITHUB_TOKEN="+token))),
		"od -c":       odC([]byte(token)),
	} {
		got := New(nil).String(text)
		assert.Check(t, strings.Contains(got, "[REDACTED:"), "%s: %q", name, got)
	}
}

// Decoding is bounded: huge runs are not decoded, and ordinary text that
// looks encoded (hashes, paths, base64 images) comes out unchanged.
func TestDecodingLeavesOrdinaryTextAlone(t *testing.T) {
	r := New([]string{fwdKey})
	for _, s := range []string{
		"9fceb02d0ae598e95dc970b74767f19372d61af8 /usr/local/lib/node_modules/npm/node_modules/abc",
		"0000000 6c6f 6f6c\n0000004\n",
		"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]",
		base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0, 1, 2, 3, 250}, 1000)),
		"00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|",
	} {
		assert.Equal(t, r.String(s), s)
	}
}
