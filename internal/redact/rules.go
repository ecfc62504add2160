package redact

import (
	"math"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Rule is one token shape. Every match starts at, or right after, one of its
// literal Prefixes (or, for a few shapes, a fixed number of bytes before
// it); the redactor looks for the prefixes in one pass and runs the rule's
// matcher only there.
type Rule struct {
	Name string
	// Prefixes are the literal strings a match is anchored at (at least
	// three bytes each).
	Prefixes []string
	// Doc says what the rule matches, for SECURITY.md and the tests.
	Doc string
	// Source is where the shape comes from: the gitleaks rule it follows
	// (github.com/gitleaks/gitleaks, cmd/generate/config/rules/<file>),
	// or another reference.
	Source string
	// match examines s at p, where prefix was found. It returns the span
	// to redact (start == end for none) and the offset before which
	// another anchor of this rule cannot give a different answer.
	match func(s string, p int, prefix string) (start, end, next int)
}

// maxRuleLen bounds the length of any rule match (a PEM block is the
// longest).
const maxRuleLen = 16 << 10

// maxTokenLen bounds a token's body.
const maxTokenLen = 512

// tokenWindow bounds the text a regexp-based rule looks at.
const tokenWindow = 1024

const gitleaks = "gitleaks cmd/generate/config/rules/"

// Rules are the known token shapes, in precedence order: when two matches
// start at the same byte and are as long, the earlier rule names it. They
// cover the token families of gitleaks' default rule set that have a
// distinctive prefix, the generic "key = value" rule, PEM keys, JWTs,
// URL and header credentials and env dumps. Each has true and false
// positives in TestShapeRules.
var Rules = []Rule{
	{Name: "pem-private-key", Prefixes: []string{"-----BEGIN ", "-----END "}, match: matchPEM, Source: gitleaks + "privatekey.go (private-key)",
		Doc: "PEM private key blocks (RSA, EC, OPENSSH, PKCS#8, encrypted); a block cut by truncation is redacted from its header or back from its footer"},
	{Name: "anthropic-key", Prefixes: []string{"sk-ant-"}, match: matchAnthropic, Source: gitleaks + "anthropic.go (anthropic-api-key, anthropic-admin-api-key), looser",
		Doc: "sk-ant-<kind><nn>-<20+ chars>: api03, admin01, oat01, ort01 keys"},
	{Name: "openai-key", Prefixes: []string{"sk-"}, match: matchOpenAI, Source: gitleaks + "openai.go (openai-api-key), looser",
		Doc: "sk-[proj-|svcacct-|admin-]<20+ chars with an upper-case letter and a digit (or 32+ chars)>, at a word start"},
	{Name: "github-token", Prefixes: []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"}, match: matchGitHub, Source: gitleaks + "github.go (github-pat, github-oauth, github-app-token, github-refresh-token, github-fine-grained-pat)",
		Doc: "gh[pousr]_<36+ alphanumerics>, github_pat_<22+ [A-Za-z0-9_]>, also glued to a preceding word"},
	tokenRule("gitlab-token", gitleaks+"gitlab.go (gitlab-pat, -pat-routable, -deploy-token, -feature-flag-client-token, -feed-token, -incoming-mail-token, -kubernetes-agent-token, -oauth-app-secret, -runner-authentication-token, -scim-token, -cicd-job-token, -ptt, -rrt)",
		"glpat-, gldt-, glffct-, glft-, glimt-, glagent-, gloas-, glrt-, glsoat- with 20+ [\\w.-]; glcbt-; glptt-<40 hex>; GR1348941<20+>",
		[]string{"glpat-", "gldt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glrt-", "glsoat-", "glcbt-", "glptt-", "GR1348941"},
		`(?:glpat|gldt|glffct|glft|glimt|glagent|gloas|glrt|glsoat)-[\w.-]{20,300}|glcbt-[0-9a-zA-Z]{1,5}_[\w-]{20,}|glptt-[0-9a-f]{40}|GR1348941[\w-]{20,}`, opt{}),
	tokenRule("gitlab-session", gitleaks+"gitlab.go (gitlab-session-cookie)", "the value of _gitlab_session=<32 [0-9a-z]>",
		[]string{"_gitlab_session="}, `_gitlab_session=([0-9a-z]{32})`, opt{group: 1}),
	tokenRule("slack-token", gitleaks+"slack.go (slack-bot-token, -user-token, -app-token, -config-access-token, -config-refresh-token, -legacy-bot-token, -legacy-workspace-token, -legacy-token)",
		"xox[baprseo]-… bot, user, workspace, refresh and legacy tokens, xoxe.xox[bp]- configuration tokens, xapp- app tokens",
		[]string{"xox", "xapp-"},
		`xox[baprseo]-[0-9A-Za-z-]{8,}|xoxe\.xox[bp]-\d-[0-9A-Za-z]{40,}|(?i:xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)`, opt{}),
	tokenRule("slack-webhook", gitleaks+"slack.go (slack-webhook-url)", "the path of hooks.slack.com/(services|workflows|triggers)/<43+>",
		[]string{"hooks.slack.com/"}, `hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{40,120})`, opt{group: 1, glued: true}),
	tokenRule("webhook-url", gitleaks+"teams.go (microsoft-teams-webhook); Discord webhook URLs", "the token part of Discord and Microsoft Teams webhook URLs",
		[]string{"/api/webhooks/", ".webhook.office.com/"},
		`/api/webhooks/\d+/([\w-]{40,100})|\.webhook\.office\.com/(webhookb2/[\w@/-]{40,200})`, opt{glued: true}),
	tokenRule("huggingface-token", gitleaks+"huggingface.go (huggingface-access-token, huggingface-organization-api-token)", "hf_<34 letters>, api_org_<34 letters>",
		[]string{"hf_", "api_org_"}, `(?:hf|api_org)_[A-Za-z]{34,40}`, opt{}),
	tokenRule("npm-token", gitleaks+"npm.go (npm-access-token)", "npm_<36 alphanumerics>",
		[]string{"npm_", "NPM_"}, `(?i:npm_[a-z0-9]{36})`, opt{}),
	tokenRule("stripe-key", gitleaks+"stripe.go (stripe-access-token)", "(sk|rk)_(test|live|prod)_<10-99 alphanumerics>",
		[]string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"}, `[sr]k_(?:test|live|prod)_[a-zA-Z0-9]{10,99}`, opt{}),
	{Name: "aws-access-key-id", Prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, match: matchAWS, Source: gitleaks + "aws.go (aws-access-token)",
		Doc: "(AKIA|ASIA|ABIA|ACCA|A3T.)<16 [A-Z0-9]> as a whole word"},
	{Name: "aws-session-token", Prefixes: awsSessionPrefixes, match: matchAWSSession,
		Source: "trufflehog pkg/detectors/aws/session_keys/sessionkey.go (sessionPat: 100+ base64 characters holding YXdz or Jb3JpZ2luX2Vj); gitleaks aws.go has the ASIA key id only",
		Doc:    "an STS session token: 100+ characters of base64 (or its URL encoding) starting IQoJb3JpZ2luX2Vj, FwoGZXIvYXdz or AQoDYXdz, as aws sts get-session-token and ~/.aws/credentials print it"},
	tokenRule("aws-bedrock-key", gitleaks+"aws.go (aws-amazon-bedrock-api-key-long-lived)", "ABSK<109-269 base64>",
		[]string{"ABSK"}, `ABSK[A-Za-z0-9+/]{109,269}={0,2}`, opt{}),
	tokenRule("atlassian-token", gitleaks+"atlassian.go (atlassian-api-token: ATATT3[A-Za-z0-9_\\-=]{186}); trufflehog pkg/detectors/atlassian/v2/atlassian.go (ATCTT3xFfG…=<8>)",
		"ATATT3… API tokens and ATCTT3… organisation keys: the prefix and 100-400 characters of [A-Za-z0-9+/_=-] (192 in all today)",
		[]string{"ATATT3", "ATCTT3"}, `AT[AC]TT3[A-Za-z0-9+/_=-]{100,400}`, opt{}),
	{Name: "google-api-key", Prefixes: []string{"AIza"}, match: matchGoogle, Source: gitleaks + "gcp.go (gcp-api-key)",
		Doc: "AIza<35+ [A-Za-z0-9_-]>"},
	tokenRule("grafana-token", gitleaks+"grafana.go (grafana-api-key, grafana-cloud-api-token, grafana-service-account-token)", "eyJrIjoi…, glc_…, glsa_…",
		[]string{"eyJrIjoi", "glc_", "glsa_"}, `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, opt{}),
	{Name: "jwt", Prefixes: []string{"eyJ"}, match: matchJWT, Source: gitleaks + "jwt.go (jwt)",
		Doc: "eyJ<8+>.eyJ<8+>.<signature> (base64url JSON header and payload)"},
	// Single-service tokens with a distinctive prefix.
	tokenRule("service-token", gitleaks+"1password.go, age.go, airtable.go, alibaba.go, artifactory.go, clojars.go, cloudflare.go, databricks.go, digitalocean.go, doppler.go, duffel.go, dynatrace.go, easypost.go, facebook.go, flutterwave.go, flyio.go, frameio.go, harness.go, hashicorp_vault.go, heroku.go, infracost.go, intra42.go, linear.go, octopusdeploy.go, openshift.go, perplexity.go, planetscale.go, postman.go, prefect.go, pulumi.go, pypi.go, readme.go, rubygems.go, scalingo.go, sendgrid.go, sendinblue.go, sentry.go, settlemint.go, shippo.go, shopify.go, sourcegraph.go, square.go",
		"tokens whose prefix names their service: ops_eyJ, AGE-SECRET-KEY-1, pat…\\., LTAI, AKCp, cmVmd, CLOJARS_, v1.0-, dapi, do[opr]_v1_, dp.pt., duffel_, dt0c01., EZAK/EZTK, EAAC/EAAM, FLW…, fo1_/fm1/fm2_, fio-u-, pat./sat., hvs./hvb., HRKU-AA, ico-, s-s4t2, lin_api_, API-, sha256~, pplx-, pscale_, PMAK-, pnu_, pul-, pypi-, rdme_, rubygems_, tk-us-, SG., xkeysib-, sntrys_/sntryu_, sm_*at_, shippo_, shp*_, sgp_, sq0atp-/sq0csp-",
		[]string{"ops_eyJ", "AGE-SECRET-KEY-1", "pat", "LTAI", "AKCp", "cmVmd", "CLOJARS_", "v1.0-", "dapi", "dop_v1_", "doo_v1_", "dor_v1_",
			"dp.pt.", "duffel_", "dt0c01.", "EZAK", "EZTK", "EAAC", "EAAM", "FLWPUBK_TEST-", "FLWSECK_TEST-", "fo1_", "fm1a_", "fm1r_", "fm2_",
			"fio-u-", "sat.", "hvs.", "hvb.", "HRKU-AA", "ico-", "s-s4t2", "lin_api_", "API-", "sha256~", "pplx-", "pscale_", "PMAK-",
			"pnu_", "pul-", "pypi-AgEIcHlwaS5vcmc", "rdme_", "rubygems_", "tk-us-", "SG.", "xkeysib-", "sntrys_", "sntryu_", "sm_pat_",
			"sm_aat_", "sm_sat_", "shippo_", "shpss_", "shpat_", "shpca_", "shppa_", "sgp_", "sq0atp-", "sq0csp-"},
		`ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}|pat[[:alnum:]]{14}\.[a-f0-9]{64}|`+
			`LTAI[a-zA-Z0-9]{20}|AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}|CLOJARS_[a-zA-Z0-9]{60}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}|`+
			`dapi[a-f0-9]{32}(?:-\d)?|do[opr]_v1_[a-f0-9]{64}|dp\.pt\.[a-zA-Z0-9]{43}|duffel_(?:test|live)_[a-zA-Z0-9_\-=]{43}|`+
			`dt0c01\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{64}|EZ[AT]K[a-zA-Z0-9]{54}|EAA[MC][a-zA-Z0-9]{100,}|FLW(?:PUB|SEC)K_TEST-[a-hA-H0-9]{32}-X|`+
			`FLWSECK_TEST-[a-hA-H0-9]{12}|fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+/]{100,}={0,3}|fm2_[a-zA-Z0-9+/]{100,}={0,3}|fio-u-[a-zA-Z0-9\-_=]{64}|`+
			`(?:pat|sat)\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}|hvs\.[\w-]{90,120}|hvb\.[\w-]{138,300}|HRKU-AA[0-9a-zA-Z_-]{58}|`+
			`ico-[a-zA-Z0-9]{32}|s-s4t2(?:ud|af)-[a-fA-F0-9]{64}|lin_api_[a-zA-Z0-9]{40}|API-[A-Z0-9]{26}|sha256~[\w-]{43}|pplx-[a-zA-Z0-9]{48}|`+
			`pscale_(?:pw|tkn|oauth)_[\w=.-]{32,64}|PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}|pnu_[a-zA-Z0-9]{36}|pul-[a-f0-9]{40}|`+
			`pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}|rdme_[a-z0-9]{70}|rubygems_[a-f0-9]{48}|tk-us-[\w-]{48}|SG\.[a-zA-Z0-9=_\-.]{66}|`+
			`xkeysib-[a-f0-9]{64}-[a-zA-Z0-9]{16}|sntryu_[a-f0-9]{64}|sntrys_eyJpYXQiO[a-zA-Z0-9+/=_]{40,}|sm_(?:pat|aat|sat)_[a-zA-Z0-9]{16}|`+
			`shippo_(?:live|test)_[a-fA-F0-9]{40}|shp(?:ss|at|ca|pa)_[a-fA-F0-9]{32}|sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|`+
			`sq0atp-[\w-]{22,60}|sq0csp-[\w-]{43}`, opt{}),
	tokenRule("twilio-key", gitleaks+"twilio.go (twilio-api-key)", "SK<32 hex> as a whole word",
		hexAnchors("SK"), `SK[0-9a-fA-F]{32}`, opt{}),
	tokenRule("mailchimp-key", gitleaks+"mailchimp.go (mailchimp-api-key)", "<32 hex>-us<1-2 digits>",
		[]string{"-us"}, `[0-9a-f]{32}-us\d{1,2}`, opt{back: 32}),
	tokenRule("maxmind-key", gitleaks+"maxmind.go (maxmind-license-key)", "<6>_<29>_mmk",
		[]string{"_mmk"}, `[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`, opt{back: 36}),
	tokenRule("azure-client-secret", gitleaks+"azure.go (azure-ad-client-secret)", "<3>\\dQ~<31-34>",
		digitAnchors("Q~"), `[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}`, opt{back: 3}),
	tokenRule("terraform-token", gitleaks+"hashicorp.go (hashicorp-tf-api-token)", "<14>.atlasv1.<60-70>",
		[]string{".atlasv1."}, `[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9\-_=]{60,70}`, opt{back: 14}),
	{Name: "bearer-token", Prefixes: []string{"Bearer ", "bearer ", "BEARER "}, match: matchBearer, Source: "claude-code-action src/github/utils/sanitizer.ts; " + gitleaks + "curl.go (curl-auth-header)",
		Doc: "the 16+ character credential after \"Bearer \""},
	{Name: "auth-header", Prefixes: []string{"Authorization:", "authorization:", "AUTHORIZATION:", "Proxy-Authorization:", "proxy-authorization:"}, match: matchAuthHeader,
		Source: gitleaks + "curl.go (curl-auth-header)",
		Doc:    "the credential of an Authorization header (Basic, token, or bare), 8+ characters"},
	{Name: "url-credentials", Prefixes: []string{"://"}, match: matchURLCreds, Source: gitleaks + "generic.go, curl.go; THREATS.md §3",
		Doc: "the password of scheme://user:password@host"},
	{Name: "curl-user", Prefixes: []string{" -u ", " -u=", " --user ", " --user="}, match: matchCurlUser, Source: gitleaks + "curl.go (curl-auth-user)",
		Doc: "the password of -u/--user user:password (curl, wget…), not placeholders or variables"},
	{Name: "netrc-password", Prefixes: []string{"machine", "default"}, match: matchNetrc,
		Source: "noseyparker crates/noseyparker/data/default/builtin/rules/netrc.yml (np.netrc.1: (machine <host>|default) login <user> password <secret>); gitleaks and trufflehog have no netrc rule",
		Doc:    "the password of a .netrc entry: machine <host> (or default) with login and password tokens in any order, on one line or several"},
	{Name: "env-secret", Prefixes: envPrefixes, match: matchEnv, Source: "THREATS.md §3 (env-dump heuristics)",
		Doc: "the 8+ character value of NAME=value when NAME ends in KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS, PWD, AUTH, APIKEY or CREDENTIALS, any case (env, printenv, /proc/*/environ, .env files, connection strings); never a URL, a path or a variable reference"},
	{Name: "generic-secret", Prefixes: genericPrefixes, match: matchGeneric, Source: gitleaks + "generic.go (generic-api-key)",
		Doc: "the value assigned to a name containing key, token, secret, passw(or)d, pwd, credential, creds, auth or api (`key = value`, `\"key\": \"value\"`, YAML `password: value`): 8+ characters of entropy ≥ 3.5 with a digit, or any 6+ character value for password names"},
}

