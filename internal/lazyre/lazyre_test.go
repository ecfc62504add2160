package lazyre

import (
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`a(b+)c`)
	assert.Equal(t, r.String(), `a(b+)c`)
	assert.Assert(t, r.MatchString("xabbc"))
	assert.DeepEqual(t, r.FindStringSubmatch("xabbc"), []string{"abbc", "bb"})
	assert.Equal(t, r.Re(), r.Re(), "compiled once")
	assert.Equal(t, r.ReplaceAllString("abc abbc", "-"), "- -")
}

func TestCompileAllReportsABadExpression(t *testing.T) {
	New(`ok`)
	assert.NilError(t, CompileAll())
	expr := strings.Repeat("(", 1) // not a constant: a bad one on purpose
	bad := New(expr)
	_, want := regexp.Compile(expr)
	assert.Error(t, CompileAll(), want.Error())
	mu.Lock()
	for i, r := range all {
		if r == bad {
			all = append(all[:i], all[i+1:]...)
			break
		}
	}
	mu.Unlock()
	assert.Assert(t, func() (panicked bool) {
		defer func() { panicked = recover() != nil }()
		bad.MatchString("x")
		return
	}(), "a bad expression panics when first used, as regexp.MustCompile")
}

func TestGroupsAreTheGroupsThatMatched(t *testing.T) {
	re := New(`(?m)^(\w+): not found$|^env: '(\w+)'`)
	assert.DeepEqual(t, re.Groups("just: not found\nenv: 'node'\nnothing here\nmake: not found\n"), []string{"just", "node", "make"})
	assert.Assert(t, re.Groups("no match") == nil)
}
