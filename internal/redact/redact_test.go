package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Fake tokens of the right shapes, built from pieces so that no complete
// token sits in the source. None is a real credential.
var (
	anthropicKey = "sk-ant-api03-" + strings.Repeat("Zx9_Qw-7", 11) + "abcdeAA"
	anthropicOAT = "sk-ant-oat01-" + strings.Repeat("kT4-pR2_", 9)
	openaiProj   = "sk-proj-" + strings.Repeat("Ab1_cD2-eF3", 14) + "T3BlbkFJ" + strings.Repeat("gH4iJ5", 4)
	openaiLegacy = "sk-" + "aB3dE5fG7hJ9kL1mN3pQ" + "T3BlbkFJ" + "rS5tU7vW9xY1zA3bC5dE"
	githubPAT    = "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	githubOAuth  = "gho_" + strings.Repeat("Zy98Xw76", 4) + "Vu54"
	githubApp    = "ghs_" + strings.Repeat("Mn0P", 9)
	githubUser   = "ghu_" + strings.Repeat("Rs1T", 9)
	githubRefr   = "ghr_" + strings.Repeat("Uv2W", 9)
	githubFine   = "github_pat_" + "11ABCDEFG0" + "abcdefghijkl" + "_" + strings.Repeat("Zz9Yy8Xx7", 6) + "Ww6Vv"
	awsKeyID     = "AKIA" + "Z7QX2M4N6P8R1T3V"
	awsSTSKeyID  = "ASIA" + "Y5W3U1S9Q7O5M3K1"
	googleKey    = "AIza" + "SyD-9tSrke72I6e0DVfD7" + "_8bcdEFgHiJkLm"
	jwtToken     = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	atlassianTok = "ATATT3" + "xFfGF0" + strings.Repeat("K3irG5tKKi-6u-wwaXQF", 8) + "eGwZ-IHR-hQ=" + "C63992E6"
	atlassianOrg = "ATCTT3" + "xFfGN0" + strings.Repeat("GsZNgOGrQSHSnxiJVi00", 8) + "_RGCBLMSN7Ns=" + "366BFE3A"
	// STS session tokens: the new (IQoJ…) and the classic (FwoG…) header,
	// then a fake body.
	awsSession    = "IQoJb3JpZ2luX2Vj" + "EG0aCWV1LXdlc3QtMiJHMEUCIQC1Mx4VTrF2alA9s8P5HJ" + strings.Repeat("+j9y2XJmAF5ODdZGEui/QMGwIgRd", 12) + "=="
	awsSessionFw  = "FwoGZXIvYXdz" + "EBQaDKzF9xd3Tb5J7qXYeSKCAR" + strings.Repeat("p4Lq7Wn2/Zk9+Rt3Ym6Hv8Cx1", 14)
	awsSessionURL = "IQoJb3JpZ2luX2Vj" + "END%2F%2F%2F%2F%2F%2F%2F%2F%2F%2FwEaCXVzLXdlc3QtMiJHMEUCIQDh0Fhz" + strings.Repeat("ANeeUClh8Azpviv%2FJ5LddoJAO7ZCoS0WE4rmgAIgV59g", 4)
	pemKey        = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98" + strings.Repeat("Qk9vZ3VzS2V5RGF0YQ", 3) + "\nc2VjcmV0a2V5bWF0ZXJpYWw=\n-----END " + "RSA PRIVATE KEY-----"
)

type shapeCase struct {
	rule   string
	text   string
	secret string // "" for a false positive
}

// shapeCasesForCoverage says which rules have true and false positives.
func shapeCasesForCoverage() map[string]bool {
	m := map[string]bool{}
	for _, c := range shapeCases() {
		if c.secret == "" {
			m[c.rule+"/fp"] = true
		} else {
			m[c.rule+"/tp"] = true
		}
	}
	return m
}

