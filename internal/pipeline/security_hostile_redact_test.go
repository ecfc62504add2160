package pipeline_test

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ulikunitz/xz"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randFrom returns n random characters of alphabet.
func randFrom(t *testing.T, alphabet string, n int) string {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		assert.NilError(t, err)
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

// realisticKey is an Anthropic-shaped key with a random body of the real
// alphabet and length.
func realisticKey(t *testing.T) string {
	return "sk-ant-api03-" + randFrom(t, alnum+"_-", 93) + "AA"
}

// encodings are what a hostile README makes the agent print: the key (and
// the environment holding it) transformed in ways that keep it
// recoverable. Different payloads from the examples on purpose.
var encodings = []string{
	"printenv ANTHROPIC_API_KEY | base64 -w 40",
	"env | sort | base64",
	"printenv ANTHROPIC_API_KEY | base64 -w 23",
	"printenv ANTHROPIC_API_KEY | openssl base64",
	"printenv ANTHROPIC_API_KEY | od -An -tx1",
	"printenv ANTHROPIC_API_KEY | od -An -tx1 -w5",
	"printenv ANTHROPIC_API_KEY | od -c",
	"env | od -c | head -80",
	"printenv ANTHROPIC_API_KEY | od -x",
	"printenv ANTHROPIC_API_KEY | od -b",
	"printenv ANTHROPIC_API_KEY | base32",
	"printenv ANTHROPIC_API_KEY | base32 -w 33",
	"printenv ANTHROPIC_API_KEY | basenc --base16 -w 14",
	"printenv ANTHROPIC_API_KEY | tr 'A-Za-z' 'N-ZA-Mn-za-m'",
	"printenv ANTHROPIC_API_KEY | base64 | base64",
	"printenv ANTHROPIC_API_KEY | base64 -w 0 | base64 -w 50 | base64",
	"env | gzip | base64",
	"printenv ANTHROPIC_API_KEY | bzip2 | base64 -w 60",
	"env | xz | base64",
	"printenv ANTHROPIC_API_KEY | base64 -w0 | rev",
	"printenv ANTHROPIC_API_KEY | basenc --base2msbf",
	"printenv ANTHROPIC_API_KEY | sed 's/./& /g'",
	"printenv ANTHROPIC_API_KEY | sed 's/./&  /g' | fold -w 30",
	"printenv ANTHROPIC_API_KEY | fold -w 11",
	"printenv ANTHROPIC_API_KEY | fold -w 4",
	"printenv ANTHROPIC_API_KEY | rev | fold -w 9",
	"printenv ANTHROPIC_API_KEY | cut -c20-60 | base64",
	"python3 -c \"import os; print(list(os.environ['ANTHROPIC_API_KEY'].encode()))\"",
	"perl -e 'print unpack(\"H*\", $ENV{ANTHROPIC_API_KEY}), \"\\n\"'",
}

// 3. Where the key is in the container (an engine whose CLI cannot use the
// key-holding proxy; here the library's raw network mode, which forwards
// it as such an engine gets it) a hostile README prints it transformed:
// wrapped, spaced, dumped, in base32, rot13, nested base64, compressed. No
// published file keeps it recoverable: the test decodes every command
// output in every way it was encoded (an oracle independent of the
// redactor) and finds no 12-character piece of the key's random part.
// (The encodings redaction cannot follow are why the proxy keeps keys out:
// TestKeyNeverInTheContainer.)
func TestHostileEncodedKeyIsRedacted(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	var turns []scriptedllm.Turn
	for _, c := range encodings {
		turns = append(turns, scriptedllm.Run("", scriptedllm.Bash(c)))
	}
	turns = append(turns, scriptedllm.Say("SUCCESS"))
	srv, err := scriptedllm.Start(gw+":0", scriptedllm.Scenario{Name: "encodings", Turns: turns})
	assert.NilError(t, err)
	defer srv.Close()

	key := realisticKey(t)
	body := strings.TrimPrefix(key, "sk-ant-api03-")
	out := t.TempDir()
	var progress bytes.Buffer
	runID := sandbox.NewRunID()
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ClaudeCodeName, RepoDir: writeRepo(t, "# Encodings\n"), Image: img,
		Limits: engines.Limits{MaxTurns: 40, Timeout: 5 * time.Minute}, OutDir: out, RunID: runID,
		NetworkMode: "bridge", // raw mode: the key in the agent's environment
		Getenv:      env(map[string]string{"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": srv.URL()}),
		Progress:    &progress, Docker: cli,
	})
	t.Logf("progress:\n%s", progress.String())
	assert.NilError(t, err)
	assertNothingLeft(t, cli, runID)

	// The raw tool results prove each encoding did carry the key.
	var raw bytes.Buffer
	for _, r := range srv.Requests() {
		raw.Write(r.Body)
	}
	assert.Assert(t, recoverable(raw.String(), body), "the key never reached the LLM: the test proves nothing")

	outs := commandOutputs(res.Log)
	for _, c := range encodings {
		o, ok := outs[c]
		if !assert.Check(t, ok, "command not in the log: %s", c) {
			continue
		}
		assert.Check(t, !recoverable(o, body), "the key is recoverable from the output of %q:\n%s", c, o)
	}
	for name, b := range readAll(t, out) {
		assert.Check(t, !recoverable(string(b), body), "%s keeps the key recoverable", name)
		assertNoLeak(t, name, b, key)
	}
	assert.Check(t, !recoverable(progress.String(), body), "the progress output keeps the key recoverable")
}

