package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/sesame-mail/sesame/internal/fail"
)

// MaxBodyBytes caps a request body. Lambda takes at most 6 MB per
// synchronous invocation, headers and event included, so bodies stop at 5 MB.
const MaxBodyBytes = 5 << 20

// DecodeJSON reads the request body as one JSON object into dst. It answers
// the client errors of the API core: Content-Type not JSON, body over
// MaxBodyBytes, malformed JSON, a field of the wrong type, an unknown field.
func DecodeJSON(r *http.Request, dst any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return fail.Invalid("Content-Type", "Content-Type must be application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail.Errorf(fail.KindTooLarge, "", "", "request body exceeds the %d MB limit; host large attachments and pass their url", MaxBodyBytes>>20)
		}
		return fail.Invalid("body", "request body could not be read")
	}
	return DecodeValue(body, dst)
}

// DecodeValue decodes one JSON object held in body (e.g. one item of a
// batch) with the same rules as DecodeJSON.
func DecodeValue(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 || bytes.TrimSpace(body)[0] != '{' {
		return fail.Invalid("body", "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, body, reflect.TypeOf(dst))
	}
	// dec.More is false before a stray ']' or '}', so check for the end itself.
	if _, err := dec.Token(); err != io.EOF {
		return fail.Invalid("body", "request body must hold exactly one JSON object")
	}
	return exactNames(body, reflect.TypeOf(dst))
}

// decodeError turns err, from decoding body into dst of type t, into the
// API's answer, naming the offending field by its full path.
func decodeError(err error, body []byte, t reflect.Type) error {
	if e, ok := fail.As(err); ok {
		return e // a field's own UnmarshalJSON named the problem
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		param := typeErr.Field
		if p, ok := pathOf(wrongKind, body, t); ok && withoutIndexes(p) == param {
			param = p
		}
		if param == "" {
			param = "body"
		}
		return fail.Invalid(param, "%s must be %s", param, jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return fail.Invalid("body", "request body is not valid JSON")
	}
	// encoding/json reports unknown fields only as text: `json: unknown field "x"`.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		field := strings.Trim(name, `"`)
		param := field
		if p, ok := pathOf(unknownField, body, t); ok && (p == field || strings.HasSuffix(p, "."+field)) {
			param = p
		}
		if field == "" {
			param = "body" // a field named "" has no name to give as param
		}
		return fail.Invalid(param, "unknown field %q", field)
	}
	return fail.Invalid("body", "request body is not valid JSON")
}

// withoutIndexes is param as encoding/json writes a path: a.b, not a[0].b.
func withoutIndexes(param string) string {
	var b strings.Builder
	inIndex := false
	for _, r := range param {
		switch {
		case r == '[':
			inIndex = true
		case r == ']':
			inIndex = false
		case !inIndex:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32":
		return "a number"
	}
	return fmt.Sprintf("of another type (%s)", goKind)
}

// checkQuery refuses a query string that is not valid percent-encoding
// (or holds a raw ';'): Go's parser would silently drop the bad pair, and a dropped cursor or
// filter would answer a page the client did not ask for. param names the
// parameter (its raw name when the name itself is malformed).
func checkQuery(raw string) error {
	for pair := range strings.SplitSeq(raw, "&") {
		name, value, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(name)
		if err != nil || strings.Contains(name, ";") {
			return fail.Invalid(name, "query parameter %q is not valid percent-encoding", name)
		}
		if _, err := url.QueryUnescape(value); err != nil || strings.Contains(value, ";") {
			if key == "" { // no name to give as param
				return fail.Invalid("", "the value of a query parameter without a name is not valid percent-encoding")
			}
			return fail.Invalid(key, "the value of %s is not valid percent-encoding", key)
		}
	}
	return nil
}
