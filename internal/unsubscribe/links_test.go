package unsubscribe_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

func TestLinksURL(t *testing.T) {
	tok := unsubscribe.Token{WorkspaceID: newID(), ContactID: newID()}
	cases := map[string]struct {
		base, prefix string
	}{
		"API stage":      {"https://abc123.execute-api.eu-west-1.amazonaws.com/prod", "https://abc123.execute-api.eu-west-1.amazonaws.com/prod/unsubscribe/"},
		"trailing slash": {"https://mail.example.com/", "https://mail.example.com/unsubscribe/"},
		"local stack":    {"http://127.0.0.1:8080", "http://127.0.0.1:8080/unsubscribe/"},
		"localhost":      {"http://localhost:8080", "http://localhost:8080/unsubscribe/"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := unsubscribe.Links{BaseURL: tc.base, Signer: signer}.URL(tok)
			if err != nil {
				t.Fatal(err)
			}
			rest, ok := strings.CutPrefix(u, tc.prefix)
			if !ok {
				t.Fatalf("URL = %q, want it under %q", u, tc.prefix)
			}
			if got, err := signer.Verify(rest); err != nil || got != tok {
				t.Errorf("the link's token reads %+v, %v", got, err)
			}
		})
	}
}

// A link that a mailbox provider would refuse for one-click, or that could
// break the List-Unsubscribe header, is never built.
func TestCheckBaseURLRefuses(t *testing.T) {
	for name, base := range map[string]string{
		"empty":          "",
		"relative":       "/prod",
		"http, public":   "http://mail.example.com",
		"query":          "https://mail.example.com/?a=1",
		"fragment":       "https://mail.example.com/#x",
		"user info":      "https://u:p@mail.example.com",
		"angle bracket":  "https://mail.example.com/a>b",
		"comma":          "https://mail.example.com/a,b",
		"another scheme": "ftp://mail.example.com",
	} {
		t.Run(name, func(t *testing.T) {
			if err := unsubscribe.CheckBaseURL(base); err == nil {
				t.Errorf("CheckBaseURL(%q) = nil", base)
			}
			if u, err := (unsubscribe.Links{BaseURL: base, Signer: signer}).URL(unsubscribe.Token{WorkspaceID: newID(), ContactID: newID()}); err == nil {
				t.Errorf("URL = %q", u)
			}
		})
	}
}
