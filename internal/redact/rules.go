package redact

import "strings"

// Rule is one token shape. Every match starts at, or right after, one of its
// literal Prefixes; the redactor looks for the prefixes in one pass and runs
// the rule's matcher only there.
type Rule struct {
	Name string
	// Prefixes are the literal strings a match is anchored at.
	Prefixes []string
	// Doc says what the rule matches, for SECURITY.md and the tests.
	Doc string
	// match examines s at p, where prefix was found. It returns the span
	// to redact (start == end for none) and the offset before which
	// another anchor of this rule cannot give a different answer.
	match func(s string, p int, prefix string) (start, end, next int)
}

// maxRuleLen bounds the length of any rule match (a PEM block is the
// longest); NewWriter keeps this much look-ahead.
const maxRuleLen = 16 << 10

// maxTokenLen bounds a token's body.
const maxTokenLen = 512

// Rules are the known token shapes, in precedence order: when two matches
// start at the same byte and are as long, the earlier rule names it.
var Rules = []Rule{
	{Name: "pem-private-key", Prefixes: []string{"-----BEGIN ", "-----END "}, match: matchPEM,
		Doc: "PEM private key blocks (RSA, EC, OPENSSH, PKCS#8, encrypted); a block cut by truncation is redacted from its header or back from its footer"},
	{Name: "anthropic-key", Prefixes: []string{"sk-ant-"}, match: matchAnthropic,
		Doc: "sk-ant-<kind><nn>-<20+ chars>: api03, admin01, oat01, ort01 keys"},
	{Name: "openai-key", Prefixes: []string{"sk-"}, match: matchOpenAI,
		Doc: "sk-[proj-|svcacct-|admin-]<20+ chars with an upper-case letter and a digit (or 32+ chars)>, at a word start"},
	{Name: "github-token", Prefixes: []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"}, match: matchGitHub,
		Doc: "gh[pousr]_<36+ alphanumerics>, github_pat_<22+ [A-Za-z0-9_]>, also glued to a preceding word"},
	{Name: "aws-access-key-id", Prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, match: matchAWS,
		Doc: "(AKIA|ASIA|ABIA|ACCA)<16 [A-Z0-9]> as a whole word"},
	{Name: "google-api-key", Prefixes: []string{"AIza"}, match: matchGoogle,
		Doc: "AIza<35+ [A-Za-z0-9_-]>"},
	{Name: "jwt", Prefixes: []string{"eyJ"}, match: matchJWT,
		Doc: "eyJ<8+>.eyJ<8+>.<signature> (base64url JSON header and payload)"},
	{Name: "bearer-token", Prefixes: []string{"Bearer ", "bearer ", "BEARER "}, match: matchBearer,
		Doc: "the 16+ character credential after \"Bearer \""},
	{Name: "url-credentials", Prefixes: []string{"://"}, match: matchURLCreds,
		Doc: "the password of scheme://user:password@host"},
	{Name: "env-secret", Prefixes: envPrefixes, match: matchEnv,
		Doc: "the 8+ character value of NAME=value when NAME ends in KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIALS (env, printenv, /proc/*/environ, .env files)"},
}

var envPrefixes = []string{
	"KEY=", "TOKEN=", "SECRET=", "PASSWORD=", "PASSWD=", "CREDENTIALS=",
	"key=", "token=", "secret=", "password=", "passwd=", "credentials=",
	"Key=", "Token=", "Secret=", "Password=",
}

type anchor struct {
	prefix string
	rule   int
}

var (
	anchors    = map[uint32][]anchor{} // by the prefix's first three bytes
	anchorBits = new(bitset)
)

func init() {
	if len(Rules) > 16 {
		panic("redact: too many rules for the skip table")
	}
	for i, r := range Rules {
		for _, p := range r.Prefixes {
			k := key3(p)
			anchors[k] = append(anchors[k], anchor{p, i})
			anchorBits.set(hash(k))
		}
	}
}

