package transcriptgen

import (
	"bytes"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestCopiesGetFreshIDs(t *testing.T) {
	fixture := []byte(`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_A1","name":"Bash"}]}}
{"id": 5, "cause": 4, "observation":"run"}
`)
	g := New(fixture)
	var b bytes.Buffer
	for i := 0; i < 3; i++ {
		_, err := g.WriteCopy(&b)
		assert.NilError(t, err)
	}
	out := b.String()
	for _, want := range []string{`"toolu_A1-r0"`, `"toolu_A1-r1"`, `"toolu_A1-r2"`, `"msg_1-r2"`, `"id": 5,`, `"id": 1000005`, `"cause": 2000004`} {
		assert.Assert(t, strings.Contains(out, want), "missing %s in\n%s", want, out)
	}
	assert.Equal(t, strings.Count(out, "\n"), 6)
}

func TestWriteSize(t *testing.T) {
	g := New([]byte(`{"id":"toolu_x"}`))
	var b bytes.Buffer
	n, err := g.WriteSize(&b, 1000)
	assert.NilError(t, err)
	assert.Assert(t, n >= 1000)
	assert.Equal(t, int64(b.Len()), n)
	_, err = New(nil).WriteSize(&b, 10)
	assert.ErrorContains(t, err, "empty")
}
