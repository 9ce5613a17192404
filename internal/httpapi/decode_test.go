package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

// jsonOfSize returns a valid thingInput body of exactly n bytes, padded
// with whitespace so that decoding it stays cheap.
func jsonOfSize(n int) string {
	const obj = `{"to":"a@example.com"}`
	return obj + strings.Repeat(" ", n-len(obj))
}

func TestDecodeJSON(t *testing.T) {
	const good = `{"to":"a@example.com","count":2,"tags":["x","y"]}`
	cases := map[string]struct {
		contentType string
		body        string
		wantStatus  int
		wantCode    string // "" for success
		wantParam   string
		want        thingInput
	}{
		"application/json": {
			contentType: "application/json", body: good,
			wantStatus: 201, want: thingInput{To: "a@example.com", Count: 2, Tags: []string{"x", "y"}},
		},
		"application/json with charset": {
			contentType: "application/json; charset=utf-8", body: good,
			wantStatus: 201, want: thingInput{To: "a@example.com", Count: 2, Tags: []string{"x", "y"}},
		},
		"media type in capitals": {
			contentType: "Application/JSON", body: good,
			wantStatus: 201, want: thingInput{To: "a@example.com", Count: 2, Tags: []string{"x", "y"}},
		},
		"leading and trailing whitespace": {
			contentType: "application/json", body: "\n  " + good + "\n",
			wantStatus: 201, want: thingInput{To: "a@example.com", Count: 2, Tags: []string{"x", "y"}},
		},
		"missing Content-Type": {
			body:       good,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "Content-Type",
		},
		"text/plain": {
			contentType: "text/plain", body: good,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "Content-Type",
		},
		"form encoded": {
			contentType: "application/x-www-form-urlencoded", body: "to=a@example.com",
			wantStatus: 400, wantCode: "invalid_field", wantParam: "Content-Type",
		},
		"unparsable Content-Type": {
			contentType: "application/json; charset", body: good,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "Content-Type",
		},
		"malformed JSON": {
			contentType: "application/json", body: `{"to":`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"syntax error": {
			contentType: "application/json", body: `{"to" "a"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"array": {
			contentType: "application/json", body: `[]`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"empty body": {
			contentType: "application/json", body: ``,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"whitespace body": {
			contentType: "application/json", body: " \n\t ",
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"null": {
			contentType: "application/json", body: `null`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"string": {
			contentType: "application/json", body: `"to"`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"string for a number": {
			contentType: "application/json", body: `{"to":"a@example.com","count":"x"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "count",
		},
		"fraction for a whole number": {
			contentType: "application/json", body: `{"to":"a@example.com","count":1.5}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "count",
		},
		"number for a string": {
			contentType: "application/json", body: `{"to":7}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "to",
		},
		"string for an array": {
			contentType: "application/json", body: `{"to":"a@example.com","tags":"x"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "tags",
		},
		"number in a string array": {
			contentType: "application/json", body: `{"to":"a@example.com","tags":["x",1]}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "tags[1]",
		},
		"unknown field": {
			contentType: "application/json", body: `{"bogus":1}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "bogus",
		},
		"unknown field without a name": {
			contentType: "application/json", body: `{"":1}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"unknown field after known ones": {
			contentType: "application/json", body: `{"to":"a@example.com","cc":"b@example.com"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "cc",
		},
		"a field named in capitals": {
			contentType: "application/json", body: `{"to":"first@example.com","TO":"second@example.com"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "TO",
		},
		"a field in another case alone": {
			contentType: "application/json", body: `{"To":"a@example.com"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "To",
		},
		"a field named twice": {
			contentType: "application/json", body: `{"to":"first@example.com","count":1,"to":"second@example.com"}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "to",
		},
		"an array field named twice": {
			contentType: "application/json", body: `{"to":"a@example.com","tags":["x"],"tags":["y"]}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "tags",
		},
		"a name written with an escape": {
			contentType: "application/json", body: `{"t\u006f":"a@example.com","tags":["x,\"y\"]}"]}`,
			wantStatus: 201, want: thingInput{To: "a@example.com", Tags: []string{`x,"y"]}`}},
		},
		"two objects": {
			contentType: "application/json", body: `{}{}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"object then garbage": {
			contentType: "application/json", body: `{"to":"a@example.com"} x`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"object then a stray brace": {
			contentType: "application/json", body: `{"to":"a@example.com"}}`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"object then a stray bracket": {
			contentType: "application/json", body: `{"to":"a@example.com"}]`,
			wantStatus: 400, wantCode: "invalid_field", wantParam: "body",
		},
		"required field absent": {
			contentType: "application/json", body: `{"count":1}`,
			wantStatus: 400, wantCode: "missing_field", wantParam: "to",
		},
		"body of exactly the limit": {
			contentType: "application/json", body: jsonOfSize(httpapi.MaxBodyBytes),
			wantStatus: 201, want: thingInput{To: "a@example.com"},
		},
		"body one byte over the limit": {
			contentType: "application/json", body: jsonOfSize(httpapi.MaxBodyBytes + 1),
			wantStatus: 413, wantCode: "message_too_large",
		},
		"body far over the limit": {
			contentType: "application/json", body: jsonOfSize(2 * httpapi.MaxBodyBytes),
			wantStatus: 413, wantCode: "message_too_large",
		},
	}
	h := newHandler()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := serve(h, request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: tc.contentType, body: tc.body})

			if tc.wantCode != "" {
				checkError(t, rec, tc.wantStatus, tc.wantCode, tc.wantParam)
				return
			}
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %.300s", rec.Code, tc.wantStatus, rec.Body)
			}
			got := decodeData[thingInput](t, rec)
			if got.To != tc.want.To || got.Count != tc.want.Count || !slices.Equal(got.Tags, tc.want.Tags) {
				t.Errorf("decoded %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeJSONMessagesNameTheField(t *testing.T) {
	cases := map[string]struct {
		body string
		want string // the message must contain it
	}{
		"wrong type":    {body: `{"count":"x"}`, want: "count"},
		"unknown field": {body: `{"bogus":1}`, want: "bogus"},
	}
	h := newHandler()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := serve(h, request{method: "POST", target: "/api/v1/things", key: keyLegacy, contentType: "application/json", body: tc.body})
			e := checkError(t, rec, 400, "invalid_field", tc.want)
			if !strings.Contains(e.Message, tc.want) {
				t.Errorf("message %q does not name %q", e.Message, tc.want)
			}
			if strings.Contains(e.Message, "json:") || strings.Contains(e.Message, "thingInput") {
				t.Errorf("message %q leaks decoder internals", e.Message)
			}
		})
	}
}

// The param of an unknown field or a field of the wrong type is its full
// path, array indexes included, at any depth; the path follows the keys
// as written, through embedded structs, maps and pointers.
func TestDecodeValueNamesTheFullPath(t *testing.T) {
	type deep struct {
		Y string `json:"y"`
	}
	type inner struct {
		Deep []*deep `json:"deep"`
	}
	type part struct {
		Name  string `json:"name"`
		Inner inner  `json:"inner"`
	}
	type Embedded struct {
		Promoted string `json:"promoted"`
	}
	type body struct {
		Embedded
		Parts  []part          `json:"parts"`
		ByName map[string]part `json:"by_name"`
		Any    any             `json:"any"`
		Raw    json.RawMessage `json:"raw"`
		Tags   []string        `json:"tags"`
	}
	cases := map[string]struct{ body, param string }{
		"unknown, top level":              {`{"promoted":"p","x":1}`, "x"},
		"unknown in an array item":        {`{"parts":[{"name":"a","x":1}]}`, "parts[0].x"},
		"unknown deep down":               {`{"parts":[{"name":"a"},{"inner":{"deep":[{"y":"1"},{"y":"2","z":3}]}}]}`, "parts[1].inner.deep[1].z"},
		"unknown under a map":             {`{"by_name":{"k":{"x":1}}}`, "by_name.k.x"},
		"keys matched ignoring case":      {`{"PARTS":[{"Name":"a","x":1}]}`, "PARTS[0].x"},
		"first of two, in document order": {`{"parts":[{"x":1}],"y":2}`, "parts[0].x"},
		"free-form values not looked in":  {`{"any":{"x":1},"raw":{"x":1},"w":1}`, "w"},
		"wrong type in an array item":     {`{"parts":[{"name":"a"},{"name":7}]}`, "parts[1].name"},
		"wrong type deep down":            {`{"parts":[{"inner":{"deep":[{"y":true}]}}]}`, "parts[0].inner.deep[0].y"},
		"wrong type in a string array":    {`{"tags":["a","b",3]}`, "tags[2]"},
		"object for an array":             {`{"parts":{"name":"a"}}`, "parts"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got body
			e, ok := fail.As(httpapi.DecodeValue([]byte(tc.body), &got))
			if !ok || e.Kind != fail.KindInvalid || e.Param != tc.param {
				t.Fatalf("DecodeValue = %v, want invalid %s", e, tc.param)
			}
		})
	}
}