// Character classes.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
func isWord(c byte) bool      { return isAlnum(c) || c == '_' }
func isTokenChar(c byte) bool { return isWord(c) || c == '-' }
func isUpperNum(c byte) bool  { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
func isB64Char(c byte) bool   { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

// run returns the end of the run of bytes in class starting at i, looking
// at most limit bytes.
func run(s string, i int, class func(byte) bool, limit int) int {
	end := min(len(s), i+limit)
	for i < end && class(s[i]) {
		i++
	}
	return i
}

// wordStart reports whether no word character precedes p.
func wordStart(s string, p int) bool { return p == 0 || !isWord(s[p-1]) }

func none(p int) (int, int, int) { return 0, 0, p + 1 }

func matchAnthropic(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	kind := run(s, i, func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }, 11)
	if kind-i < 2 || kind-i > 10 || kind >= len(s) || s[kind] != '-' {
		return none(p)
	}
	end := run(s, kind+1, isTokenChar, maxTokenLen)
	if end-(kind+1) < 20 {
		return 0, 0, end
	}
	return p, end, end
}

func matchOpenAI(s string, p int, prefix string) (int, int, int) {
	if !wordStart(s, p) {
		return none(p)
	}
	body := p + len(prefix)
	for _, kind := range []string{"proj-", "svcacct-", "admin-", "None-"} {
		if strings.HasPrefix(s[body:], kind) {
			body += len(kind)
			break
		}
	}
	end := run(s, body, isTokenChar, maxTokenLen)
	n := end - body
	if n < 20 {
		return 0, 0, end
	}
	var upper, digit bool
	for i := body; i < end; i++ {
		c := s[i]
		upper = upper || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	// Random keys mix cases and digits; kebab-case words after "sk-" do not.
	if !upper || !digit && n < 32 {
		return 0, 0, end
	}
	return p, end, end
}

func matchGitHub(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	if prefix == "github_pat_" {
		end := run(s, i, isWord, 255)
		if end-i < 22 {
			return 0, 0, end
		}
		return p, end, end
	}
	end := run(s, i, isAlnum, 255)
	if end-i < 36 {
		return 0, 0, end
	}
	return p, end, end
}

func matchAWS(s string, p int, prefix string) (int, int, int) {
	if !wordStart(s, p) {
		return none(p)
	}
	end := run(s, p+len(prefix), isUpperNum, 17)
	if end-p != 20 || end < len(s) && isAlnum(s[end]) {
		return none(p)
	}
	return p, end, end
}

func matchGoogle(s string, p int, prefix string) (int, int, int) {
	end := run(s, p+len(prefix), isTokenChar, 64)
	if end-p < 39 {
		return 0, 0, end
	}
	return p, end, end
}

func matchJWT(s string, p int, _ string) (int, int, int) {
	head := run(s, p, isTokenChar, 2048)
	if head-p < 11 || head >= len(s) || s[head] != '.' || !strings.HasPrefix(s[head+1:], "eyJ") {
		return 0, 0, head
	}
	payload := run(s, head+1, isTokenChar, 8192)
	if payload-(head+1) < 11 || payload >= len(s) || s[payload] != '.' {
		return 0, 0, payload
	}
	sig := run(s, payload+1, isTokenChar, 2048)
	return p, sig, sig
}

func isCredChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._~+/=-", c) >= 0
}

func matchBearer(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	end := run(s, i, isCredChar, maxTokenLen)
	if end-i < 16 {
		return none(p)
	}
	return i, end, end
}

// isURLCredChar is the class of a URL's user and password: no separator,
// quote or backslash, so a match never leaves a quoted string.
func isURLCredChar(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte("/@\"'\\<>`", c) < 0
}

func matchURLCreds(s string, p int, prefix string) (int, int, int) {
	if p == 0 || !isAlnum(s[p-1]) {
		return none(p)
	}
	i := p + len(prefix)
	user := run(s, i, func(c byte) bool { return isURLCredChar(c) && c != ':' }, 256)
	if user >= len(s) || s[user] != ':' {
		return none(p)
	}
	pass := run(s, user+1, isURLCredChar, 256)
	// Already redacted: a marker where the user or the password stands.
	if pass == user+1 || pass >= len(s) || s[pass] != '@' || strings.HasPrefix(s[user+1:], markerPrefix) ||
		strings.HasPrefix(s[i:], markerPrefix) {
		return none(p)
	}
	return user + 1, pass, p + 1
}

func matchEnv(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	end := run(s, i, func(c byte) bool {
		return c > ' ' && c != '"' && c != '\'' && c != '&' && c != ';' && c != 0x7f
	}, maxTokenLen)
	if end-i < 8 || s[i] == '$' || s[i] == '<' || strings.HasPrefix(s[i:], markerPrefix) {
		return none(p)
	}
	return i, end, p + 1
}

const pemKeyTail = "PRIVATE KEY-----"

// isPEMBody is the class of a PEM body: base64 and line breaks, raw or
// JSON-escaped ("\n").
func isPEMBody(c byte) bool { return isB64Char(c) || c == '\n' || c == '\r' || c == '\\' }

// matchPEM redacts a private key block from its BEGIN line to its END line.
// When one of the two is missing (the output was truncated), it redacts the
// base64 body that follows the header or precedes the footer.
func matchPEM(s string, p int, prefix string) (int, int, int) {
	line := s[p:min(len(s), p+100)]
	if nl := strings.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	j := strings.Index(line, pemKeyTail)
	if j < 0 {
		return none(p)
	}
	headerEnd := p + j + len(pemKeyTail)
	if prefix == "-----END " {
		start := p
		for start > 0 && p-start < maxRuleLen && isPEMBody(s[start-1]) {
			start--
		}
		return start, headerEnd, headerEnd
	}
	// The body, then the footer right after it. Staying inside the body's
	// class keeps a block inside one JSON string of a transcript.
	end := run(s, headerEnd, isPEMBody, maxRuleLen-(headerEnd-p)-100)
	if strings.HasPrefix(s[end:], "-----END ") {
		footer := s[end:min(len(s), end+100)]
		if f := strings.Index(footer, pemKeyTail); f >= 0 && !strings.ContainsAny(footer[:f], "\n\"") {
			end += f + len(pemKeyTail)
		}
	}
	return p, end, end
}
