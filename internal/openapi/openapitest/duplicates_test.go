package openapitest_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/openapi/openapitest"
)

func TestDuplicateKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		doc  string
		want string // in the error; "" for none
	}{
		"distinct keys":               {`{"a": 1, "b": {"a": 2, "b": [{"a": 3}]}}`, ""},
		"same key in sibling objects": {`{"x": {"k": 1}, "y": {"k": 2}}`, ""},
		"scalars and empties":         {`[1, "s", true, null, {}, []]`, ""},
		"at the top":                  {`{"a": 1, "a": 2}`, `line 1: key "a" twice in the object at ""`},
		"deep, on its own line":       {"{\"c\": {\"s\": {\n\"R\": {},\n\"R\": {\"x\": 1}}}}", `line 3: key "R" twice in the object at "/c/s"`},
		"inside an array":             {`{"l": [{}, {"k": 1, "k": 1}]}`, `key "k" twice in the object at "/l/1"`},
		"spelled two ways":            {`{"a": 1, "\u0061": 2}`, `key "a" twice`},
		"pointer escapes":             {`{"p": {"/a~b": {"k": 1, "k": 2}}}`, `at "/p/~1a~0b"`},
		"not JSON":                    {`{"a": }`, "line 1"},
		"two documents":               {`{} {}`, "data after the document"},
	} {
		t.Run(name, func(t *testing.T) {
			err := openapitest.DuplicateKeys([]byte(tc.doc))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
