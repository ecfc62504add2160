package longtest

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestEnabled(t *testing.T) {
	tests := []struct {
		long, ci string
		want     bool
	}{
		{"1", "", true},
		{"1", "true", true},
		{"0", "true", false},
		{"", "true", true},
		{"", "", false},
		{"", "false", false},
		{"yes", "", false},
	}
	for _, tc := range tests {
		t.Setenv(Env, tc.long)
		t.Setenv("CI", tc.ci)
		assert.Check(t, Enabled() == (tc.want && !testing.Short()), "%s=%q CI=%q", Env, tc.long, tc.ci)
	}
}

func TestCount(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(Env, "1")
	assert.Check(t, Count(10, 1000) == 1000 || testing.Short())
	t.Setenv(Env, "0")
	assert.Check(t, Count(10, 1000) == 10)
}