// opt tunes a regexp-based rule.
type opt struct {
	glued bool // may follow a word character
	back  int  // the match starts this many bytes before the anchor
	group int  // redact this capture group instead of the whole match
}

// tokenRule builds a rule from a regexp matched at the anchor (or back
// bytes before it), at a word start unless glued, and not followed by a
// letter or digit.
func tokenRule(name, source, doc string, prefixes []string, pattern string, o opt) Rule {
	re := lazyre.New(`^(?:` + pattern + `)`)
	return Rule{Name: name, Prefixes: prefixes, Doc: doc, Source: source,
		match: func(s string, p int, _ string) (int, int, int) {
			lo := p - o.back
			if lo < 0 || !o.glued && !wordStart(s, lo) {
				return none(p)
			}
			m := re.FindStringSubmatchIndex(s[lo:min(len(s), lo+tokenWindow)])
			if m == nil {
				return none(p)
			}
			end := lo + m[1]
			if end < len(s) && isAlnum(s[end]) && m[1] < tokenWindow {
				return none(p)
			}
			start, stop := lo+m[0], end
			if o.group > 0 && m[2*o.group] >= 0 {
				start, stop = lo+m[2*o.group], lo+m[2*o.group+1]
			}
			return start, stop, end
		}}
}

func hexAnchors(p string) []string {
	var out []string
	for _, c := range "0123456789abcdefABCDEF" {
		out = append(out, p+string(c))
	}
	return out
}

