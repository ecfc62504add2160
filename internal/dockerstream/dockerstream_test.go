package dockerstream

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestFollowBuild(t *testing.T) {
	tests := []struct {
		name, stream string
		lines        []string
		err          string
	}{
		{"lines", `{"stream":"Step 1/2 : FROM x\n"}{"stream":"\n"}{"stream":" ---> abc\nSuccessfully built abc\n"}`,
			[]string{"Step 1/2 : FROM x", " ---> abc", "Successfully built abc"}, ""},
		{"error detail wins", `{"stream":"Step 1/1 : RUN false\n"}{"errorDetail":{"message":"returned a non-zero code: 1 "},"error":"old"}{"stream":"never"}`,
			[]string{"Step 1/1 : RUN false"}, "returned a non-zero code: 1"},
		{"error string", `{"error":"no space left"}`, nil, "no space left"},
		{"broken stream", `{"stream":"a\n"}{"str`, []string{"a"}, "read build output"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := FollowBuild(strings.NewReader(tc.stream), func(l string) { got = append(got, l) })
			assert.Check(t, is.DeepEqual(got, tc.lines))
			if tc.err == "" {
				assert.Check(t, err)
			} else {
				assert.Check(t, is.ErrorContains(err, tc.err))
			}
		})
	}
}
