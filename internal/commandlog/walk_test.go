package commandlog

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// fill sets every string of v, however deep, to a distinct value, gives
// every slice one element and every map one entry, and allocates every
// pointer: a log with no empty corner, whatever fields the schema has
// today.
func fill(v reflect.Value, n *int) {
	next := func() string { *n++; return "s" + strconv.Itoa(*n) }
	switch v.Kind() {
	case reflect.String:
		v.SetString(next())
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), n)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, n)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(next()))
		}
	}
}

func filledLog(t *testing.T) (*Log, int) {
	t.Helper()
	var l Log
	n := 0
	fill(reflect.ValueOf(&l).Elem(), &n)
	return &l, n
}

// jsonStrings collects every string value (not object keys) of a JSON
// document: an oracle independent of MapStrings' reflection.
func jsonStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			jsonStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			jsonStrings(e, out)
		}
	}
}

// Every string of a command log — of every field the schema has now or
// gets later — is visited: a new field MapStrings cannot reach fails here.
func TestMapStringsVisitsEveryString(t *testing.T) {
	l, n := filledLog(t)
	seen := map[string]bool{}
	MapStrings(l, func(f Field, s string) string {
		assert.Check(t, f.Path != "" && f.Name != "", "unnamed field for %q", s)
		seen[s] = true
		return "<" + s + ">"
	})
	assert.Check(t, is.Len(seen, n), "visited %d of %d strings", len(seen), n)
	b, err := json.Marshal(l)
	assert.NilError(t, err)
	var doc any
	assert.NilError(t, json.Unmarshal(b, &doc))
	var strs []string
	jsonStrings(doc, &strs)
	assert.Assert(t, len(strs) > 10)
	for _, s := range strs {
		assert.Check(t, strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"), "string %q was not visited", s)
	}
}

func TestMapStringsNamesFields(t *testing.T) {
	l := &Log{Engine: "e", Commands: []Command{{ID: "a", Command: "ls", Output: "out", Source: &Source{File: "README.md", Line: 1}}}}
	got := map[string]string{}
	MapStrings(l, func(f Field, s string) string { got[f.Path] = f.Name; return s })
	assert.Check(t, is.Equal(got["commands[0].command"], "command"))
	assert.Check(t, is.Equal(got["commands[0].output"], "output"))
	assert.Check(t, is.Equal(got["commands[0].source.file"], "file"))
	assert.Check(t, is.Equal(got["engine"], "engine"))
}

// Clone shares nothing: changing every string of the copy leaves the
// original exactly as it was.
func TestCloneIsDeep(t *testing.T) {
	l, _ := filledLog(t)
	before, err := json.Marshal(l)
	assert.NilError(t, err)
	c := Clone(l)
	assert.DeepEqual(t, c, l)
	MapStrings(c, func(_ Field, s string) string { return "changed" })
	*c.Commands[0].ExitCode = 99
	*c.CostUSD = 12
	after, err := json.Marshal(l)
	assert.NilError(t, err)
	assert.Equal(t, string(after), string(before))
	assert.Check(t, Clone(nil) == nil)
}

// MapStrings (and MapStringValues) walk by a plan learnt once per type;
// they visit exactly what the plain reflective walk visits, in the same
// order, with the same paths and names, and change the same strings.
func TestMapStringsPlanMatchesReflection(t *testing.T) {
	type visit struct{ Path, Name, S string }
	for _, mk := range []func() *Log{
		func() *Log { l, _ := filledLog(t); return l },
		func() *Log {
			return &Log{Engine: "e", Commands: []Command{
				{ID: "a", Command: "ls", Output: "out", Source: &Source{File: "README.md", Line: 1}},
				{ID: "b", Command: "make", ExitCode: new(int)},
			}, FileEdits: []FileEdit{{Path: "x"}}, Markers: []Marker{{Text: "m"}}}
		},
		func() *Log { return &Log{} },
	} {
		planned, plain := mk(), mk()
		var got, want []visit
		MapStrings(planned, func(f Field, s string) string {
			got = append(got, visit{f.Path, f.Name, s})
			return s + "!"
		})
		walkStrings(reflect.ValueOf(plain).Elem(), "", "", func(f Field, s string) string {
			want = append(want, visit{f.Path, f.Name, s})
			return s + "!"
		})
		assert.DeepEqual(t, got, want)
		assert.DeepEqual(t, planned, plain)
		// MapStringValues: the same strings in the same order.
		values := mk()
		var vals []string
		MapStringValues(values, func(s string) string { vals = append(vals, s); return s + "!" })
		assert.Equal(t, len(vals), len(want))
		for i := range vals {
			assert.Equal(t, vals[i], want[i].S)
		}
		assert.DeepEqual(t, values, plain)
	}
}
