package segment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Param is the request field a filter is read from: every refusal of
// Parse names a path below it, such as filter.all[2].op.
const Param = "filter"

// Parse reads a filter written in the filter language. Every refusal is
// a fail.KindInvalid error whose param is the path of the offending
// part: filter.any[0].not.value, filter.all[2].op.
func Parse(raw json.RawMessage) (Filter, error) {
	p := parser{}
	obj, err := object(raw, Param)
	if err != nil {
		return Filter{}, err
	}
	if groupKind(obj) == "" {
		return Filter{}, fail.Invalid(Param, `a filter is a group: {"all": [...]}, {"any": [...]} or {"not": {...}}`)
	}
	g, err := p.group(obj, Param, 1)
	if err != nil {
		return Filter{}, err
	}
	return Filter{Root: g}, nil
}

// parser counts the conditions read so far.
type parser struct {
	conditions int
}

// object reads raw as one JSON object, its members still raw.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil || len(obj) == 0 {
		return nil, fail.Invalid(path, `%s must be a group ({"all": [...]}, {"any": [...]} or {"not": {...}}) or a condition ({"field", "op", "value"})`, path)
	}
	return obj, nil
}

// groupKind is the group obj is, or "" when it names none.
func groupKind(obj map[string]json.RawMessage) GroupKind {
	for _, k := range []GroupKind{All, Any, Not} {
		if _, ok := obj[string(k)]; ok {
			return k
		}
	}
	return ""
}

// sortedKeys lists obj's keys in order, so a refusal names the same one
// every time.
func sortedKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *parser) node(raw json.RawMessage, path string, depth int) (Node, error) {
	obj, err := object(raw, path)
	if err != nil {
		return Node{}, err
	}
	if groupKind(obj) != "" {
		g, err := p.group(obj, path, depth)
		return Node{Group: &g}, err
	}
	c, err := p.condition(obj, path)
	return Node{Condition: &c}, err
}

func (p *parser) group(obj map[string]json.RawMessage, path string, depth int) (Group, error) {
	kind := groupKind(obj)
	for _, k := range sortedKeys(obj) {
		if k != string(kind) {
			return Group{}, fail.Invalid(path+"."+k, "a group holds exactly one of all, any or not, and nothing else")
		}
	}
	if depth > MaxDepth {
		return Group{}, fail.Invalid(path, "groups nest at most %d deep", MaxDepth)
	}
	here := path + "." + string(kind)
	if kind == Not {
		n, err := p.node(obj[string(Not)], here, depth+1)
		if err != nil {
			return Group{}, err
		}
		return Group{Kind: Not, Members: []Node{n}}, nil
	}
	var members []json.RawMessage
	if json.Unmarshal(obj[string(kind)], &members) != nil || len(members) == 0 {
		return Group{}, fail.Invalid(here, "%s must be an array of at least one group or condition", kind)
	}
	g := Group{Kind: kind}
	for i, m := range members {
		n, err := p.node(m, fmt.Sprintf("%s[%d]", here, i), depth+1)
		if err != nil {
			return Group{}, err
		}
		g.Members = append(g.Members, n)
	}
	return g, nil
}

func (p *parser) condition(obj map[string]json.RawMessage, path string) (Condition, error) {
	if p.conditions++; p.conditions > MaxConditions {
		return Condition{}, fail.Invalid(path, "a filter holds at most %d conditions", MaxConditions)
	}
	for _, k := range sortedKeys(obj) {
		if k != "field" && k != "op" && k != "value" {
			return Condition{}, fail.Invalid(path+"."+k, "unknown key %q: a condition is {\"field\", \"op\", \"value\"}", k)
		}
	}
	field, err := parseField(obj["field"], path+".field")
	if err != nil {
		return Condition{}, err
	}
	op, err := parseOp(obj["op"], field, path+".op")
	if err != nil {
		return Condition{}, err
	}
	value, err := parseValue(obj["value"], rule(field.Name, op), path+".value")
	if err != nil {
		return Condition{}, err
	}
	return Condition{Field: field, Op: op, Value: value}, nil
}

// fieldList names the fields, for a refusal.
const fieldList = "email, first_name, last_name, subscribed, tags, created_at or properties.<key>"

func parseField(raw json.RawMessage, path string) (Field, error) {
	var name string
	if raw == nil || json.Unmarshal(raw, &name) != nil {
		return Field{}, fail.Invalid(path, "field must be one of %s", fieldList)
	}
	if key, ok := strings.CutPrefix(name, string(FieldProperties)+"."); ok {
		if !contact.ValidPropertyKey(key) {
			return Field{}, fail.Invalid(path, "a property key is 1 to 64 characters a-z, 0-9 and _")
		}
		return Field{Name: FieldProperties, Property: key}, nil
	}
	if f := FieldName(name); f != FieldProperties && fieldRules[f] != nil {
		return Field{Name: f}, nil
	}
	return Field{}, fail.Invalid(path, "field must be one of %s", fieldList)
}

func parseOp(raw json.RawMessage, field Field, path string) (Op, error) {
	var name string
	if raw == nil || json.Unmarshal(raw, &name) != nil || !slices.Contains(allOps, Op(name)) {
		return "", fail.Invalid(path, "op must be one of %s", opsOf(field.Name))
	}
	op := Op(name)
	if rule(field.Name, op) == notAllowed {
		return "", fail.Invalid(path, "op %s does not apply to %s, which takes %s", op, field.Name, opsOf(field.Name))
	}
	return op, nil
}

func parseValue(raw json.RawMessage, kind valueKind, path string) (Value, error) {
	absent := raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
	if kind == valueNone {
		if !absent {
			return Value{}, fail.Invalid(path, "this op takes no value")
		}
		return Value{}, nil
	}
	refuse := fail.Invalid(path, "value must be %s", describe[kind])
	if absent {
		return Value{}, refuse
	}
	switch kind {
	case valueStrings, valueScalars:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 || len(items) > MaxInValues {
			return Value{}, refuse
		}
		item := valueString
		if kind == valueScalars {
			item = valueScalar
		}
		v := Value{}
		for i, it := range items {
			s, err := scalar(it, item, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return Value{}, err
			}
			v.List = append(v.List, s)
		}
		return v, nil
	case valueTime:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return Value{}, refuse
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return Value{}, refuse
		}
		return Value{Time: t}, nil
	case valueDays:
		var n float64
		if json.Unmarshal(raw, &n) != nil || n != math.Trunc(n) || n < 1 || n > MaxDays {
			return Value{}, refuse
		}
		return Value{Days: int(n)}, nil
	}
	s, err := scalar(raw, kind, path)
	return Value{Scalar: s}, err
}

// scalar reads one string, number or boolean of kind (valueString,
// valueBool, valueTag, valueNumber or valueScalar).
func scalar(raw json.RawMessage, kind valueKind, path string) (contact.Property, error) {
	refuse := fail.Invalid(path, "value must be %s", describe[kind])
	var p contact.Property
	if json.Unmarshal(raw, &p) != nil {
		return p, refuse
	}
	ok := false
	switch p.Kind {
	case contact.KindString:
		n := utf8.RuneCountInString(p.String)
		ok = (kind == valueString || kind == valueScalar) && n > 0 && n <= MaxStringValue ||
			kind == valueTag && contact.ValidTag(p.String)
	case contact.KindNumber:
		ok = kind == valueNumber || kind == valueScalar
	case contact.KindBool:
		ok = kind == valueBool || kind == valueScalar
	}
	if !ok {
		return contact.Property{}, refuse
	}
	return p, nil
}
