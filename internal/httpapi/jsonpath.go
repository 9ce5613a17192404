package httpapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// encoding/json names an unknown field by its key alone and a field of the
// wrong type by a dotted path without array indices. A param must say
// where the field is (attachments[0].x), so the body is walked again,
// beside the type it was decoded into, to the first such field in
// document order (the one encoding/json reports).

// finding is what a walk looks for.
type finding int

const (
	unknownField finding = iota // a key the object's struct has no field for
	wrongKind                   // a value its field cannot hold
)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// pathOf is the param of the first f in body, decoded into a value of
// type t; ok is false when the walk finds none.
func pathOf(f finding, body []byte, t reflect.Type) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	path, found, err := f.walk(dec, t, "")
	return path, found && err == nil
}

// walk reads one value at path whose Go type is t (nil: not looked into).
func (f finding) walk(dec *json.Decoder, t reflect.Type, path string) (string, bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", false, err
	}
	t = lookInto(t)
	kind := reflect.Invalid
	if t != nil {
		kind = t.Kind()
	}
	wrong := func(ok bool) bool { return f == wrongKind && t != nil && !ok }
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			if wrong(kind == reflect.Slice || kind == reflect.Array) {
				return path, true, nil
			}
			var elem reflect.Type
			if t != nil {
				elem = t.Elem()
			}
			for i := 0; dec.More(); i++ {
				if p, found, err := f.walk(dec, elem, path+"["+strconv.Itoa(i)+"]"); found || err != nil {
					return p, found, err
				}
			}
		} else {
			if wrong(kind == reflect.Struct || kind == reflect.Map) {
				return path, true, nil
			}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return "", false, err
				}
				name, _ := key.(string)
				at := name
				if path != "" {
					at = path + "." + name
				}
				var ft reflect.Type
				switch kind {
				case reflect.Map:
					ft = t.Elem()
				case reflect.Struct:
					field, _, ok := fieldByJSONName(t, name)
					if !ok && f == unknownField {
						return at, true, nil
					}
					ft = field
				}
				if p, found, err := f.walk(dec, ft, at); found || err != nil {
					return p, found, err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return "", false, err
	case string:
		return path, wrong(kind == reflect.String || kind == reflect.Slice && t.Elem().Kind() == reflect.Uint8), nil
	case json.Number:
		return path, wrong(kind >= reflect.Int && kind <= reflect.Float64), nil
	case bool:
		return path, wrong(kind == reflect.Bool), nil
	}
	return "", false, nil // null fits anything
}

// lookInto is t without its pointers, or nil when encoding/json does not
// decode into it field by field: an interface, or a type that decodes
// itself (its own errors name their param).
func lookInto(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	for _, u := range []reflect.Type{jsonUnmarshaler, textUnmarshaler} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return nil
		}
	}
	return t
}

// fieldByJSONName is the type of struct t's field that encoding/json
// decodes key into: by its tag name or Go name, exactly or else ignoring
// case (exact is false), through embedded structs.
func fieldByJSONName(t reflect.Type, key string) (field reflect.Type, exact, ok bool) {
	fields := fieldsOf(t)
	if ft, ok := fields.byName[key]; ok {
		return ft, true, true
	}
	for _, f := range fields.inOrder {
		if strings.EqualFold(f.name, key) {
			return f.typ, false, true
		}
	}
	return nil, false, false
}

// jsonFields are a struct type's fields as encoding/json names them.
type jsonFields struct {
	byName  map[string]reflect.Type
	inOrder []jsonField
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// fieldIndex caches each struct type's jsonFields.
var fieldIndex sync.Map // reflect.Type → jsonFields

// fieldsOf is t's fields by their JSON names (tag name or Go name),
// promoted ones included, the first of a name kept.
func fieldsOf(t reflect.Type) jsonFields {
	if f, ok := fieldIndex.Load(t); ok {
		return f.(jsonFields)
	}
	out := jsonFields{byName: map[string]reflect.Type{}}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			if f.Anonymous && lookInto(f.Type) != nil && lookInto(f.Type).Kind() == reflect.Struct {
				continue // promoted: VisibleFields lists its fields
			}
			name = f.Name
		}
		if _, taken := out.byName[name]; !taken {
			out.byName[name] = f.Type
			out.inOrder = append(out.inOrder, jsonField{name, f.Type})
		}
	}
	fieldIndex.Store(t, out)
	return out
}