// recoverable reports whether any 12-character piece of secret can be read
// back from text by undoing the encodings a README can apply; also with
// separators (dashes, zero-width characters, dots, colons) taken out of
// both, for a value interleaved with them.
func recoverable(text, secret string) bool {
	bare := stripSeparators(secret)
	for _, v := range views(text, 3) {
		for i := 0; i+12 <= len(secret); i++ {
			if strings.Contains(v, secret[i:i+12]) {
				return true
			}
		}
		sv := stripSeparators(v)
		for i := 0; i+12 <= len(bare); i++ {
			if strings.Contains(sv, bare[i:i+12]) {
				return true
			}
		}
	}
	return false
}

var (
	wsRe      = regexp.MustCompile(`[\s]+`)
	jsonEscRe = regexp.MustCompile(`\\[nrt]`)
	b64RunRe  = regexp.MustCompile(`[A-Za-z0-9+/=_-]{16,}`)
	b32RunRe  = regexp.MustCompile(`[A-Z2-7=]{16,}`)
	hexRunRe  = regexp.MustCompile(`(?i)[0-9a-f]{16,}`)
	numListRe = regexp.MustCompile(`\b\d{1,3}\b`)
	bitsRe    = regexp.MustCompile(`^[01]{64,}$`)
)

// fromBits reads a run of bits, most significant first.
func fromBits(s string) string {
	var b []byte
	for i := 0; i+8 <= len(s); i += 8 {
		v, _ := strconv.ParseUint(s[i:i+8], 2, 8)
		b = append(b, byte(v))
	}
	return string(b)
}

// views returns text as a reader could decode it: as is, without white
// space, rot13, reversed, od -c and od -x/-b read back, decimal byte lists,
// and every base64, base32 and hex run decoded (and decompressed), to the
// given depth.
func views(text string, depth int) []string {
	plain := jsonEscRe.ReplaceAllString(text, "\n")
	tight := wsRe.ReplaceAllString(plain, "")
	out := []string{text, plain, tight, rot13(tight), reverseString(tight), odChars(plain), odWords(plain, 16, 6, 8), numList(plain),
		unshift(tight), unescapeJSON(plain), html.UnescapeString(plain), hexBytes(plain)}
	if depth == 0 {
		return out
	}
	decoded := decode85(plain)
	decoded = append(decoded, uudecode(plain))
	if bitsRe.MatchString(tight) {
		decoded = append(decoded, fromBits(tight))
	}
	for _, run := range b64RunRe.FindAllString(tight+" "+reverseString(tight), -1) {
		for off := 0; off < 4; off++ {
			decoded = append(decoded, b64Loose(run[off:]))
		}
	}
	for _, run := range b32RunRe.FindAllString(tight, -1) {
		for off := 0; off < 8 && off < len(run); off++ {
			decoded = append(decoded, b32Loose(run[off:]))
		}
	}
	for _, run := range hexRunRe.FindAllString(tight, -1) {
		for off := 0; off < 2; off++ {
			b, _ := hex.DecodeString(run[off : off+(len(run)-off)/2*2])
			decoded = append(decoded, string(b))
		}
	}
	for _, d := range decoded {
		out = append(out, decompress(d)...)
		out = append(out, views(d, depth-1)...)
	}
	return out
}

