package readme

import (
	"testing"

	"gotest.tools/v3/assert"
)

// The hints that take a string keep it, and say what to write when it is
// missing; flag hints need no value.
func TestHintValuesAndMissingValues(t *testing.T) {
	src := "<!-- readme2demo: ready cwd= file setup=\"\" skip background -->\n\n```sh\necho hi\n```\n\n" +
		"<!-- readme2demo: ready=\"curl -sf x\" cwd=sub file=a.yaml setup='mkdir d' run continue-on-error check-output -->\n\n```sh\necho two\n```\n"
	bs := Extract([]byte(src))
	assert.Equal(t, len(bs), 2)
	h := bs[0].Hints
	assert.DeepEqual(t, h.Problems, []string{
		`line 1: ready needs a value, e.g. ready="curl -sf localhost:8080"`,
		"line 1: cwd needs a value, e.g. cwd=examples",
		"line 1: file needs a value, e.g. file=config.yaml",
		`line 1: setup needs a value, e.g. setup="mkdir -p data"`,
	})
	assert.Assert(t, h.Skip && h.Background && !h.Run)
	assert.Equal(t, h.Ready+h.Cwd+h.File+h.Setup, "")
	h = bs[1].Hints
	assert.Assert(t, h.Problems == nil, "%v", h.Problems)
	assert.Equal(t, h.Ready, "curl -sf x")
	assert.Equal(t, h.Cwd, "sub")
	assert.Equal(t, h.File, "a.yaml")
	assert.Equal(t, h.Setup, "mkdir d")
	assert.Assert(t, h.Run && h.ContinueOnError && h.CheckOutput && !h.Skip)
}
