// Package ghapi is readme2demo's writer to GitHub's REST API (go-github).
// It keeps ONE of each thing readme2demo writes up to date per slot, one
// file each:
//
//   - comment.go: the pull request comment, one per pull request, workflow,
//     job and README (UpsertComment).
//   - issue.go: the open issue of the scheduled drift report (UpsertIssue).
//     A closed issue is history: the next drift opens a new one. Pull
//     requests, which the issues API also lists, are skipped.
//   - pull.go: the pin-bump pull request (UpsertPR). It commits a set of
//     files on top of a base commit with the git data API (blobs, a tree, a
//     commit), points the slot's branch at that commit (creating the branch,
//     or moving it with force: the branch belongs to the slot), and opens the
//     pull request or updates its title and body. A commit whose tree and
//     parent equal the branch's head is not made again.
//   - review.go: the review of suggested README changes, one live review per
//     pull request and key (UpsertReview). A submitted review cannot be
//     deleted, so a changed one is retired: its comments deleted, its body
//     pointing at the new one.
//
// files.go reads what suggestions are computed from: a pull request's diff of
// one file (PRFileDiff) and a file at a commit (FileAt).
//
// Each body starts with a hidden marker naming its slot (Marker). An upsert
// searches every page for the marker, edits what it finds and creates only
// when nothing is found, so repeated runs never spam. Bodies are capped below
// GitHub's 65,536 characters (MaxBodyBytes, Cap).
//
// The client's transport retries what GitHub asks to be retried (retry.go),
// and a whole upsert is retried on 5xx and rate limits (Retry): it finds
// before it writes, so nothing is posted twice. The sleeper is injected so
// tests do not wait. A 403 or 404 (a read-only token, as on pull requests
// from forks, or a missing permission) is a *PermissionError whose hint names
// what the token needs; callers report it as a warning, not a failure.
package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// Sleeper waits for d or until ctx ends; tests inject one that returns at
// once.
type Sleeper func(ctx context.Context, d time.Duration) error

// Sleep is the real Sleeper.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Config configures a client.
type Config struct {
	// APIURL is the REST API root (GITHUB_API_URL); "" means github.com.
	APIURL     string
	Token      string
	HTTPClient *http.Client // its Transport and Timeout are kept; nil means defaults
	Sleep      Sleeper      // nil means Sleep
	// Attempts bounds the tries of one request or operation (0 means 4);
	// Backoff is the first wait after a 5xx, doubled each time (0 means
	// 1s); MaxWait caps a wait GitHub asks for (0 means 2 minutes).
	Attempts int
	Backoff  time.Duration
	MaxWait  time.Duration
}

func (c Config) withDefaults() Config {
	if c.Sleep == nil {
		c.Sleep = Sleep
	}
	if c.Attempts <= 0 {
		c.Attempts = 4
	}
	if c.Backoff <= 0 {
		c.Backoff = time.Second
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 2 * time.Minute
	}
	return c
}

// Client is a go-github client with its retry settings.
type Client struct {
	*github.Client
	cfg Config
}

// New returns a client whose transport retries rate limits and transient
// errors (see retryTransport).
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	hc := &http.Client{Transport: &retryTransport{base: base, sleep: cfg.Sleep, attempts: cfg.Attempts, backoff: cfg.Backoff, maxWait: cfg.MaxWait}}
	if cfg.HTTPClient != nil {
		hc.Timeout = cfg.HTTPClient.Timeout
	}
	gh := github.NewClient(hc)
	if cfg.Token != "" {
		gh = gh.WithAuthToken(cfg.Token)
	}
	if cfg.APIURL != "" {
		u, err := url.Parse(cfg.APIURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("parse api url %q: not an absolute URL", cfg.APIURL)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		gh.BaseURL = u
	}
	return &Client{Client: gh, cfg: cfg}, nil
}

// Retry runs op until it succeeds, fails for good, or the attempts are
// used up; it waits Backoff, then twice that, and so on, between tries. Only
// server errors and rate limits are retried: a whole find-then-write retried
// this way searches again before it writes, so nothing is posted twice.
func (c *Client) Retry(ctx context.Context, op func() error) error {
	for attempt := 1; ; attempt++ {
		err := op()
		if err == nil || !Transient(err) || attempt >= c.cfg.Attempts {
			return err
		}
		if serr := c.cfg.Sleep(ctx, c.cfg.Backoff<<(attempt-1)); serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// retryValue is Retry for an op that returns a value: the value of the try that succeeded.
func retryValue[T any](ctx context.Context, c *Client, op func() (T, error)) (T, error) {
	var v T
	err := c.Retry(ctx, func() error {
		var err error
		v, err = op()
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// findMarked returns the first item, on any page list returns, whose body carries marker and
// that keep accepts (nil keeps all), or the zero value when there is none. List errors are
// classified as op with hint.
func findMarked[T interface{ GetBody() string }](marker, op, hint string,
	list func(page int) ([]T, *github.Response, error), keep func(T) bool) (T, error) {
	var zero T
	for page := 0; ; {
		items, resp, err := list(page)
		if err != nil {
			return zero, Classify(op, hint, err)
		}
		for _, it := range items {
			if strings.Contains(it.GetBody(), marker) && (keep == nil || keep(it)) {
				return it, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return zero, nil
		}
		page = resp.NextPage
	}
}

// PermissionError is a 403 or 404 from GitHub: a read-only token (pull
// requests from forks) or a missing permission. Callers warn and go on.
type PermissionError struct {
	Op     string // e.g. "create comment"
	Status int
	Hint   string // what the token needs
	Err    error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d (%s): %v", e.Op, e.Status, e.Hint, e.Err)
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Classify wraps an API error as "op: err", or as a *PermissionError with
// hint for 403 and 404.
func Classify(op, hint string, err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusForbidden, http.StatusNotFound:
			return &PermissionError{Op: op, Status: er.Response.StatusCode, Hint: hint, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Transient reports whether trying again may help: a server error or a
// rate limit.
func Transient(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var arl *github.AbuseRateLimitError
	return errors.As(err, &rl) || errors.As(err, &arl)
}

// MaxBodyBytes caps the body of a comment, an issue or a pull request,
// marker included: GitHub's limit is 65,536 characters, and counting bytes
// keeps below it whatever the text.
const MaxBodyBytes = 65_000

// Marker returns the hidden marker of a slot: an HTML comment GitHub does
// not render, naming the kind of slot ("comment", "issue", "pr") and its
// key, with "--", ">" and newlines in the key replaced so that it cannot end
// the comment early.
func Marker(kind, key string) string {
	key = strings.NewReplacer("--", "-", ">", "_", "\n", " ", "\r", " ").Replace(key)
	return "<!-- readme2demo:" + kind + " " + key + " -->"
}

// Cap shortens body to max bytes on a rune boundary, ending with note.
func Cap(body string, max int, note string) string {
	if len(body) <= max {
		return body
	}
	cut := max - len(note)
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return body[:cut] + note
}
