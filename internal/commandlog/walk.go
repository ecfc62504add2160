package commandlog

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Field names one string of a command log for MapStrings: Path is its JSON
// path ("commands[3].output", "agent_version"), Name the JSON name of the
// struct field holding it ("output"); a map key or value is named after
// its map field.
type Field struct {
	Path string
	Name string
}

// MapStrings replaces every string of l with f's result: every string
// field however deep (through pointers, slices, arrays, maps — keys too —
// interfaces and nested structs), typed strings such as Outcome included.
//
// It is THE traversal of a command log: UTF-8 normalisation, redaction
// and the demo's and report's copies all use it, so a field added to the
// schema is covered everywhere without anyone remembering to (TestMapStrings
// fails if a string escapes it). It writes through pointers: use Clone
// first to leave a caller's log alone.
func MapStrings(l *Log, f func(Field, string) string) {
	if l == nil {
		return
	}
	v := reflect.ValueOf(l).Elem()
	walkPlanned(v, planOf(v.Type()), make([]byte, 0, 64), true, "", f)
}

// MapStringValues is MapStrings for a function that needs no Field: the
// same traversal, without building every string's path (normalisation,
// and redaction by value, of the many commands a long transcript streams).
func MapStringValues(l *Log, f func(string) string) {
	if l == nil {
		return
	}
	v := reflect.ValueOf(l).Elem()
	walkPlanned(v, planOf(v.Type()), nil, false, "", func(_ Field, s string) string { return f(s) })
}

// A walkPlan is what walkStrings would learn from reflection about a type,
// learnt once: its exported fields' JSON names, and whether a string can be
// reached at all (a *int, a bool, a []int64 are stepped over). MapStrings
// runs for every command a long transcript streams (normalisation and
// redaction, command by command), so the reflection on types is not redone
// for every value. walkPlanned visits the same strings in the same order
// with the same Field as walkStrings (TestMapStringsPlanMatchesReflection).
type walkPlan struct {
	kind    reflect.Kind
	strings bool        // a string can be reached from a value of this type
	fields  []walkField // a struct's exported fields
	elem    *walkPlan   // a pointer's, slice's or array's element
}

type walkField struct {
	index int
	name  string // JSON name
	plan  *walkPlan
}

var walkPlans sync.Map // reflect.Type → *walkPlan

func planOf(t reflect.Type) *walkPlan {
	if p, ok := walkPlans.Load(t); ok {
		return p.(*walkPlan)
	}
	p := buildPlan(t, map[reflect.Type]*walkPlan{})
	walkPlans.Store(t, p)
	return p
}

func buildPlan(t reflect.Type, building map[reflect.Type]*walkPlan) *walkPlan {
	if p := building[t]; p != nil {
		return p // a recursive type: its strings flag is still true, the safe answer
	}
	// strings starts true so that a recursive reference counts as
	// reaching a string; it is narrowed below once the parts are known.
	p := &walkPlan{kind: t.Kind(), strings: true}
	building[t] = p
	switch t.Kind() {
	case reflect.String, reflect.Map, reflect.Interface:
		// Maps and interfaces are walked by walkStrings itself.
	case reflect.Pointer, reflect.Slice, reflect.Array:
		p.elem = buildPlan(t.Elem(), building)
		p.strings = p.elem.strings
	case reflect.Struct:
		p.strings = false
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			fp := buildPlan(sf.Type, building)
			p.fields = append(p.fields, walkField{index: i, name: jsonName(sf), plan: fp})
			p.strings = p.strings || fp.strings
		}
	default:
		p.strings = false
	}
	return p
}

// walkPlanned is walkStrings by plan; path is the JSON path so far, built
// in place and made a string only for the strings visited (when paths).
func walkPlanned(v reflect.Value, p *walkPlan, path []byte, paths bool, name string, f func(Field, string) string) {
	if !p.strings {
		return
	}
	switch p.kind {
	case reflect.String:
		if s := v.String(); v.CanSet() {
			fd := Field{Name: name}
			if paths {
				fd.Path = string(path)
			}
			if out := f(fd, s); out != s {
				v.SetString(out)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			walkPlanned(v.Elem(), p.elem, path, paths, name, f)
		}
	case reflect.Struct:
		for i := range p.fields {
			fd := &p.fields[i]
			if !fd.plan.strings {
				continue
			}
			q := path
			if paths {
				if len(q) > 0 {
					q = append(q, '.')
				}
				q = append(q, fd.name...)
			}
			walkPlanned(v.Field(fd.index), fd.plan, q, paths, fd.name, f)
		}
	case reflect.Slice, reflect.Array:
		for i, n := 0, v.Len(); i < n; i++ {
			q := path
			if paths {
				q = append(q, '[')
				q = strconv.AppendInt(q, int64(i), 10)
				q = append(q, ']')
			}
			walkPlanned(v.Index(i), p.elem, q, paths, name, f)
		}
	default:
		walkStrings(v, string(path), name, f)
	}
}

func walkStrings(v reflect.Value, path, name string, f func(Field, string) string) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); v.CanSet() {
			if out := f(Field{Path: path, Name: name}, s); out != s {
				v.SetString(out)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			walkStrings(v.Elem(), path, name, f)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		// An interface's value is not addressable: walk a copy, store it.
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		walkStrings(c, path, name, f)
		if v.CanSet() {
			v.Set(c)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			n := jsonName(sf)
			p := n
			if path != "" {
				p = path + "." + n
			}
			walkStrings(v.Field(i), p, n, f)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkStrings(v.Index(i), path+"["+strconv.Itoa(i)+"]", name, f)
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(iter.Key())
			walkStrings(k, path+"{key}", name, f)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			walkStrings(e, path+"["+strconv.Quote(k.String())+"]", name, f)
			out.SetMapIndex(k, e)
		}
		v.Set(out)
	}
}

// jsonName is a struct field's name in command_log.json.
func jsonName(sf reflect.StructField) string {
	if tag, ok := sf.Tag.Lookup("json"); ok {
		if n, _, _ := strings.Cut(tag, ","); n != "" && n != "-" {
			return n
		}
	}
	return sf.Name
}

// Clone returns a deep copy of l: nothing of the copy (no slice, map or
// pointer) is shared with l, so changing one never changes the other.
func Clone(l *Log) *Log {
	if l == nil {
		return nil
	}
	return deepCopy(reflect.ValueOf(l)).Interface().(*Log)
}

func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(deepCopy(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // unexported fields as they are
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				c.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			c.SetMapIndex(deepCopy(iter.Key()), deepCopy(iter.Value()))
		}
		return c
	}
	return v
}
