package httpapi

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/sesame-mail/sesame/internal/fail"
)

// exactNames refuses what encoding/json accepts silently: a field named
// twice in one object (it keeps the last) or spelled in another case than
// its struct field's ("TO" for "to"). body is JSON that decoded into a
// value of type t; one pass over its bytes, strings skipped, not decoded
// (a send's html is most of its body).
func exactNames(body []byte, t reflect.Type) error {
	s := nameScan{b: body}
	s.value(t, "")
	switch {
	case s.duplicate != "":
		return fail.Invalid(s.duplicate, "field %q appears more than once", s.field)
	case s.folded != "":
		return fail.Invalid(s.folded, "unknown field %q: field names match exactly", s.field)
	}
	return nil
}

// nameScan walks well-formed JSON to the first misnamed key.
type nameScan struct {
	b []byte
	i int
	// duplicate or folded is the param of the key found, field its name.
	duplicate, folded, field string
}

func (s *nameScan) done() bool { return s.duplicate != "" || s.folded != "" }

func (s *nameScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// value reads one value at path, of Go type t (nil: not looked into).
func (s *nameScan) value(t reflect.Type, path string) {
	s.space()
	if s.i >= len(s.b) {
		return
	}
	t = lookInto(t)
	switch s.b[s.i] {
	case '{':
		s.object(t, path)
	case '[':
		s.i++
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for n := 0; !s.done(); n++ {
			s.space()
			if s.i >= len(s.b) || s.b[s.i] == ']' {
				s.i++
				return
			}
			s.value(elem, path+"["+strconv.Itoa(n)+"]")
			s.space()
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
			}
		}
	case '"':
		s.str()
	default:
		for s.i < len(s.b) && s.b[s.i] != ',' && s.b[s.i] != '}' && s.b[s.i] != ']' {
			s.i++
		}
	}
}

func (s *nameScan) object(t reflect.Type, path string) {
	s.i++
	var seen []string // objects have few keys: a slice beats a map
	for !s.done() {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] == '}' {
			s.i++
			return
		}
		name := s.key()
		at := name
		if path != "" {
			at = path + "." + name
		}
		for _, k := range seen {
			if k == name {
				s.duplicate, s.field = at, name
				return
			}
		}
		seen = append(seen, name)
		var ft reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Map:
				ft = t.Elem()
			case reflect.Struct:
				var exact bool
				if ft, exact = fieldsOf(t).byName[name]; !exact {
					if _, _, found := fieldByJSONName(t, name); found {
						s.folded, s.field = at, name
						return
					}
				}
			}
		}
		s.space()
		s.i++ // ':'
		s.value(ft, at)
		s.space()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

// str skips a string and returns its raw bytes, quotes included, and
// whether it holds an escape.
func (s *nameScan) str() (raw []byte, escaped bool) {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i += 2
			continue
		case '"':
			s.i++
			return s.b[start:s.i], escaped
		}
		s.i++
	}
	return s.b[start:], escaped
}

// key reads an object's key, unescaped.
func (s *nameScan) key() string {
	raw, escaped := s.str()
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var name string
	_ = json.Unmarshal(raw, &name) // well formed: it decoded before
	return name
}
