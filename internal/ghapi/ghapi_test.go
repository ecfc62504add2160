package ghapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"gotest.tools/v3/assert"
)

func TestCapKeepsRunesWhole(t *testing.T) {
	body := strings.Repeat("é", 100)
	got := Cap(body, 51, "!")
	assert.Assert(t, len(got) <= 51)
	assert.Assert(t, strings.HasSuffix(got, "!"))
	assert.Equal(t, strings.TrimSuffix(got, "!"), strings.Repeat("é", 25))
	assert.Equal(t, Cap("short", 51, "!"), "short")
}

func apiError(status int) error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: status, Request: &http.Request{}}}
}

func TestClassifyAndTransient(t *testing.T) {
	var pe *PermissionError
	assert.Assert(t, errors.As(Classify("edit comment", "needs write", apiError(403)), &pe))
	assert.ErrorContains(t, pe, "needs write")
	assert.Assert(t, errors.As(Classify("edit comment", "", apiError(404)), &pe))
	assert.Assert(t, !errors.As(Classify("edit comment", "", apiError(500)), &pe))
	assert.Assert(t, Transient(apiError(502)))
	assert.Assert(t, !Transient(apiError(422)))
	assert.Assert(t, Transient(&github.RateLimitError{}))
}

func TestRetryStopsOnPermanentErrors(t *testing.T) {
	var waits []time.Duration
	c, err := New(Config{Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }, Attempts: 3})
	assert.NilError(t, err)
	calls := 0
	err = c.Retry(context.Background(), func() error { calls++; return apiError(503) })
	assert.ErrorContains(t, err, "503")
	assert.Equal(t, calls, 3)
	assert.DeepEqual(t, waits, []time.Duration{time.Second, 2 * time.Second})
	calls = 0
	_ = c.Retry(context.Background(), func() error { calls++; return apiError(422) })
	assert.Equal(t, calls, 1, "a 422 is not retried")
}
