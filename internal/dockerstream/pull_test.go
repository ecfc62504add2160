package dockerstream

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// FollowPull on streams as the daemon writes them: progress per layer, and
// an error as both errorDetail and the older error string.
func TestFollowPull(t *testing.T) {
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	const progressLines = `{"status":"Pulling from readme2demo/sandbox","id":"latest"}
{"status":"Downloading","progressDetail":{"current":1048576,"total":3145728},"id":"0123456789ab"}
{"status":"Download complete","id":"0123456789ab"}
{"status":"Pull complete","progressDetail":{},"id":"0123456789ab"}
`
	tests := []struct {
		name, stream, wantErr string
	}{
		{name: "ok", stream: progressLines},
		{
			name:    "daemon error",
			stream:  progressLines + `{"errorDetail":{"message":"manifest unknown: manifest unknown"},"error":"manifest unknown: manifest unknown"}` + "\n",
			wantErr: "manifest unknown: manifest unknown",
		},
		{name: "old daemon: error string only", stream: progressLines + `{"error":"toomanyrequests: rate limit"}` + "\n", wantErr: "toomanyrequests: rate limit"},
		{name: "bad json", stream: `{"status":`, wantErr: "read pull progress: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var progress strings.Builder
			err := FollowPull(strings.NewReader(tt.stream), &progress, "img@sha256:x", 0, now)
			if tt.wantErr != "" {
				assert.Error(t, err, tt.wantErr)
				return
			}
			assert.NilError(t, err)
			assert.Assert(t, strings.Contains(progress.String(), "image img@sha256:x: 1/1 layers"), progress.String())
		})
	}
}
