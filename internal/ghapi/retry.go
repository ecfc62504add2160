package ghapi

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryTransport retries what GitHub asks to be retried, below go-github:
//   - rate limits (429, or 403 with Retry-After, x-ratelimit-remaining: 0 or
//     a "secondary rate limit" message), for any method: the request was not
//     processed, so even a POST is safe to send again;
//   - 5xx and network errors for idempotent methods (GET, PATCH, PUT, DELETE).
//
// A POST that fails with 5xx is left to Client.Retry around the whole
// upsert, which searches again before it creates. Retrying here also keeps
// go-github's own rate-limit state clear, so the next request is not refused
// locally.
type retryTransport struct {
	base     http.RoundTripper
	sleep    Sleeper
	attempts int
	backoff  time.Duration
	maxWait  time.Duration
	now      func() time.Time
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 && req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := t.base.RoundTrip(r)
		wait, retry := t.decide(req, resp, err, attempt)
		if !retry || attempt >= t.attempts {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if serr := t.sleep(ctx, wait); serr != nil {
			return nil, serr
		}
	}
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func (t *retryTransport) expBackoff(attempt int) time.Duration {
	return t.backoff << (attempt - 1)
}

// decide says whether to retry and after how long.
func (t *retryTransport) decide(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if err != nil {
		return t.expBackoff(attempt), idempotent(req.Method) && req.Context().Err() == nil
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden:
		wait, limited := t.rateLimitWait(resp)
		if !limited {
			return 0, false
		}
		return wait, wait <= t.maxWait
	case resp.StatusCode >= 500:
		return t.expBackoff(attempt), idempotent(req.Method)
	}
	return 0, false
}

// rateLimitWait tells a rate-limit answer from a permission one and how
// long GitHub asks to wait (its documented order: Retry-After, then
// x-ratelimit-reset when nothing remains, else at least a minute).
func (t *retryTransport) rateLimitWait(resp *http.Response) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			now := time.Now
			if t.now != nil {
				now = t.now
			}
			return max(0, time.Unix(n, 0).Sub(now())) + time.Second, true
		}
		return time.Minute, true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return time.Minute, true
	}
	// A 403 is a rate limit only when its message says so.
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if strings.Contains(strings.ToLower(string(data)), "rate limit") {
		return time.Minute, true
	}
	return 0, false
}
