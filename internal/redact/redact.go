// Package redact removes secrets from everything readme2demo publishes:
// command_log.json, transcripts, reports, PR comments, logs and demo files.
//
// Two kinds of rule apply: the exact values of the secrets the run forwarded
// (and their common encodings), and the shapes of well-known tokens
// (Anthropic, OpenAI, GitHub, AWS, Google keys, PEM private keys, JWTs), so
// a token the agent found elsewhere is caught too. A match becomes
// "[REDACTED:<rule>]"; the secret itself never appears in any message.
package redact

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// Rule is one token shape.
type Rule struct {
	Name string
	Re   *regexp.Regexp
}

// Rules are the known token shapes, most specific first.
var Rules = []Rule{
	{"pem-private-key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`)},
	{"anthropic-key", regexp.MustCompile(`sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_\-]{16,}`)},
	{"openai-key", regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`)},
	{"github-token", regexp.MustCompile(`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)},
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"google-api-key", regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`)},
	{"jwt", regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
}

// MinSecretLen is the shortest forwarded value treated as a secret; shorter
// values (a model name like "o3", a flag) would redact ordinary words.
const MinSecretLen = 8

// Redactor replaces secrets in text.
type Redactor struct {
	values []string // every secret and encoding, longest first
}

// New returns a Redactor for the given secret values (forwarded credentials)
// plus the known token shapes. Values shorter than MinSecretLen are ignored.
func New(secrets []string) *Redactor {
	seen := map[string]bool{}
	var vals []string
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		for _, v := range Encodings(s) {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	return &Redactor{values: vals}
}

// Encodings returns s and the forms it commonly takes in logs: base64
// (standard, URL-safe, unpadded), URL-encoded and JSON-escaped.
func Encodings(s string) []string {
	b := []byte(s)
	out := []string{s,
		base64.StdEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b),
		base64.RawURLEncoding.EncodeToString(b),
		url.QueryEscape(s),
		url.PathEscape(s),
	}
	if j := jsonEscape(s); j != s {
		out = append(out, j)
	}
	return out
}

func jsonEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "/", `\/`)
	return r.Replace(s)
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	for _, v := range r.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, "[REDACTED:secret]")
		}
	}
	for _, rule := range Rules {
		if rule.Re.MatchString(s) {
			s = rule.Re.ReplaceAllString(s, "[REDACTED:"+rule.Name+"]")
		}
	}
	return s
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
	}
	for i := range l.FileEdits {
		l.FileEdits[i].Path = r.String(l.FileEdits[i].Path)
	}
}
