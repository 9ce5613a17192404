package contacthttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

// body is a create or update request, each field kept raw so that an
// absent field (nil) and null (a cleared field) stay apart.
type body struct {
	Email      json.RawMessage `json:"email"`
	FirstName  json.RawMessage `json:"first_name"`
	LastName   json.RawMessage `json:"last_name"`
	Subscribed json.RawMessage `json:"subscribed"`
	Tags       json.RawMessage `json:"tags"`
	Properties json.RawMessage `json:"properties"`
}

var null = []byte("null")

// decodePatch reads the request body as a contact change; the caps are
// checked by the service.
func decodePatch(r *http.Request) (contact.Patch, error) {
	var b body
	if err := httpapi.DecodeJSON(r, &b); err != nil {
		return contact.Patch{}, err
	}
	var p contact.Patch
	var err error
	if b.Email != nil {
		if p.Email, err = decodeString(b.Email, "email"); err != nil {
			return contact.Patch{}, err
		}
	}
	if p.FirstName, err = decodeNullable(b.FirstName, "first_name"); err != nil {
		return contact.Patch{}, err
	}
	if p.LastName, err = decodeNullable(b.LastName, "last_name"); err != nil {
		return contact.Patch{}, err
	}
	if b.Subscribed != nil {
		var v bool
		if bytes.Equal(b.Subscribed, null) || json.Unmarshal(b.Subscribed, &v) != nil {
			return contact.Patch{}, fail.Invalid("subscribed", "subscribed must be true or false")
		}
		p.Subscribed = &v
	}
	if b.Tags != nil {
		tags, err := decodeTags(b.Tags)
		if err != nil {
			return contact.Patch{}, err
		}
		p.Tags = &tags
	}
	if b.Properties != nil {
		if p.Properties, err = decodeProperties(b.Properties); err != nil {
			return contact.Patch{}, err
		}
	}
	return p, nil
}

func decodeString(raw json.RawMessage, param string) (*string, error) {
	var s string
	if bytes.Equal(raw, null) || json.Unmarshal(raw, &s) != nil {
		return nil, fail.Invalid(param, "%s must be a string", param)
	}
	return &s, nil
}

// decodeNullable reads a string field that null clears.
func decodeNullable(raw json.RawMessage, param string) (contact.Nullable[string], error) {
	if raw == nil {
		return contact.Nullable[string]{}, nil
	}
	if bytes.Equal(raw, null) {
		return contact.Nullable[string]{Set: true}, nil
	}
	s, err := decodeString(raw, param)
	return contact.Nullable[string]{Set: true, Value: s}, err
}

func decodeTags(raw json.RawMessage) ([]string, error) {
	var items []json.RawMessage
	if bytes.Equal(raw, null) || json.Unmarshal(raw, &items) != nil {
		return nil, fail.Invalid("tags", "tags must be an array of strings")
	}
	tags := make([]string, 0, len(items))
	for i, it := range items {
		s, err := decodeString(it, fmt.Sprintf("tags[%d]", i))
		if err != nil {
			return nil, err
		}
		tags = append(tags, *s)
	}
	return tags, nil
}

// decodeProperties reads the properties object: a string, number or
// boolean per key, null to remove the key; nested objects and arrays are
// refused with the key's param.
func decodeProperties(raw json.RawMessage) (map[string]*contact.Property, error) {
	var fields map[string]json.RawMessage
	if bytes.Equal(raw, null) || json.Unmarshal(raw, &fields) != nil {
		return nil, fail.Invalid("properties", "properties must be an object")
	}
	out := make(map[string]*contact.Property, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		v := fields[k]
		if bytes.Equal(v, null) {
			out[k] = nil
			continue
		}
		var p contact.Property
		if err := json.Unmarshal(v, &p); err != nil {
			return nil, fail.Invalid("properties."+k, "a property value is a string, a number or a boolean, not an object or an array")
		}
		out[k] = &p
	}
	return out, nil
}