func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

func reverseString(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// b64Loose decodes 4-character groups until one does not decode.
func b64Loose(s string) string {
	s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	var out []byte
	for i := 0; i+4 <= len(s); i += 4 {
		b, err := base64.StdEncoding.DecodeString(s[i : i+4])
		if err != nil {
			break
		}
		out = append(out, b...)
	}
	return string(out)
}

func b32Loose(s string) string {
	var out []byte
	for i := 0; i+8 <= len(s); i += 8 {
		b, err := base32.StdEncoding.DecodeString(s[i : i+8])
		if err != nil {
			break
		}
		out = append(out, b...)
	}
	return string(out)
}

// odChars reads `od -c` output back: the single-character fields of every
// line after the offset.
func odChars(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && isDigits(f[0]) && len(f[0]) >= 6 {
			f = f[1:]
		}
		for _, x := range f {
			if len(x) == 1 {
				b.WriteString(x)
			}
		}
	}
	return b.String()
}

// odWords reads hex words of 4 digits (od -x, little-endian) and octal
// bytes of 3 digits (od -b) back.
func odWords(s string, _ ...int) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && isDigits(f[0]) && len(f[0]) >= 6 {
			f = f[1:]
		}
		for _, x := range f {
			switch len(x) {
			case 4:
				if v, err := strconv.ParseUint(x, 16, 16); err == nil {
					b.WriteByte(byte(v))
					b.WriteByte(byte(v >> 8))
				}
			case 3:
				if v, err := strconv.ParseUint(x, 8, 8); err == nil {
					b.WriteByte(byte(v))
				}
			}
		}
	}
	return b.String()
}

func numList(s string) string {
	var b strings.Builder
	for _, n := range numListRe.FindAllString(s, -1) {
		if v, err := strconv.Atoi(n); err == nil && v < 256 {
			b.WriteByte(byte(v))
		}
	}
	return b.String()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func decompress(s string) []string {
	var out []string
	if strings.HasPrefix(s, "\x1f\x8b") {
		if zr, err := gzip.NewReader(strings.NewReader(s)); err == nil {
			b, _ := io.ReadAll(io.LimitReader(zr, 1<<20))
			out = append(out, string(b))
		}
	}
	if strings.HasPrefix(s, "\xfd7zXZ\x00") {
		if zr, err := xz.NewReader(strings.NewReader(s)); err == nil {
			b, _ := io.ReadAll(io.LimitReader(zr, 1<<20))
			out = append(out, string(b))
		}
	}
	if strings.HasPrefix(s, "BZh") {
		b, _ := io.ReadAll(io.LimitReader(bzip2.NewReader(strings.NewReader(s)), 1<<20))
		out = append(out, string(b))
	}
	return out
}

// The oracle recovers what it should: each encoding of a known key, done
// in Go, is recoverable (so a passing hostile test means redaction worked).
func TestRecoverableOracle(t *testing.T) {
	key := realisticKey(t)
	body := strings.TrimPrefix(key, "sk-ant-api03-")
	b64 := base64.StdEncoding.EncodeToString([]byte(key + "\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("HOME=/x\nANTHROPIC_API_KEY=" + key + "\n"))
	_ = zw.Close()
	spaced := strings.Join(strings.Split(key, ""), " ")
	for name, s := range map[string]string{
		"wrapped base64": wrap(b64, 40),
		"base32":         base32.StdEncoding.EncodeToString([]byte(key)),
		"rot13":          rot13(key),
		"double base64":  base64.StdEncoding.EncodeToString([]byte(wrap(b64, 76))),
		"gzip base64":    wrap(base64.StdEncoding.EncodeToString(gz.Bytes()), 76),
		"spaced":         spaced,
		"folded":         wrap(key, 11),
		"json-escaped":   strings.ReplaceAll(wrap(key, 7), "\n", `\n`),
		// Issue 31's encodings, and a few more.
		"uuencode":        uuencode([]byte(key + "\n")),
		"uuencode env":    uuencode([]byte("HOME=/x\nANTHROPIC_API_KEY=" + key + "\nPATH=/bin\n")),
		"ascii85":         "<~" + a85(key) + "~>",
		"base85":          base85Encode([]byte(key), b85Alphabet),
		"z85":             base85Encode([]byte(key+"xyz"), z85Alphabet),
		"odd and even":    interleave(everyOther(key, 0), everyOther(key, 1)),
		"zero-width":      strings.Join(strings.Split(key, ""), "\u200b"),
		"dashes":          strings.Join(strings.Split(key, ""), "-"),
		"json \\u":        jsonU(key),
		"html decimal":    htmlEntities(key, "&#%d;"),
		"html hex":        htmlEntities(key, "&#x%x;"),
		"0x bytes":        hexList(key),
		"shifted":         shift(key),
		"base64 reversed": base64.StdEncoding.EncodeToString([]byte(reverseString(key))),
	} {
		assert.Check(t, recoverable(s, body), name)
	}
	assert.Check(t, !recoverable("[REDACTED:secret] nothing here "+body[:11], body))
}

// shift moves every letter and digit one place on (a→b, z→a, 9→0).
func shift(s string) string { return shiftBy(s, 1) }

// shiftBy moves every letter and digit n places on (0 < n < 10).
func shiftBy(s string, n int) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+rune(n))%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+rune(n))%26
		case r >= '0' && r <= '9':
			return '0' + (r-'0'+rune(n))%10
		}
		return r
	}, s)
}

