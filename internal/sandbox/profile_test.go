package sandbox

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseSizeAndCPUs(t *testing.T) {
	for in, want := range map[string]int64{"10g": 10 << 30, "512m": 512 << 20, "10GiB": 10 << 30, "1.5g": 3 << 29, "4096": 4096, " 2g ": 2 << 30} {
		got, err := ParseSize(in)
		assert.NilError(t, err, in)
		assert.Check(t, is.Equal(got, want), in)
	}
	for _, in := range []string{"", "0", "-1g", "lots", "10x"} {
		_, err := ParseSize(in)
		assert.Check(t, is.ErrorContains(err, "give bytes or a number with k, m, g or t"), in)
	}
	n, err := ParseCPUs("1.5")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n, int64(15e8)))
	for _, in := range []string{"0", "-2", "two", "5000"} {
		_, err := ParseCPUs(in)
		assert.Check(t, is.ErrorContains(err, "positive number of CPUs"), in)
	}
	assert.NilError(t, CheckProfile("dev"))
	assert.NilError(t, CheckProfile("strict"))
	assert.Check(t, is.ErrorContains(CheckProfile(""), "use dev or strict"))
}
