package commandlog

import (
	"reflect"
	"strconv"
	"strings"
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
	walkStrings(reflect.ValueOf(l).Elem(), "", "", f)
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
