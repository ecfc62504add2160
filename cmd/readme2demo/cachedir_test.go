package main

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// Runs keep what they reuse (the image's command list) in the user's
// cache directory, and nowhere when there is none.
func TestCacheDir(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"}, "/x/cache/readme2demo"},
		{map[string]string{"XDG_CACHE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.cache/readme2demo"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.cache/readme2demo"},
		{map[string]string{}, ""},
	}
	for _, tc := range tests {
		got := cacheDir(func(k string) string { return tc.env[k] })
		assert.Check(t, is.Equal(got, tc.want), "%v", tc.env)
	}
}
