package engines

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// fastEventTime reads what time.Parse reads with the timestamp layouts, at
// the same instant, and leaves everything else to it.
func TestOHFastTimeMatchesTimeParse(t *testing.T) {
	layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"}
	slow := func(s string) (time.Time, bool) {
		for _, l := range layouts {
			if ts, err := time.Parse(l, s); err == nil {
				return ts, true
			}
		}
		return time.Time{}, false
	}
	cases := []string{
		"2025-07-14T12:34:56", "2025-07-14T12:34:56.789012", "2025-07-14T12:34:56.1", "2025-07-14T12:34:56.123456789",
		"2025-07-14T12:34:56.1234567891", "2025-07-14T12:34:56Z", "2025-07-14T12:34:56.5Z", "2025-07-14T12:34:56+05:30",
		"2025-07-14T12:34:56.25-08:00", "2024-02-29T00:00:00", "2025-02-29T00:00:00", "2025-13-01T00:00:00",
		"2025-04-31T00:00:00", "2025-07-14T24:00:00", "2025-07-14T12:60:00", "2025-07-14T12:00:60", "2025-07-14 12:34:56",
		"2025-07-14T12:34:56.", "2025-07-14T12:34:56+5:30", "2025-07-14T12:34:56+24:00", "2025-07-14t12:34:56Z",
		"not a time", "", "2025-07-14T12:34", "+2025-07-14T12:34:56", "2025-07-14T12:34:56.12a",
	}
	for _, s := range []string{"2025-07-14T12:34:56.789012", "2025-07-14T12:34:56Z", "2025-07-14T12:34:56.25-08:00"} {
		_, ok := fastEventTime(s)
		assert.Assert(t, ok, "%q: the forms OpenHands writes take the fast path", s)
	}
	for _, s := range cases {
		want, wantOK := slow(s)
		got, ok := fastEventTime(s)
		if !ok {
			continue // left to time.Parse: the same by construction
		}
		assert.Assert(t, wantOK, "%q: fast path accepts what time.Parse rejects", s)
		assert.Assert(t, got.Equal(want), "%q: %v != %v", s, got, want)
	}
}