func shapeCases() []shapeCase {
	type tc = shapeCase
	return []tc{
		// anthropic-key
		{"anthropic-key", "ANTHROPIC_API_KEY " + anthropicKey + "\n", anthropicKey},
		{"anthropic-key", `{"token":"` + anthropicOAT + `"}`, anthropicOAT},
		{"anthropic-key", "key=" + anthropicKey[:40], ""}, // cut keys still match the shape, see below
		{"anthropic-key", "sk-ant-api03-short and sk-ant-", ""},
		{"anthropic-key", "echo x" + anthropicKey, anthropicKey},
		{"anthropic-key", "sk-ant-a-" + strings.Repeat("x", 30) + " sk-ant-api03_" + strings.Repeat("x", 30), ""},
		// openai-key
		{"openai-key", "OPENAI_API_KEY " + openaiProj, openaiProj},
		{"openai-key", "use " + openaiLegacy + ".", openaiLegacy},
		{"openai-key", "pip install sk-learn && sk-this-is-a-long-kebab-case-name-2024", ""},
		{"openai-key", "task-AbCdEfGhIjKlMnOpQrStUvWx123 risk-Assessment1234567890abcdef", ""},
		{"openai-key", "sk-abc sk-1234 sk-", ""},
		// github-token
		{"github-token", "token: " + githubPAT, githubPAT},
		{"github-token", githubOAuth, githubOAuth},
		{"github-token", "GITHUB_TOKEN " + githubApp, githubApp},
		{"github-token", "x " + githubUser + " y", githubUser},
		{"github-token", githubRefr, githubRefr},
		{"github-token", "pat " + githubFine, githubFine},
		{"github-token", "glued" + githubApp, githubApp},
		{"github-token", "ghp_short ghs_ github_pat_ xghp_" + strings.Repeat("a", 30) + " ghp_" + strings.Repeat("-a", 30), ""},
		// aws-access-key-id
		{"aws-access-key-id", "aws_access_key_id " + awsKeyID, awsKeyID},
		{"aws-access-key-id", "(" + awsSTSKeyID + ")", awsSTSKeyID},
		{"aws-access-key-id", "AKIA1234 AKIAZ7QX2M4N6P8R1T3VX XAKIAZ7QX2M4N6P8R1T3V akiaz7qx2m4n6p8r1t3v", ""},
		// google-api-key
		{"google-api-key", "key " + googleKey, googleKey},
		{"google-api-key", "AIzaShort AIza AIza" + strings.Repeat("k", 34), ""},
		// jwt
		{"jwt", "Authorization: " + jwtToken, jwtToken},
		{"jwt", "eyJhbGciOi only a header; eyJ.eyJ.sig", ""},
		// atlassian-token
		{"atlassian-token", "jira token " + atlassianTok + "\n", atlassianTok},
		{"atlassian-token", `{"api_token":"` + atlassianTok + `"}`, atlassianTok},
		{"atlassian-token", "org key " + atlassianOrg, atlassianOrg},
		{"atlassian-token", "ATATT3 ATATT3xFfGF0-short ATCTT3 xATATT3" + strings.Repeat("ab", 60), ""},
		// aws-session-token
		{"aws-session-token", awsSession + "\n", awsSession},
		{"aws-session-token", "aws_session_token = " + awsSession, awsSession},
		{"aws-session-token", `{"Credentials": {"SessionToken": "` + awsSessionFw + `", "Expiration": "2026-01-01T00:00:00Z"}}`, awsSessionFw},
		{"aws-session-token", "GET /o.png?X-Amz-Security-Token=" + awsSessionURL + "&X-Amz-Signature=0a1b", awsSessionURL},
		{"aws-session-token", "IQoJb3JpZ2luX2Vj FwoGZXIvYXdzE AQoDYXdzshort x" + awsSession[:120], ""},
		// netrc-password
		{"netrc-password", "machine api.example.com login alice password Xk9p2Lm4Pw8R", "Xk9p2Lm4Pw8R"},
		{"netrc-password", "$ cat ~/.netrc\nmachine github.com\n  login bob\n  password s3cr3t-P4ss\n", "s3cr3t-P4ss"},
		{"netrc-password", `{"output":"machine h.example.com\n\tlogin u\n\tpassword Zq8-wX2!k\n"}`, "Zq8-wX2!k"},
		{"netrc-password", "default login anonymous password hunter2-ftp", "hunter2-ftp"},
		{"netrc-password", "machine ftp.example.org password Tr0ub4dor-9 login bob", "Tr0ub4dor-9"},
		{"netrc-password", `machine example.com login u password "quoted pw 7"`, "quoted pw 7"},
		{"netrc-password", "the default login shell is bash; machine learning password reset; my machine-password x", ""},
		{"netrc-password", "machine h login u password $NETRC_PW\nmachine h login u password <password>\nmachine example.com login user password changeme", ""},
		// pem-private-key
		{"pem-private-key", "cat id_rsa\n" + pemKey + "\ndone", pemKey},
		{"pem-private-key", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----", ""},
		// bearer-token
		{"bearer-token", "Authorization: Bearer abcdEFGH1234ijkl5678.mnop", "abcdEFGH1234ijkl5678.mnop"},
		{"bearer-token", "uses a Bearer token; the bearer of bad news", ""},
		// url-credentials
		{"url-credentials", "git clone https://oauth2:hunter2-p4ss@gitlab.example.com/x.git", "hunter2-p4ss"},
		{"url-credentials", "postgres://app:s3cr3tpw@db:5432/app", "s3cr3tpw"},
		{"url-credentials", "http://localhost:8080/path ssh://git@github.com/o/r git@github.com:o/r.git", ""},
		// env-secret
		{"env-secret", "DATABASE_PASSWORD=correct-horse-battery\nHOME=/root", "correct-horse-battery"},
		{"env-secret", "PATH=/bin\x00STRIPE_SECRET=zq9Kx2Lm4Pw8Rt6Y\x00TERM=xterm", "zq9Kx2Lm4Pw8Rt6Y"},
		{"env-secret", "curl 'https://api.example.com/?access_token=Zm9vYmFyYmF6cXV4'", "Zm9vYmFyYmF6cXV4"},
		{"env-secret", "MAX_TOKENS=4096 KEY=short API_KEY=$ANTHROPIC_API_KEY TOKEN=<your-token>", ""},
		{"env-secret", "gpgkey=https://packages.example.com/keys/repo.gpg KEY_FILE=/etc/ssl/private/key.pem SECRET=${{ secrets.X }}", ""},
		// gitleaks-derived families (fake bodies).
		{"gitlab-token", "export GITLAB_TOKEN " + "glpat-" + "Ab3dE5fG7hJ9kL1mN3pQ", "glpat-Ab3dE5fG7hJ9kL1mN3pQ"},
		{"gitlab-token", "runner " + "glrt-" + "x9Y8w7V6u5T4s3R2q1P0o9", "glrt-x9Y8w7V6u5T4s3R2q1P0o9"},
		{"gitlab-token", "glpat-short glpat- xglpat-Ab3dE5fG7hJ9kL1mN3pQ", ""},
		{"gitlab-session", "Cookie: _gitlab_session=" + "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"},
		{"gitlab-session", "_gitlab_session=short", ""},
		{"slack-token", "SLACK_BOT " + "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
		{"slack-token", "user " + "xoxp-" + "41684372915-1320496754-45609968301-e708ba56e1517a99f6b5fb07349476ef", "xoxp-41684372915-1320496754-45609968301-e708ba56e1517a99f6b5fb07349476ef"},
		{"slack-token", "app " + "xapp-1-" + "A052FGTS2DL-5171572773297-610b6a11f4b7eb819e87b767d80e", "xapp-1-A052FGTS2DL-5171572773297-610b6a11f4b7eb819e87b767d80e"},
		{"slack-token", "xoxb- xoxo xoxb-123 the xox-files", ""},
		{"slack-webhook", "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX1234", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX1234"},
		{"slack-webhook", "see https://hooks.slack.com/services/ for details", ""},
		{"webhook-url", "https://discord.com/api/webhooks/123456789012345678/" + strings.Repeat("aB3_dE5-fG7h", 6), strings.Repeat("aB3_dE5-fG7h", 6)},
		{"webhook-url", "POST /api/webhooks/ with a JSON body", ""},
		{"huggingface-token", "HF " + "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"},
		{"huggingface-token", "from huggingface_hub import hf_hub_download; hf_transfer", ""},
		{"npm-token", "//registry.npmjs.org/:_authToken=" + "npm_" + "Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1yZ3aB", "npm_Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1yZ3aB"},
		{"npm-token", "npm_config_cache npm_package_version", ""},
		{"stripe-key", "Stripe.api_key = " + "sk_live_" + "51HabcdEFGhijKLMnop", "sk_live_51HabcdEFGhijKLMnop"},
		{"stripe-key", "restricted " + "rk_live_" + "51HabcdEFGhijKLMnop", "rk_live_51HabcdEFGhijKLMnop"},
		{"stripe-key", "sk_live_ and sk_test_short", ""},
		{"aws-bedrock-key", "ABSK" + strings.Repeat("QmVkcm9ja0FQSUtleQ", 7), "ABSK" + strings.Repeat("QmVkcm9ja0FQSUtleQ", 7)},
		{"aws-bedrock-key", "ABSKshort", ""},
		{"grafana-token", "glsa_" + "Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1y" + "_0a1b2c3d", "glsa_Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1y_0a1b2c3d"},
		{"grafana-token", "glsa_short glc_x", ""},
		{"service-token", "DO " + "dop_v1_" + strings.Repeat("0a1b2c3d", 8), "dop_v1_" + strings.Repeat("0a1b2c3d", 8)},
		{"service-token", "sendgrid " + "SG." + "Ab3dE5fG7hJ9kL1mN3pQr5" + "." + "sT7uV9wX1yZ3aB5cD7eF9gH1iJ3kL5mN7oP9qR1sT3u", "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"},
		{"service-token", "pypi " + "pypi-AgEIcHlwaS5vcmc" + strings.Repeat("Ab3dE5fG7h", 6), "pypi-AgEIcHlwaS5vcmc" + strings.Repeat("Ab3dE5fG7h", 6)},
		{"service-token", "shpat_" + strings.Repeat("0a1b2c3d", 4), "shpat_" + strings.Repeat("0a1b2c3d", 4)},
		{"service-token", "path patterns API-version SG.x dapi ico-design pul-request sha256~abc", ""},
		{"twilio-key", "twilio " + "SK" + strings.Repeat("0123456789abcdef", 2), "SK" + strings.Repeat("0123456789abcdef", 2)},
		{"twilio-key", "SKU SK12 TASK0123456789abcdef0123456789abcdef", ""},
		{"mailchimp-key", "mc " + strings.Repeat("0a1b2c3d", 4) + "-us21", strings.Repeat("0a1b2c3d", 4) + "-us21"},
		{"mailchimp-key", "en-us locale -us1", ""},
		{"maxmind-key", "lic " + "Ab3dE5" + "_" + "fG7hJ9kL1mN3pQr5sT7uV9wX1yZ3a" + "_mmk", "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"},
		{"maxmind-key", "short_mmk", ""},
		{"azure-client-secret", "secret: " + "abc8Q~" + "Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1yZ3", "abc8Q~Ab3dE5fG7hJ9kL1mN3pQr5sT7uV9wX1yZ3"},
		{"azure-client-secret", "a 1Q~ b", ""},
		{"terraform-token", "token " + "Ab3dE5fG7hJ9kL" + ".atlasv1." + strings.Repeat("aB3dE5fG7h", 7), "Ab3dE5fG7hJ9kL.atlasv1." + strings.Repeat("aB3dE5fG7h", 7)},
		{"terraform-token", "x.atlasv1.y", ""},
		{"auth-header", "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "dXNlcjpwYXNzd29yZA=="},
		{"auth-header", "Authorization: token " + "ab3dE5fG7hJ9kL1m", "ab3dE5fG7hJ9kL1m"},
		{"auth-header", "Authorization: $TOKEN and authorization: <token>", ""},
		{"curl-user", "curl -u admin:Xk9-p2Lm@host https://x", "Xk9-p2Lm@host"},
		{"curl-user", "git push -u origin main; docker run -u 1000:1000; curl -u user:$PASS; curl -u user:changeme", ""},
		{"generic-secret", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE12", ""}, // EXAMPLE: a placeholder
		{"generic-secret", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9xq2Lm4P", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9xq2Lm4P"},
		{"generic-secret", `{"SecretAccessKey": "` + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9xq2Lm4P" + `"}`, "wJalrXUtnFEMI/K7MDENG/bPxRfiCY9xq2Lm4P"},
		{"generic-secret", "database:\n  password: " + "Tr0ub4dor-3\n", "Tr0ub4dor-3"},
		{"generic-secret", "api_version: 2024-01-01\nkeyboard: us\nmax_tokens: 4096\npassword: changeme\napi: https://api.example.com\nkey: value", ""},
	}
}

func TestShapeRules(t *testing.T) {
	// Every rule has true positives (must be redacted, labelled with the
	// rule) and false positives (must come out unchanged).
	for _, c := range shapeCases() {
		name := c.rule + "/tp"
		if c.secret == "" {
			name = c.rule + "/fp"
		}
		t.Run(name, func(t *testing.T) {
			got := New(nil).String(c.text)
			if c.secret == "" {
				if c.rule == "anthropic-key" && strings.HasPrefix(c.text, "key=") {
					// A cut key is still a key: it must go, by some rule.
					assert.Assert(t, !strings.Contains(got, anthropicKey[:40]), got)
					return
				}
				assert.Equal(t, got, c.text)
				return
			}
			assert.Assert(t, !strings.Contains(got, c.secret), "%s survived: %q", c.rule, got)
			assert.Assert(t, strings.Contains(got, Marker(c.rule)), "want marker of %s in %q", c.rule, got)
			assert.Equal(t, New(nil).String(got), got, "not idempotent")
		})
	}
}

// Every rule has at least one true and one false positive above, a
// source and a doc; the table may grow past any fixed size.
func TestEveryRuleHasFixtures(t *testing.T) {
	src := shapeCasesForCoverage()
	assert.Assert(t, len(Rules) > 16)
	names := map[string]bool{}
	for i, r := range Rules {
		assert.Assert(t, r.Name != "" && r.Doc != "" && r.Source != "" && len(r.Prefixes) > 0, "rule %d", i)
		assert.Check(t, !names[r.Name], "duplicate rule %s", r.Name)
		names[r.Name] = true
		assert.Check(t, src[r.Name+"/tp"], "rule %s has no true positive", r.Name)
		assert.Check(t, src[r.Name+"/fp"], "rule %s has no false positive", r.Name)
	}
}

// A value assigned to a secret name is redacted whole however long it is:
// the generic rule used to stop after 256 characters and publish the rest.
func TestLongValuesRedactedWhole(t *testing.T) {
	long := strings.Repeat("Zq9Kx2Lm4Pw8Rt6Y", 40) // 640 characters
	for _, text := range []string{"api_key = " + long, `{"client_secret": "` + long + `"}`, "password: " + long} {
		got := New(nil).String(text)
		assert.Check(t, !strings.Contains(got, long[len(long)-16:]), "the tail of %.20q… survives: %q", text, got)
	}
}

// Benign text that looks a little like secrets must survive untouched,
// with or without forwarded secrets.
func TestBenignTextUnchanged(t *testing.T) {
	benign := []string{
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"request 7c9e6679-7425-40de-944b-e07fc1f90ae7 done",
		"integrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==",
		base64.StdEncoding.EncodeToString([]byte("just some ordinary text that got base64 encoded for transport")),
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"the desk-top task-runner asked: ask-me-anything? sk-",
		"export OPENAI_API_KEY=\"$OPENAI_API_KEY\"",
		ordinaryOutput(64 << 10),
	}
	for _, r := range []*Redactor{New(nil), New(benchSecrets())} {
		for _, b := range benign {
			assert.Equal(t, r.String(b), b)
		}
	}
}

const canary = "r2d-canary-7Hq2Kx9Lm4Pz8Wv3"

// Forwarded values that are not credentials (base URLs, model names) are
// redacted whole, but their pieces are ordinary text.
func TestNonCredentialValuesOnlyWhole(t *testing.T) {
	r := New([]string{"https://api.anthropic.com", "claude-sonnet-4-5-20250929", "my-gcp-project-123456"})
	for _, benign := range []string{
		"curl https://api.github.com/zen",
		"model claude-sonnet-4-6 is newer",
		"gcloud config set project my-gcp-project-999",
	} {
		assert.Equal(t, r.String(benign), benign)
	}
	assert.Equal(t, r.String("using claude-sonnet-4-5-20250929 now"), "using "+Marker(SecretRule)+" now")
	assert.Assert(t, credentialLike(canary))
	assert.Assert(t, credentialLike(anthropicKey))
	assert.Assert(t, !credentialLike("hunter2hunter2hunter2"))
}

func b64at(enc *base64.Encoding, pre, s, post string) string {
	return enc.EncodeToString([]byte(pre + s + post))
}

// The forwarded value is caught raw, cut, and in its common encodings, at
// any position in longer text.
func TestSecretForms(t *testing.T) {
	r := New([]string{canary, "short"})
	rev := []byte(canary)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	cases := map[string]string{
		"raw":              "env: SOME_VAR=" + canary + "\n",
		"cut first 7":      "printf " + canary[7:],
		"cut last 7":       canary[:len(canary)-7] + "...",
		"hex":              hex.EncodeToString([]byte(canary)),
		"hex upper":        strings.ToUpper(hex.EncodeToString([]byte(canary))),
		"reversed":         string(rev),
		"url query":        url.QueryEscape("a=" + canary + "&b"),
		"json escaped":     `{"v":"` + strings.ReplaceAll(canary, "-", "-") + `"}`,
		"base64 offset 0":  b64at(base64.StdEncoding, "", canary, "\n"),
		"base64 offset 1":  b64at(base64.StdEncoding, "K", canary, "\n"),
		"base64 offset 2":  b64at(base64.StdEncoding, "KE", canary, "xyz"),
		"base64 env dump":  b64at(base64.StdEncoding, "HOME=/root\x00PATH=/bin\x00TOKEN_X=", canary, "\x00TERM=xterm\x00"),
		"base64url raw":    b64at(base64.RawURLEncoding, "Q", canary, ""),
		"base64url offs 2": b64at(base64.URLEncoding, "QQ", canary, "!"),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			got := r.String(text)
			assert.Assert(t, strings.Contains(got, Marker(SecretRule)), "not redacted: %q", got)
			assert.Assert(t, !strings.Contains(got, canary))
			assert.Assert(t, !strings.Contains(got, canary[7:7+12]), "a 12-byte piece survived: %q", got)
			assert.Equal(t, r.String(got), got, "not idempotent")
		})
	}
	// Values shorter than MinSecretLen are not secrets.
	assert.Equal(t, r.String("a short word"), "a short word")
	// A piece shorter than the minimum run is left alone.
	assert.Equal(t, r.String("r2d-canary"), "r2d-canary")
}

// A JSON-escaped secret with characters JSON escapes.
func TestSecretJSONEscaped(t *testing.T) {
	secret := `pa"ss/w\ord-12345`
	r := New([]string{secret})
	got := r.String(`{"password":"pa\"ss\/w\\ord-12345"}`)
	assert.Equal(t, got, `{"password":"`+Marker(SecretRule)+`"}`)
}

// Redacting a JSONL transcript leaves every line valid JSON: no span
// splits a backslash escape.
func TestTranscriptStaysValidJSON(t *testing.T) {
	r := New([]string{canary})
	values := []string{
		"echo \"TOKEN=abcdefgh12\\\"\"",           // an env value ending in an escaped backslash
		"export API_KEY=\"" + canary + "\"",       // quoted value
		pemKey[:60] + "\"",                        // a key without footer, then a quote
		"x\n" + canary[1:] + "\\" + canary + "\\", // pieces next to escapes
		"Authorization: Bearer abcdEFGH1234ijkl5678\\",
	}
	for _, v := range values {
		line, err := json.Marshal(map[string]string{"output": v})
		assert.NilError(t, err)
		got := r.String(string(line))
		assert.Assert(t, json.Valid([]byte(got)), "%s -> %s", line, got)
		assert.Assert(t, strings.Contains(got, "[REDACTED:"), got)
	}
}

func TestLogRedactsEveryField(t *testing.T) {
	v := "agent " + canary
	code := 0
	l := &commandlog.Log{
		SchemaVersion: 1, Engine: "x", AgentVersion: &v, Outcome: commandlog.OutcomeFailed,
		OutcomeReason: "cost " + canary,
		Markers:       []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: canary}},
		Commands: []commandlog.Command{{ID: canary, Command: "echo " + canary, Output: githubPAT, ExitCode: &code,
			Status: commandlog.StatusOK, ParentID: canary, Source: &commandlog.Source{File: canary, Line: 1}}},
		FileEdits: []commandlog.FileEdit{{Path: "/w/" + canary, Tool: canary}},
		Skipped:   []commandlog.Skipped{{File: canary, Line: 3, Command: "export KEY=" + canary, Reason: "placeholder " + canary}},
	}
	Log(l, New([]string{canary}))
	var buf bytes.Buffer
	assert.NilError(t, commandlog.Encode(&buf, l))
	assert.Assert(t, !strings.Contains(buf.String(), canary), buf.String())
	assert.Assert(t, !strings.Contains(buf.String(), githubPAT))
	Log(nil, nil) // nil-safe
}

func TestFound(t *testing.T) {
	r := New([]string{canary})
	assert.DeepEqual(t, r.Found("x "+canary+" "+githubPAT), []string{"github-token", SecretRule})
	assert.Assert(t, len(r.Found(ordinaryOutput(4096))) == 0)
}

func TestBase64FragmentAlignments(t *testing.T) {
	// Each fragment must occur inside the encoding of the secret behind any
	// prefix of matching length mod 3, whatever follows.
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
		for pre := 0; pre < 9; pre++ {
			for post := 0; post < 4; post++ {
				full := enc.EncodeToString([]byte(strings.Repeat("p", pre) + canary + strings.Repeat("q", post)))
				frag := base64Fragment(base64.StdEncoding, canary, pre%3)
				if enc == base64.URLEncoding {
					frag = base64Fragment(base64.URLEncoding, canary, pre%3)
				}
				assert.Assert(t, len(frag) >= len(canary)*4/3-3, "fragment too short")
				assert.Assert(t, strings.Contains(full, frag), "pre %d post %d", pre, post)
			}
		}
	}
}

// A secret that starts with "/" is not taken for a path when it has the
// shape of an AWS secret access key (one in 64 does); real paths in the
// same places stay as written.
func TestSlashLeadingKeysAreNotPaths(t *testing.T) {
	const key = "/Xk3Jq9wErT5yUiOp1aSdFgH2jKlZxCvBnM7qW+e" // 40 characters, base64 alphabet
	for _, text := range []string{
		"aws_secret_access_key = " + key,
		`{"SecretAccessKey": "` + key + `"}`,
		"AWS_SECRET_ACCESS_KEY=" + key,
	} {
		got := New(nil).String(text)
		assert.Check(t, !strings.Contains(got, key[1:20]), "%q survived: %q", text, got)
	}
	for _, path := range []string{
		"SSH_KEY=/home/runner/.ssh/id_ed25519",
		"GPG_KEY_FILE=/etc/apt/keyrings/docker.gpg",
		"API_TOKEN_PATH=/run/secrets/api_token_file_name_here",
		"KEY_DIR=/usr/local/share/keys/and/some/more/dirs", // 40 characters, one case
	} {
		assert.Check(t, New(nil).String(path) == path, "%q changed: %q", path, New(nil).String(path))
	}
}