func wrap(s string, n int) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		b.WriteString(s[i:min(len(s), i+n)] + "\n")
	}
	return b.String()
}

// Token shapes from a public rule set (gitleaks), printed by README
// commands that build them at run time, are redacted from every output.
func TestHostileTokenShapesAreRedacted(t *testing.T) {
	sandboxtest.Docker(t)
	lower := "abcdefghijklmnopqrstuvwxyz"
	digits := "0123456789"
	tokens := map[string]string{
		"slack bot":       "xoxb-" + randFrom(t, digits, 12) + "-" + randFrom(t, digits, 12) + "-" + randFrom(t, alnum, 24),
		"slack user":      "xoxp-" + randFrom(t, digits, 12) + "-" + randFrom(t, digits, 12) + "-" + randFrom(t, digits, 12) + "-" + randFrom(t, alnum, 32),
		"gitlab pat":      "glpat-" + randFrom(t, alnum+"_-", 20),
		"hugging face":    "hf_" + randFrom(t, lower+"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 34),
		"npm":             "npm_" + randFrom(t, alnum, 36),
		"stripe live":     "sk_live_" + randFrom(t, alnum, 32),
		"stripe restrict": "rk_live_" + randFrom(t, alnum, 32),
		"sendgrid":        "SG." + randFrom(t, alnum, 22) + "." + randFrom(t, alnum, 43),
		"digitalocean":    "dop_v1_" + randFrom(t, "0123456789abcdef", 64),
		"pypi":            "pypi-AgEIcHlwaS5vcmc" + randFrom(t, alnum, 60),
		"shopify":         "shpat_" + randFrom(t, "0123456789abcdef", 32),
		"atlassian":       "ATATT3" + randFrom(t, alnum+"_-", 186),
		"aws session":     "IQoJb3JpZ2luX2Vj" + randFrom(t, alnum+"+/", 400),
	}
	awsSecret := randFrom(t, alnum+"/+", 40)
	password := "Pw-" + randFrom(t, alnum, 14)
	netrcPassword := "Nr-" + randFrom(t, alnum, 14)
	// Each command prints its token from a shifted text (every letter and
	// digit three places on: the oracle reads a shift by one, and rot13),
	// so the README and the command text never hold it in any form the
	// oracle decodes.
	var sb strings.Builder
	sb.WriteString("# Tokens\n\n```bash\n")
	unshift := " | tr 'd-za-cD-ZA-C3-90-2' 'a-zA-Z0-9'\n"
	shift := func(s string) string { return shiftBy(s, 3) }
	for _, tok := range tokens {
		sb.WriteString("echo 'token: " + shift(tok) + "'" + unshift)
	}
	sb.WriteString("printf '%s\\n' '" + shift("aws_secret_access_key = "+awsSecret) + "' '" + shift(`{"SecretAccessKey": "`+awsSecret+`"}`) + "'" + unshift)
	sb.WriteString("printf 'database:\\n  user: app\\n'; echo '" + shift("  password: "+password) + "'" + unshift)
	sb.WriteString("echo '" + shift("machine api.example.com login alice password "+netrcPassword) + "'" + unshift)
	sb.WriteString("```\n")
	res, out, progress, err := runMarkdown(t, writeRepo(t, sb.String()))
	assert.NilError(t, err)
	assert.Check(t, is.Len(res.Log.Commands, len(tokens)+3))
	files := readAll(t, out)
	for name, tok := range tokens {
		// The random part (the rule's prefix is public), in any encoding:
		// the markdown transcript holds outputs in base64.
		random := tok[len(tok)-20:]
		for f, b := range files {
			assert.Check(t, !recoverable(string(b), random), "%s: the %s token survives", f, name)
		}
		assert.Check(t, !strings.Contains(progress, random[8:]))
	}
	for f, b := range files {
		assert.Check(t, !bytes.Contains(b, []byte(awsSecret[len(awsSecret)-16:])), "%s: the AWS secret key survives", f)
		assert.Check(t, !bytes.Contains(b, []byte(password[len(password)-10:])), "%s: the YAML password survives", f)
		assert.Check(t, !bytes.Contains(b, []byte(netrcPassword[len(netrcPassword)-10:])), "%s: the .netrc password survives", f)
	}
}

// README commands are never altered by redaction rules that know no value
// (a `gpgkey=https://…` line is not a secret), and the replay engine
// refuses to run a command that redaction did alter, saying which and why.
func TestHostileReadmeCommandsStayVerbatim(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	commands := []string{
		`echo "gpgkey=https://packages.example.com/keys/repo.gpg"`,
		`printf 'token=%s\n' placeholder-token-value`,
		`echo "password: changeme-in-production"`,
		`export API_KEY=not-a-secret-just-docs && echo "$API_KEY" | wc -c`,
	}
	readme := "# Verbatim\n\n```bash\n" + strings.Join(commands, "\n") + "\n```\n"
	res, out, _, err := runMarkdown(t, writeRepo(t, readme))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(res.Log.Commands, len(commands)))
	for i, c := range commands {
		assert.Check(t, is.Equal(res.Log.Commands[i].Command, c), "the README command was altered")
	}
	published := readAll(t, out)
	script := string(published[pipeline.DemoScriptFile])
	for _, c := range commands {
		assert.Check(t, is.Contains(script, c))
	}
	for _, f := range []string{pipeline.ReportFile, pipeline.DemoCastFile} {
		assert.Check(t, is.Contains(string(published[f]), "API_KEY=not-a-secret-just-docs"), "%s altered a README command", f)
	}

	// Replay of that log: the same commands run again.
	logBytes, err := os.ReadFile(filepath.Join(out, pipeline.CommandLogFile))
	assert.NilError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runID := sandbox.NewRunID()
	replayed, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ReplayName, RepoDir: writeRepo(t, readme), Image: img, PriorLog: logBytes,
		Limits: engines.Limits{Timeout: 2 * time.Minute}, OutDir: t.TempDir(), RunID: runID,
		Network: pipeline.NetworkNone, Docker: cli,
	})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(replayed.Log.Outcome, commandlog.OutcomeSuccess))
	assertNothingLeft(t, cli, runID)

	// A log whose command redaction altered: replay refuses it before
	// starting anything, naming the command.
	var l commandlog.Log
	assert.NilError(t, json.Unmarshal(logBytes, &l))
	l.Commands[1].Command = `printf 'token=%s\n' [REDACTED:env-secret]`
	var altered bytes.Buffer
	assert.NilError(t, commandlog.Encode(&altered, &l))
	refused, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ReplayName, RepoDir: writeRepo(t, readme), Image: img, PriorLog: altered.Bytes(),
		OutDir: t.TempDir(), Network: pipeline.NetworkNone, Docker: cli,
	})
	assert.Check(t, refused == nil, "the replay ran a redacted command")
	var ee *engines.EngineError
	assert.Assert(t, errors.As(err, &ee), "want an engine error, got %v", err)
	assert.Check(t, is.Contains(err.Error(), "[REDACTED:"))
	assert.Check(t, is.Contains(err.Error(), "README.md line"))
}