func digitAnchors(p string) []string {
	var out []string
	for c := '0'; c <= '9'; c++ {
		out = append(out, string(c)+p)
	}
	return out
}

var envPrefixes = []string{
	"KEY=", "TOKEN=", "SECRET=", "PASSWORD=", "PASSWD=", "CREDENTIALS=", "PASS=", "PWD=", "AUTH=", "APIKEY=",
	"key=", "token=", "secret=", "password=", "passwd=", "credentials=", "pass=", "pwd=", "auth=", "apikey=",
	"Key=", "Token=", "Secret=", "Password=", "Pass=", "Pwd=",
}

var genericPrefixes = func() []string {
	var out []string
	for _, w := range []string{"key", "token", "secret", "passw", "pwd", "credential", "creds", "auth", "api"} {
		out = append(out, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:])
	}
	return out
}()

type anchor struct {
	prefix string
	rule   int
}

var (
	anchors    = map[uint32][]anchor{} // by the prefix's first three bytes
	anchorBits = new(bitset)
)

func init() {
	for i, r := range Rules {
		for _, p := range r.Prefixes {
			if len(p) < 3 {
				panic("redact: rule " + r.Name + " has a prefix shorter than 3 bytes")
			}
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
	end := run(s, p+len(prefix), isUpperNum, 20-len(prefix)+1)
	if end-p != 20 || end < len(s) && isAlnum(s[end]) {
		return none(p)
	}
	return p, end, end
}

// awsSessionPrefixes are how STS session tokens start: the base64 of
// their binary header, which names "aws" or "origin_ec" (trufflehog's
// checkSessionToken looks for YXdz or Jb3JpZ2luX2Vj in the same tokens).
var awsSessionPrefixes = []string{"IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdz", "AQoDYXdz", "AQoEYXdz"}

// maxSessionToken bounds an STS session token (about 400 to 1,300
// characters; URL-encoded, up to three times that).
const maxSessionToken = 8 << 10

// isSessionChar is the class of a session token: base64, also URL-encoded
// (%2F, %2B, %3D) as in a presigned URL's X-Amz-Security-Token.
func isSessionChar(c byte) bool { return isB64Char(c) || c == '%' }

// matchAWSSession redacts a whole session token from its prefix: trufflehog
// takes 100 or more characters of base64 (sessionPat).
func matchAWSSession(s string, p int, prefix string) (int, int, int) {
	if !wordStart(s, p) {
		return none(p)
	}
	end := run(s, p, isSessionChar, maxSessionToken)
	if end-p < 100 {
		return 0, 0, end
	}
	return p, end, end
}

// netrcKeywords are the tokens of a .netrc entry that take a value.
var netrcKeywords = []string{"login", "password", "account", "port"}

// matchNetrc redacts the password of a .netrc entry ("machine HOST" or
// "default", then keyword-value pairs separated by blanks or line breaks,
// raw or JSON-escaped). Like noseyparker's rule it wants a login in the
// entry, so prose such as "the default password is …" is left alone.
func matchNetrc(s string, p int, prefix string) (int, int, int) {
	if !wordStart(s, p) {
		return none(p)
	}
	i := p + len(prefix)
	if prefix == "machine" {
		host := netrcBlank(s, i)
		if host == i {
			return none(p)
		}
		if i = netrcValue(s, host); i == host {
			return none(p)
		}
	}
	login := false
	pwStart, pwEnd := 0, 0
	for range 8 {
		kw := netrcBlank(s, i)
		if kw == i {
			break
		}
		kwEnd := run(s, kw, func(c byte) bool { return c >= 'a' && c <= 'z' }, 9)
		word := s[kw:kwEnd]
		if !slices.Contains(netrcKeywords, word) {
			break
		}
		v := netrcBlank(s, kwEnd)
		if v == kwEnd {
			break
		}
		end := netrcValue(s, v)
		if end == v {
			break
		}
		switch word {
		case "login":
			login = true
		case "password":
			pwStart, pwEnd = v, end
		}
		i = end
	}
	if !login || pwEnd == 0 {
		return none(p)
	}
	pw := strings.Trim(s[pwStart:pwEnd], `"`)
	if len(pw) < 3 || isReference(pw) || isPlaceholder(pw) {
		return 0, 0, pwEnd
	}
	return pwStart, pwEnd, pwEnd
}

// netrcBlank returns the end of the blanks at i: spaces, tabs and line
// breaks, also as JSON escapes (\n, \t, \r).
func netrcBlank(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("ntr", s[i+1]) >= 0:
			i += 2
		default:
			return i
		}
	}
	return i
}

