package runner

import (
	"reflect"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// decode turns a transcript record into its typed record: a pointer to
// PlanRecord, Note, Skip, Install, Start, SetupStart, endV1 (End),
// BackgroundOutput, Stop, summaryV1 (Summary), Error or setupV1. It
// reports false for a record of no known type, or one without a field its
// type requires.
//
// Records are read as the transcript's other readers read them, by the
// json tags of these types: a field of another JSON type than its Go
// type's is left zero (the record is kept, the field not trusted); fields
// the type does not name are ignored.
func decode(v *jsonv.Value) (any, bool) {
	var rec any
	switch Type(v.Get("type").Str()) {
	case TypePlan:
		rec = &PlanRecord{}
	case TypeNote:
		rec = &Note{}
	case TypeSkip:
		rec = &Skip{}
	case TypeInstall:
		rec = &Install{}
	case TypeStart:
		rec = &Start{}
	case TypeSetupStart:
		rec = &SetupStart{}
	case TypeEnd:
		rec = &endV1{}
	case TypeBackgroundOutput:
		rec = &BackgroundOutput{}
	case TypeStop:
		rec = &Stop{}
	case TypeSummary:
		rec = &summaryV1{}
	case TypeError:
		rec = &Error{}
	case TypeSetupV1:
		rec = &setupV1{}
	default:
		return nil, false
	}
	if !decodeInto(v, reflect.ValueOf(rec).Elem()) {
		return nil, false
	}
	return rec, true
}

// field is how one struct field is read.
type field struct {
	index    []int
	key      string
	required bool
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf lists the json-tagged fields of a struct type, those of
// embedded structs included.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("json")
		if !ok || !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(tag, ",")
		if key == "" || key == "-" {
			continue
		}
		fs = append(fs, field{index: f.Index, key: key, required: f.Tag.Get("runner") == "required"})
	}
	fieldCache.Store(t, fs)
	return fs
}

var base64Type = reflect.TypeFor[Base64]()

// decodeInto fills the struct s from the object v; false when a required
// field is missing or of another type.
func decodeInto(v *jsonv.Value, s reflect.Value) bool {
	for _, f := range fieldsOf(s.Type()) {
		if !set(s.FieldByIndex(f.index), v.Get(f.key)) && f.required {
			return false
		}
	}
	return true
}

// set stores j in the field d when j has the JSON type d's Go type takes,
// and reports whether it did.
func set(d reflect.Value, j *jsonv.Value) bool {
	if j == nil {
		return false
	}
	if d.Type() == base64Type {
		if !j.IsString() {
			return false
		}
		text, clipped := j.Text()
		d.Set(reflect.ValueOf(Base64{Text: text, Clipped: clipped}))
		return true
	}
	switch d.Kind() {
	case reflect.String:
		if !j.IsString() {
			return false
		}
		d.SetString(j.Str())
	case reflect.Bool:
		b, ok := j.BoolOK()
		if !ok {
			return false
		}
		d.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, ok := j.Int()
		if !ok || d.OverflowInt(n) {
			return false
		}
		d.SetInt(n)
	case reflect.Float64:
		x, ok := j.Float()
		if !ok {
			return false
		}
		d.SetFloat(x)
	case reflect.Slice:
		items := j.Items()
		if j.Kind != jsonv.Array {
			return false
		}
		out := reflect.MakeSlice(d.Type(), 0, len(items))
		for _, it := range items {
			e := reflect.New(d.Type().Elem()).Elem()
			if set(e, it) {
				out = reflect.Append(out, e)
			}
		}
		d.Set(out)
	case reflect.Pointer:
		p := reflect.New(d.Type().Elem())
		if !set(p.Elem(), j) {
			return false
		}
		d.Set(p)
	default:
		return false
	}
	return true
}
