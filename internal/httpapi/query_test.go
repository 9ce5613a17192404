package httpapi

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
)

func TestCheckQuery(t *testing.T) {
	cases := map[string]struct{ raw, param string }{
		"empty":                   {"", ""},
		"plain":                   {"limit=5&cursor=abc", ""},
		"escaped":                 {"email=a%2Bb%40example.org", ""},
		"bad value escape":        {"cursor=%%%garbage", "cursor"},
		"bad name escape":         {"%zz=1", "%zz"},
		"escaped name, bad value": {"stat%75s=%g", "status"},
		"semicolon":               {"limit=5;status=sent", "limit"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkQuery(tc.raw)
			if tc.param == "" {
				if err != nil {
					t.Errorf("checkQuery(%q) = %v, want nil", tc.raw, err)
				}
				return
			}
			if e, ok := fail.As(err); !ok || e.Kind != fail.KindInvalid || e.Param != tc.param {
				t.Errorf("checkQuery(%q) = %v, want invalid %s", tc.raw, err, tc.param)
			}
		})
	} // A bad value without a name is refused too, with no param to give.
	if e, ok := fail.As(checkQuery("=%")); !ok || e.Kind != fail.KindInvalid || e.Param != "" {
		t.Errorf(`checkQuery("=%%") = %v, want invalid without a param`, e)
	}
}