// netrcValue returns the end of the value at i: up to a blank, a JSON
// escape or a quote (a value in quotes runs to its closing quote).
func netrcValue(s string, i int) int {
	if i < len(s) && s[i] == '"' {
		if j := strings.IndexByte(s[i+1:min(len(s), i+maxTokenLen)], '"'); j > 0 {
			return i + 1 + j + 1
		}
		return i
	}
	return run(s, i, func(c byte) bool { return c > ' ' && c != 0x7f && c != '"' && c != '\\' }, maxTokenLen)
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

// matchAuthHeader redacts an Authorization header's credential: after an
// optional scheme word (Basic, token, …), the credential characters.
func matchAuthHeader(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	for i < len(s) && s[i] == ' ' {
		i++
	}
	w := run(s, i, isAlnum, 20)
	if w > i && w < len(s) && s[w] == ' ' {
		if strings.EqualFold(s[i:w], "bearer") {
			return none(p) // the bearer rule
		}
		i = w + 1
	}
	end := run(s, i, isCredChar, maxTokenLen)
	if end-i < 8 || isReference(s[i:end]) {
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
	// Already redacted: a marker in the user or the password (a marker's
	// own colon is not a user:password separator).
	if pass == user+1 || pass >= len(s) || s[pass] != '@' || strings.Contains(s[i:pass], markerPrefix) {
		return none(p)
	}
	return user + 1, pass, p + 1
}

// matchCurlUser redacts the password of -u user:password.
func matchCurlUser(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	class := func(c byte) bool { return c > ' ' && c < 0x7f && strings.IndexByte("\"'`;&|)", c) < 0 }
	end := run(s, i, class, 256)
	cred := s[i:end]
	user, pass, ok := strings.Cut(cred, ":")
	if !ok || len(user) < 1 || len(pass) < 3 || isReference(pass) || isPlaceholder(pass) || allDigits(pass) {
		return none(p)
	}
	start := i + len(user) + 1
	return start, end, end
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isReference reports a value that names a secret instead of holding it:
// a shell or template variable, a placeholder, a redaction marker.
func isReference(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '[', '*':
		return true
	}
	return strings.HasPrefix(v, markerPrefix) || strings.Contains(v, "${") || strings.Contains(v, "{{")
}

// isPlaceholder reports the values documentation uses instead of a real
// one.
func isPlaceholder(v string) bool {
	l := strings.ToLower(strings.Trim(v, `"'`))
	switch l {
	case "true", "false", "null", "none", "nil", "test", "password", "passwd", "secret", "token", "admin", "root":
		return true
	}
	for _, p := range []string{"changeme", "changeit", "your-", "your_", "placeholder", "example", "dummy", "redacted", "xxxx", "****", "...."} {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

// notSecretValue reports values that a name like KEY or TOKEN often holds
// without being a secret: URLs and paths (gpgkey=https://…,
// KEY_FILE=/etc/…), references and placeholders. A value with the shape
// of an AWS secret access key is never taken for a path, although one in
// 64 of them starts with "/".
func notSecretValue(v string) bool {
	if isReference(v) {
		return true
	}
	if strings.HasPrefix(v, "/") && awsSecretShape(v) {
		return false
	}
	if strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "file:") {
		return true
	}
	return false
}

// awsSecretShape reports the shape of an AWS secret access key: 40
// characters of the base64 alphabet, upper and lower case letters among
// them (a path of exactly 40 such characters with both cases and no dot,
// dash or underscore is rare; a key without both cases is one in a
// billion).
func awsSecretShape(v string) bool {
	if len(v) != 40 {
		return false
	}
	var upper, lower bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9', c == '/', c == '+':
		default:
			return false
		}
	}
	return upper && lower
}

func matchEnv(s string, p int, prefix string) (int, int, int) {
	i := p + len(prefix)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	end := run(s, i, func(c byte) bool {
		return c > ' ' && c != '"' && c != '\'' && c != '&' && c != ';' && c != 0x7f
	}, maxTokenLen)
	if end-i < 8 || notSecretValue(s[i:end]) {
		return none(p)
	}
	return i, end, p + 1
}

// matchGeneric is gitleaks' generic-api-key rule, written out: an
// identifier containing a secret word, an assignment, and a value that
// looks random (or any value for a password).
func matchGeneric(s string, p int, prefix string) (int, int, int) {
	// The identifier around the keyword: [\w.-] before and after.
	hi := run(s, p+len(prefix), func(c byte) bool { return isWord(c) || c == '.' || c == '-' }, 40)
	// Closing quote, blanks, the operator, blanks, an opening quote.
	i := hi
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	switch {
	case strings.HasPrefix(s[i:], ":="), strings.HasPrefix(s[i:], "=>"):
		i += 2
	case i < len(s) && (s[i] == '=' || s[i] == ':'):
		i++
	default:
		return 0, 0, hi
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '`') {
		i++
	}
	// The whole value, however long: a cut one would publish its tail (a
	// 1,000-character session token after "SessionToken": did).
	end := run(s, i, func(c byte) bool {
		return c > ' ' && c < 0x7f && strings.IndexByte("\"'`,;&<>()[]{}\\", c) < 0
	}, maxRuleLen)
	v := s[i:end]
	if len(v) < 6 {
		return 0, 0, hi
	}
	lo := p
	for lo > 0 && p-lo < 40 && (isWord(s[lo-1]) || s[lo-1] == '.' || s[lo-1] == '-') {
		lo--
	}
	ident := strings.ToLower(s[lo:hi])
	password := strings.Contains(ident, "passw") || strings.Contains(ident, "pwd") || strings.HasSuffix(ident, "secret")
	switch {
	case notSecretValue(v) || isPlaceholder(v):
		return 0, 0, hi
	case password:
	case len(v) >= 8 && hasDigit(v) && entropy(v) >= 3.5 && !versionLike(v):
	default:
		return 0, 0, hi
	}
	if genericIgnore.MatchString(ident) {
		return 0, 0, hi
	}
	return i, end, end
}

// genericIgnore is gitleaks' allowlist for the generic rule: names that
// contain a secret word without naming a secret.
var genericIgnore = lazyre.New(`access(?:ibility|or)|access[_.-]?(?:id|log)|random[_.-]?access|api[_.-]?(?:id|name|version|url|uri|endpoint|base)|rapid|capital|author|` +
	`credentials?[_.-]?id|withcredentials|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence|sort|partition)[_.-]?key|turkey|` +
	`key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right|file|path|type|s$)|` +
	`keyvault|key(?:store|tab|chain)|issuerkeyhash|monkey|donkey|keying|secret[_.-]?(?:length|name|size|ref|file|path)|usersecretsid|csrf[_.-]?token|` +
	`token[_.-]?(?:type|url|uri|endpoint|file|path|count|limit|len|length|usage|expir|ttl)|(?:max|num|total|input|output)[_.-]?tokens?|tokeniz|public[_.-]?token|passw(?:or)?d[_.-]?(?:file|path|policy|length|min|hash)|oauth[_.-]?url|authoriz|authenticat|` +
	`auth[_.-]?(?:type|method|url|uri|mode|provider|domain|scheme)`)

func hasDigit(s string) bool { return strings.ContainsAny(s, "123456789") }

var versionRe = lazyre.New(`^v?\d+(\.\d+)+([.-][\w.]+)?$`)

// versionLike reports version numbers (1.2.3, v2.0.1-rc1).
func versionLike(v string) bool { return versionRe.MatchString(v) }

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
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
